"""Figures like the papers': published numbers (hollow markers) over the reproduced ones (filled).

Everything here is drawn from two tables, so new algorithms and new registry rows need no
plotting code:

* ``compared`` — :func:`mabench.report.published.compare` of ``registry/published.csv`` against the results:
  one row per published number with its reproduced value and verdict;
* ``results`` — the workflow's tidy results table (one row per cell).

Figure kinds (each function returns a matplotlib Figure, or None when there is nothing to draw):

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

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io

# Fixed metadata so the same results give byte-identical files.
_PNG_META = {"Software": None}
_PDF_META = {"Creator": None, "Producer": None, "CreationDate": None}

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
TIME_METRICS = {"seconds", "time", "job_seconds"}
MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "p", "h", "*"]
CLOSE_PERCENT = 5.0  # methods within this spread of each other get a "% vs MDAV" companion panel
BASELINE = ("mdav", "tail=3k")  # the reference method of the companion panels: MDAV-generic


# ------------------------------------------------------------------ basics
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="paper")
    return plt, sns


def save(fig, out_dir, stem: str, formats=("png", "pdf")) -> list[Path]:
    """Write ``fig`` as ``out_dir/stem.{png,pdf}`` atomically; close it."""
    plt, _ = _pyplot()
    written = []
    for ext in formats:
        target = Path(out_dir) / f"{stem}.{ext}"
        meta = _PNG_META if ext == "png" else _PDF_META
        with io.atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=150, metadata=meta, bbox_inches="tight")
        written.append(target)
    plt.close(fig)
    return written


def png_bytes(fig, dpi: int = 100) -> bytes:
    """The figure as PNG bytes (for embedding); closes it."""
    import io as _io

    plt, _ = _pyplot()
    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata=_PNG_META, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _placeholder(message: str, out_dir, stem: str):
    """A small figure that says why there is nothing to draw (written when ``out_dir`` is given)."""
    plt, _ = _pyplot()
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=8)
    return save(fig, out_dir, stem) if out_dir is not None else fig


def method_label(algorithm: str, params: str) -> str:
    if not algorithm:
        return "not implemented"
    return f"{algorithm}[{params}]" if params else algorithm


def printed_label(row: str, column: str) -> str:
    """The method as the paper names it: the column without its k (``k=3 MDAV`` -> ``MDAV``), else the row."""
    col = re.sub(r"\bk\s*=\s*\d+\b", "", str(column)).strip(" ,;")
    return col if col else str(row)


def _params(text: str) -> dict[str, str]:
    out = {}
    for part in str(text or "").split(","):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def _natural(text: str) -> list:
    """Sort key that orders "Table 4.10" after "Table 4.9"."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(text)) if t]


def _keep(frame: pd.DataFrame, col: str, test) -> pd.DataFrame:
    """Rows of ``frame`` whose ``col`` passes ``test`` (safe on empty frames)."""
    return frame[np.fromiter((bool(test(v)) for v in frame[col]), dtype=bool, count=len(frame))]


def _num(x) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def _grid(plt, n_panels: int, n_rows_per: int = 1, width: float = 3.3, height: float = 2.6, max_cols: int = 4):
    cols = max(1, min(max_cols, n_panels))
    if n_panels == 1:  # a lone panel gets room for its legend
        width, height = width * 1.5, height * 1.25
    blocks = math.ceil(n_panels / cols)
    ratios = [1.0] + [0.55] * (n_rows_per - 1)
    fig, axes = plt.subplots(blocks * n_rows_per, cols, figsize=(width * cols, height * sum(ratios) * blocks),
                             squeeze=False, gridspec_kw={"height_ratios": ratios * blocks})
    return fig, axes, cols


def _panel_axes(axes, cols: int, i: int, n_rows_per: int):
    block, col = divmod(i, cols)
    return [axes[block * n_rows_per + r][col] for r in range(n_rows_per)]


def _hide_unused(axes, cols: int, n_panels: int, n_rows_per: int) -> None:
    for i in range(n_panels, math.ceil(n_panels / cols) * cols):
        for ax in _panel_axes(axes, cols, i, n_rows_per):
            ax.set_visible(False)


