"""The MDAV family (MDAV-generic and its tails, MDAV-1, CBFS) on data with missing values
(``missing=available``): every record is grouped, each distance taken over the attributes both
points observe.

The distance is MDAV's squared Euclidean distance on z-scores, computed over the m attributes
observed in both points and scaled by d/m, as R's ``dist()`` does with NA ("the sum is scaled up
proportionally to the number of columns used"): with complete data it is the plain distance bit for
bit (the scale is exactly 1), so the partition is MDAV's. A pair with no attribute in common has no
distance: it is never anyone's nearest record while one with a distance is alive, and never the
farthest. The centroid of the remaining records is each attribute's mean over its observed values.
The rest is the complete-data method's loop (the seeds and tails of ``algorithms/mdav.py``,
``algorithms/mdav1.py``, ``algorithms/cbfs.py``; Domingo-Ferrer & Torra 2005 for MDAV-generic): pairs
of groups (MDAV, MDAV-1) or one group (CBFS) per iteration, then the tail the method names. Where a
tail sends fewer than k leftovers to the group with the nearest centroid, a group's centroid is the
mean of its members' observed values (frozen before any leftover joins) and the distance is the
same available-case one; a leftover with no attribute in common with any group's centroid joins
group 0 (the ties rule: lowest label). Ties go to the lowest record index. O(n²·d/k) time, O(n·d)
memory.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from mabench.kernels.core.select import keep_smallest
from mabench.kernels.methods.mdav import TAIL_2K, TAIL_3K, TAIL_MDAV1

NO_DISTANCE = np.inf


@njit(cache=True, nogil=True)
def _distances_to(Z, seen, alive, p, p_seen, out):
    """Scaled available-case squared distances of every alive record to point ``p`` (inf: none in common)."""
    n, d = Z.shape
    for i in range(n):
        if not alive[i]:
            continue
        s = 0.0
        m = 0
        for j in range(d):
            if seen[i, j] and p_seen[j]:
                t = Z[i, j] - p[j]
                s += t * t
                m += 1
        out[i] = NO_DISTANCE if m == 0 else (s if m == d else s * (d / m))


@njit(cache=True, nogil=True)
def _farthest(dist, alive):
    """Alive record with the largest finite distance (lowest index on ties); -1 if none is finite."""
    best, at = -1.0, -1
    for i in range(dist.size):
        if alive[i] and dist[i] != NO_DISTANCE and dist[i] > best:
            best, at = dist[i], i
    if at < 0:
        for i in range(dist.size):
            if alive[i]:
                return i
    return at


@njit(cache=True, nogil=True)
def _first_seed(Z, seen, alive, c, c_seen, dist, p, p_seen, dist_r):
    """r, the remaining record farthest from the centroid of the remaining records (``dist``: each
    record's distance to that centroid), and every record's distance to r in ``dist_r``."""
    _centroid(Z, seen, alive, c, c_seen)
    _distances_to(Z, seen, alive, c, c_seen, dist)
    r = _farthest(dist, alive)
    _distances_to_record(Z, seen, alive, r, p, p_seen, dist_r)
    return r


@njit(cache=True, nogil=True)
def _distances_to_record(Z, seen, alive, r, p, p_seen, out):
    """Every alive record's distance to record r into ``out`` (p, p_seen: scratch for r's values)."""
    for j in range(Z.shape[1]):
        p[j], p_seen[j] = Z[r, j], seen[r, j]
    _distances_to(Z, seen, alive, p, p_seen, out)


@njit(cache=True, nogil=True)
def _take(dist, alive, seed, k, labels, g, top_d, top_i):
    """Group ``seed`` with its k-1 nearest alive records (ties: lowest index); returns the group size."""
    alive[seed] = False
    labels[seed] = g
    filled = 0
    for i in range(dist.size if k > 1 else 0):
        if not alive[i]:
            continue
        filled = keep_smallest(top_d, top_i, filled, k - 1, dist[i], i)
    for t in range(filled):
        alive[top_i[t]] = False
        labels[top_i[t]] = g
    return filled + 1


@njit(cache=True, nogil=True)
def _centroid(Z, seen, alive, c, c_seen):
    n, d = Z.shape
    for j in range(d):
        s, m = 0.0, 0
        for i in range(n):
            if alive[i] and seen[i, j]:
                s += Z[i, j]
                m += 1
        c_seen[j] = m > 0
        c[j] = s / m if m > 0 else 0.0


@njit(cache=True, nogil=True)
def _to_nearest_groups(Z, seen, labels, n_groups):
    """Every unlabelled record joins the group whose centroid (mean of its members' observed values,
    frozen before any leftover joins) is nearest by the available-case distance; ties and a record
    with nothing in common with any centroid go to the lowest label."""
    n, d = Z.shape
    sums = np.zeros((n_groups, d))
    counts = np.zeros((n_groups, d), dtype=np.int64)
    for i in range(n):
        g = labels[i]
        if g >= 0:
            for j in range(d):
                if seen[i, j]:
                    sums[g, j] += Z[i, j]
                    counts[g, j] += 1
    for g in range(n_groups):
        for j in range(d):
            if counts[g, j] > 0:
                sums[g, j] /= counts[g, j]
    for i in range(n):
        if labels[i] >= 0:
            continue
        best, best_v = 0, NO_DISTANCE
        for g in range(n_groups):
            s = 0.0
            m = 0
            for j in range(d):
                if seen[i, j] and counts[g, j] > 0:
                    t = Z[i, j] - sums[g, j]
                    s += t * t
                    m += 1
            if m > 0:
                v = s if m == d else s * (d / m)
                if v < best_v:
                    best, best_v = g, v
        labels[i] = best


@njit(cache=True, nogil=True)
def _close(Z, seen, alive, labels, g, left, k):
    """The common last step: k or more records left form one group; fewer join their nearest groups."""
    if left >= k:
        for i in range(alive.size):
            if alive[i]:
                labels[i] = g
                alive[i] = False
    elif left > 0:
        _to_nearest_groups(Z, seen, labels, g)


# What the MDAV- and CBFS-with-missing-values loops work in, made once per call.
MissingScratch = namedtuple("MissingScratch", ["labels", "alive", "dist", "dist_r", "c", "c_seen", "p", "p_seen",
                                               "top_d", "top_i"])


@njit(cache=True, nogil=True)
def _scratch(n, d, k):
    """Unassigned labels, every record alive, distance buffers, a centroid and a point with their
    observed flags, and the k−1 nearest so far."""
    return MissingScratch(np.full(n, -1, dtype=np.int64), np.ones(n, dtype=np.bool_), np.empty(n), np.empty(n),
                          np.empty(d), np.empty(d, dtype=np.bool_), np.empty(d), np.empty(d, dtype=np.bool_),
                          np.empty(max(k - 1, 1)), np.empty(max(k - 1, 1), dtype=np.int64))


@njit(cache=True, nogil=True)
def mdav_missing_labels(Z, seen, k, tail):
    """Labels 0..g-1 of the MDAV family with available-case distances; ``seen[i, j]``: Z[i, j]
    observed; ``tail``: TAIL_3K (MDAV-generic), TAIL_2K (the papers' wording) or TAIL_MDAV1 (MDAV-1),
    as in kernels/methods/mdav.py. Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64 — the records (z-scores; unobserved cells hold any value).
    seen : (n, d) bool — which cells are observed.
    k : int — the minimum group size.
    tail : int — ``TAIL_3K``, ``TAIL_2K`` or ``TAIL_MDAV1``.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    n, d = Z.shape
    labels, alive, dist, dist_r, c, c_seen, p, p_seen, top_d, top_i = _scratch(n, d, k)
    left = n
    g = 0
    stop = 3 * k if tail == TAIL_3K else 2 * k
    while left >= stop:
        r = _first_seed(Z, seen, alive, c, c_seen, dist, p, p_seen, dist_r)
        s = _farthest(dist_r, alive)
        left -= _take(dist_r, alive, r, k, labels, g, top_d, top_i)
        g += 1
        if not alive[s]:
            s = _farthest(dist_r, alive)
        _distances_to_record(Z, seen, alive, s, p, p_seen, dist)
        left -= _take(dist, alive, s, k, labels, g, top_d, top_i)
        g += 1
    if left >= (2 * k if tail == TAIL_3K else k) and tail != TAIL_2K:
        r = _first_seed(Z, seen, alive, c, c_seen, dist, p, p_seen, dist_r)
        left -= _take(dist_r, alive, r, k, labels, g, top_d, top_i)
        g += 1
    _close(Z, seen, alive, labels, g, left, k)
    return labels


@njit(cache=True, nogil=True)
def cbfs_missing_labels(Z, seen, k, tail_group, fixed_centroid):
    """Labels 0..g-1 of CBFS with available-case distances: while k (tail_group: 2k) or more records
    remain, the one farthest from the centroid (of the remaining records, or with ``fixed_centroid``
    of all records; each attribute's mean over its observed values) joins its k-1 nearest.

    Parameters
    ----------
    Z, seen, k — as for :func:`mdav_missing_labels`.
    tail_group, fixed_centroid : bool — as for :func:`~mabench.kernels.methods.cbfs.cbfs_labels_scan`.

    Returns
    -------
    (n,) int64 — labels in creation order.
    """
    n, d = Z.shape
    labels, alive, dist, dist_r, c, c_seen, p, p_seen, top_d, top_i = _scratch(n, d, k)
    _centroid(Z, seen, alive, c, c_seen)
    left = n
    g = 0
    stop = 2 * k if tail_group else k
    while left >= stop:
        if not fixed_centroid:
            _centroid(Z, seen, alive, c, c_seen)
        _distances_to(Z, seen, alive, c, c_seen, dist)
        r = _farthest(dist, alive)
        _distances_to_record(Z, seen, alive, r, p, p_seen, dist_r)
        left -= _take(dist_r, alive, r, k, labels, g, top_d, top_i)
        g += 1
    _close(Z, seen, alive, labels, g, left, k)
    return labels
