"""k-neighbourhood density (DBA-1, Lin et al. 2010): groups grown from the densest remaining record.

The *spread* of a record is the sum of the Euclidean distances to its k-1
nearest other records (its k-neighbourhood is itself plus those); its
k-density is the inverse, so the densest record has the smallest spread.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .buffer import BLOCK, UNASSIGNED, compact, scratch, work_buffer
from .distances import distances_from, load_point
from .groups import assign_leftovers
from .nearest import group_around


@njit(cache=True)
def _smallest(dist, alive, m, skip, need, top_d, top_i):
    """The ``need`` smallest dist among alive slots other than ``skip``, ascending (ties -> lower slot);
    returns how many were found."""
    cnt = 0
    if need <= 0:
        return 0
    for i in range(m):
        if not alive[i] or i == skip:
            continue
        v = dist[i]
        if cnt == need and v >= top_d[cnt - 1]:
            continue
        pos = cnt if cnt < need else need - 1
        while pos > 0 and top_d[pos - 1] > v:
            top_d[pos] = top_d[pos - 1]
            top_i[pos] = top_i[pos - 1]
            pos -= 1
        top_d[pos] = v
        top_i[pos] = i
        if cnt < need:
            cnt += 1
    return cnt


@njit(cache=True)
def _spread_of(W, alive, m, slot, k, dist, p, top_d, top_i, nbr_row):
    """Spread of the record in ``slot`` among the alive slots; its neighbours' slots into nbr_row."""
    d = W.shape[0]
    for j in range(d):
        p[j] = W[j, slot]
    for i in range(m):
        dist[i] = 0.0
    for j in range(d):
        row = W[j, :m]
        pj = p[j]
        for i in range(m):
            t = row[i] - pj
            dist[i] += t * t
    cnt = _smallest(dist, alive, m, slot, k - 1, top_d, top_i)
    s = 0.0
    for t in range(cnt):
        s += np.sqrt(top_d[t])
        nbr_row[t] = top_i[t]
    for t in range(cnt, k - 1):
        nbr_row[t] = -1
    return s


@njit(cache=True, parallel=True)
def knn_spread(Z, k):
    """(spread, neighbours): each record's sum of distances to its k-1 nearest other records
    (ties -> lower index; summed nearest first), and those neighbours' indices (n, k-1)."""
    n, d = Z.shape
    W = np.ascontiguousarray(Z.T)
    alive = np.ones(n, dtype=np.bool_)
    spread = np.zeros(n)
    kk = max(k - 1, 1)
    nbrs = np.full((n, kk), -1, dtype=np.int64)
    nb = (n + BLOCK - 1) // BLOCK
    for b in prange(nb):
        dist = np.empty(n)
        p = np.empty(d)
        top_d = np.empty(kk)
        top_i = np.empty(kk, dtype=np.int64)
        for i in range(b * BLOCK, min(n, (b + 1) * BLOCK)):
            spread[i] = _spread_of(W, alive, n, i, k, dist, p, top_d, top_i, nbrs[i])
    return spread, nbrs


@njit(cache=True)
def density_labels(Z, k, recompute):
    """DBA-1: while >= k records remain, the remaining record with the highest k-density (smallest
    spread; ties -> lowest index) and its k-1 nearest remaining records form a group; the fewer-than-k
    leftovers go to the group with the nearest centroid. Densities are computed once on all records,
    or (``recompute``) among the remaining records before every group. Labels are in creation order."""
    n, d = Z.shape
    spread, nbrs = knn_spread(Z, k)
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    m = compact(W, ids, alive, n, S[7])
    left = n
    g = 0
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
                m = compact(W, ids, alive, m, S[7])
                for i in range(m):
                    slot_of[ids[i]] = i
        if left > 0:
            assign_leftovers(Z, labels, g)
        return labels
    # recomputed densities: a record's k-neighbourhood among the remaining records changes only when
    # one of its neighbours is removed, so only those records are recomputed (slots never move here)
    kk = max(k - 1, 1)
    top_d = np.empty(kk)
    top_i = np.empty(kk, dtype=np.int64)
    p = np.empty(d)
    dist = np.empty(n)
    while left >= k:
        best = -1
        best_v = np.inf
        for i in range(n):
            if alive[i] and spread[i] < best_v:
                best_v = spread[i]
                best = i
        left -= group_around(W, ids, alive, n, best, k, labels, g, S)
        g += 1
        if left < k:
            break
        for i in range(n):
            if not alive[i]:
                continue
            stale = False
            for t in range(k - 1):
                j = nbrs[i, t]
                if j < 0 or not alive[j]:
                    stale = True
                    break
            if stale:
                spread[i] = _spread_of(W, alive, n, i, k, dist, p, top_d, top_i, nbrs[i])
    if left > 0:
        assign_leftovers(Z, labels, g)
    return labels