def _slope(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.sum() < 2 or np.unique(x[ok]).size < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


# ------------------------------------------------------------------ non-overlapping labels
_OFFSETS = [(5, 5), (5, -11), (-5, 5), (-5, -11), (9, -3), (-9, -3), (0, 10), (0, -15), (14, 12), (-14, 12),
            (14, -18), (-14, -18), (22, 0), (-22, 0)]


def place_labels(ax, points, texts, fontsize: float = 6.5, color="0.25") -> None:
    """Annotate ``points`` (data coordinates) with ``texts`` so that no two labels overlap.

    Greedy: for each point in turn, the first candidate offset whose box overlaps no placed label and
    no other point is taken (the least-overlapping one if none is free). Identical texts at identical
    points are written once.
    """
    fig = ax.figure
    ax.autoscale_view()  # limits are computed lazily; fix them before mapping points to the display
    renderer = fig.canvas.get_renderer()
    seen, placed = set(), []
    disp = ax.transData.transform(np.asarray(points, float)) if len(points) else np.empty((0, 2))
    marks = [(x - 3, y - 3, x + 3, y + 3) for x, y in disp if np.isfinite([x, y]).all()]
    for (px, py), (dx, dy), text in zip(points, disp, texts):
        if not np.isfinite([px, py, dx, dy]).all() or (round(dx), round(dy), text) in seen:
            continue
        seen.add((round(dx), round(dy), text))
        best, best_cost = None, None
        for ox, oy in _OFFSETS:
            ann = ax.annotate(text, (px, py), textcoords="offset points", xytext=(ox, oy), fontsize=fontsize,
                              color=color, ha="left" if ox >= 0 else "right", va="bottom")
            box = ann.get_window_extent(renderer)
            rect = (box.x0, box.y0, box.x1, box.y1)
            cost = sum(_overlap(rect, other) for other in placed) + 0.3 * sum(_overlap(rect, m) for m in marks)
            if best_cost is None or cost < best_cost:
                if best is not None:
                    best[0].remove()
                best, best_cost = (ann, rect), cost
            else:
                ann.remove()
            if cost == 0:
                break
        placed.append(best[1])


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


# ------------------------------------------------------------------ per-table figures
def _x_variable(part: pd.DataFrame) -> str:
    """What the table varies: ``k`` or a data-set size parameter (``n``, ``d``), by most distinct values."""
    best, best_count = "k", part.groupby(["dataset", "metric"])["k"].nunique().max()
    names = sorted({name for p in part["dataset_params"] for name in _params(p)})
    for name in names:
        values = part["dataset_params"].map(lambda p: _params(p).get(name))
        count = part.assign(_v=values).groupby(["dataset", "metric"])["_v"].nunique().max()
        if count > best_count:
            best, best_count = name, count
    return best if best_count >= 2 else ""


def _prepare(part: pd.DataFrame, xvar: str) -> pd.DataFrame:
    frame = part.copy()
    frame["published"] = frame["value"].map(_num)
    frame["reproduced"] = pd.to_numeric(frame["reproduced"], errors="coerce")
    frame["label"] = [printed_label(r, c) for r, c in zip(frame["row"], frame["column"])]
    frame["method"] = [method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]
    if xvar == "k":
        frame["x"] = frame["k"].astype(int)
        frame["panel_params"] = frame["dataset_params"]
    else:
        frame["x"] = frame["dataset_params"].map(lambda p: _num(_params(p).get(xvar)))
        frame["panel_params"] = frame["dataset_params"].map(
            lambda p: ",".join(f"{a}={b}" for a, b in sorted(_params(p).items()) if a != xvar))
        frame["label"] = frame["label"] + frame["k"].map(lambda k: f", k={k}")
    frame["panel"] = [f"{d}[{pp}] · {m}" if pp else f"{d} · {m}"
                      for d, pp, m in zip(frame["dataset"], frame["panel_params"], frame["metric"])]
    timed = frame["metric"].isin(TIME_METRICS)
    if timed.any():  # times across machines compare only as ratios to the series' own first configuration
        frame = frame.sort_values("x", kind="stable")
        for col in ("published", "reproduced"):
            first = frame[timed].groupby(["panel", "label"])[col].transform("first")
            frame.loc[timed, col] = frame.loc[timed, col] / first
        frame.loc[timed, "panel"] = frame.loc[timed, "panel"] + " (ratio to smallest " + xvar + ")"
    return frame


def _series_styles(labels) -> dict[str, tuple]:
    _, sns = _pyplot()
    palette = sns.color_palette("tab10", max(10, len(labels)))
    return {lab: (palette[i % len(palette)], MARKERS[i % len(MARKERS)]) for i, lab in enumerate(labels)}


def _draw_series(ax, frame: pd.DataFrame, styles: dict, xvar: str, ycol_pub="published", ycol_rep="reproduced",
                 with_ci: bool = True) -> None:
    labels = list(dict.fromkeys(frame["label"]))
    n = len(labels)
    for i, label in enumerate(labels):
        s = frame[frame["label"] == label].sort_values("x")
        color, marker = styles[label]
        shift = (i - (n - 1) / 2) * 0.06 if xvar == "k" and n > 1 else 0.0
        size = max(3.0, 7.0 - 1.2 * i)  # concentric: equal points remain visible as rings
        x = s["x"].to_numpy(float) + shift
        ax.plot(x, s[ycol_pub], ls=":", lw=0.9, color=color, marker=marker, ms=size + 1.5, mfc="none", mew=1.1)
        rep = s[ycol_rep].to_numpy(float)
        if np.isfinite(rep).any():
            ax.plot(x, rep, ls="-", lw=1.1, color=color, marker=marker, ms=size, mew=0)
            if with_ci and {"ci_low", "ci_high"} <= set(s.columns) and s["rule"].eq("draws").any():
                lo, hi = s["ci_low"].to_numpy(float), s["ci_high"].to_numpy(float)
                ok = np.isfinite(lo) & np.isfinite(hi)
                ax.vlines(x[ok], lo[ok], hi[ok], color=color, lw=1.0, alpha=0.7)


def _handles(styles: dict, methods: dict | None = None) -> list:
    from matplotlib.lines import Line2D

    handles = []
    if methods is not None:
        handles += [Line2D([], [], color="0.3", marker="o", mfc="none", ls=":", label="published (hollow)"),
                    Line2D([], [], color="0.3", marker="o", ls="-", label="reproduced (filled)")]
    for label, (color, marker) in styles.items():
        text = f"{label} → {methods[label]}" if methods is not None else label
        handles.append(Line2D([], [], color=color, marker=marker, ls="-", label=text))
    return handles


def _finish(fig, handles: list, title: str = "", ncol: int = 3):
    """Tight layout, then the legend above the panels and the title above the legend (none overlap)."""
    fig.tight_layout()
    legend = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=max(1, ncol),
                        fontsize=7, frameon=False)
    if title:
        box = legend.get_window_extent(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted())
        fig.suptitle(title, y=box.y1 + 0.005, va="bottom", fontsize=9)
    return fig


