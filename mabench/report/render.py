"""The renderer: draws any :class:`~mabench.report.figure_spec.FigureSpec` with matplotlib (the heat
map as seaborn draws it), one drawing per ``kind`` (:data:`KINDS`), and writes it as files with fixed metadata
(:func:`save`) or as PNG bytes for embedding (:func:`png`). What a figure shows is decided in
:mod:`mabench.report.figures`; the primitives (grids, series, legends, label placement) are in
:mod:`mabench.report.plotting`.

Equal points stay visible: later series are drawn with smaller markers (concentric rings) and are
shifted a little along a categorical k axis. Labels are placed greedily where they overlap nothing.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mabench.report import plotting
from mabench.report.figure_spec import FigureSpec

HIGHLIGHT = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]  # the leaderboard's own methods


def draw(spec: FigureSpec):
    """The matplotlib Figure of ``spec``."""
    if spec.kind not in KINDS:
        raise ValueError(f"no drawing for figure kind {spec.kind!r}; known: {', '.join(sorted(KINDS))}")
    return KINDS[spec.kind](spec)


def save(spec: FigureSpec, out_dir, stem: str, formats=("png", "pdf")) -> list[Path]:
    """Write ``spec`` as ``out_dir/stem.{png,pdf}`` (atomically, fixed metadata)."""
    return plotting.save(draw(spec), out_dir, stem, formats)


def png(spec: FigureSpec, dpi: int = 100) -> bytes:
    """``spec`` as PNG bytes, for embedding in a page."""
    return plotting.png_bytes(draw(spec), dpi)


def _message(spec: FigureSpec):
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, spec.title, ha="center", va="center", fontsize=8)
    return fig


def _legend_methods(frame: pd.DataFrame) -> dict:
    return dict(zip(frame["label"], frame["method"]))


# ------------------------------------------------------------------ per-table figures
def _table_k(spec: FigureSpec):
    plt = plotting.pyplot()
    frame = spec.data
    panels = list(dict.fromkeys(frame[spec.panel]))
    relative = set(spec.extra["relative"])
    n_rows_per = 2 if relative else 1
    n_metrics = frame["metric"].nunique()
    fig, axes, cols = plotting.grid(plt, len(panels), n_rows_per, max_cols=n_metrics if 2 <= n_metrics <= 6 else 4)
    styles = plotting.series_styles(list(dict.fromkeys(frame[spec.hue])))
    for i, p in enumerate(panels):
        f = frame[frame[spec.panel] == p]
        axs = plotting.panel_axes(axes, cols, i, n_rows_per)
        plotting.draw_series(axs[0], f, styles, "k")
        ks = sorted(f["x"].unique())
        axs[0].set_title(p, fontsize=8)
        axs[0].set_ylabel(f["ylabel"].iloc[0], fontsize=7)
        for ax in axs:
            ax.set_xticks(ks)
            ax.set_xticklabels([str(k) for k in ks])
            ax.tick_params(labelsize=7)
        axs[-1].set_xlabel(spec.labels["x"], fontsize=7)
        if n_rows_per == 2:
            if p in relative:
                g = f.assign(published=f["rel_published"], reproduced=f["rel_reproduced"])
                plotting.draw_series(axs[1], g, styles, "k", with_ci=False)
                axs[1].axhline(0, color="0.4", lw=0.7)
                axs[1].set_ylabel(spec.labels["relative"], fontsize=7)
            else:
                axs[1].set_visible(False)
    plotting.hide_unused(axes, cols, len(panels), n_rows_per)
    return plotting.finish(fig, plotting.handles(styles, _legend_methods(frame)), spec.title)


def _table_size(spec: FigureSpec):
    plt = plotting.pyplot()
    frame, times, xvar = spec.data, spec.extra["times"], spec.extra["xvar"]
    panels = list(dict.fromkeys(frame[spec.panel]))
    n_rows_per = 2 if len(times) else 1
    fig, axes, cols = plotting.grid(plt, len(panels), n_rows_per, width=4.2, height=3.0)
    styles = plotting.series_styles(list(dict.fromkeys(frame[spec.hue])))
    for i, p in enumerate(panels):
        f = frame[frame[spec.panel] == p]
        axs = plotting.panel_axes(axes, cols, i, n_rows_per)
        ax = axs[0]
        plotting.draw_series(ax, f, styles, xvar)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(p + "\n" + spec.extra["notes"][p], fontsize=7)
        ax.set_ylabel(f["ylabel"].iloc[0] + " (log)", fontsize=7)
        _size_ticks(ax, f["x"])
        if n_rows_per == 2:
            t = times[times["panel"] == p]
            if len(t):
                for legend, s in t.groupby("legend", sort=False):
                    axs[1].plot(s["x"], s["ratio"], marker="o", ms=4, lw=1, label=legend)
                axs[1].set_xscale("log")
                axs[1].set_yscale("log")
                axs[1].set_ylabel(spec.labels["time"], fontsize=7)
                axs[1].legend(fontsize=5.5, loc="best", framealpha=0.8)
                _size_ticks(axs[1], t["x"])
            else:
                axs[1].set_visible(False)
        axs[-1].set_xlabel(spec.labels["x"], fontsize=7)
    plotting.hide_unused(axes, cols, len(panels), n_rows_per)
    return plotting.finish(fig, plotting.handles(styles, _legend_methods(frame)), spec.title)


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
    """Every point of the first line is labelled with its k; the other lines only at their ends (the k
    order along a line is the same), so that labels stay few enough not to overlap."""
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


def _ru_map(spec: FigureSpec):
    plt = plotting.pyplot()
    data, published = spec.data, spec.extra["published"]
    panels = spec.extra.get("panel_order") or list(dict.fromkeys(data[spec.panel]))
    width, height = spec.extra["size"]
    fig, axes, cols = plotting.grid(plt, len(panels), 1, width=width, height=height, max_cols=3)
    styles = plotting.series_styles(spec.extra["hue_order"])
    for i, p in enumerate(panels):
        ax = plotting.panel_axes(axes, cols, i, 1)[0]
        ax.set_title(p, fontsize=8)
        _ru_axes(ax, data[data[spec.panel] == p], styles, published=published)
    plotting.hide_unused(axes, cols, len(panels), 1)
    return plotting.finish(fig, plotting.handles(styles, spec.extra.get("methods")), spec.title)


# ------------------------------------------------------------------ verdicts
def _verdict_bars(spec: FigureSpec):
    plt = plotting.pyplot()
    counts, colors, dark = spec.data, spec.extra["colors"], spec.extra["dark"]
    labels = list(counts.index)
    height = 0.32 * len(labels) + 1.6
    fig, ax = plt.subplots(figsize=(7.5, height))
    left = np.zeros(len(labels))
    y = np.arange(len(labels))[::-1]
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
    ax.set_xlabel(spec.labels["x"], fontsize=7)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="y", visible=False)
    ax.set_title(spec.title, fontsize=8)
    fig.tight_layout(rect=(0, 0.6 / height, 1, 1))
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=5, fontsize=6.5, frameon=False)
    return fig


def _heatmap(spec: FigureSpec):
    """seaborn 0.13's ``heatmap(grid, cmap="RdBu_r", center=0, vmin=-lim, vmax=lim, annot=glyphs, fmt="",
    linewidths=0.5, linecolor="white")``, step for step in matplotlib (the same artists in the same order,
    so the same bytes: tests/report/test_figure_specs.py), without importing seaborn and scipy.stats."""
    plt = plotting.pyplot()
    grid, lim = spec.data, spec.extra["limit"]
    rows, cols = grid.shape
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * cols, 0.8 + 0.3 * rows))
    ax.set_facecolor("#eeeeee")
    values = np.ma.masked_where(np.asarray(pd.isnull(grid)), grid.values)
    glyphs = np.asarray(spec.extra["glyphs"])
    for side in ("top", "right", "left", "bottom"):  # despine(left=True, bottom=True)
        ax.spines[side].set_visible(False)
    mesh = ax.pcolormesh(values, cmap=_centred_cmap("RdBu_r", -lim, lim, 0.0), linewidths=0.5, edgecolor="white",
                         vmin=-lim, vmax=lim)
    ax.set(xlim=(0, cols), ylim=(0, rows))
    ax.invert_yaxis()
    cb = fig.colorbar(mesh, None, ax, label=spec.labels["colorbar"], shrink=0.8)
    cb.outline.set_linewidth(0)
    xticks, xticklabels = _auto_ticks(ax, grid.columns.values, 0)
    yticks, yticklabels = _auto_ticks(ax, grid.index.values, 1)
    ax.set(xticks=xticks, yticks=yticks)
    ax.set_xticklabels(xticklabels)
    plt.setp(ax.set_yticklabels(yticklabels, rotation="vertical"), va="center")
    # seaborn now draws the whole figure once to rotate overlapping tick labels; the rotations set
    # below replace those, so that draw is left out (the same bytes without it)
    ax.set(xlabel=grid.columns.name or "", ylabel=grid.index.name or "")
    mesh.update_scalarmappable()
    xpos, ypos = np.meshgrid(np.arange(cols) + .5, np.arange(rows) + .5)
    for x, y, m, color, val in zip(xpos.flat, ypos.flat, mesh.get_array().flat, mesh.get_facecolors(), glyphs.flat):
        if m is not np.ma.masked:
            ax.text(x, y, format(val, ""), color=".15" if _luminance(color) > .408 else "w", ha="center",
                    va="center", fontsize=7)
    return heatmap_layout(fig, ax, spec.title)


def heatmap_layout(fig, ax, title: str):
    """The heat map's own labels over seaborn's: small slanted column labels, no axis names, the title."""
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(labelsize=6.5)
    ax.set_xticklabels(ax.get_xticklabels(), rotation=40, ha="right")
    ax.set_yticklabels(ax.get_yticklabels(), rotation=0)
    if title:
        ax.set_title(title, fontsize=8)
    fig.tight_layout()
    return fig


def _centred_cmap(name: str, vmin: float, vmax: float, center: float):
    """seaborn's colormap ``name`` re-sampled so that ``center`` is its middle colour."""
    import matplotlib as mpl

    cmap = mpl.colormaps[name]
    bad, under, over = cmap(np.ma.masked_invalid([np.nan]))[0], cmap(-np.inf), cmap(np.inf)
    under_set, over_set = under != cmap(0), over != cmap(cmap.N - 1)
    vrange = max(vmax - center, center - vmin)
    cmin, cmax = mpl.colors.Normalize(center - vrange, center + vrange)([vmin, vmax])
    extremes = {"bad": bad, **({"under": under} if under_set else {}), **({"over": over} if over_set else {})}
    return mpl.colors.ListedColormap(cmap(np.linspace(cmin, cmax, 256))).with_extremes(**extremes)


