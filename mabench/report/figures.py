"""What each figure of the report shows, as a :class:`~mabench.report.figure_spec.FigureSpec`: pure
functions from the tables to a tidy table of the numbers drawn. :mod:`mabench.report.render` draws
any spec; nothing here imports matplotlib, so each figure's numbers are tested without drawing.

Everything is derived from two tables, so new algorithms and new registry rows need no plotting code:

* ``compared`` — :func:`mabench.report.published.compare` of ``registry/published.csv`` against the results:
  one row per published number with its reproduced value and verdict;
* ``results`` — the workflow's tidy results table (one row per cell).

Figures (each returns a spec; the per-table ones None when there is nothing to draw):

* :func:`table_figure` — one per source table. When the table varies k, one panel per data set and
  metric with the metric against k (published hollow, reproduced filled), plus a row of
  "% difference to MDAV" panels when the methods of a panel lie within a few percent of each other.
  When it varies a size parameter (n or d), log-log panels with fitted slopes, and the reproduced
  method's running time as a ratio to its own smallest configuration.
* :func:`table_ru_map` — tables printing both G_IL and G_DR: the R–U map as the thesis draws it.
* :func:`verdict_overview` — counts of verdicts per source table; :func:`delta_heatmap` — Δ per cell.
* :func:`il_vs_k`, :func:`ru_map` and :func:`anytime` — the workflow's summary figures, from the results.
* :func:`frontier` — gaps to the certified lower bound; :func:`leaderboard` — one data set's methods.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from mabench.report import figure_data
from mabench.report.figure_spec import FigureSpec, message

VERDICT_COLORS = {
    "reproduced": "#1a9850",
    "within tolerance": "#a6d96a",
    "not reproduced": "#d73027",
    "not run": "#969696",
    "not implemented": "#e0e0e0",
}
# The numbers that do not hold, split by cause class (mabench.report.published.CLASSES): reds for the
# classes that say something about the source, blue for the harness beating the print.
CLASS_COLORS = {
    "open": "#67001f",
    "source-error": "#d73027",
    "under-specified": "#f46d43",
    "quoted": "#fdae61",
    "stochastic": "#fee090",
    "machine": "#c2a5cf",
    "harness-better": "#4575b4",
}
DARK_BUCKETS = {"reproduced", "not run", "not reproduced: open", "not reproduced: source-error",
                "not reproduced: harness-better"}  # written on in white
VERDICT_GLYPH = {"reproduced": "✓", "within tolerance": "≈", "not reproduced": "✗", "not run": "?",
                 "not implemented": "–"}
METRIC_LABEL = {"il": "IL (% of SST)", "g_il": "G_IL (%)", "g_dr": "G_DR (%)", "rld": "RLD (%)", "id": "ID (%)",
                "si": "SI", "dld": "DLD (%)", "seconds": "time"}
RISK = ["dld", "rld", "id", "si"]  # the leaderboard's risk axis: the first of these the run computed


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(label=[figure_data.method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])])


# ------------------------------------------------------------------ per-table figures
def table_figure(part: pd.DataFrame, results: pd.DataFrame | None = None, title: str = "") -> FigureSpec | None:
    """The source table as a figure (see the module docstring); None when it has nothing to plot."""
    xvar = figure_data.x_variable(part)
    if not xvar:
        return None
    frame = figure_data.prepare(part, xvar)
    frame["ylabel"] = frame["metric"].map(lambda m: METRIC_LABEL.get(m, m))
    return _k_figure(frame, results, title) if xvar == "k" else _size_figure(frame, results, xvar, title)


def _k_figure(frame: pd.DataFrame, results, title: str) -> FigureSpec:
    """Columns ``rel_published``/``rel_reproduced``: % vs MDAV-generic, set on the close panels only."""
    frame = frame.assign(rel_published=np.nan, rel_reproduced=np.nan)
    relative = []
    for p in dict.fromkeys(frame["panel"]):
        at = frame["panel"] == p
        f = frame[at]
        base = figure_data.baseline(results, f["dataset"].iloc[0], f["dataset_params"].iloc[0], f["metric"].iloc[0])
        if figure_data.close(f) and base:
            relative.append(p)
            b = f["x"].map(base)
            frame.loc[at, "rel_published"] = 100 * (f["published"] / b - 1)
            frame.loc[at, "rel_reproduced"] = 100 * (f["reproduced"] / b - 1)
    return FigureSpec(kind="table_k", data=frame, x="x", y=("published", "reproduced"), hue="label", panel="panel",
                      labels={"x": "k", "relative": "% vs MDAV"}, title=title, extra={"relative": tuple(relative)})


def _size_figure(frame: pd.DataFrame, results, xvar: str, title: str) -> FigureSpec:
    """``extra["times"]``: the reproduced methods' time ratios per panel; ``extra["notes"]``: the fitted
    log-log slopes per panel, published and reproduced."""
    times, notes = [], {}
    for p in dict.fromkeys(frame["panel"]):
        f = frame[frame["panel"] == p]
        t = figure_data.time_ratios(results, f.sort_values("x"), xvar)
        if len(t):
            slopes = {lab: figure_data.slope(s["x"], s["ratio"]) for lab, s in t.groupby("label", sort=False)}
            times.append(t.assign(panel=p, legend=t["label"].map(lambda lab: f"{lab}: slope {slopes[lab]:.2f}")))
        lines = []
        for label, s in f.groupby("label", sort=False):
            short = label.rsplit(", ", 1)[-1] + ": " if f["label"].nunique() > 1 else ""
            pub, rep = figure_data.slope(s["x"], s["published"]), figure_data.slope(s["x"], s["reproduced"])
            lines.append(f"{short}slope {pub:.3f} published, "
                         + (f"{rep:.3f} reproduced" if np.isfinite(rep) else "no reproduced series"))
        notes[p] = "\n".join(lines)
    return FigureSpec(kind="table_size", data=frame, x="x", y=("published", "reproduced"), hue="label", panel="panel",
                      labels={"x": f"{xvar} (log)", "time": "time ÷ time at\nsmallest " + xvar}, title=title,
                      extra={"times": pd.concat(times, ignore_index=True) if times else pd.DataFrame(),
                             "notes": notes, "xvar": xvar})


def table_ru_map(part: pd.DataFrame, title: str = "") -> FigureSpec | None:
    """R–U map of a table printing G_IL and G_DR: per data set, one line per method through its k values,
    published (``g_il_pub``, ``g_dr_pub``) and reproduced (``g_il``, ``g_dr``)."""
    if not {"g_il", "g_dr"} <= set(part["metric"]):
        return None
    frame = part.copy()
    frame["label"] = [figure_data.printed_label(r, c) for r, c in zip(frame["row"], frame["column"])]
    frame["pub"] = frame["value"].map(figure_data.num)
    frame["rep"] = pd.to_numeric(frame["reproduced"], errors="coerce")
    key = ["dataset", "dataset_params", "label", "k"]
    wide = frame[frame["metric"].isin(["g_il", "g_dr"])].pivot_table(index=key, columns="metric",
                                                                       values=["pub", "rep"], aggfunc="first")
    wide.columns = [f"{m}{'_pub' if v == 'pub' else ''}" for v, m in wide.columns]
    wide = wide.reset_index()
    for col in ("g_il", "g_dr"):
        if col not in wide:
            wide[col] = np.nan
    methods = dict(zip(frame["label"], [figure_data.method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]))
    return FigureSpec(kind="ru_map", data=wide, x="g_dr", y="g_il", hue="label", panel="dataset", title=title,
                      extra={"published": True, "hue_order": list(dict.fromkeys(wide["label"])), "methods": methods,
                             "size": (3.6, 3.2)})


def verdict_overview(compared: pd.DataFrame, order=None) -> FigureSpec:
    """How many published numbers of each source table got each verdict, the numbers not reproduced split
    by cause class (a missing class counts as open): ``data`` one row per table, one column per bucket."""
    frame = compared.copy()
    cls = frame["class"] if "class" in frame else pd.Series("", index=frame.index)
    bad = frame["verdict"] == "not reproduced"
    frame["bucket"] = frame["verdict"].where(~bad, "not reproduced: " + cls.fillna("").replace("", "open"))
    colors = {"reproduced": VERDICT_COLORS["reproduced"], "within tolerance": VERDICT_COLORS["within tolerance"]}
    colors.update({f"not reproduced: {c}": col for c, col in CLASS_COLORS.items()})
    colors.update({v: VERDICT_COLORS[v] for v in ("not run", "not implemented")})
    counts = frame.groupby(["source", "table", "bucket"], sort=False).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(colors), fill_value=0)
    if order is None:
        sources = list(dict.fromkeys(compared["source"]))
        order = sorted(counts.index, key=lambda st: (sources.index(st[0]), figure_data.natural(st[1])))
    counts = counts.reindex([i for i in order if i in counts.index])
    counts.index = [f"{s} {t}" for s, t in counts.index]
    tot = compared["verdict"].value_counts()
    title = ("Verdicts per source table (" + ", ".join(f"{int(tot.get(v, 0))} {v}" for v in VERDICT_COLORS) + ")")
    return FigureSpec(kind="verdict_bars", data=counts, hue="bucket", title=title,
                      labels={"x": "published numbers (✗ = not reproduced, by cause class)"},
                      extra={"colors": colors, "dark": DARK_BUCKETS})


def delta_heatmap(part: pd.DataFrame, title: str = "") -> FigureSpec:
    """Per-cell Δ of one table, as % of the published value, laid out like the printed table (``data``:
    rows × columns), each cell annotated with its verdict's glyph (``extra["glyphs"]``)."""
    frame = part.copy()
    dup = frame.duplicated(["row", "column"], keep=False)
    frame["col"] = np.where(dup, frame["column"] + " k=" + frame["k"].astype(str), frame["column"])
    frame["rel"] = 100 * pd.to_numeric(frame["delta"], errors="coerce") / frame["value"].map(figure_data.num).abs()
    rows, cols = list(dict.fromkeys(frame["row"])), list(dict.fromkeys(frame["col"]))
    grid = frame.pivot_table(index="row", columns="col", values="rel", aggfunc="first", dropna=False)
    grid = grid.reindex(index=rows, columns=cols)
    glyph = frame.assign(g=frame["verdict"].map(VERDICT_GLYPH)).pivot_table(
        index="row", columns="col", values="g", aggfunc="first").reindex(index=rows, columns=cols).fillna("")
    finite = np.abs(grid.to_numpy(float)[np.isfinite(grid.to_numpy(float))])
    lim = max(1.0, float(np.nanpercentile(finite, 95))) if finite.size else 1.0
    return FigureSpec(kind="heatmap", data=grid, title=title, labels={"colorbar": "Δ, % of published (clipped)"},
                      extra={"glyphs": glyph, "limit": lim})


