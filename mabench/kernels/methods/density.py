"""k-neighbourhood density (DBA-1, Lin et al. 2010): groups grown from the densest remaining record.

The *spread* of a record is the sum of the Euclidean distances to its k-1
nearest other records (its k-neighbourhood is itself plus those); its
k-density is the inverse, so the densest record has the smallest spread.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mabench.kernels.core.buffer import BLOCK, UNASSIGNED, compact, scratch, transposed, work_buffer
from mabench.kernels.core.distances import lowest_alive, sqdist_serial
from mabench.kernels.core.groups import assign_leftovers
from mabench.kernels.core.nearest import group_around
from mabench.kernels.core.select import keep_smallest


@njit(cache=True)
def _nearest_list(W, alive, m, slot, L, dist, p, nd_row, ni_row):
    """The L nearest alive slots other than ``slot`` (ascending distance, ties -> lower slot) into
    nd_row (Euclidean distances) / ni_row (slots); returns how many."""
    d = W.shape[0]
    for j in range(d):
        p[j] = W[j, slot]
    sqdist_serial(W, m, p, dist)
    cnt = 0
    for i in range(m):
        if not alive[i] or i == slot:
            continue
        cnt = keep_smallest(nd_row, ni_row, cnt, L, dist[i], i)
    for t in range(cnt):
        nd_row[t] = np.sqrt(nd_row[t])
    return cnt


@njit(cache=True)
def _spread_from_list(alive, k, nd_row, ni_row, cnt):
    """Sum of the distances to the first k-1 alive entries, nearest first; -1 if the list ran out."""
    s = 0.0
    found = 0
    for t in range(cnt):
        if found == k - 1:
            break
        if alive[ni_row[t]]:
            s += nd_row[t]
            found += 1
    return s if found == k - 1 else -1.0


def list_length(k):
    """How many nearest others each record keeps (the spread is recomputed from them after removals).

    Parameters
    ----------
    k : int — the minimum group size.

    Returns
    -------
    int — ``max(4k, 8)``.
    """
    return max(4 * k, 8)


@njit(cache=True, parallel=True)
def knn_lists(Z, k, L):
    """(spread, nd, ni, cnt): each record's sum of Euclidean distances to its k-1 nearest other
    records (ties -> lower index; summed nearest first), and its L nearest others (distances, indices,
    count) from which the spread can be recomputed after removals.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k : int — the minimum group size.
    L : int — how many nearest others to keep (:func:`list_length`).

    Returns
    -------
    spread : (n,) float64
    nd : (n, L) float64 — euclidean distances to the nearest others, ascending.
    ni : (n, L) int64 — their record ids (-1 past ``cnt``).
    cnt : (n,) int64 — how many each list holds.
    """
    n, d = Z.shape
    W = transposed(Z)
    alive = np.ones(n, dtype=np.bool_)
    spread = np.zeros(n)
    nd = np.empty((n, L))
    ni = np.full((n, L), -1, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    nb = (n + BLOCK - 1) // BLOCK
    for b in prange(nb):
        dist = np.empty(n)
        p = np.empty(d)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            cnt[i] = _nearest_list(W, alive, n, i, L, dist, p, nd[i], ni[i])
            s = 0.0
            for t in range(min(k - 1, cnt[i])):
                s += nd[i, t]
            spread[i] = s
    return spread, nd, ni, cnt


def knn_spread(Z, k):
    """Each record's sum of Euclidean distances to its k-1 nearest other records.

    Ties go to the lower record index.

    Parameters
    ----------
    Z : (n, d) array_like of float — the records.
    k : int — the neighbourhood size (the record itself and its k-1 nearest).

    Returns
    -------
    (n,) float64 — each record's spread (the inverse of its k-density).
    """
    return knn_lists(np.ascontiguousarray(Z, dtype=np.float64), k, list_length(k))[0]


def density_labels(Z, k, recompute):
    """DBA-1's partition (see :func:`_density_labels`).

    Seed: 004_d1273daa16c98592.txt §IV (DBA); 002_81f9d5b914b1df78.txt §2.

    Parameters
    ----------
    Z : (n, d) array_like of float — the records.
    k : int — the minimum group size.
    recompute : bool — whether the spreads are recomputed over the remaining records after each group.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    return _density_labels(np.ascontiguousarray(Z, dtype=np.float64), k, recompute, list_length(k))


@njit(cache=True)
def _density_labels(Z, k, recompute, L):
    """DBA-1: while >= k records remain, the remaining record with the highest k-density (smallest
    spread; ties -> lowest index) and its k-1 nearest remaining records form a group; the fewer-than-k
    leftovers go to the group with the nearest centroid. Densities are computed once on all records,
    or (``recompute``) among the remaining records before every group. Labels are in creation order.
    ``L`` (>= k-1): neighbours kept per record for the recomputation."""
    n, d = Z.shape
    spread, nd, ni, cnt = knn_lists(Z, k, L)
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    m = compact(W, ids, alive, n, S.sums)
    left = n
    g = np.int64(0)
    if not recompute:
        order = np.argsort(spread, kind="mergesort")
        slot_of = np.arange(n)
        pos = 0
        while left >= k:
            while labels[order[pos]] != UNASSIGNED:
                pos += 1
            left -= group_around(W, ids, alive, m, slot_of[order[pos]], k, labels, g, S)
            g += 1
            if (m - left) * 8 > m:
                m = compact(W, ids, alive, m, S.sums)
                for i in range(m):
                    slot_of[ids[i]] = i
        if left > 0:
            assign_leftovers(Z, labels, g)
        return labels
    # recomputed densities (slots never move here, slot = record id). Removing records can only
    # raise a spread, so a stale spread is a lower bound: the smallest one is recomputed until the
    # smallest is fresh (lazy exact minimum, ties -> lowest index). A record's k-1 nearest remaining
    # records are the first remaining entries of its list of L nearest (records are only removed);
    # the list is made afresh only when fewer than k-1 of its entries remain.
    p = np.empty(d)
    dist = np.empty(n)
    used = np.empty((n, max(k - 1, 1)), dtype=np.int64)  # the neighbours a spread was computed from
    for i in range(n):
        for t in range(k - 1):
            used[i, t] = ni[i, t]
    while left >= k:
        while True:
            best = lowest_alive(spread, alive, n)
            fresh = True
            for t in range(k - 1):
                if not alive[used[best, t]]:
                    fresh = False
                    break
            if fresh:
                break
            s = _spread_from_list(alive, k, nd[best], ni[best], cnt[best])
            if s < 0.0:
                cnt[best] = _nearest_list(W, alive, n, best, L, dist, p, nd[best], ni[best])
                s = _spread_from_list(alive, k, nd[best], ni[best], cnt[best])
            spread[best] = s
            found = 0
            for t in range(cnt[best]):
                if found == k - 1:
                    break
                if alive[ni[best, t]]:
                    used[best, found] = ni[best, t]
                    found += 1
        left -= group_around(W, ids, alive, n, best, k, labels, g, S)
        g += 1
    if left > 0:
        assign_leftovers(Z, labels, g)
    return labels
