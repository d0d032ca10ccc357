"""Certified lower bounds on the optimal SSE of a k-partition (groups of k..2k−1 records).

The bound, valid for every partition with group sizes ≥ k (proof in docs/bounds.md):

* :func:`pair_bound` — SSE ≥ Σ_i s_i(k−1) / (2k), s_i(t) = sum of i's t smallest squared
  distances to other records. (A group of m records has SSE = Σ_{i∈G} Σ_{j∈G} d_ij² / (2m) and
  Σ_{j∈G} d_ij² ≥ s_i(m−1) ≥ s_i(k−1)·(m−1)/(k−1), and (m−1)/(m(k−1)) ≥ 1/k for m ≥ k.)
* the degree-cover LP (:func:`cover_pricing` prices it; the LP itself is solved in
  mabench/report/bounds.py) — min Σ_{i<j} (d_ij²/k)·y_ij subject to Σ_j y_ij ≥ k−1 for every i and
  0 ≤ y ≤ 1. A partition gives a feasible y: y_ij = (k−1)/(m−1) inside a group of m records, else 0,
  and its cost (k−1)/(k(m−1))·Σ_{i<j∈G} d_ij² is at most SSE(G) = Σ_{i<j∈G} d_ij²/m when m ≥ k. By
  weak duality every u ≥ 0 bounds the LP from below:
  (k−1)·Σ_i u_i − Σ_{i<j} max(0, u_i + u_j − d_ij²/k). It is never below the pair bound (each record
  pays for k−1 edges at least, and the pair bound charges each edge half), and stronger where nearest
  neighbours are not mutual: an outlying record's edges are charged in full.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def nearest_sq(Z, t):
    """Each record's t nearest other records: (n, t) squared distances, ascending, and (n, t) ids
    (ties by lowest index)."""
    n, d = Z.shape
    out = np.empty((n, t))
    ids = np.empty((n, t), dtype=np.int64)
    row = np.empty(n)
    for i in range(n):
        for j in range(n):
            s = 0.0
            for c in range(d):
                v = Z[i, c] - Z[j, c]
                s += v * v
            row[j] = s
        row[i] = np.inf
        order = np.argsort(row, kind="mergesort")  # O(n log n) per record; n ≤ ~10^4 in this harness
        for c in range(t):
            out[i, c] = row[order[c]]
            ids[i, c] = order[c]
    return out, ids


@njit(cache=True)
def pair_bound(near, k):
    n = near.shape[0]
    total = 0.0
    for i in range(n):
        s = 0.0
        for c in range(k - 1):
            s += near[i, c]
        total += s / (2.0 * k)
    return total


@njit(cache=True)
def cover_pricing(Z, u, k, cap):
    """The degree-cover dual's penalty over every pair: Σ_{i<j} max(0, u_i + u_j − d_ij²/k) (d_ij²
    summed in attribute order, as everywhere), and up to ``cap`` of the pairs (i < j) where it is
    positive, as an (m, 2) array, with how many there were in all. O(n²·d) time, O(cap) memory."""
    n, d = Z.shape
    pairs = np.empty((cap, 2), dtype=np.int64)
    found = 0
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s = 0.0
            for c in range(d):
                v = Z[i, c] - Z[j, c]
                s += v * v
            excess = u[i] + u[j] - s / k
            if excess > 0.0:
                total += excess
                if found < cap:
                    pairs[found, 0] = i
                    pairs[found, 1] = j
                found += 1
    return total, pairs[:min(found, cap)], found
