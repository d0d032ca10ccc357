"""The most distant pair of the remaining records (MD, DBFS), kept exact without an O(n³) scan.

Each record keeps its farthest remaining partner (``far_d``, ``far_id``, by
record id). Removing records only lowers a record's true maximum, so a stale
entry is an upper bound: the record that surfaces as the global maximum is
recomputed until its partner is still unassigned (lazy exact maximum; the
same answer as the naive scan). Ties: the lowest record index of the pair
wins, then its lowest-index partner.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .buffer import UNASSIGNED
from .distances import distances_from, load_point


@njit(cache=True)
def far_refresh(W, alive, ids, m, slot, S, far_d, far_id):
    """Recompute the farthest remaining partner of the record in ``slot``."""
    load_point(W, slot, S[1])
    best = distances_from(W, alive, m, S[1], S)  # itself only when all remaining coincide
    far_d[ids[slot]] = S[2][best]
    far_id[ids[slot]] = ids[best]


@njit(cache=True)
def far_partners(W, alive, ids, m, S):
    """Every record's farthest remaining partner: (far_d, far_id), indexed by record id."""
    n = ids.shape[0]
    far_d = np.empty(n)
    far_id = np.empty(n, dtype=np.int64)
    for i in range(m):
        if alive[i]:
            far_refresh(W, alive, ids, m, i, S, far_d, far_id)
    return far_d, far_id


@njit(cache=True)
def most_distant_pair(W, alive, ids, m, S, far_d, far_id, labels):
    """(slot of r, record id of s): the most distant remaining pair, r the record whose row holds it."""
    while True:
        r = -1
        best_v = -1.0
        for i in range(m):
            if alive[i] and far_d[ids[i]] > best_v:
                best_v = far_d[ids[i]]
                r = i
        if labels[far_id[ids[r]]] == UNASSIGNED:
            return r, far_id[ids[r]]
        far_refresh(W, alive, ids, m, r, S, far_d, far_id)
