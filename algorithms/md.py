"""MD — Maximum Distance (Domingo-Ferrer & Mateo-Sanz 2002).

Source: 004_d1273daa16c98592.txt §IV ("repeatedly locates the two records
that are most distant to each other, and forms two clusters with their
respective (k-1) nearest records until fewer than 2k records remain. If at
least k records remain, it then forms a new cluster with all remaining
records. Finally when there are fewer than k records ... assigns these
records to their closest clusters"); pseudocode and choices in
docs/algorithms/md.md.

Each iteration takes the most distant pair (r, s) of the remaining records,
groups r with its k-1 nearest, then s with its k-1 nearest of what is left.

Choices where the source is silent: r is the lower-indexed record of the
pair, and among equally distant pairs the one whose lower index is smallest
wins (then the smaller partner); other ties go to the lowest index.

Speed: the naive method is O(n³). Here each record keeps its farthest
remaining partner; removing records only lowers a record's true maximum, so
stale values are upper bounds and only the records that surface as the
global maximum are recomputed (exact, same result as the naive scan).
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.api import Algorithm


@njit(cache=True)
def _refresh(W, alive, ids, m, slot, S, far_d, far_id):
    """Recompute the farthest remaining partner of the record in ``slot``."""
    K.load_point(W, slot, S[1])
    best = K.distances_from(W, alive, m, S[1], S)  # itself only when all remaining coincide
    far_d[ids[slot]] = S[2][best]
    far_id[ids[slot]] = ids[best]


@njit(cache=True)
def md_labels(Z, k):
    n, d = Z.shape
    W, ids, alive = K.work_buffer(Z)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, k)
    far_d = np.empty(n)
    far_id = np.empty(n, dtype=np.int64)
    slot_of = np.arange(n)
    for i in range(n):
        _refresh(W, alive, ids, n, i, S, far_d, far_id)
    m = n
    left = n
    g = 0
    while left >= 2 * k:
        # lazy exact maximum: a stale row (partner gone) holds an upper bound
        while True:
            r = -1
            best_v = -1.0
            for i in range(m):
                if alive[i] and far_d[ids[i]] > best_v:
                    best_v = far_d[ids[i]]
                    r = i
            partner = far_id[ids[r]]
            if labels[partner] == K.UNASSIGNED:
                break
            _refresh(W, alive, ids, m, r, S, far_d, far_id)
        s_id = far_id[ids[r]]
        left -= K.group_around(W, ids, alive, m, r, k, labels, g, S)
        g += 1
        s = slot_of[s_id]
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = K.argmax_alive(S[2], alive, m)
        left -= K.group_around(W, ids, alive, m, s, k, labels, g, S)
        g += 1
        m = K.compact(W, ids, alive, m, S[7])
        for i in range(m):
            slot_of[ids[i]] = i
    K.close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


def run(Z, k, params, rng):
    return md_labels(Z, k)


ALGORITHM = Algorithm(
    name="md",
    title="MD (maximum distance)",
    citation="004_d1273daa16c98592.txt §IV (MD); docs/algorithms/md.md",
    run=run,
    max_group_size=lambda k, params: 2 * k - 1,
    deterministic=True,
)
