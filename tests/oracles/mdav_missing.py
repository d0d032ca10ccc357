"""Plain-NumPy MDAV-generic with missing values (``missing=available``), written from the rule in
docs/metrics.md#missing-values, not from the kernel: distances over the attributes both points
observe, scaled by d/m (R's ``dist()`` with NA); a pair with nothing in common has no distance
(never nearest while another is alive, never farthest); the centroid is each attribute's mean over
its observed values among the remaining records; ties go to the lowest record index."""

from __future__ import annotations

import numpy as np


def _dist(Z, rows, point):
    x = Z[rows]
    both = ~np.isnan(x) & ~np.isnan(point)
    m = both.sum(axis=1)
    sq = np.where(both, (np.nan_to_num(x) - np.nan_to_num(point)) ** 2, 0.0).sum(axis=1)
    d = Z.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = np.where(m == d, sq, sq * (d / np.maximum(m, 1)))
    return np.where(m == 0, np.inf, scaled)


def _farthest(rows, dist):
    finite = np.isfinite(dist)
    if not finite.any():
        return rows.min()
    best = dist[finite].max()
    return rows[finite][dist[finite] == best].min()


def _nearest(rows, dist, seed, k):
    others = rows != seed
    order = np.lexsort((rows[others], dist[others]))
    return np.concatenate([[seed], rows[others][order][: k - 1]])


def mdav_missing(Z: np.ndarray, k: int) -> np.ndarray:
    n, d = Z.shape
    labels = np.full(n, -1, dtype=np.int64)
    g = 0

    def alive():
        return np.flatnonzero(labels < 0)

    def centroid(rows):
        with np.errstate(invalid="ignore"):
            return np.array([np.nanmean(Z[rows, j]) if (~np.isnan(Z[rows, j])).any() else np.nan
                             for j in range(d)])

    def group_around(seed, rows):
        nonlocal g
        labels[_nearest(rows, _dist(Z, rows, Z[seed]), seed, k)] = g
        g += 1

    while alive().size >= 3 * k:
        rows = alive()
        r = _farthest(rows, _dist(Z, rows, centroid(rows)))
        s = _farthest(rows, _dist(Z, rows, Z[r]))
        group_around(r, rows)
        rows = alive()
        if labels[s] >= 0:
            s = _farthest(rows, _dist(Z, rows, Z[r]))
        group_around(s, rows)
    rows = alive()
    if rows.size >= 2 * k:
        r = _farthest(rows, _dist(Z, rows, centroid(rows)))
        group_around(r, rows)
    rows = alive()
    if rows.size:
        labels[rows] = g
    return labels