# ------------------------------------------------------------------ the workflow's summary figures
def il_vs_k(results: pd.DataFrame) -> FigureSpec:
    """IL against k for the data sets that compare several methods: per data set (``panel``), method and
    k the mean IL over draws, the 95 % CI half-width (``half``, when some point has two or more draws) and
    the % difference to MDAV-generic (``rel``); data sets run by one method only are covered by the
    per-table figures."""
    frame = _labelled(results)
    methods = frame.groupby("dataset_id")["label"].nunique()
    ks = frame.groupby("dataset_id")["k"].nunique()
    chosen = sorted(set(methods[methods >= 2].index) & set(ks[ks >= 2].index)) or sorted(ks[ks >= 2].index)
    if not chosen:
        return message("no data set of this run has two or more k values\n"
                       "(give a data set several k to draw IL against k)")
    frame = frame[frame["dataset_id"].isin(chosen)]
    labels = sorted(frame["label"].unique())
    parts, relative = [], []
    for ds in chosen:
        f = frame[frame["dataset_id"] == ds]
        stats = f.groupby(["label", "k"], as_index=False)["il"].agg(["mean", "std", "count"]).reset_index()
        stats = stats.rename(columns={"mean": "il"}).assign(x=lambda s: s["k"].astype(int), panel=ds)
        half = 1.96 * stats["std"].fillna(0) / np.sqrt(stats["count"])
        several = stats.groupby("label")["count"].transform(lambda c: (c > 1).any())
        stats["half"] = half.where(several.astype(bool))
        base = figure_data.baseline(f, f["dataset"].iloc[0], "", "il")
        stats["rel"] = 100 * (stats["il"] / stats["x"].map(base) - 1) if base else np.nan
        if base:
            relative.append(ds)
        parts.append(stats[["panel", "label", "x", "il", "half", "count", "rel"]])
    return FigureSpec(kind="il_vs_k", data=pd.concat(parts, ignore_index=True), x="x", y="il", hue="label",
                      panel="panel", labels={"x": "k", "y": "IL (% of SST)", "relative": "% vs MDAV"},
                      title="Information loss against k (mean, 95 % CI over draws); below: % difference to "
                            "MDAV-generic", extra={"hue_order": labels, "relative": tuple(relative)})


