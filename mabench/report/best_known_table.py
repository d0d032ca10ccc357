"""The best-known table (``mabench best-known table``): per registry cell, the seeds' best published
IL, the verified best-known partition's IL and the certified bound, read from the optimum layer's
files (:mod:`mabench.optimum.best_known`, :mod:`mabench.optimum.bounds`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from mabench import io
from mabench.errors import UserError
from mabench.optimum import bounds
from mabench.optimum.best_known import dataset_order, verify


def best_published(registry: pd.DataFrame | None = None) -> pd.DataFrame:
    """Lowest published IL per (dataset, k) among the registry rows marked best-known candidates:
    ICSM Table 4 (both columns)."""
    from mabench.report import published

    registry = published.load() if registry is None else registry
    rows = registry[(registry["source"] == "icsm2015") & (registry["table"] == "Table 4") & (registry["metric"] == "il")]
    out = []
    for (ds, k), part in rows.groupby(["dataset", "k"]):
        vals = part["value"].astype(float)
        i = int(vals.to_numpy().argmin())
        out.append({"dataset": ds, "k": int(k), "published": float(vals.iloc[i]), "published_as": part["value"].iloc[i],
                    "published_by": f"{part['column'].iloc[i]} (003_58f0e37d459aa4df.txt Table 4)"})
    return pd.DataFrame(out)


def _strictly(row) -> str:
    if row["below"]:
        return "yes"
    return "no" if row["below_possible"] else f"cannot (bound ≥ {row['published'] - 0.005:g})"


def table(out_dir, root=None, registry=None) -> pd.DataFrame:
    """best_known.{md,csv}: per data set and k, the seeds' best published IL, the harness's
    verified best, the gap (harness − published) and whether the harness is at or below it."""
    report, problems = verify(root)
    pub = best_published(registry)
    merged = report.merge(pub, on=["dataset", "k"], how="outer")
    merged["_o"] = merged["dataset"].map(dataset_order)
    merged = merged.sort_values(["_o", "k"]).drop(columns="_o")
    merged["gap"] = merged["il_recomputed"] - merged["published"]
    merged["beats"] = merged["il_recomputed"] <= merged["published"]
    merged["below"] = merged["il_recomputed"] < merged["published"] - 0.005  # one printed unit below
    try:
        bnd = bounds.load(root)[["dataset", "k", "il_bound"]]
        merged = merged.merge(bnd, on=["dataset", "k"], how="left")
    except UserError:
        merged["il_bound"] = float("nan")
    merged["gap_pct"] = 100.0 * (merged["il_recomputed"] - merged["il_bound"]) / merged["il_recomputed"]
    # a bound at or above the target proves that no partition is one printed unit below the print
    merged["below_possible"] = ~(merged["il_bound"] >= merged["published"] - 0.005)
    lines = ["# Best-known partitions against the seeds' best published IL", "",
             "Harness = the verified partition in registry/best_known (IL recomputed from the data, "
             "z-scores, IL = 100·SSE/SST); Published = the lowest IL any seed prints for the cell "
             "(003_58f0e37d459aa4df.txt Table 4, ICSM and LS columns); Gap = harness − published. "
             "At or below: the unrounded harness IL is ≤ the printed (2-decimal) value.", "",
             "Bound = the certified lower bound (registry/best_known/bounds.csv, `mabench bound`, docs/bounds.md); "
             "Gap % = 100·(harness − bound)/harness, the most by which the optimum can lie below the harness. "
             "Strictly below says \"cannot\" where the bound is already at or above the printed value − 0.005: "
             "no partition of that data set at that k is one printed unit below the print.", "",
             "| Data set | k | Published | by | Harness | Gap | At or below | Strictly below | Bound | Gap % | Method | Budget | Groups (min–max) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in merged.to_dict("records"):
        lines.append(f"| {r['dataset']} | {r['k']} | {r.get('published_as', '')} | {r.get('published_by', '')} | "
                     f"{r['il_recomputed']:.4f} | {r['gap']:+.4f} | {'yes' if r['beats'] else 'no'} | "
                     f"{_strictly(r)} | {r['il_bound']:.4f} | {r['gap_pct']:.1f} | {r['method']} | "
                     f"{r['budget']} | {r['min_group']}–{r['max_group']} |")
    n_beat = int(merged["beats"].sum())
    lines += ["", f"At or below the published value in {n_beat} of {len(merged)} cells; strictly below "
              f"(by one printed unit, 0.005) in {int(merged['below'].sum())}; proven impossible in "
              f"{int((~merged['below_possible']).sum())}."]
    if problems:
        lines += ["", "## Verification problems", ""] + [f"* {p}" for p in problems]
    out_dir = Path(out_dir)
    io.write_text(out_dir / "best_known.md", "\n".join(lines) + "\n")
    with io.atomic_path(out_dir / "best_known.csv") as tmp:
        merged.to_csv(tmp, index=False, float_format="%.8f")
    return merged