def _auto_ticks(ax, labels, axis: int):
    """seaborn's tick thinning: every label while they fit at the tick font size, else every m-th."""
    bbox = ax.get_window_extent().transformed(ax.figure.dpi_scale_trans.inverted())
    size = [bbox.width, bbox.height][axis]
    tick, = [ax.xaxis, ax.yaxis][axis].set_ticks([0])
    max_ticks = int(size // (tick.label1.get_size() / 72))
    if max_ticks < 1:
        return [], []
    every = len(labels) // max_ticks + 1
    if every == 1:
        return np.arange(len(labels)) + .5, labels
    return np.arange(0, len(labels), every) + .5, labels[0:len(labels):every]


def _luminance(color) -> float:
    """Relative luminance of an RGB(A) colour (W3C), as seaborn picks the annotation's text colour."""
    import matplotlib as mpl

    rgb = mpl.colors.colorConverter.to_rgba_array(color)[:, :3]
    rgb = np.where(rgb <= .03928, rgb / 12.92, ((rgb + .055) / 1.055) ** 2.4)
    return rgb.dot([.2126, .7152, .0722]).item()


# ------------------------------------------------------------------ the workflow's summary figures
def _il_vs_k(spec: FigureSpec):
    plt = plotting.pyplot()
    data, labels = spec.data, spec.extra["hue_order"]
    panels = list(dict.fromkeys(data[spec.panel]))
    relative = set(spec.extra["relative"])
    fig, axes, cols = plotting.grid(plt, len(panels), 2)
    styles = plotting.series_styles(labels)
    for i, p in enumerate(panels):
        stats = data[data[spec.panel] == p]
        axs = plotting.panel_axes(axes, cols, i, 2)
        present = [lab for lab in labels if lab in set(stats[spec.hue])]
        for j, lab in enumerate(present):
            s = stats[stats[spec.hue] == lab].sort_values("x")
            color, marker = styles[lab]
            x = s["x"].to_numpy(float) + (j - (len(present) - 1) / 2) * 0.06
            size = max(3.0, 7.0 - 1.0 * j)
            axs[0].plot(x, s["il"], color=color, marker=marker, ms=size, lw=1.1, label=lab)
            if s["half"].notna().any():
                axs[0].vlines(x, s["il"] - s["half"], s["il"] + s["half"], color=color, lw=1.0, alpha=0.7)
            if p in relative:
                axs[1].plot(x, s["rel"], color=color, marker=marker, ms=size, lw=1.1)
        for ax in axs:
            kk = sorted(stats["x"].unique())
            ax.set_xticks(kk)
            ax.set_xticklabels([str(k) for k in kk])
            ax.tick_params(labelsize=7)
        axs[0].set_title(p, fontsize=8)
        axs[0].set_ylabel(spec.labels["y"], fontsize=7)
        axs[1].axhline(0, color="0.4", lw=0.7)
        axs[1].set_ylabel(spec.labels["relative"], fontsize=7)
        axs[1].set_xlabel(spec.labels["x"], fontsize=7)
        if p not in relative:
            axs[1].set_visible(False)
    plotting.hide_unused(axes, cols, len(panels), 2)
    return plotting.finish(fig, plotting.handles(styles), spec.title, ncol=4)


def _anytime(spec: FigureSpec):
    plt = plotting.pyplot()
    data, panels, methods = spec.data, spec.extra["panels"], spec.extra["hue_order"]
    cols = min(4, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    colors = dict(zip(methods, plotting.palette(len(methods))))
    for ax, (ds, k) in zip(axes.flat, panels):
        cell = data[(data["dataset_id"] == ds) & (data["k"] == k)]
        for method, part in cell.groupby("method", sort=True):
            if part["shape"].iloc[0] == "trace":
                ax.step(part["seconds"].tolist(), part["il"].tolist(), where="post", color=colors[method], lw=1.2,
                        label=method)
            else:
                ax.scatter(part["seconds"].tolist(), part["il"].tolist(), color=colors[method], marker="o", s=18,
                           label=method, zorder=3)
        ax.set_xscale("log")
        ax.set_title(f"{ds}, k={k}", fontsize=8)
        ax.set_xlabel(spec.labels["x"], fontsize=7)
        ax.set_ylabel(spec.labels["y"], fontsize=7)
        ax.tick_params(labelsize=6)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(4, len(handles)), fontsize=6,
               bbox_to_anchor=(0.5, -0.02 - 0.03 * (len(handles) // 4)))
    fig.tight_layout()
    return fig


def _frontier(spec: FigureSpec):
    from matplotlib.lines import Line2D

    plt = plotting.pyplot()
    frame, best_name = spec.data, spec.highlight[0]
    panels = spec.extra["panel_order"]
    fig, axes, cols = plotting.grid(plt, len(panels), 1)
    labels = sorted(m for m in frame[spec.hue].unique() if m != best_name)
    styles = plotting.series_styles(labels) if labels else {}
    for i, ds in enumerate(panels):
        ax = plotting.panel_axes(axes, cols, i, 1)[0]
        f = frame[frame[spec.panel] == ds]
        kk = sorted(f["k"].astype(int).unique())
        pos = {k: j for j, k in enumerate(kk)}
        best = f[f[spec.hue] == best_name].sort_values("k")
        ax.plot([pos[k] for k in best["k"]], best[spec.y], color="black", lw=1.6, marker="s", ms=4, label=best_name)
        for j, lab in enumerate(labels):
            s = f[f[spec.hue] == lab].sort_values("k")
            if s.empty:
                continue
            color, marker = styles[lab]
            x = [pos[k] + (j - (len(labels) - 1) / 2) * 0.05 for k in s["k"]]
            ax.plot(x, s[spec.y], color=color, marker=marker, ms=4, lw=0.8, label=lab)
        ax.set_xticks(range(len(kk)))
        ax.set_xticklabels([str(k) for k in kk])
        ax.set_ylim(bottom=0)
        ax.set_title(ds, fontsize=8)
        ax.set_xlabel(spec.labels["x"], fontsize=7)
        ax.set_ylabel(spec.labels["y"], fontsize=7)
        ax.tick_params(labelsize=7)
    plotting.hide_unused(axes, cols, len(panels), 1)
    handles = [Line2D([], [], color="black", marker="s", lw=1.6, label=best_name)] + plotting.handles(styles)
    return plotting.finish(fig, handles, spec.title, ncol=8)


def _leaderboard(spec: FigureSpec):
    """IL versus k and (with a risk metric) risk versus IL; the highlighted methods in colour, thick."""
    plt = plotting.pyplot()
    part, data, risk = spec.data, spec.title, spec.labels.get("risk")
    fig, axes = plt.subplots(1, 2 if risk else 1, figsize=(9.5 if risk else 5.5, 3.6), squeeze=False)
    colour = {m: HIGHLIGHT[i % len(HIGHLIGHT)] for i, m in enumerate(spec.highlight)}
    for method, rows in part.groupby(spec.hue, sort=True):
        mine = method in colour
        style = dict(color=colour.get(method, "0.6"), linewidth=2.4 if mine else 0.9, marker="o",
                     markersize=5 if mine else 3, zorder=3 if mine else 2, label=f"{method} ★" if mine else method)
        axes[0][0].plot(rows[spec.x], rows[spec.y], **style)
        if risk:
            axes[0][1].plot(rows[spec.y], rows[risk], **{**style, "linestyle": "none"})
            if mine:
                for x, y, k in zip(rows[spec.y], rows[risk], rows[spec.x]):
                    axes[0][1].annotate(f"k={k}", (x, y), textcoords="offset points", xytext=(4, 3), fontsize=6,
                                        color=colour[method])
    axes[0][0].set(xlabel=spec.labels["x"], ylabel=spec.labels["y"], title=f"{data}: IL versus k")
    axes[0][0].set_xticks(sorted(part[spec.x].unique()))
    if risk:
        axes[0][1].set(xlabel=spec.labels["y"], ylabel=risk.upper(), title=f"{data}: {risk.upper()} versus IL")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=min(6, len(labels)),
               fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


def _identity_scatter(spec: FigureSpec):
    """One point per row, x against y, a marker per ``hue`` group (``extra["markers"]``), and the line y = x."""
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    data = spec.data
    for group, marker in spec.extra["markers"].items():
        part = data[data[spec.hue] == group]
        ax.scatter(part[spec.x], part[spec.y], marker=marker, s=18, label=group)
    top = float(max(data[spec.x].max(), data[spec.y].max())) * 1.05 if len(data) else 1.0
    ax.plot([0, top], [0, top], color="0.6", lw=0.8)
    ax.set_xlabel(spec.labels["x"])
    ax.set_ylabel(spec.labels["y"])
    ax.legend(fontsize=7)
    return fig


KINDS = {"message": _message, "table_k": _table_k, "table_size": _table_size, "ru_map": _ru_map,
         "verdict_bars": _verdict_bars, "heatmap": _heatmap, "il_vs_k": _il_vs_k, "anytime": _anytime,
         "frontier": _frontier, "leaderboard": _leaderboard, "identity_scatter": _identity_scatter}
