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


def _label(frame: pd.DataFrame) -> pd.Series:
    return frame["algorithm"] + frame["params"].map(lambda p: f" [{p}]" if p else "")


def il_vs_k(results: pd.DataFrame, out_dir) -> list[Path]:
    """One panel per data set with at least two k values; one line per method (mean ± 95 % CI over draws)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import seaborn as sns

    frame = results.copy()
    frame["method"] = _label(frame)
    ks = frame.groupby("dataset_id")["k"].nunique()
    frame = frame[frame["dataset_id"].isin(ks[ks >= 2].index)]
    order = sorted(frame["dataset_id"].unique())
    sns.set_theme(style="whitegrid", context="paper")
    grid = sns.relplot(data=frame, x="k", y="il", hue="method", col="dataset_id", col_order=order,
                       col_wrap=min(4, max(1, len(order))), kind="line", marker="o", errorbar=("ci", 95),
                       facet_kws={"sharey": False, "sharex": False}, height=2.6, aspect=1.2)
    grid.set_axis_labels("k", "IL (% of SST)")
    grid.set_titles("{col_name}")
    written = _save(grid.figure, Path(out_dir), "il_vs_k")
    plt.close(grid.figure)
    return written
