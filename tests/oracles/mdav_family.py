"""Plain NumPy reference implementations of the fixed-size heuristics.

Written independently of the Numba kernels, straight from the pseudocode in
the algorithm plugins' docstrings (boolean masks, no compaction), as a test
oracle. Arithmetic follows the same order as the kernels (the centroid's
running column sums, distances accumulated attribute by attribute), so ties
resolve identically and partitions must be equal.
"""

from __future__ import annotations

import numpy as np


def _sum(Z, mask):
    s = np.zeros(Z.shape[1])
    for i in np.flatnonzero(mask):
        s += Z[i]
    return s


def _mean(Z, mask):
    return _sum(Z, mask) / mask.sum()


class _Sums:
    """The kernels' centroid bookkeeping, spelled out: column sums of the remaining records,
    each removed record subtracted in removal order, recomputed afresh (in record order)
    whenever more than 1/8 of the work buffer's slots hold removed records."""

    def __init__(self, Z):
        self.Z, self.sums, self.slots = Z, _sum(Z, np.ones(len(Z), bool)), len(Z)

    def centroid(self, mask):
        left = int(mask.sum())
        if (self.slots - left) * 8 > self.slots:
            self.sums, self.slots = _sum(self.Z, mask), left
        return self.sums / left

    def forget(self, members):
        for i in members:
            self.sums -= self.Z[i]


def _dist(Z, p):
    acc = np.zeros(Z.shape[0])
    for j in range(Z.shape[1]):
        t = Z[:, j] - p[j]
        acc += t * t
    return acc


def _farthest(dist, mask):
    d = np.where(mask, dist, -1.0)
    return int(np.argmax(d))  # first maximum = lowest index


def _group(Z, mask, labels, seed, k, g, sums=None):
    dist = _dist(Z, Z[seed])
    others = np.flatnonzero(mask & (np.arange(len(mask)) != seed))
    order = others[np.argsort(dist[others], kind="stable")][: k - 1]
    members = np.concatenate([[seed], order]).astype(int)
    labels[members] = g
    mask[members] = False
    if sums is not None:
        sums.forget(members)


def _leftovers(Z, labels):
    g = labels.max() + 1
    means = np.array([_mean(Z, labels == h) for h in range(g)])
    for i in np.flatnonzero(labels < 0):
        d = [_dist(means[h : h + 1], Z[i])[0] for h in range(g)]
        labels[i] = int(np.argmin(d))


def _close_tail(Z, mask, labels, g, k):
    """k or more left form one group; fewer join their nearest groups."""
    if mask.sum() >= k:
        labels[mask] = g
    elif mask.any():
        _leftovers(Z, labels)


def mdav(Z, k, tail="3k"):
    n = len(Z)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    sums = _Sums(Z)
    g = 0
    stop = 3 * k if tail == "3k" else 2 * k
    while mask.sum() >= stop:
        c = sums.centroid(mask)
        r = _farthest(_dist(Z, c), mask)
        s = _farthest(_dist(Z, Z[r]), mask)
        _group(Z, mask, labels, r, k, g, sums)
        g += 1
        if not mask[s]:
            s = _farthest(_dist(Z, Z[r]), mask)
        _group(Z, mask, labels, s, k, g, sums)
        g += 1
    left = mask.sum()
    if tail == "3k":
        if left >= 2 * k:
            r = _farthest(_dist(Z, sums.centroid(mask)), mask)
            _group(Z, mask, labels, r, k, g, sums)
            g += 1
        if mask.any():
            labels[mask] = g
    elif tail == "2k":
        _close_tail(Z, mask, labels, g, k)
    else:  # mdav1
        if left >= k:
            r = _farthest(_dist(Z, sums.centroid(mask)), mask)
            _group(Z, mask, labels, r, k, g)
        if mask.any():
            _leftovers(Z, labels)
    return labels


def cbfs(Z, k, tail="nearest", centroid="remaining"):
    n = len(Z)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    sums = _Sums(Z)
    c0 = _mean(Z, mask)
    g = 0
    stop = 2 * k if tail == "group" else k
    while mask.sum() >= stop:
        c = sums.centroid(mask)
        c = c0 if centroid == "fixed" else c
        r = _farthest(_dist(Z, c), mask)
        _group(Z, mask, labels, r, k, g, sums)
        g += 1
    _close_tail(Z, mask, labels, g, k)
    return labels


def md(Z, k):
    """Naive O(n³) MD: the most distant pair by full scan (lowest i, then lowest j, on ties)."""
    n = len(Z)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    g = 0
    while mask.sum() >= 2 * k:
        best, r, s = -1.0, -1, -1
        for i in np.flatnonzero(mask):
            di = _dist(Z, Z[i])
            j = _farthest(di, mask)
            if di[j] > best:
                best, r, s = di[j], i, j
        _group(Z, mask, labels, r, k, g)
        g += 1
        if not mask[s]:
            s = _farthest(_dist(Z, Z[r]), mask)
        _group(Z, mask, labels, s, k, g)
        g += 1
    _close_tail(Z, mask, labels, g, k)
    return labels


REFERENCE = {
    ("mdav", "tail=3k"): lambda Z, k: mdav(Z, k, "3k"),
    ("mdav", "tail=2k"): lambda Z, k: mdav(Z, k, "2k"),
    ("mdav1", ""): lambda Z, k: mdav(Z, k, "mdav1"),
    ("md", ""): md,
    ("cbfs", "centroid=remaining,tail=nearest"): lambda Z, k: cbfs(Z, k, "nearest", "remaining"),
    ("cbfs", "centroid=remaining,tail=group"): lambda Z, k: cbfs(Z, k, "group", "remaining"),
    ("cbfs", "centroid=fixed,tail=nearest"): lambda Z, k: cbfs(Z, k, "nearest", "fixed"),
    ("cbfs", "centroid=fixed,tail=group"): lambda Z, k: cbfs(Z, k, "group", "fixed"),
}