def ru_map(results: pd.DataFrame) -> FigureSpec:
    """R–U map of the results (thesis Fig. 4.6 style): per data set, one line per method through its k;
    points are means over draws."""
    have = {"g_il", "g_dr"} <= set(results.columns)
    frame = results.dropna(subset=["g_il", "g_dr"]) if have else results[:0]
    if frame.empty:
        return message("no cell of this run computed both G_IL and G_DR\n(add g_il, rld, id, g_dr to a data "
                       "set's metrics)")
    means = _labelled(frame).groupby(["dataset_id", "label", "k"], as_index=False, sort=False)[["g_il", "g_dr"]].mean()
    return FigureSpec(kind="ru_map", data=means, x="g_dr", y="g_il", hue="label", panel="dataset_id",
                      title="R–U map: one line per method through its k values (means over draws)",
                      extra={"published": False, "hue_order": sorted(means["label"].unique()),
                             "panel_order": sorted(means["dataset_id"].unique()), "size": (3.8, 3.3)})


def _trace(info):
    if not isinstance(info, str) or not info:
        return None
    return json.loads(info).get("trace") or None


def anytime(results: pd.DataFrame) -> FigureSpec:
    """IL against time per data set and k: each search method's anytime trace (``trace`` in the record's
    ``info``: [seconds, IL] at every improvement; first draw, held to the run's end) as a step line
    (``shape`` "trace"), every other method as a point at (its mean seconds, its mean IL)."""
    frame = _labelled(results).rename(columns={"label": "method"})
    frame["_trace"] = frame["info"].map(_trace) if "info" in frame else None
    searched = frame[frame["_trace"].notna()]
    panels = sorted({(r.dataset_id, int(r.k)) for r in searched.itertuples()})
    if not panels:
        return message("no search method (a run record with a trace) in these results")
    rows = []
    for ds, k in panels:
        cell = frame[(frame["dataset_id"] == ds) & (frame["k"] == k)]
        for method, part in cell.groupby("method"):
            first = part.sort_values("seed").iloc[0]
            pts = first["_trace"]
            if pts:
                ts = [max(t, 1e-4) for t, _ in pts] + [max(float(first["seconds"]), 1e-4)]
                ils = [il for _, il in pts] + [pts[-1][1]]
                rows += [(ds, k, method, "trace", t, il) for t, il in zip(ts, ils)]
            else:
                rows.append((ds, k, method, "point", max(float(part["seconds"].mean()), 1e-4), part["il"].mean()))
    data = pd.DataFrame(rows, columns=["dataset_id", "k", "method", "shape", "seconds", "il"])
    return FigureSpec(kind="anytime", data=data, x="seconds", y="il", hue="method", panel="dataset_id",
                      labels={"x": "seconds (log)", "y": "IL (% of SST)"},
                      extra={"panels": panels, "hue_order": sorted(frame["method"].unique())})