def _baseline(results: pd.DataFrame | None, dataset: str, dparams: str, metric: str) -> dict[int, float]:
    """MDAV-generic's value per k on this data set (mean over draws), from the results table."""
    if results is None or results.empty or metric not in results.columns:
        return {}
    algo, params = BASELINE
    want = _params(dparams)
    sel = results[(results["algorithm"] == algo) & (results["dataset"] == dataset)]
    sel = _keep(sel, "params", lambda p: _params(p).get("tail") == _params(params)["tail"])
    sel = _keep(sel, "dataset_params", lambda p: all(_params(p).get(a) == b for a, b in want.items()))
    return {int(k): float(v) for k, v in sel.groupby("k")[metric].mean().items()}


def _close(frame: pd.DataFrame) -> bool:
    """An information-loss panel with two or more series whose values typically (median over the shared k)
    differ by less than CLOSE_PERCENT."""
    if frame["label"].nunique() < 2 or frame["metric"].iloc[0] not in ("il", "g_il"):
        return False
    vals = frame.assign(v=frame["reproduced"].fillna(frame["published"])).groupby("x")["v"]
    spread = (vals.max() - vals.min()) / vals.mean().abs() * 100
    counts = frame.groupby("x")["label"].nunique()
    spread = spread[counts >= 2]
    return bool(len(spread)) and float(spread.median()) < CLOSE_PERCENT


