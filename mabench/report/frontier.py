"""The frontier: how far each method's IL is from the certified lower bound and from the best known.

Per real data set and k (the registry cells of registry/best_known), for every method of the results
table (the default run's cells; mean IL over seeds when several), with ``bound`` from
registry/best_known/bounds.csv (`mabench bound ... --store`) and ``best`` from index.csv:

* ``gap_bound`` = 100·(IL − bound)/IL — the most of the method's IL that any partition could remove;
* ``gap_best``  = 100·(IL − best)/IL  — the share a known partition does remove.

The registry's own row (method ``best known``) has gap_best = 0 and gap_bound = the cell's certified
optimality gap. Both gaps are shares of the method's IL, so the two columns read on one scale.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mabench import io

ORDER = {"tarragona": 0, "census": 1, "eia": 2}


def cells(root=None) -> pd.DataFrame:
    """dataset, k, best, bound, gap (%) for each registry cell."""
    from mabench.optimum import best_known, bounds

    index = best_known.load_index(root)
    bnd = bounds.load(root)
    merged = index[["dataset", "k", "il"]].rename(columns={"il": "best"}).merge(
        bnd[["dataset", "k", "il_bound"]].rename(columns={"il_bound": "bound"}), on=["dataset", "k"], how="left")
    merged["gap"] = 100.0 * (merged["best"] - merged["bound"]) / merged["best"]
    return merged


def table(results: pd.DataFrame | None, root=None) -> pd.DataFrame:
    """One row per (dataset, k, method): il, bound, best, gap_bound, gap_best (see the module doc)."""
    from mabench.report.figure_data import method_label

    cell = cells(root)
    rows = [{"dataset": r["dataset"], "k": int(r["k"]), "method": "best known", "il": r["best"], "bound": r["bound"],
             "best": r["best"]} for r in cell.to_dict("records")]
    if results is not None and len(results):
        res = results[results["dataset"].isin(cell["dataset"]) & (results.get("dataset_params", "") == "")] \
            if "dataset_params" in results else results[results["dataset"].isin(cell["dataset"])]
        res = res.assign(method=[method_label(a, p) for a, p in zip(res["algorithm"], res["params"])])
        mean = res.groupby(["dataset", "k", "method"], as_index=False)["il"].mean()
        mean = mean.merge(cell[["dataset", "k", "bound", "best"]], on=["dataset", "k"])
        rows += mean.to_dict("records")
    frame = pd.DataFrame(rows)
    frame["gap_bound"] = 100.0 * (frame["il"] - frame["bound"]) / frame["il"]
    frame["gap_best"] = 100.0 * (frame["il"] - frame["best"]) / frame["il"]
    frame["_o"] = frame["dataset"].map(ORDER).fillna(9)
    frame = frame.sort_values(["_o", "k", "il"]).drop(columns="_o").reset_index(drop=True)
    return frame


def write(frame: pd.DataFrame, out_dir) -> list[Path]:
    """frontier.{md,csv} in ``out_dir``."""
    out_dir = Path(out_dir)
    lines = ["# The frontier: each method's IL against the certified lower bound and the best known", "",
             "Gap to bound = 100·(IL − bound)/IL, gap to best = 100·(IL − best known)/IL (docs/bounds.md); "
             "bound and best known from registry/best_known (bounds.csv, index.csv).", "",
             "| Data set | k | Method | IL | Bound | Best known | Gap to bound % | Gap to best % |",
             "|---|---|---|---|---|---|---|---|"]
    for r in frame.to_dict("records"):
        lines.append(f"| {r['dataset']} | {r['k']} | {r['method']} | {r['il']:.4f} | {r['bound']:.4f} | "
                     f"{r['best']:.4f} | {r['gap_bound']:.1f} | {r['gap_best']:.1f} |")
    io.write_text(out_dir / "frontier.md", "\n".join(lines) + "\n")
    with io.atomic_path(out_dir / "frontier.csv") as tmp:
        frame.to_csv(tmp, index=False, float_format="%.8f")
    return [out_dir / "frontier.md", out_dir / "frontier.csv"]
