"""Nearest two records of many query points, from a static k-d tree (DLD at a million records).

DLD asks, for each group's masked point (g ≈ n/k queries), which two original
records are nearest. The streaming pass in ``mabench.metrics.linkage`` costs
g·n·d (about 3·10^12 terms for 10^6 × 10, k = 3: hours). This tree answers each
query by opening only the boxes that can still hold one of the two nearest.

Exactness (bit for bit the pass's answer, tests/metrics/test_metrics_scale.py):

* each candidate's distance is computed exactly as the pass computes it:
  ``s = 0.0; for j in columns: u = z[j] - c[j]; s += u * u``;
* the answer is the two smallest (distance, record index) pairs, whatever the
  order records are visited in: an exact distance tie goes to the lower index;
* a box is skipped only when its lower bound is STRICTLY above the current
  second-best distance. The bound is summed like a distance, with
  ``gap_j = lo_j - c_j`` (or ``c_j - hi_j``, or 0): IEEE subtraction, squaring and
  addition are monotone, so for every record x in the box ``fl(gap_j) <= fl(|x_j - c_j|)``
  and the bound is <= the record's rounded distance — a true lower bound with
  no slack needed (numba without fastmath does not contract into FMAs);
* the search starts from an upper bound on the second-nearest distance, the
  second-smallest distance from the query to its own group's members (two
  records are at most that far; a record AT that distance can still win on its
  index, so only strictly larger bounds prune).

Memory: the records in tree order (n·d floats) plus O(n/LEAF · d) box bounds; the tree is
kernels/spatial/kdtree.py's (64-record leaves, median splits on the widest column).
Queries are independent and each writes its own slot: identical results for any
thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mabench.kernels.spatial.kdtree import box_gap, kd_build

_QBLOCK = 256  # queries per parallel task (tasks are independent: thread count never changes a result)


def _static_tree(Z):
    """kernels/kdtree.kd_build's tree over all records, as the queries here read it: (record of each
    position, per node its position range, children, box), and the records' rows in tree order."""
    T = kd_build(Z, np.arange(Z.shape[0]))
    return T.rec, T.start, T.end, T.left, T.right, T.lo, T.hi, T.P


@njit(cache=True, inline="always")
def _dist(X, p, c):
    s = 0.0
    for j in range(c.shape[0]):
        u = X[p, j] - c[j]
        s += u * u
    return s


@njit(cache=True)
def _query(P, perm, start, stop, left, right, blo, bhi, Z, C, q, starts, members, stack, out_i, out_d,
           count_only):
    """Nearest two of C[q] into out_i/out_d[q]. ``count_only``: stop as soon as two records are strictly
    nearer than every member of group q (then none of its members can be linked, whatever the tie
    rule) and return -1 for "stopped early"; otherwise return 0 after the full search."""
    c = C[q]
    # upper bound on the second-nearest distance from the group's own members (see module doc)
    t1 = np.inf
    t2 = np.inf
    for p in range(starts[q], starts[q + 1]):
        x = _dist(Z, members[p], c)
        if x < t2:
            if x < t1:
                t2 = t1
                t1 = x
            else:
                t2 = x
    b1d = np.inf
    b2d = np.inf
    b1i = -1
    b2i = -1
    top = 0
    stack[0] = 0
    while top >= 0:
        node = stack[top]
        top -= 1
        limit = min(b2d, t2)
        if box_gap(blo, bhi, node, c) > limit:
            continue
        a = left[node]
        if a < 0:
            lo = start[node]
            m = stop[node] - lo
            # row by row: leaves are visited in a data-dependent order, where a leaf's contiguous rows read
            # 2.2x faster than a transposed copy whose distances vectorize across records (docs/metrics.md)
            for t in range(m):
                x = _dist(P, lo + t, c)
                if x <= b2d:
                    i = perm[lo + t]
                    if x < b2d or i < b2i:  # (x, i) below the second best, lexicographically
                        if x < b1d or (x == b1d and i < b1i):
                            b2d = b1d
                            b2i = b1i
                            b1d = x
                            b1i = i
                        else:
                            b2d = x
                            b2i = i
            if count_only and b2d < t1:
                return -1
            continue
        b = right[node]
        da = box_gap(blo, bhi, a, c)
        db = box_gap(blo, bhi, b, c)
        if da <= db:  # nearer child on top of the stack
            top += 1
            stack[top] = b
            top += 1
            stack[top] = a
        else:
            top += 1
            stack[top] = a
            top += 1
            stack[top] = b
    out_i[q, 0] = b1i
    out_i[q, 1] = b2i
    out_d[q, 0] = b1d
    out_d[q, 1] = b2d
    return 0


