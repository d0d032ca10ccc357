"""Two fixed reference points (TFRP-1, Chang, Li & Huang 2007): groups around the records farthest from G1 and G2.

The reference points never move, so each record's distance to them is computed
once; each iteration is one argmax over the remaining records plus one
k-nearest pass (:func:`group_around`), O(n²/k) in total.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import UNASSIGNED, compact, scratch, work_buffer
from mabench.kernels.core.distances import argmax_alive, distances_from
from mabench.kernels.core.groups import assign_leftovers
from mabench.kernels.core.nearest import group_around


@njit(cache=True)
def reference_points(Z, per_attribute):
    """(G1, G2): the smallest / largest value over all attributes repeated in every coordinate,
    or (``per_attribute``) the vectors of per-attribute minima / maxima.

    Seed: 004_d1273daa16c98592.txt §IV (TFRP).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    per_attribute : bool — per-attribute extremes instead of the overall ones.

    Returns
    -------
    g1, g2 : (d,) float64
    """
    n, d = Z.shape
    g1 = np.empty(d)
    g2 = np.empty(d)
    for j in range(d):
        lo = Z[0, j]
        hi = Z[0, j]
        for i in range(1, n):
            v = Z[i, j]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
        g1[j] = lo
        g2[j] = hi
    if not per_attribute:
        lo = g1.min()
        hi = g2.max()
        for j in range(d):
            g1[j] = lo
            g2[j] = hi
    return g1, g2


@njit(cache=True)
def two_reference_labels(Z, k, g1, g2):
    """Alternately: the remaining record farthest from g1, then from g2, with its k-1 nearest
    remaining records, while >= k records remain; the fewer-than-k leftovers go to the group with
    the nearest centroid. Labels are in creation order.

    Seed: 004_d1273daa16c98592.txt §IV (TFRP). Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k : int — the minimum group size.
    g1, g2 : (d,) float64 — the reference points (:func:`reference_points`).

    Returns
    -------
    labels : (n,) int64 — in creation order.
    """
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    m = compact(W, ids, alive, n, S.sums)
    d1 = np.empty(n)  # distances to g1 / g2 by slot, compacted along with the buffer
    d2 = np.empty(n)
    distances_from(W, alive, m, g1, S)
    d1[:] = S.dist
    distances_from(W, alive, m, g2, S)
    d2[:] = S.dist
    left = n
    g = np.int64(0)
    while left >= k:
        r = argmax_alive(d1 if g % 2 == 0 else d2, alive, m)
        left -= group_around(W, ids, alive, m, r, k, labels, g, S)
        g += 1
        if (m - left) * 8 > m:  # squeeze out dead slots, keeping the distance arrays aligned
            w = 0
            for i in range(m):
                if alive[i]:
                    d1[w] = d1[i]
                    d2[w] = d2[i]
                    w += 1
            m = compact(W, ids, alive, m, S.sums)
    if left > 0:
        assign_leftovers(Z, labels, g)
    return labels
