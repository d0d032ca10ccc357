"""The leaderboard: every method a results table ran, per data set and k, ranked by IL.

One row per (data set, method, k): the metrics the configuration computed (IL, DLD, ID, SI, …; means
over draws), the rank of the method among the methods run on that data set at that k (1 = lowest IL;
ties share the best rank), and for catalog data sets the gap to the best-known partition
(registry/best_known: IL − best-known IL) next to the gap to the certified lower bound
(registry/best_known/bounds.csv, `mabench bound`: IL − bound), both in IL points: the optimum lies
between the two, so the first says how much a known partition beats the method by, the second the most
any partition could. Methods from ``MABENCH_HOME`` (the run records name their file) are marked, so an
author finds their own at once. Written as ``leaderboard.{md,csv,tex}`` beside the regenerated tables
(``mabench tables``); the HTML page with a figure per data set is :mod:`mabench.report.leaderboard_page`.

The algorithm's time and peak memory are measurements, not results: a re-run gives other values. They
go to ``leaderboard_cost.{md,csv}`` (same rows, same order), so that every other file the tables stage
writes is byte-identical for the same inputs and seeds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io

# Metrics shown when the results hold them, in this order (IL first: the rank is by IL)
METRICS = ["il", "dld", "rld", "id", "si", "g_dr", "g_il"]


def table(results: pd.DataFrame, best_known: pd.DataFrame | None = None,
          bounds: pd.DataFrame | None = None) -> pd.DataFrame:
    """The leaderboard rows (see the module docstring); ``best_known``: registry/best_known's index,
    ``bounds``: its bounds.csv (columns dataset, k, il_bound)."""
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
        keys = list(zip(out["data"], out["k"].astype(int)))
        for column, ref, value in (("gap_best_known", best_known, "il"), ("gap_bound", bounds, "il_bound")):
            out[column] = np.nan
            if ref is not None and len(ref):
                best = ref.groupby(["dataset", "k"])[value].min()
                out[column] = [il - best[key] if key in best.index else np.nan for key, il in zip(keys, out["il"])]
        out = out.sort_values(["data", "k", "rank", "algo_id"], kind="stable")
    return out.reset_index(drop=True)


def _num(x, digits: int = 4) -> str:
    return "" if x is None or (isinstance(x, float) and not np.isfinite(x)) or pd.isna(x) else f"{x:.{digits}f}"


# What a re-run measures anew (leaderboard_cost), never in the deterministic leaderboard files
COST = ["seconds", "max_rss_mb"]
COST_FILES = ("leaderboard_cost.md", "leaderboard_cost.csv")


def _row_head(r) -> list[str]:
    method = f"{r.algo_id}" + (" ★" if r.user else "")
    return [r.data, str(r.k), "" if pd.isna(getattr(r, "rank", np.nan)) else str(r.rank), method]


def _shown(board: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    metrics = [m for m in METRICS if m in board.columns]
    head = ["data set", "k", "rank", "method", *[m.upper() for m in metrics], "gap to best-known", "gap to bound",
            "draws"]
    rows = [[*_row_head(r), *[_num(getattr(r, m)) for m in metrics], _num(getattr(r, "gap_best_known", np.nan)),
             _num(getattr(r, "gap_bound", np.nan)), str(r.draws)] for r in board.itertuples(index=False)]
    return head, rows


def _table_md(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head), *("| " + " | ".join(row) + " |" for row in rows)]


def markdown(board: pd.DataFrame) -> str:
    lines = ["# Leaderboard", "",
             "Every method this run computed, per data set and k, ranked by IL (1 = lowest; means over draws). "
             "★ = a method from MABENCH_HOME. Gap to best-known: IL − the best-known partition's IL "
             "(registry/best_known); gap to bound: IL − the certified lower bound (registry/best_known/bounds.csv, "
             "docs/bounds.md); both in IL points (the optimum lies between them). Time and memory: "
             "[leaderboard_cost.md](leaderboard_cost.md).",
             "", *_table_md(*_shown(board))]
    return "\n".join(lines) + "\n"


def cost_markdown(board: pd.DataFrame) -> str:
    """The measured algorithm time (mean over draws) and peak memory (max) of each leaderboard row."""
    rows = [[*_row_head(r), _num(getattr(r, "seconds", np.nan), 3), _num(getattr(r, "max_rss_mb", np.nan), 0)]
            for r in board.itertuples(index=False)]
    lines = ["# Leaderboard: time and memory", "",
             "Measured in this run on this machine (a re-run measures anew): the algorithm's seconds (mean over "
             "draws) and the cell's peak resident memory (max over draws). Rows as in "
             "[leaderboard.md](leaderboard.md).", "",
             *_table_md(["data set", "k", "rank", "method", "seconds", "peak MB"], rows)]
    return "\n".join(lines) + "\n"


def latex(board: pd.DataFrame) -> str:
    head, rows = _shown(board)
    esc = lambda t: t.replace("_", r"\_").replace("★", r"$\star$")  # noqa: E731
    lines = [r"\begin{tabular}{" + "l" * 4 + "r" * (len(head) - 4) + "}", r"\hline",
             " & ".join(esc(h) for h in head) + r" \\", r"\hline"]
    lines += [" & ".join(esc(c) for c in row) + r" \\" for row in rows]
    lines += [r"\hline", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def references(root=None) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """(registry/best_known's index, its bounds.csv or None when there is none)."""
    from mabench.errors import UserError
    from mabench.optimum import best_known, bounds

    try:
        bound = bounds.load(root)
    except UserError:
        bound = None
    return best_known.load_index(root), bound


def write(results: pd.DataFrame, out_dir, best_known: pd.DataFrame | None = None,
          bounds: pd.DataFrame | None = None) -> pd.DataFrame:
    """``leaderboard.{md,csv,tex}`` and ``leaderboard_cost.{md,csv}`` under ``out_dir``; returns the rows."""
    board = table(results, best_known, bounds)
    out_dir = Path(out_dir)
    cost = [c for c in COST if c in board.columns]
    io.write_text(out_dir / "leaderboard.md", markdown(board))
    io.write_text(out_dir / "leaderboard.tex", latex(board))
    io.write_text(out_dir / "leaderboard.csv", board.drop(columns=cost).to_csv(index=False, float_format="%.10g"))
    io.write_text(out_dir / "leaderboard_cost.md", cost_markdown(board))
    keys = ["data", "algo_id", "k", "rank"] if "rank" in board else ["data", "algo_id", "k"]
    io.write_text(out_dir / "leaderboard_cost.csv", board[keys + cost].to_csv(index=False, float_format="%.10g"))
    return board
