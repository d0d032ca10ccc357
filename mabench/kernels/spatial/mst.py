"""Greedy growth over the complete Euclidean graph: Prim's minimum spanning tree and nearest-point-next.

Both visit the records one at a time, each time taking the unvisited record
with the smallest key, where the key of a record is

* its distance to the nearest visited record (Prim's MST), or
* its distance to the last visited record (NPN, nearest point next).

The complete graph is never stored: the keys live in one O(n) array and each
visit updates them with one distance pass over the unvisited records, so a
run costs O(n²·d) time and O(n·d) memory. Unvisited records sit in a
transposed work buffer (one row per attribute) that is compacted in record
order once more than 1/8 of its slots are visited, so ties (equal keys) go to
the lowest record index, and on equal distances a record keeps the parent it
got first (the earlier visited one). Distances are squared Euclidean: the
same argmin and the same tree as the Euclidean distance.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import farthest_from_mean, sqdist_serial

PRIM = 0
NPN = 1


@njit(cache=True)
def _grow(Z, start, mode):
    n, d = Z.shape
    W = np.empty((d, n))
    for i in range(n):
        for j in range(d):
            W[j, i] = Z[i, j]
    ids = np.arange(n)
    key = np.full(n, np.inf)  # by slot
    par = np.full(n, -1, dtype=np.int64)  # by slot
    alive = np.ones(n, dtype=np.bool_)
    dist = np.empty(n)
    p = np.empty(d)
    order = np.empty(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)  # by record
    weight = np.zeros(n)  # by record: squared length of the edge to the parent
    m = n
    dead = 0
    cur = start  # slot of the record visited next (slots = ids before any compaction)
    for step in range(n):
        v = ids[cur]
        order[step] = v
        parent[v] = par[cur]
        weight[v] = key[cur] if step > 0 else 0.0
        alive[cur] = False
        dead += 1
        for j in range(d):
            p[j] = W[j, cur]
        if dead * 8 > m:  # compact: survivors keep record order
            w = 0
            for i in range(m):
                if alive[i]:
                    for j in range(d):
                        W[j, w] = W[j, i]
                    ids[w] = ids[i]
                    key[w] = key[i]
                    par[w] = par[i]
                    alive[w] = True
                    w += 1
            m = w
            dead = 0
        if step == n - 1:
            break
        sqdist_serial(W, m, p, dist)
        best = -1
        best_v = np.inf
        for i in range(m):
            if not alive[i]:
                continue
            di = dist[i]
            if mode == NPN:
                key[i] = di
                par[i] = v
            elif di < key[i]:
                key[i] = di
                par[i] = v
            if key[i] < best_v or best < 0:
                best_v = key[i]
                best = i
        cur = best
    return order, parent, weight


@njit(cache=True)
def prim_mst(Z, start):
    """Minimum spanning tree of the complete graph on the rows of Z, grown from record ``start``.

    Returns (order, parent, weight): the records in the order Prim's algorithm
    adds them, each record's parent in the tree (-1 for ``start``) and the
    squared length of that edge.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    start : int — the root record.

    Returns
    -------
    order : (n,) int64 — records in the order they join the tree (``order[0] == start``).
    parent : (n,) int64 — each record's parent (-1 for ``start``).
    weight : (n,) float64 — the squared length of the edge to the parent (0 for ``start``).
    """
    return _grow(Z, start, np.int64(PRIM))


@njit(cache=True)
def npn_order(Z, start):
    """Nearest point next from record ``start``: each next record is the unvisited one nearest the last.

    Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    start : int — the first record.

    Returns
    -------
    (n,) int64 — the records in visiting order.
    """
    return _grow(Z, start, np.int64(NPN))[0]


@njit(cache=True)
def farthest_from_centroid(Z):
    """The record farthest from the centroid of all records (centroid summed in record order; ties -> lowest).

    Parameters
    ----------
    Z : (n, d) float64 — the records (n >= 1).

    Returns
    -------
    int — that record's index.
    """
    n, d = Z.shape
    return farthest_from_mean(Z, np.arange(n), np.empty(d))


@njit(cache=True)
def farthest_from_record(Z, r):
    """The record farthest from record r (ties -> lowest index).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    r : int — the reference record.

    Returns
    -------
    int — that record's index.
    """
    n, d = Z.shape
    best = 0
    best_v = -1.0
    for i in range(n):
        s = 0.0
        for j in range(d):
            t = Z[i, j] - Z[r, j]
            s += t * t
        if s > best_v:
            best_v = s
            best = i
    return best
