"""Figures like the papers': information loss against k, per data set and method."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from . import io

# Fixed metadata so the same results give byte-identical files.
_PNG_META = {"Software": None}
_PDF_META = {"Creator": None, "Producer": None, "CreationDate": None}


def _save(fig, out_dir: Path, stem: str) -> list[Path]:
    written = []
    for ext, meta in (("png", _PNG_META), ("pdf", _PDF_META)):
        target = out_dir / f"{stem}.{ext}"
        with io.atomic_path(target) as tmp:
            fig.savefig(tmp, format=ext, dpi=150, metadata=meta, bbox_inches="tight")
        written.append(target)
    return written


def _placeholder(plt, out_dir, stem: str, message: str) -> list[Path]:
    fig, ax = plt.subplots(figsize=(4, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, message, ha="center", va="center", fontsize=8)
    written = _save(fig, Path(out_dir), stem)
    plt.close(fig)
    return written


def _label(frame: pd.DataFrame) -> pd.Series:
    return frame["algorithm"] + frame["params"].map(lambda p: f" [{p}]" if p else "")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="paper")
    return plt, sns


def il_vs_k(results: pd.DataFrame, out_dir) -> list[Path]:
    """One panel per data set with at least two k values; one line per method (mean ± 95 % CI over draws)."""
    plt, sns = _pyplot()
    frame = results.copy()
    frame["method"] = _label(frame)
    ks = frame.groupby("dataset_id")["k"].nunique()
    frame = frame[frame["dataset_id"].isin(ks[ks >= 2].index)]
    if frame.empty:  # still write the files the workflow expects, saying why they are empty
        return _placeholder(plt, out_dir, "il_vs_k", "no data set of this run has two or more k values\n"
                            "(give a data set several k to draw IL against k)")
    order = sorted(frame["dataset_id"].unique())
    grid = sns.relplot(data=frame, x="k", y="il", hue="method", col="dataset_id", col_order=order,
                       col_wrap=min(4, max(1, len(order))), kind="line", marker="o", errorbar=("ci", 95),
                       facet_kws={"sharey": False, "sharex": False}, height=2.6, aspect=1.2)
    grid.set_axis_labels("k", "IL (% of SST)")
    grid.set_titles("{col_name}")
    written = _save(grid.figure, Path(out_dir), "il_vs_k")
    plt.close(grid.figure)
    return written


def ru_map(results: pd.DataFrame, out_dir) -> list[Path]:
    """R–U map (thesis Fig. 4.6): utility loss G_IL against disclosure risk G_DR, per method and k.

    One panel per data set that has both metrics; points are means over draws,
    labelled with k. Lower-left is better on both axes.
    """
    plt, sns = _pyplot()
    frame = results.dropna(subset=["g_il", "g_dr"]) if {"g_il", "g_dr"} <= set(results.columns) else results[:0]
    if frame.empty:  # still write the file the workflow expects, saying why it is empty
        return _placeholder(plt, out_dir, "ru_map", "no cell of this run computed both G_IL and G_DR\n"
                            "(add g_il, rld, id, g_dr to a data set's metrics)")
    frame = frame.copy()
    frame["method"] = _label(frame)
    means = frame.groupby(["dataset_id", "method", "k"], as_index=False)[["g_il", "g_dr"]].mean()
    order = sorted(means["dataset_id"].unique())
    grid = sns.relplot(data=means, x="g_dr", y="g_il", hue="method", col="dataset_id", col_order=order,
                       col_wrap=min(3, len(order)), kind="scatter", s=40,
                       facet_kws={"sharey": False, "sharex": False}, height=2.8, aspect=1.1)
    for dataset_id, ax in grid.axes_dict.items():
        for row in means[means["dataset_id"] == dataset_id].itertuples():
            ax.annotate(f"k={row.k}", (row.g_dr, row.g_il), textcoords="offset points", xytext=(3, 3), fontsize=6)
    grid.set_axis_labels("G_DR, disclosure risk (%)", "G_IL, information loss (%)")
    grid.set_titles("{col_name}")
    written = _save(grid.figure, Path(out_dir), "ru_map")
    plt.close(grid.figure)
    return written