def frontier(frame: pd.DataFrame) -> FigureSpec:
    """Per registry data set, each algorithm's gap to the certified lower bound against k (its best variant
    at each data set and k), and the best known's gap. ``frame`` is :func:`mabench.report.frontier.table`."""
    if frame.empty:
        return message("no best-known cells to draw")
    panels = list(dict.fromkeys(frame["dataset"]))
    frame = frame.assign(method=frame["method"].str.split("[", n=1).str[0]).dropna(subset=["gap_bound"])
    frame = frame.loc[frame.groupby(["dataset", "k", "method"])["gap_bound"].idxmin()]
    return FigureSpec(kind="frontier", data=frame[["dataset", "k", "method", "gap_bound"]], x="k", y="gap_bound",
                      hue="method", panel="dataset", highlight=("best known",),
                      labels={"x": "k", "y": "gap to lower bound (% of IL)"},
                      title="Gap to the certified lower bound, 100·(IL − bound)/IL, each method's best variant; the "
                            "black line is the best known partition (the part of the gap not yet proven or closed)",
                      extra={"panel_order": panels})


def risk_metric(board: pd.DataFrame) -> str | None:
    return next((m for m in RISK if m in board.columns and board[m].notna().any()), None)


def leaderboard(part: pd.DataFrame, data: str) -> FigureSpec:
    """One data set's leaderboard rows: IL against k and (when the run computed one) disclosure risk
    against IL, the user's methods (★) highlighted."""
    risk = risk_metric(part)
    cols = ["algo_id", "k", "il"] + ([risk] if risk else [])
    user = tuple(sorted(part.loc[part["user"].astype(bool), "algo_id"].unique()))
    return FigureSpec(kind="leaderboard", data=part[cols].sort_values("k", kind="stable"), x="k", y="il",
                      hue="algo_id", highlight=user, title=data,
                      labels={"x": "k", "y": "IL", **({"risk": risk} if risk else {})})