def table_figure(part: pd.DataFrame, results: pd.DataFrame | None = None, title: str = ""):
    """The source table as a figure (see the module docstring); None when it has nothing to plot."""
    xvar = _x_variable(part)
    if not xvar:
        return None
    frame = _prepare(part, xvar)
    return _k_figure(frame, results, title) if xvar == "k" else _size_figure(frame, results, xvar, title)


def _k_figure(frame: pd.DataFrame, results, title: str):
    plt, _ = _pyplot()
    panels = list(dict.fromkeys(frame["panel"]))
    rel = {}
    for p in panels:
        f = frame[frame["panel"] == p]
        base = _baseline(results, f["dataset"].iloc[0], f["dataset_params"].iloc[0], f["metric"].iloc[0])
        if _close(f) and base:
            rel[p] = base
    n_rows_per = 2 if rel else 1
    n_metrics = frame["metric"].nunique()
    fig, axes, cols = _grid(plt, len(panels), n_rows_per, max_cols=n_metrics if 2 <= n_metrics <= 6 else 4)
    styles = _series_styles(list(dict.fromkeys(frame["label"])))
    methods = dict(zip(frame["label"], frame["method"]))
    for i, p in enumerate(panels):
        f = frame[frame["panel"] == p]
        axs = _panel_axes(axes, cols, i, n_rows_per)
        _draw_series(axs[0], f, styles, "k")
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
                _draw_series(axs[1], g, styles, "k", with_ci=False)
                axs[1].axhline(0, color="0.4", lw=0.7)
                axs[1].set_ylabel("% vs MDAV", fontsize=7)
            else:
                axs[1].set_visible(False)
    _hide_unused(axes, cols, len(panels), n_rows_per)
    return _finish(fig, _handles(styles, methods), title)


def _time_ratios(results: pd.DataFrame | None, f: pd.DataFrame, xvar: str) -> pd.DataFrame:
    """The reproduced method's own seconds per configuration of the panel, as a ratio to the smallest."""
    if results is None or results.empty or "seconds" not in results.columns:
        return pd.DataFrame()
    rows = []
    for (algo, params, k), s in f.groupby(["algorithm", "params", "k"]):
        if not algo:
            continue
        for x, dparams in zip(s["x"], s["dataset_params"]):
            want = _params(dparams)
            sel = results[(results["algorithm"] == algo) & (results["dataset"] == s["dataset"].iloc[0])
                          & (results["k"] == int(k))]
            sel = _keep(sel, "params", lambda p: all(_params(p).get(a) == b for a, b in _params(params).items()))
            sel = _keep(sel, "dataset_params", lambda p: all(_params(p).get(a) == b for a, b in want.items()))
            if len(sel):
                rows.append({"label": f"{method_label(algo, params)}, k={k}", "x": x,
                             "seconds": float(sel["seconds"].median())})
    out = pd.DataFrame(rows).drop_duplicates(["label", "x"])
    if out.empty:
        return out
    out["ratio"] = out.groupby("label")["seconds"].transform(lambda s: s / s.iloc[0] if len(s) else s)
    return out.sort_values(["label", "x"])


def _size_figure(frame: pd.DataFrame, results, xvar: str, title: str):
    plt, _ = _pyplot()
    panels = list(dict.fromkeys(frame["panel"]))
    times = {p: _time_ratios(results, frame[frame["panel"] == p].sort_values("x"), xvar) for p in panels}
    n_rows_per = 2 if any(len(t) for t in times.values()) else 1
    fig, axes, cols = _grid(plt, len(panels), n_rows_per, width=4.2, height=3.0)
    styles = _series_styles(list(dict.fromkeys(frame["label"])))
    methods = dict(zip(frame["label"], frame["method"]))
    for i, p in enumerate(panels):
        f = frame[frame["panel"] == p]
        axs = _panel_axes(axes, cols, i, n_rows_per)
        ax = axs[0]
        _draw_series(ax, f, styles, xvar)
        notes = []
        for label, s in f.groupby("label", sort=False):
            short = label.rsplit(", ", 1)[-1] + ": " if f["label"].nunique() > 1 else ""
            pub, rep = _slope(s["x"], s["published"]), _slope(s["x"], s["reproduced"])
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
                                label=f"{label}: slope {_slope(s['x'], s['ratio']):.2f}")
                axs[1].set_xscale("log")
                axs[1].set_yscale("log")
                axs[1].set_ylabel("time ÷ time at\nsmallest " + xvar, fontsize=7)
                axs[1].legend(fontsize=5.5, loc="best", framealpha=0.8)
                _size_ticks(axs[1], t["x"])
            else:
                axs[1].set_visible(False)
        axs[-1].set_xlabel(f"{xvar} (log)", fontsize=7)
    _hide_unused(axes, cols, len(panels), n_rows_per)
    return _finish(fig, _handles(styles, methods), title)


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
    place_labels(ax, where, texts)


