"""Plain-NumPy masked values and IL of a per-variable partition (onedims) on data with missing values,
written from docs/metrics.md#missing-values, not from mabench/data/missing.py: loops over records."""

from __future__ import annotations

import numpy as np


def masked(x, labels, weights=None):
    """(n, d): record i's value of variable j is the (weighted) mean of x[r, j] over the records r that
    observe j and share i's label in column j; NaN where i itself misses j."""
    n, d = x.shape
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    out = np.full((n, d), np.nan)
    for j in range(d):
        for i in range(n):
            if np.isnan(x[i, j]):
                continue
            num = den = 0.0
            for r in range(n):
                if labels[r, j] == labels[i, j] and not np.isnan(x[r, j]):
                    num += w[r] * x[r, j]
                    den += w[r]
            out[i, j] = num / den
    return out


def il(x, xm):
    """100 · Σ (z − z')² / Σ z² over the observed cells, z and z' standardized with the mean and sd
    (ddof 0) of each variable's observed values."""
    n, d = x.shape
    sse = sst = 0.0
    for j in range(d):
        obs = [x[i, j] for i in range(n) if not np.isnan(x[i, j])]
        mean = sum(obs) / len(obs)
        sd = (sum((v - mean) ** 2 for v in obs) / len(obs)) ** 0.5
        for i in range(n):
            if not np.isnan(x[i, j]):
                z, zm = (x[i, j] - mean) / sd, (xm[i, j] - mean) / sd
                sse += (z - zm) ** 2
                sst += z * z
    return 100.0 * sse / sst
