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


def anytime(results: pd.DataFrame, out_dir) -> list[Path]:
    """IL against time (log axis) per data set and k: each search method's anytime trace (``trace``
    in the record's ``info``: [seconds, IL] at every improvement; first draw) as a step line, every other
    method as a point at (its seconds, its IL)."""
    import json

    plt, sns = _pyplot()
    frame = results.copy()
    frame["method"] = _label(frame)

    def trace_of(info):
        if not isinstance(info, str) or not info:
            return None
        points = json.loads(info).get("trace")
        return points or None

    frame["_trace"] = frame["info"].map(trace_of) if "info" in frame else None
    searched = frame[frame["_trace"].notna()]
    panels = sorted({(r.dataset_id, int(r.k)) for r in searched.itertuples()})
    if not panels:
        fig, ax = plt.subplots(figsize=(4, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no search method (a run record with a trace) in these results", ha="center", va="center",
                fontsize=8)
        written = _save(fig, Path(out_dir), "anytime")
        plt.close(fig)
        return written
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
    written = _save(fig, Path(out_dir), "anytime")
    plt.close(fig)
    return written