def table_ru_map(part: pd.DataFrame, title: str = ""):
    """R–U map of a table printing G_IL and G_DR: per data set, one line per method through its k values."""
    if not {"g_il", "g_dr"} <= set(part["metric"]):
        return None
    plt, _ = _pyplot()
    frame = part.copy()
    frame["label"] = [printed_label(r, c) for r, c in zip(frame["row"], frame["column"])]
    frame["pub"] = frame["value"].map(_num)
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
    fig, axes, cols = _grid(plt, len(datasets), 1, width=3.6, height=3.2, max_cols=3)
    styles = _series_styles(list(dict.fromkeys(wide["label"])))
    methods = dict(zip(frame["label"], [method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]))
    for i, ds in enumerate(datasets):
        ax = _panel_axes(axes, cols, i, 1)[0]
        ax.set_title(ds, fontsize=8)
        _ru_axes(ax, wide[wide["dataset"] == ds], styles, published=True)
    _hide_unused(axes, cols, len(datasets), 1)
    return _finish(fig, _handles(styles, methods), title)


def ru_map(results: pd.DataFrame, out_dir=None):
    """R–U map of the results (thesis Fig. 4.6 style): per data set, one line per method through its k.

    Points are means over draws. Returns the written paths when ``out_dir`` is given, else the Figure.
    """
    plt, _ = _pyplot()
    have = {"g_il", "g_dr"} <= set(results.columns)
    frame = results.dropna(subset=["g_il", "g_dr"]) if have else results[:0]
    if frame.empty:  # still write the files the workflow expects, saying why they are empty
        return _placeholder("no cell of this run computed both G_IL and G_DR\n(add g_il, rld, id, g_dr to a data "
                            "set's metrics)", out_dir, "ru_map")
    frame = frame.assign(label=[method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])])
    means = frame.groupby(["dataset_id", "label", "k"], as_index=False, sort=False)[["g_il", "g_dr"]].mean()
    datasets = sorted(means["dataset_id"].unique())
    fig, axes, cols = _grid(plt, len(datasets), 1, width=3.8, height=3.3, max_cols=3)
    styles = _series_styles(sorted(means["label"].unique()))
    for i, ds in enumerate(datasets):
        ax = _panel_axes(axes, cols, i, 1)[0]
        ax.set_title(ds, fontsize=8)
        _ru_axes(ax, means[means["dataset_id"] == ds], styles, published=False)
    _hide_unused(axes, cols, len(datasets), 1)
    _finish(fig, _handles(styles), "R–U map: one line per method through its k values (means over draws)")
    return save(fig, out_dir, "ru_map") if out_dir is not None else fig