@njit(cache=True, parallel=True)
def _query_all(P, perm, start, stop, left, right, blo, bhi, Z, C, starts, members, out_i, out_d):
    g = C.shape[0]
    depth = 2 * 64 + 2  # stack bound: one pending sibling per level (a median split halves: < 64 levels)
    for t in prange((g + _QBLOCK - 1) // _QBLOCK):
        stack = np.empty(depth, dtype=np.int64)
        for q in range(t * _QBLOCK, min(g, (t + 1) * _QBLOCK)):
            _query(P, perm, start, stop, left, right, blo, bhi, Z, C, q, starts, members, stack, out_i, out_d,
                   False)


@njit(cache=True, parallel=True)
def _linked_all(P, perm, start, stop, left, right, blo, bhi, Z, C, starts, members, ties, out_i, out_d, out):
    g = C.shape[0]
    depth = 2 * 64 + 2
    for t in prange((g + _QBLOCK - 1) // _QBLOCK):
        stack = np.empty(depth, dtype=np.int64)
        for q in range(t * _QBLOCK, min(g, (t + 1) * _QBLOCK)):
            if _query(P, perm, start, stop, left, right, blo, bhi, Z, C, q, starts, members, stack,
                      out_i, out_d, True) < 0:
                out[q] = 0
                continue
            cnt = 0
            for p in range(starts[q], starts[q + 1]):
                r = members[p]
                if ties == 0:  # TIES_INDEX: the record is one of the two nearest
                    if r == out_i[q, 0] or r == out_i[q, 1]:
                        cnt += 1
                elif _dist(Z, r, C[q]) <= out_d[q, 1]:  # TIES_INCLUSIVE
                    cnt += 1
            out[q] = cnt


def linked_per_group_tree(Z: np.ndarray, C: np.ndarray, starts: np.ndarray, members: np.ndarray,
                          ties: int) -> np.ndarray:
    """Linked members per group, equal to mabench.metrics.linkage.linked_per_group's pass
    (ties: 0 = index, 1 = inclusive). A query stops early once two records are strictly nearer
    than all of its group's members: none of them is linked then.

    Parameters
    ----------
    Z : (n, d) array_like of float — the original records.
    C : (g, d) array_like of float — each group's masked point (one query per group).
    starts : (g + 1,) array_like of int — group q's members are ``members[starts[q]:starts[q + 1]]`` (CSR).
    members : (n,) array_like of int — record ids, group by group.
ties : int — 0 (index): a member is linked when it is one of the two nearest by (distance, record id); 1 (inclusive):
        when its distance is at most the second-nearest distance.

    Returns
    -------
    (g,) int64 — how many members of each group are linked.
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    g = C.shape[0]
    perm, start, stop, left, right, blo, bhi, P = _static_tree(Z)
    out_i = np.full((g, 2), -1, dtype=np.int64)
    out_d = np.full((g, 2), np.inf)
    out = np.zeros(g, dtype=np.int64)
    _linked_all(P, perm, start, stop, left, right, blo, bhi, Z, C, np.ascontiguousarray(starts, dtype=np.int64),
                np.ascontiguousarray(members, dtype=np.int64), ties, out_i, out_d, out)
    return out


def nearest_two_tree(Z: np.ndarray, C: np.ndarray, starts: np.ndarray | None = None,
                     members: np.ndarray | None = None):
    """Same answer as :func:`mabench.metrics.linkage.nearest_two`: (i1, d1, i2, d2) per row of C.

    ``starts``/``members`` (CSR, row q's group members) only tighten the search;
    without them the search starts unbounded.

    Parameters
    ----------
    Z : (n, d) array_like of float — the records searched (n >= 2).
    C : (g, d) array_like of float — the query points.
starts, members : (g + 1,), (n,) array_like of int, optional — row q's group members in CSR form; their distances
        bound the second-nearest from above.

    Returns
    -------
i1, d1, i2, d2 : (g,) int64, (g,) float64, (g,) int64, (g,) float64 — the nearest and second-nearest record of each
        row of C and their squared distances, ties to the lower record id.
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    g = C.shape[0]
    if starts is None:
        starts = np.zeros(g + 1, dtype=np.int64)
        members = np.zeros(0, dtype=np.int64)
    perm, start, stop, left, right, blo, bhi, P = _static_tree(Z)
    out_i = np.full((g, 2), -1, dtype=np.int64)
    out_d = np.full((g, 2), np.inf)
    _query_all(P, perm, start, stop, left, right, blo, bhi, Z, C,
               np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(members, dtype=np.int64),
               out_i, out_d)
    return out_i[:, 0].copy(), out_d[:, 0].copy(), out_i[:, 1].copy(), out_d[:, 1].copy()
