"""The MDAV family's main loop (MDAV-generic, the papers' 2k wording, MDAV-1)."""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.buffer import UNASSIGNED, compact, centroid, scratch, work_buffer
from mabench.kernels.distances import argmax_alive
from mabench.kernels.groups import close_tail
from mabench.kernels.nearest import farthest_group, group_around

TAIL_3K = 0  # MDAV-generic: pairs while >= 3k left; 2k..3k-1 -> one group + the rest
TAIL_2K = 1  # MDAV as worded in P-S / CV-MDAV / ICSM Alg. 1: pairs while >= 2k; k..2k-1 -> one group
TAIL_MDAV1 = 2  # MDAV-1 (Lin et al.): pairs while >= 2k; k..2k-1 -> NN_k of the farthest, rest to nearest


@njit(cache=True)
def mdav_labels(Z, k, tail):
    """Two groups per iteration: around r (farthest from the centroid) and s (farthest from r)."""
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    c = S[0]
    m = n
    left = n
    g = 0
    stop = 3 * k if tail == TAIL_3K else 2 * k
    m = compact(W, ids, alive, m, S[7])
    while left >= stop:
        m = centroid(W, ids, alive, m, left, S[7], c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = argmax_alive(S[2], alive, m)
        left -= group_around(W, ids, alive, m, s, k, labels, g, S)
        g += 1
    if left >= (2 * k if tail == TAIL_3K else k) and tail != TAIL_2K:
        m = centroid(W, ids, alive, m, left, S[7], c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
    close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels
