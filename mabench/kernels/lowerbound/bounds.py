"""Certified lower bounds on the optimal SSE of a k-partition (groups of k..2k−1 records).

The bound, valid for every partition with group sizes ≥ k (proof in docs/bounds.md):

* :func:`pair_bound` — SSE ≥ Σ_i s_i(k−1) / (2k), s_i(t) = sum of i's t smallest squared
  distances to other records. (A group of m records has SSE = Σ_{i∈G} Σ_{j∈G} d_ij² / (2m) and
  Σ_{j∈G} d_ij² ≥ s_i(m−1) ≥ s_i(k−1)·(m−1)/(k−1), and (m−1)/(m(k−1)) ≥ 1/k for m ≥ k.)
* the degree-cover LP (:func:`cover_pricing` prices it; the LP itself is solved in
  mabench/optimum/bounds.py) — min Σ_{i<j} (d_ij²/k)·y_ij subject to Σ_j y_ij ≥ k−1 for every i and
  0 ≤ y ≤ 1. A partition gives a feasible y: y_ij = (k−1)/(m−1) inside a group of m records, else 0,
  and its cost (k−1)/(k(m−1))·Σ_{i<j∈G} d_ij² is at most SSE(G) = Σ_{i<j∈G} d_ij²/m when m ≥ k. By
  weak duality every u ≥ 0 bounds the LP from below:
  (k−1)·Σ_i u_i − Σ_{i<j} max(0, u_i + u_j − d_ij²/k). It is never below the pair bound (each record
  pays for k−1 edges at least, and the pair bound charges each edge half), and stronger where nearest
  neighbours are not mutual: an outlying record's edges are charged in full. Triangle cuts
  y_jl ≥ y_ij + y_il − 1 hold for every partition too (two partners of i share i's group);
  :func:`violated_triangles` separates them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import sq_between


@njit(cache=True)
def nearest_sq(Z, t):
    """Each record's t nearest other records: (n, t) squared distances, ascending, and (n, t) ids
    (ties by lowest index).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    t : int — how many (< n).

    Returns
    -------
    near : (n, t) float64
    ids : (n, t) int64
    """
    n = Z.shape[0]
    out = np.empty((n, t))
    ids = np.empty((n, t), dtype=np.int64)
    row = np.empty(n)
    for i in range(n):
        for j in range(n):
            row[j] = sq_between(Z, i, j)
        row[i] = np.inf
        order = np.argsort(row, kind="mergesort")  # O(n log n) per record; n ≤ ~10^4 in this harness
        for c in range(t):
            out[i, c] = row[order[c]]
            ids[i, c] = order[c]
    return out, ids


@njit(cache=True)
def pair_bound(near, k):
    """The pair lower bound on the optimal SSE: each record's k-1 nearest squared distances, summed and
    divided by 2k (docs/bounds.md).

    Parameters
    ----------
    near : (n, >= k - 1) float64 — :func:`nearest_sq`'s distances.
    k : int — the minimum group size.

    Returns
    -------
    float — the bound.
    """
    n = near.shape[0]
    total = 0.0
    for i in range(n):
        s = 0.0
        for c in range(k - 1):
            s += near[i, c]
        total += s / (2.0 * k)
    return total


@njit(cache=True)
def pair_sq(Z, pairs):
    """Squared distance of each pair (attribute order, as :func:`cover_pricing` computes it).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    pairs : (m, 2) int64 — record pairs.

    Returns
    -------
    (m,) float64
    """
    out = np.empty(pairs.shape[0])
    for e in range(pairs.shape[0]):
        out[e] = sq_between(Z, pairs[e, 0], pairs[e, 1])
    return out


@njit(cache=True)
def cover_pricing(Z, u, k, cap):
    """The degree-cover dual's penalty over every pair: Σ_{i<j} max(0, u_i + u_j − d_ij²/k) (d_ij²
    summed in attribute order, as everywhere), and up to ``cap`` of the pairs (i < j) where it is
    positive, as an (m, 2) array, with how many there were in all. O(n²·d) time, O(cap) memory.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    u : (n,) float64 — the dual values.
    k : int — the minimum group size.
    cap : int — the most pairs returned.

    Returns
    -------
    total : float
    pairs : (min(cap, found), 2) int64
    found : int
    """
    n = Z.shape[0]
    pairs = np.empty((cap, 2), dtype=np.int64)
    found = 0
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            excess = u[i] + u[j] - sq_between(Z, i, j) / k
            if excess > 0.0:
                total += excess
                if found < cap:
                    pairs[found, 0] = i
                    pairs[found, 1] = j
                found += 1
    return total, pairs[:min(found, cap)], found


@njit(cache=True)
def violated_triangles(n, edges, y, tol):
    """Triangles i; j, l (j < l) with y_ij + y_il − 1 − y_jl > tol, over the pairs with y > 0.
    ``edges``: (m, 2) pairs a < b, sorted by (a, b); ``y``: their LP values (a pair not in ``edges``
    has y = 0). Returns (violation, i, j, l) as four arrays, in the order found.

    Parameters
    ----------
    n : int — records.
    edges : (m, 2) int64 — the LP's pairs.
    y : (m,) float64 — their values.
    tol : float — the violation threshold.

    Returns
    -------
    (violation, i, j, l) — four arrays of equal length.
    """
    m = edges.shape[0]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        if y[e] > 0.0:
            ptr[edges[e, 0] + 1] += 1
            ptr[edges[e, 1] + 1] += 1
    for i in range(n):
        ptr[i + 1] += ptr[i]
    nbr = np.empty(ptr[n], dtype=np.int64)
    nbr_y = np.empty(ptr[n])
    fill = ptr[:n].copy()
    for e in range(m):
        if y[e] > 0.0:
            a, b = edges[e, 0], edges[e, 1]
            nbr[fill[a]], nbr_y[fill[a]] = b, y[e]
            fill[a] += 1
            nbr[fill[b]], nbr_y[fill[b]] = a, y[e]
            fill[b] += 1
    keys = edges[:, 0] * n + edges[:, 1]
    found = 0
    for sweep in range(2):  # count, then fill
        if sweep == 1:
            viol = np.empty(found)
            tri = np.empty((found, 3), dtype=np.int64)
            found = 0
        for i in range(n):
            for p in range(ptr[i], ptr[i + 1]):
                for q in range(ptr[i], ptr[i + 1]):
                    j, l = nbr[p], nbr[q]
                    if j >= l or nbr_y[p] + nbr_y[q] - 1.0 <= tol:
                        continue
                    key = j * n + l
                    at = np.searchsorted(keys, key)
                    y_jl = y[at] if at < m and keys[at] == key else 0.0
                    v = nbr_y[p] + nbr_y[q] - 1.0 - y_jl
                    if v > tol:
                        if sweep == 1:
                            viol[found] = v
                            tri[found, 0], tri[found, 1], tri[found, 2] = i, j, l
                        found += 1
    return viol, tri[:, 0].copy(), tri[:, 1].copy(), tri[:, 2].copy()
