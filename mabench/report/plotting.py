"""The renderer's primitives: matplotlib set up the same way every time, figures written with fixed
metadata (byte-identical files from the same results), panel grids, series drawn as published
(hollow) over reproduced (filled) markers, legends, titles and labels placed where they overlap
nothing. :mod:`mabench.report.render` draws each figure kind with them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io

# Fixed metadata so the same results give byte-identical files.
_PNG_META = {"Software": None}

_PDF_META = {"Creator": None, "Producer": None, "CreationDate": None}

MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "p", "h", "*"]

# seaborn's theme ``set_theme(style="whitegrid", context="paper")`` as rcParams, so that drawing needs
# no seaborn import (it imports scipy.stats: about a third of the CPU of a figures command);
# tests/report/test_figure_specs.py checks it equals seaborn's.
_DEEP = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c", "#ccb974",
         "#64b5cd"]
THEME = {
    "axes.axisbelow": True, "axes.edgecolor": ".8", "axes.grid": True, "axes.labelcolor": ".15",
    "axes.labelsize": 9.600000000000001, "axes.linewidth": 1.0, "axes.titlesize": 9.600000000000001,
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans", "sans-serif"],
    "font.size": 9.600000000000001, "grid.color": ".8", "legend.fontsize": 8.8,
    "legend.title_fontsize": 9.600000000000001, "lines.linewidth": 1.2000000000000002,
    "lines.markersize": 4.800000000000001, "lines.solid_capstyle": "round", "patch.edgecolor": "w",
    "patch.force_edgecolor": True, "patch.linewidth": 0.8, "text.color": ".15", "xtick.bottom": False,
    "xtick.color": ".15", "xtick.labelsize": 8.8, "xtick.major.size": 4.800000000000001, "xtick.major.width": 1.0,
    "xtick.minor.size": 3.2, "xtick.minor.width": 0.8, "ytick.color": ".15", "ytick.labelsize": 8.8,
    "ytick.left": False, "ytick.major.size": 4.800000000000001, "ytick.major.width": 1.0, "ytick.minor.size": 3.2,
    "ytick.minor.width": 0.8,
}


def pyplot():
    """matplotlib's pyplot on the Agg backend, with the report's theme."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from cycler import cycler

    matplotlib.rcParams.update({**THEME, "axes.prop_cycle": cycler("color", [matplotlib.colors.to_rgb(c)
                                                                              for c in _DEEP])})
    return plt


def seaborn():
    """seaborn, imported only for more than ten colours (its husl palette)."""
    import seaborn as sns

    return sns


def save(fig, out_dir, stem: str, formats=("png", "pdf")) -> list[Path]:
    """Write ``fig`` as ``out_dir/stem.{png,pdf}`` atomically; close it."""
    plt = pyplot()
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

    plt = pyplot()
    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata=_PNG_META, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()

def grid(plt, n_panels: int, n_rows_per: int = 1, width: float = 3.3, height: float = 2.6, max_cols: int = 4):
    cols = max(1, min(max_cols, n_panels))
    if n_panels == 1:  # a lone panel gets room for its legend
        width, height = width * 1.5, height * 1.25
    blocks = math.ceil(n_panels / cols)
    ratios = [1.0] + [0.55] * (n_rows_per - 1)
    fig, axes = plt.subplots(blocks * n_rows_per, cols, figsize=(width * cols, height * sum(ratios) * blocks),
                             squeeze=False, gridspec_kw={"height_ratios": ratios * blocks})
    return fig, axes, cols

def panel_axes(axes, cols: int, i: int, n_rows_per: int):
    block, col = divmod(i, cols)
    return [axes[block * n_rows_per + r][col] for r in range(n_rows_per)]

def hide_unused(axes, cols: int, n_panels: int, n_rows_per: int) -> None:
    for i in range(n_panels, math.ceil(n_panels / cols) * cols):
        for ax in panel_axes(axes, cols, i, n_rows_per):
            ax.set_visible(False)

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

def palette(n: int) -> list:
    """``n`` colours: tab10 (seaborn's ``color_palette("tab10", n)``), husl beyond ten."""
    if n > 10:
        return seaborn().color_palette("husl", n)
    return _tab10(n)


def _tab10(n: int) -> list:
    from matplotlib import colormaps

    colors = colormaps["tab10"].colors
    return [tuple(colors[i % len(colors)]) for i in range(n)]


def series_styles(labels) -> dict[str, tuple]:
    palette = _tab10(max(10, len(labels)))
    return {lab: (palette[i % len(palette)], MARKERS[i % len(MARKERS)]) for i, lab in enumerate(labels)}


def draw_series(ax, frame: pd.DataFrame, styles: dict, xvar: str, ycol_pub="published", ycol_rep="reproduced",
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

def handles(styles: dict, methods: dict | None = None) -> list:
    from matplotlib.lines import Line2D

    handles = []
    if methods is not None:
        handles += [Line2D([], [], color="0.3", marker="o", mfc="none", ls=":", label="published (hollow)"),
                    Line2D([], [], color="0.3", marker="o", ls="-", label="reproduced (filled)")]
    for label, (color, marker) in styles.items():
        text = f"{label} → {methods[label]}" if methods is not None else label
        handles.append(Line2D([], [], color=color, marker=marker, ls="-", label=text))
    return handles

def finish(fig, handles: list, title: str = "", ncol: int = 3):
    """Tight layout, then the legend above the panels and the title above the legend (none overlap)."""
    fig.tight_layout()
    legend = fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=max(1, ncol),
                        fontsize=7, frameon=False)
    if title:
        box = legend.get_window_extent(fig.canvas.get_renderer()).transformed(fig.transFigure.inverted())
        fig.suptitle(title, y=box.y1 + 0.005, va="bottom", fontsize=9)
    return fig
