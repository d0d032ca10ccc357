"""Figures like the papers': published numbers (hollow markers) over the reproduced ones (filled).

Everything here is drawn from two tables, so new algorithms and new registry rows need no
plotting code:

* ``compared`` — :func:`mabench.report.published.compare` of ``registry/published.csv`` against the results:
  one row per published number with its reproduced value and verdict;
* ``results`` — the workflow's tidy results table (one row per cell).

What a figure shows is computed in :mod:`mabench.report.figure_data` (labels, x variable, series,
baselines, ratios); :mod:`mabench.report.plotting` holds the drawing primitives (grids, series,
legends, labels, files with fixed metadata). Figure kinds (each function returns a matplotlib
Figure, or None when there is nothing to draw):

* :func:`table_figure` — one per source table. When the table varies k, one panel per data set and
  metric with the metric against k (integer ticks), plus a row of "% difference to MDAV" panels when
  the methods of a panel lie within a few percent of each other. When it varies a size parameter
  (n or d), log-log panels with fitted slopes, and the reproduced method's running time as a ratio to
  its own smallest configuration.
* :func:`table_ru_map` — tables printing both G_IL and G_DR: the R–U map as the thesis draws it.
* :func:`verdict_overview` — counts of verdicts per source table; :func:`delta_heatmap` — Δ per cell.
* :func:`il_vs_k` and :func:`ru_map` — the workflow's summary figures, from the results alone.

Equal points stay visible: later series are drawn with smaller markers (concentric rings) and are
shifted a little along a categorical k axis. Labels are placed greedily where they overlap nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mabench.report import figure_data, plotting


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
VERDICT_GLYPH = {"reproduced": "✓", "within tolerance": "≈", "not reproduced": "✗", "not run": "?",
                 "not implemented": "–"}
METRIC_LABEL = {"il": "IL (% of SST)", "g_il": "G_IL (%)", "g_dr": "G_DR (%)", "rld": "RLD (%)", "id": "ID (%)",
                "si": "SI", "dld": "DLD (%)", "seconds": "time"}


# ------------------------------------------------------------------ basics


# ------------------------------------------------------------------ non-overlapping labels


# ------------------------------------------------------------------ per-table figures


def table_figure(part: pd.DataFrame, results: pd.DataFrame | None = None, title: str = ""):
    """The source table as a figure (see the module docstring); None when it has nothing to plot."""
    xvar = figure_data.x_variable(part)
    if not xvar:
        return None
    frame = figure_data.prepare(part, xvar)
    return _k_figure(frame, results, title) if xvar == "k" else _size_figure(frame, results, xvar, title)


def _k_figure(frame: pd.DataFrame, results, title: str):
    plt, _ = plotting.pyplot()
    panels = list(dict.fromkeys(frame["panel"]))
    rel = {}
    for p in panels:
        f = frame[frame["panel"] == p]
        base = figure_data.baseline(results, f["dataset"].iloc[0], f["dataset_params"].iloc[0], f["metric"].iloc[0])
        if figure_data.close(f) and base:
            rel[p] = base
    n_rows_per = 2 if rel else 1
    n_metrics = frame["metric"].nunique()
    fig, axes, cols = plotting.grid(plt, len(panels), n_rows_per, max_cols=n_metrics if 2 <= n_metrics <= 6 else 4)
    styles = plotting.series_styles(list(dict.fromkeys(frame["label"])))
    methods = dict(zip(frame["label"], frame["method"]))
    for i, p in enumerate(panels):
        f = frame[frame["panel"] == p]
        axs = plotting.panel_axes(axes, cols, i, n_rows_per)
        plotting.draw_series(axs[0], f, styles, "k")
        ks = sorted(f["x"].unique())
        axs[0].set_title(p, fontsize=8)
        axs[0].set_ylabel(METRIC_LABEL.get(f["metric"].iloc[0], f["metric"].iloc[0]), fontsize=7)
        for ax in axs:
            ax.set_xticks(ks)
            ax.set_xticklabels([str(k) for k in ks])
            ax.tick_params(labelsize=7)
        axs[-1].set_xlabel("k", fontsize=7)
        if n_rows_per == 2:
            if p in rel:
                base = f["x"].map(rel[p])
                g = f.assign(published=100 * (f["published"] / base - 1), reproduced=100 * (f["reproduced"] / base - 1))
                plotting.draw_series(axs[1], g, styles, "k", with_ci=False)
                axs[1].axhline(0, color="0.4", lw=0.7)
                axs[1].set_ylabel("% vs MDAV", fontsize=7)
            else:
                axs[1].set_visible(False)
    plotting.hide_unused(axes, cols, len(panels), n_rows_per)
    return plotting.finish(fig, plotting.handles(styles, methods), title)


def _size_figure(frame: pd.DataFrame, results, xvar: str, title: str):
    plt, _ = plotting.pyplot()
    panels = list(dict.fromkeys(frame["panel"]))
    times = {p: figure_data.time_ratios(results, frame[frame["panel"] == p].sort_values("x"), xvar) for p in panels}
    n_rows_per = 2 if any(len(t) for t in times.values()) else 1
    fig, axes, cols = plotting.grid(plt, len(panels), n_rows_per, width=4.2, height=3.0)
    styles = plotting.series_styles(list(dict.fromkeys(frame["label"])))
    methods = dict(zip(frame["label"], frame["method"]))
    for i, p in enumerate(panels):
        f = frame[frame["panel"] == p]
        axs = plotting.panel_axes(axes, cols, i, n_rows_per)
        ax = axs[0]
        plotting.draw_series(ax, f, styles, xvar)
        notes = []
        for label, s in f.groupby("label", sort=False):
            short = label.rsplit(", ", 1)[-1] + ": " if f["label"].nunique() > 1 else ""
            pub, rep = figure_data.slope(s["x"], s["published"]), figure_data.slope(s["x"], s["reproduced"])
            notes.append(f"{short}slope {pub:.3f} published, "
                         + (f"{rep:.3f} reproduced" if np.isfinite(rep) else "no reproduced series"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(p + "\n" + "\n".join(notes), fontsize=7)
        ax.set_ylabel(METRIC_LABEL.get(f["metric"].iloc[0], f["metric"].iloc[0]) + " (log)", fontsize=7)
        _size_ticks(ax, f["x"])
        if n_rows_per == 2:
            t = times[p]
            if len(t):
                for label, s in t.groupby("label", sort=False):
                    axs[1].plot(s["x"], s["ratio"], marker="o", ms=4, lw=1,
                                label=f"{label}: slope {figure_data.slope(s['x'], s['ratio']):.2f}")
                axs[1].set_xscale("log")
                axs[1].set_yscale("log")
                axs[1].set_ylabel("time ÷ time at\nsmallest " + xvar, fontsize=7)
                axs[1].legend(fontsize=5.5, loc="best", framealpha=0.8)
                _size_ticks(axs[1], t["x"])
            else:
                axs[1].set_visible(False)
        axs[-1].set_xlabel(f"{xvar} (log)", fontsize=7)
    plotting.hide_unused(axes, cols, len(panels), n_rows_per)
    return plotting.finish(fig, plotting.handles(styles, methods), title)


def _size_ticks(ax, xs) -> None:
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter, NullLocator

    ax.autoscale_view()
    low, high = ax.get_ylim()
    subs = (1.0, 2.0, 5.0) if high / max(low, 1e-300) > 10 else (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    ax.yaxis.set_major_locator(LogLocator(subs=subs))
    ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))  # 28, not 2.8 x 10^1
    ax.yaxis.set_minor_formatter(NullFormatter())
    ticks = sorted({float(x) for x in xs if np.isfinite(x)})
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{int(t):,}" if t >= 1000 else f"{t:g}" for t in ticks], fontsize=6, rotation=45)
    ax.tick_params(axis="y", labelsize=6)


# ------------------------------------------------------------------ R-U maps
def _ru_axes(ax, points: pd.DataFrame, styles: dict, published: bool) -> None:
    """points: columns label, k, g_dr, g_il (and *_pub when ``published``).

    Every point of the first line is labelled with its k; the other lines only at their ends (the k
    order along a line is the same), so that labels stay few enough not to overlap.
    """
    texts, where = [], []
    order = list(styles)
    for i, (label, s) in enumerate(points.groupby("label", sort=False)):
        color, marker = styles[label]
        s = s.sort_values("k")
        rank = order.index(label) if label in order else i
        size = max(3.5, 8.0 - 0.9 * rank)
        ends = s["k"].isin([s["k"].min(), s["k"].max()]) | (i == 0)
        if published:
            ax.plot(s["g_dr_pub"], s["g_il_pub"], ls=":", lw=0.9, color=color, marker=marker, ms=size + 1.5,
                    mfc="none", mew=1.1)
            texts += [f"k={k}" for k in s["k"][ends]]
            where += list(zip(s["g_dr_pub"][ends], s["g_il_pub"][ends]))
        if s["g_dr"].notna().any():
            ax.plot(s["g_dr"], s["g_il"], ls="-", lw=1.1, color=color, marker=marker, ms=size, mew=0)
            texts += [f"k={k}" for k in s["k"][ends]]
            where += list(zip(s["g_dr"][ends], s["g_il"][ends]))
    ax.margins(0.15)
    ax.set_xlabel("G_DR, disclosure risk (%)", fontsize=7)
    ax.set_ylabel("G_IL, information loss (%)", fontsize=7)
    ax.tick_params(labelsize=7)
    plotting.place_labels(ax, where, texts)


def table_ru_map(part: pd.DataFrame, title: str = ""):
    """R–U map of a table printing G_IL and G_DR: per data set, one line per method through its k values."""
    if not {"g_il", "g_dr"} <= set(part["metric"]):
        return None
    plt, _ = plotting.pyplot()
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
    datasets = list(dict.fromkeys(wide["dataset"]))
    fig, axes, cols = plotting.grid(plt, len(datasets), 1, width=3.6, height=3.2, max_cols=3)
    styles = plotting.series_styles(list(dict.fromkeys(wide["label"])))
    methods = dict(zip(frame["label"], [figure_data.method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]))
    for i, ds in enumerate(datasets):
        ax = plotting.panel_axes(axes, cols, i, 1)[0]
        ax.set_title(ds, fontsize=8)
        _ru_axes(ax, wide[wide["dataset"] == ds], styles, published=True)
    plotting.hide_unused(axes, cols, len(datasets), 1)
    return plotting.finish(fig, plotting.handles(styles, methods), title)


def ru_map(results: pd.DataFrame, out_dir=None):
    """R–U map of the results (thesis Fig. 4.6 style): per data set, one line per method through its k.

    Points are means over draws. Returns the written paths when ``out_dir`` is given, else the Figure.
    """
    plt, _ = plotting.pyplot()
    have = {"g_il", "g_dr"} <= set(results.columns)
    frame = results.dropna(subset=["g_il", "g_dr"]) if have else results[:0]
    if frame.empty:  # still write the files the workflow expects, saying why they are empty
        return plotting.placeholder("no cell of this run computed both G_IL and G_DR\n(add g_il, rld, id, g_dr to a data "
                            "set's metrics)", out_dir, "ru_map")
    frame = frame.assign(label=[figure_data.method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])])
    means = frame.groupby(["dataset_id", "label", "k"], as_index=False, sort=False)[["g_il", "g_dr"]].mean()
    datasets = sorted(means["dataset_id"].unique())
    fig, axes, cols = plotting.grid(plt, len(datasets), 1, width=3.8, height=3.3, max_cols=3)
    styles = plotting.series_styles(sorted(means["label"].unique()))
    for i, ds in enumerate(datasets):
        ax = plotting.panel_axes(axes, cols, i, 1)[0]
        ax.set_title(ds, fontsize=8)
        _ru_axes(ax, means[means["dataset_id"] == ds], styles, published=False)
    plotting.hide_unused(axes, cols, len(datasets), 1)
    plotting.finish(fig, plotting.handles(styles), "R–U map: one line per method through its k values (means over draws)")
    return plotting.save(fig, out_dir, "ru_map") if out_dir is not None else fig


# ------------------------------------------------------------------ verdicts
def verdict_overview(compared: pd.DataFrame, order=None):
    """Horizontal stacked bars: how many published numbers of each source table got each verdict, the
    numbers not reproduced split by cause class (a missing class counts as open)."""
    plt, _ = plotting.pyplot()
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
    labels = [f"{s} {t}" for s, t in counts.index]
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(labels) + 1.6))
    left = np.zeros(len(labels))
    y = np.arange(len(labels))[::-1]
    dark = {"reproduced", "not run", "not reproduced: open", "not reproduced: source-error",
            "not reproduced: harness-better"}
    shown = [b for b in colors if counts[b].sum()]
    for bucket in colors:
        vals = counts[bucket].to_numpy(float)
        ax.barh(y, vals, left=left, color=colors[bucket], edgecolor="white", lw=0.6, height=0.75,
                label=bucket.replace("not reproduced: ", "✗ ") if bucket in shown else None)
        for yy, l0, v in zip(y, left, vals):
            if v:
                ax.text(l0 + v / 2, yy, str(int(v)), ha="center", va="center", fontsize=6.5,
                        color="white" if bucket in dark else "0.2")
        left += vals
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xlabel("published numbers (✗ = not reproduced, by cause class)", fontsize=7)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="y", visible=False)
    tot = compared["verdict"].value_counts()
    ax.set_title("Verdicts per source table (" + ", ".join(f"{int(tot.get(v, 0))} {v}" for v in VERDICT_COLORS)
                 + ")", fontsize=8)
    height = 0.32 * len(labels) + 1.6
    fig.tight_layout(rect=(0, 0.6 / height, 1, 1))
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=5, fontsize=6.5, frameon=False)
    return fig


def delta_heatmap(part: pd.DataFrame, title: str = ""):
    """Per-cell Δ of one table, as % of the published value, laid out like the printed table.

    Cells are annotated with the verdict (✓ reproduced, ≈ within tolerance, ✗ not reproduced,
    – not implemented, ? not run); cells without a reproduced value are grey.
    """
    plt, sns = plotting.pyplot()
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
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * len(cols), 0.8 + 0.3 * len(rows)))
    ax.set_facecolor("#eeeeee")
    sns.heatmap(grid, ax=ax, cmap="RdBu_r", center=0, vmin=-lim, vmax=lim, annot=glyph, fmt="",
                annot_kws={"fontsize": 7}, linewidths=0.5, linecolor="white",
                cbar_kws={"label": "Δ, % of published (clipped)", "shrink": 0.8})
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(labelsize=6.5)
    ax.set_xticklabels(ax.get_xticklabels(), rotation=40, ha="right")
    ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
    if title:
        ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ the workflow's summary figures
def il_vs_k(results: pd.DataFrame, out_dir=None):
    """IL against k for the data sets that compare several methods (mean over draws, 95 % CI bars), with a
    "% vs MDAV" row below; data sets run by one method only are covered by the per-table figures.

    Returns the written paths when ``out_dir`` is given, else the Figure.
    """
    plt, _ = plotting.pyplot()
    frame = results.assign(label=[figure_data.method_label(a, p) for a, p in zip(results["algorithm"], results["params"])])
    methods = frame.groupby("dataset_id")["label"].nunique()
    ks = frame.groupby("dataset_id")["k"].nunique()
    chosen = sorted(set(methods[methods >= 2].index) & set(ks[ks >= 2].index)) or sorted(ks[ks >= 2].index)
    if not chosen:  # still write the files the workflow expects, saying why they are empty
        return plotting.placeholder("no data set of this run has two or more k values\n"
                            "(give a data set several k to draw IL against k)", out_dir, "il_vs_k")
    frame = frame[frame["dataset_id"].isin(chosen)]
    fig, axes, cols = plotting.grid(plt, len(chosen), 2)
    labels = sorted(frame["label"].unique())
    styles = plotting.series_styles(labels)
    for i, ds in enumerate(chosen):
        f = frame[frame["dataset_id"] == ds]
        stats = f.groupby(["label", "k"], as_index=False)["il"].agg(["mean", "std", "count"]).reset_index()
        stats = stats.rename(columns={"mean": "il"}).assign(x=lambda s: s["k"].astype(int))
        axs = plotting.panel_axes(axes, cols, i, 2)
        base = figure_data.baseline(f, f["dataset"].iloc[0], "", "il")
        present = [lab for lab in labels if lab in set(stats["label"])]
        for j, lab in enumerate(present):
            s = stats[stats["label"] == lab].sort_values("x")
            color, marker = styles[lab]
            x = s["x"].to_numpy(float) + (j - (len(present) - 1) / 2) * 0.06
            size = max(3.0, 7.0 - 1.0 * j)
            axs[0].plot(x, s["il"], color=color, marker=marker, ms=size, lw=1.1, label=lab)
            half = 1.96 * s["std"].fillna(0) / np.sqrt(s["count"])
            if (s["count"] > 1).any():
                axs[0].vlines(x, s["il"] - half, s["il"] + half, color=color, lw=1.0, alpha=0.7)
            if base:
                rel = 100 * (s["il"] / s["x"].map(base) - 1)
                axs[1].plot(x, rel, color=color, marker=marker, ms=size, lw=1.1)
        for ax in axs:
            kk = sorted(stats["x"].unique())
            ax.set_xticks(kk)
            ax.set_xticklabels([str(k) for k in kk])
            ax.tick_params(labelsize=7)
        axs[0].set_title(ds, fontsize=8)
        axs[0].set_ylabel("IL (% of SST)", fontsize=7)
        axs[1].axhline(0, color="0.4", lw=0.7)
        axs[1].set_ylabel("% vs MDAV", fontsize=7)
        axs[1].set_xlabel("k", fontsize=7)
        if not base:
            axs[1].set_visible(False)
    plotting.hide_unused(axes, cols, len(chosen), 2)
    plotting.finish(fig, plotting.handles(styles), "Information loss against k (mean, 95 % CI over draws); below: % difference "
            "to MDAV-generic", ncol=4)
    return plotting.save(fig, out_dir, "il_vs_k") if out_dir is not None else fig


def anytime(results: pd.DataFrame, out_dir) -> list[Path]:
    """IL against time (log axis) per data set and k: each search method's anytime trace (``trace``
    in the record's ``info``: [seconds, IL] at every improvement; first draw) as a step line, every other
    method as a point at (its seconds, its IL)."""
    import json

    plt, sns = plotting.pyplot()
    frame = results.copy()
    frame["method"] = [figure_data.method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]

    def trace_of(info):
        if not isinstance(info, str) or not info:
            return None
        points = json.loads(info).get("trace")
        return points or None

    frame["_trace"] = frame["info"].map(trace_of) if "info" in frame else None
    searched = frame[frame["_trace"].notna()]
    panels = sorted({(r.dataset_id, int(r.k)) for r in searched.itertuples()})
    if not panels:
        return plotting.placeholder("no search method (a run record with a trace) in these results", out_dir, "anytime")
    cols = min(4, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    methods = sorted(frame["method"].unique())
    colors = dict(zip(methods, sns.color_palette("tab10", len(methods)) if len(methods) <= 10
                      else sns.color_palette("husl", len(methods))))
    for ax, (ds, k) in zip(axes.flat, panels):
        cell = frame[(frame["dataset_id"] == ds) & (frame["k"] == k)]
        for method, part in cell.groupby("method"):
            first = part.sort_values("seed").iloc[0]
            pts = first["_trace"]
            if pts:
                ts = [max(t, 1e-4) for t, _ in pts] + [max(float(first["seconds"]), 1e-4)]
                ils = [il for _, il in pts] + [pts[-1][1]]
                ax.step(ts, ils, where="post", color=colors[method], lw=1.2, label=method)
            else:
                ax.scatter([max(float(part["seconds"].mean()), 1e-4)], [part["il"].mean()], color=colors[method],
                           marker="o", s=18, label=method, zorder=3)
        ax.set_xscale("log")
        ax.set_title(f"{ds}, k={k}", fontsize=8)
        ax.set_xlabel("seconds (log)", fontsize=7)
        ax.set_ylabel("IL (% of SST)", fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles, labels = {}, {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(4, len(handles)), fontsize=6,
               bbox_to_anchor=(0.5, -0.02 - 0.03 * (len(handles) // 4)))
    fig.tight_layout()
    return plotting.save(fig, out_dir, "anytime")


def frontier(frame: pd.DataFrame, out_dir=None):
    """Per registry data set, each method's gap to the certified lower bound (marker) against k, the
    best known's gap as a black line: the room each method leaves, and how much of it is proven.
    ``frame`` is :func:`mabench.report.frontier.table`. Returns the paths (``out_dir``) or the Figure."""
    plt, _ = plotting.pyplot()
    datasets = list(dict.fromkeys(frame["dataset"]))
    if not datasets:
        return plotting.placeholder("no best-known cells to draw", out_dir, "frontier")
    # one line per algorithm: its best variant at each (data set, k); the table keeps every variant
    frame = frame.assign(method=frame["method"].str.split("[", n=1).str[0]).dropna(subset=["gap_bound"])
    frame = frame.loc[frame.groupby(["dataset", "k", "method"])["gap_bound"].idxmin()]
    fig, axes, cols = plotting.grid(plt, len(datasets), 1)
    labels = sorted(m for m in frame["method"].unique() if m != "best known")
    styles = plotting.series_styles(labels) if labels else {}
    for i, ds in enumerate(datasets):
        ax = plotting.panel_axes(axes, cols, i, 1)[0]
        f = frame[frame["dataset"] == ds]
        kk = sorted(f["k"].astype(int).unique())
        pos = {k: j for j, k in enumerate(kk)}
        best = f[f["method"] == "best known"].sort_values("k")
        ax.plot([pos[k] for k in best["k"]], best["gap_bound"], color="black", lw=1.6, marker="s", ms=4,
                label="best known")
        for j, lab in enumerate(labels):
            s = f[f["method"] == lab].sort_values("k")
            if s.empty:
                continue
            color, marker = styles[lab]
            x = [pos[k] + (j - (len(labels) - 1) / 2) * 0.05 for k in s["k"]]
            ax.plot(x, s["gap_bound"], color=color, marker=marker, ms=4, lw=0.8, label=lab)
        ax.set_xticks(range(len(kk)))
        ax.set_xticklabels([str(k) for k in kk])
        ax.set_ylim(bottom=0)
        ax.set_title(ds, fontsize=8)
        ax.set_xlabel("k", fontsize=7)
        ax.set_ylabel("gap to lower bound (% of IL)", fontsize=7)
        ax.tick_params(labelsize=7)
    plotting.hide_unused(axes, cols, len(datasets), 1)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="black", marker="s", lw=1.6, label="best known")] + plotting.handles(styles)
    plotting.finish(fig, handles, "Gap to the certified lower bound, 100·(IL − bound)/IL, each method's best variant; the "
            "black line is the best known partition (the part of the gap not yet proven or closed)", ncol=8)
    return plotting.save(fig, out_dir, "frontier") if out_dir is not None else fig
