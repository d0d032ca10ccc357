"""The leaderboard: every method a results table ran, per data set and k, ranked by IL.

One row per (data set, method, k): the metrics the configuration computed (IL, DLD, ID, SI, …; means
over draws), the algorithm's time and the peak memory, the rank of the method among the methods run on
that data set at that k (1 = lowest IL; ties share the best rank), and for catalog data sets the gap to
the best-known partition (registry/best_known: IL − best-known IL, in IL points). Methods from
``MABENCH_HOME`` (the run records name their file) are marked, so an author finds their own at once.
Written as ``leaderboard.{md,csv,tex}`` beside the regenerated tables (``mabench tables``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io

# Metrics shown when the results hold them, in this order (IL first: the rank is by IL)
METRICS = ["il", "dld", "rld", "id", "si", "g_dr", "g_il"]


def table(results: pd.DataFrame, best_known: pd.DataFrame | None = None) -> pd.DataFrame:
    """The leaderboard rows (see the module docstring); ``best_known``: registry/best_known's index."""
    frame = results.copy()
    for column, default in (("dataset_params", ""), ("params", ""), ("seed", 0)):
        if column not in frame:
            frame[column] = default
    extra = frame["dataset_params"].fillna("").astype(str)
    frame["data"] = frame["dataset"].astype(str) + np.where(extra != "", "[" + extra + "]", "")
    if "algo_id" not in frame:
        frame["algo_id"] = frame["algorithm"].astype(str)
    frame["user"] = frame["plugin_path"].notna() if "plugin_path" in frame else False
    metrics = [m for m in METRICS if m in frame.columns and frame[m].notna().any()]
    agg = {m: "mean" for m in metrics}
    agg.update({"seed": "nunique", "user": "max", "algorithm": "first", "params": "first"})
    if "seconds" in frame:
        agg["seconds"] = "mean"
    if "max_rss_mb" in frame:
        agg["max_rss_mb"] = "max"
    out = frame.groupby(["data", "algo_id", "k"], sort=True).agg(agg).reset_index().rename(columns={"seed": "draws"})
    if "il" in out:
        out["rank"] = out.groupby(["data", "k"])["il"].rank(method="min").astype("Int64")
        out["gap_best_known"] = np.nan
        if best_known is not None and len(best_known):
            best = best_known.groupby(["dataset", "k"])["il"].min()
            keys = list(zip(out["data"], out["k"].astype(int)))
            out["gap_best_known"] = [il - best[key] if key in best.index else np.nan for key, il in zip(keys, out["il"])]
        out = out.sort_values(["data", "k", "rank", "algo_id"], kind="stable")
    return out.reset_index(drop=True)


def _num(x, digits: int = 4) -> str:
    return "" if x is None or (isinstance(x, float) and not np.isfinite(x)) or pd.isna(x) else f"{x:.{digits}f}"


def _shown(board: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    metrics = [m for m in METRICS if m in board.columns]
    head = ["data set", "k", "rank", "method", *[m.upper() for m in metrics], "gap to best-known",
            "seconds", "peak MB", "draws"]
    rows = []
    for r in board.itertuples(index=False):
        method = f"{r.algo_id}" + (" ★" if r.user else "")
        rows.append([r.data, str(r.k), "" if pd.isna(getattr(r, "rank", np.nan)) else str(r.rank), method,
                     *[_num(getattr(r, m)) for m in metrics], _num(getattr(r, "gap_best_known", np.nan)),
                     _num(getattr(r, "seconds", np.nan), 3), _num(getattr(r, "max_rss_mb", np.nan), 0),
                     str(r.draws)])
    return head, rows


def markdown(board: pd.DataFrame) -> str:
    head, rows = _shown(board)
    lines = ["# Leaderboard", "",
             "Every method this run computed, per data set and k, ranked by IL (1 = lowest; means over draws). "
             "★ = a method from MABENCH_HOME. Gap to best-known: IL − the best-known partition's IL "
             "(registry/best_known), in IL points.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def latex(board: pd.DataFrame) -> str:
    head, rows = _shown(board)
    esc = lambda t: t.replace("_", r"\_").replace("★", r"$\star$")  # noqa: E731
    lines = [r"\begin{tabular}{" + "l" * 4 + "r" * (len(head) - 4) + "}", r"\hline",
             " & ".join(esc(h) for h in head) + r" \\", r"\hline"]
    lines += [" & ".join(esc(c) for c in row) + r" \\" for row in rows]
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def write(results: pd.DataFrame, out_dir, best_known: pd.DataFrame | None = None) -> pd.DataFrame:
    """``leaderboard.{md,csv,tex}`` under ``out_dir``; returns the rows."""
    board = table(results, best_known)
    out_dir = Path(out_dir)
    io.write_text(out_dir / "leaderboard.md", markdown(board))
    io.write_text(out_dir / "leaderboard.tex", latex(board))
    io.write_text(out_dir / "leaderboard.csv", board.to_csv(index=False, float_format="%.10g"))
    return board
