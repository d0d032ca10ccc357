"""Plain-NumPy MDAV family (MDAV with tail 3k or 2k, MDAV-1, CBFS) and onedims with missing values
(``missing=available``), written from the rule in docs/metrics.md#missing-values, not from the
kernels: distances over the attributes both points observe, scaled by d/m (R's ``dist()`` with NA);
a pair with nothing in common has no distance (never nearest while another is alive, never
farthest); the centroid is each attribute's mean over its observed values among the remaining
records; fewer than k leftovers join the group whose centroid (mean of the members' observed
values, frozen) is nearest, group 0 if none has an attribute in common; ties go to the lowest record
index (lowest label). onedims: each variable ranks its observed values only (sdcMicro's cut), the
records missing it get one label of their own."""

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


def _close(Z, labels, g, k):
    """k or more records left: one group; fewer: each to the group with the nearest frozen centroid."""
    rows = np.flatnonzero(labels < 0)
    if rows.size >= k:
        labels[rows] = g
        return
    if rows.size == 0:
        return
    with np.errstate(invalid="ignore"):
        cents = np.array([[np.nanmean(Z[labels == h, j]) if (~np.isnan(Z[labels == h, j])).any() else np.nan
                           for j in range(Z.shape[1])] for h in range(g)])
    for i in rows:
        dist = _dist(cents, np.arange(g), Z[i])
        finite = np.isfinite(dist)
        labels[i] = int(np.flatnonzero(dist == dist[finite].min())[0]) if finite.any() else 0


def mdav_missing(Z: np.ndarray, k: int, tail: str = "3k") -> np.ndarray:
    """``tail``: 3k (MDAV-generic), 2k (the papers' wording) or mdav1 (MDAV-1)."""
    n, d = Z.shape
    labels = np.full(n, -1, dtype=np.int64)
    g = 0

    def alive():
        return np.flatnonzero(labels < 0)

    def group_around(seed, rows):
        nonlocal g
        labels[_nearest(rows, _dist(Z, rows, Z[seed]), seed, k)] = g
        g += 1

    while alive().size >= (3 * k if tail == "3k" else 2 * k):
        rows = alive()
        r = _farthest(rows, _dist(Z, rows, _centroid(Z, rows)))
        s = _farthest(rows, _dist(Z, rows, Z[r]))
        group_around(r, rows)
        rows = alive()
        if labels[s] >= 0:
            s = _farthest(rows, _dist(Z, rows, Z[r]))
        group_around(s, rows)
    rows = alive()
    if tail != "2k" and rows.size >= (2 * k if tail == "3k" else k):
        r = _farthest(rows, _dist(Z, rows, _centroid(Z, rows)))
        group_around(r, rows)
    _close(Z, labels, g, k)
    return labels


def cbfs_missing(Z: np.ndarray, k: int, tail: str = "nearest", centroid: str = "remaining") -> np.ndarray:
    n, d = Z.shape
    labels = np.full(n, -1, dtype=np.int64)
    g = 0
    fixed = _centroid(Z, np.arange(n))
    while (labels < 0).sum() >= (2 * k if tail == "group" else k):
        rows = np.flatnonzero(labels < 0)
        c = fixed if centroid == "fixed" else _centroid(Z, rows)
        r = _farthest(rows, _dist(Z, rows, c))
        labels[_nearest(rows, _dist(Z, rows, Z[r]), r, k)] = g
        g += 1
    _close(Z, labels, g, k)
    return labels


def _centroid(Z, rows):
    with np.errstate(invalid="ignore"):
        return np.array([np.nanmean(Z[rows, j]) if (~np.isnan(Z[rows, j])).any() else np.nan
                         for j in range(Z.shape[1])])


def onedims_missing(X: np.ndarray, k: int) -> np.ndarray:
    """(n, d) labels: per variable, the observed values sorted (ties by record index) and cut into
    groups of k, the last taking the remainder; the records missing the variable one more label."""
    n, d = X.shape
    labels = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        seen = np.flatnonzero(~np.isnan(X[:, j]))
        ranked = seen[np.argsort(X[seen, j], kind="stable")]
        groups = max(ranked.size // k, 1) if ranked.size else 0
        for pos, i in enumerate(ranked):
            labels[i, j] = min(pos // k, groups - 1)
        labels[np.isnan(X[:, j]), j] = groups
    return labels
