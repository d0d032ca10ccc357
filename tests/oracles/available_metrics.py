"""Plain-NumPy metrics on available cases (missing=available), written from docs/metrics.md#missing-values,
not from mabench/metrics/available.py: loops over records and pairs, no shared helper."""

from __future__ import annotations

import math

import numpy as np


def _z(x, xm):
    # the same rounding as mabench's z-scores (nanmean/nanstd): a group of two publishes their midpoint,
    # equidistant from both in exact arithmetic, so which is nearer is decided by the last bit
    mean, sd = np.nanmean(x, axis=0), np.nanstd(x, axis=0)
    return (x - mean) / sd, (xm - mean) / sd


def dld(x, xm):
    """100 · (masked records whose own original is among the two nearest originals, distance over the
    attributes both observe scaled by d/m, ties to the lower index) / n."""
    z, zm = _z(x, xm)
    n, d = z.shape
    linked = 0
    for i in range(n):
        dists = []
        for r in range(n):
            both = ~np.isnan(zm[i]) & ~np.isnan(z[r])
            m = int(both.sum())
            if m:
                s = sum((z[r, j] - zm[i, j]) ** 2 for j in range(d) if both[j])
                dists.append((s * (d / m) if m < d else s, r))
        nearest = [r for _, r in sorted(dists)[:2]]
        linked += i in nearest
    return 100.0 * linked / n


def interval_disclosure(x, xm, percentages):
    """Per variable, the masked values of the records observing it ranked (ties by record order); a
    record counts at P if each of its observed originals lies between the masked values floor(P·m/100)
    ranks below and above its own; records with nothing observed are left out."""
    n, d = x.shape
    hits = 0
    counted = [i for i in range(n) if (~np.isnan(x[i])).any()]
    for p in percentages:
        for i in counted:
            ok = True
            for j in range(d):
                if np.isnan(x[i, j]):
                    continue
                rows = [r for r in range(n) if not np.isnan(x[r, j])]
                ranked = sorted(rows, key=lambda r: (xm[r, j], r))
                pos = ranked.index(i)
                w = math.floor(p * len(rows) / 100)
                lo, hi = xm[ranked[max(pos - w, 0)], j], xm[ranked[min(pos + w, len(rows) - 1)], j]
                ok &= bool(lo <= x[i, j] <= hi)
            hits += ok
    return 100.0 * hits / (len(percentages) * len(counted))


def pairwise_cor(x):
    d = x.shape[1]
    c = np.eye(d)
    for a in range(d):
        for b in range(d):
            if a != b:
                both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
                u, v = x[both, a] - x[both, a].mean(), x[both, b] - x[both, b].mean()
                c[a, b] = (u * v).sum() / math.sqrt((u * u).sum() * (v * v).sum())
    return c


def eigen(x, xm):
    e1 = np.sort(np.linalg.eigvalsh(pairwise_cor(x)))[::-1]
    e2 = np.sort(np.linalg.eigvalsh(pairwise_cor(xm)))[::-1]
    return float(np.sum(np.abs(e1 - e2) / e1))


def il_correl(x, xm):
    r, rm = np.diag(np.linalg.inv(pairwise_cor(x))), np.diag(np.linalg.inv(pairwise_cor(xm)))
    return float(np.linalg.norm(r / np.linalg.norm(r) - rm / np.linalg.norm(rm)) / math.sqrt(2))


def il_variables(x, xm):
    seen = ~np.isnan(x)
    return float(np.mean((2 / math.pi) * np.arctan(np.abs(x[seen] - xm[seen]))))
