"""Certified lower bounds on the optimal SSE of a k-partition (groups of k..2k−1 records).

The bound, valid for every partition with group sizes ≥ k (proof in docs/bounds.md):

* :func:`pair_bound` — SSE ≥ Σ_i s_i(k−1) / (2k), s_i(t) = sum of i's t smallest squared
  distances to other records. (A group of m records has SSE = Σ_{i∈G} Σ_{j∈G} d_ij² / (2m) and
  Σ_{j∈G} d_ij² ≥ s_i(m−1) ≥ s_i(k−1)·(m−1)/(k−1), and (m−1)/(m(k−1)) ≥ 1/k for m ≥ k.)
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
