"""Scaling figure of a config/scale.yaml run: algorithm seconds against n, log-log, with fitted exponents.

    python workflow/scripts/scaling_figure.py results/results.parquet results/figures/scaling

One panel per (data-set family, d, k): "uniform"/"normal" and the column count come from the cells'
`dataset` and `d`; one line per algorithm id, the median over draws and seeds of each size. The
exponent b of seconds ~ a·n^b is a least-squares fit on log-log over the sizes n >= 10,000 (small
sizes are dominated by fixed costs). Writes STEM.png, STEM.pdf and STEM.csv (the points and exponents).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

FIT_FROM = 10_000


def exponent(n: np.ndarray, seconds: np.ndarray) -> float:
    keep = (n >= FIT_FROM) & (seconds > 0)
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(n[keep]), np.log(seconds[keep]), 1)[0])


def points(results: pd.DataFrame) -> pd.DataFrame:
    cols = ["dataset", "d", "k", "algo_id", "n"]
    med = results.groupby(cols, as_index=False)["seconds"].median()
    fits = (med.groupby(cols[:-1]).apply(lambda g: exponent(g["n"].to_numpy(float), g["seconds"].to_numpy(float)),
                                         include_groups=False).rename("exponent").reset_index())
    return med.merge(fits, on=cols[:-1]).sort_values(cols)


def main(argv: list[str]) -> None:
    src, stem = Path(argv[0]), Path(argv[1])
    frame = points(pd.read_parquet(src))
    stem.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(stem.with_suffix(".csv"), index=False)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(frame.groupby(["dataset", "d", "k"]))
    cols = min(3, len(panels))
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, ((ds, d, k), part) in zip(axes.flat, panels):
        for algo, line in part.groupby("algo_id"):
            ax.loglog(line["n"], line["seconds"], "o-", ms=3, label=f"{algo} (n^{line['exponent'].iloc[0]:.2f})")
        ax.set_title(f"{ds}, d={d}, k={k}", fontsize=9)
        ax.set_xlabel("records n")
        ax.set_ylabel("algorithm seconds")
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    for ext in (".png", ".pdf"):
        fig.savefig(stem.with_suffix(ext), dpi=120)


if __name__ == "__main__":
    main(sys.argv[1:])