# ------------------------------------------------------------------ verdicts
def verdict_overview(compared: pd.DataFrame, order=None):
    """Horizontal stacked bars: how many published numbers of each source table got each verdict, the
    numbers not reproduced split by cause class (a missing class counts as open)."""
    plt, _ = _pyplot()
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
        order = sorted(counts.index, key=lambda st: (sources.index(st[0]), _natural(st[1])))
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
    plt, sns = _pyplot()
    frame = part.copy()
    dup = frame.duplicated(["row", "column"], keep=False)
    frame["col"] = np.where(dup, frame["column"] + " k=" + frame["k"].astype(str), frame["column"])
    frame["rel"] = 100 * pd.to_numeric(frame["delta"], errors="coerce") / frame["value"].map(_num).abs()
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
    plt, _ = _pyplot()
    frame = results.assign(label=[method_label(a, p) for a, p in zip(results["algorithm"], results["params"])])
    methods = frame.groupby("dataset_id")["label"].nunique()
    ks = frame.groupby("dataset_id")["k"].nunique()
    chosen = sorted(set(methods[methods >= 2].index) & set(ks[ks >= 2].index)) or sorted(ks[ks >= 2].index)
    if not chosen:  # still write the files the workflow expects, saying why they are empty
        return _placeholder("no data set of this run has two or more k values\n"
                            "(give a data set several k to draw IL against k)", out_dir, "il_vs_k")
    frame = frame[frame["dataset_id"].isin(chosen)]
    fig, axes, cols = _grid(plt, len(chosen), 2)
    labels = sorted(frame["label"].unique())
    styles = _series_styles(labels)
    for i, ds in enumerate(chosen):
        f = frame[frame["dataset_id"] == ds]
        stats = f.groupby(["label", "k"], as_index=False)["il"].agg(["mean", "std", "count"]).reset_index()
        stats = stats.rename(columns={"mean": "il"}).assign(x=lambda s: s["k"].astype(int))
        axs = _panel_axes(axes, cols, i, 2)
        base = _baseline(f, f["dataset"].iloc[0], "", "il")
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
    _hide_unused(axes, cols, len(chosen), 2)
    _finish(fig, _handles(styles), "Information loss against k (mean, 95 % CI over draws); below: % difference "
            "to MDAV-generic", ncol=4)
    return save(fig, out_dir, "il_vs_k") if out_dir is not None else fig


def anytime(results: pd.DataFrame, out_dir) -> list[Path]:
    """IL against time (log axis) per data set and k: each search method's anytime trace (``trace``
    in the record's ``info``: [seconds, IL] at every improvement; first draw) as a step line, every other
    method as a point at (its seconds, its IL)."""
    import json

    plt, sns = _pyplot()
    frame = results.copy()
    frame["method"] = [method_label(a, p) for a, p in zip(frame["algorithm"], frame["params"])]

    def trace_of(info):
        if not isinstance(info, str) or not info:
            return None
        points = json.loads(info).get("trace")
        return points or None

    frame["_trace"] = frame["info"].map(trace_of) if "info" in frame else None
    searched = frame[frame["_trace"].notna()]
    panels = sorted({(r.dataset_id, int(r.k)) for r in searched.itertuples()})
    if not panels:
        return _placeholder("no search method (a run record with a trace) in these results", out_dir, "anytime")
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
    return save(fig, out_dir, "anytime")


def frontier(frame: pd.DataFrame, out_dir=None):
    """Per registry data set, each method's gap to the certified lower bound (marker) against k, the
    best known's gap as a black line: the room each method leaves, and how much of it is proven.
    ``frame`` is :func:`mabench.report.frontier.table`. Returns the paths (``out_dir``) or the Figure."""
    plt, _ = _pyplot()
    datasets = list(dict.fromkeys(frame["dataset"]))
    if not datasets:
        return _placeholder("no best-known cells to draw", out_dir, "frontier")
    # one line per algorithm: its best variant at each (data set, k); the table keeps every variant
    frame = frame.assign(method=frame["method"].str.split("[", n=1).str[0]).dropna(subset=["gap_bound"])
    frame = frame.loc[frame.groupby(["dataset", "k", "method"])["gap_bound"].idxmin()]
    fig, axes, cols = _grid(plt, len(datasets), 1)
    labels = sorted(m for m in frame["method"].unique() if m != "best known")
    styles = _series_styles(labels) if labels else {}
    for i, ds in enumerate(datasets):
        ax = _panel_axes(axes, cols, i, 1)[0]
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
    _hide_unused(axes, cols, len(datasets), 1)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color="black", marker="s", lw=1.6, label="best known")] + _handles(styles)
    _finish(fig, handles, "Gap to the certified lower bound, 100·(IL − bound)/IL, each method's best variant; the "
            "black line is the best known partition (the part of the gap not yet proven or closed)", ncol=8)
    return save(fig, out_dir, "frontier") if out_dir is not None else fig
