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

Speed: the naive method is O(n³). The most distant pair comes from
``kernels.most_distant_pair`` (each record keeps its farthest remaining
partners; exhausted lists are upper bounds, recomputed lazily; exact, the
same result as the naive scan).
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm


@njit(cache=True)
def md_labels(Z, k):
    n = Z.shape[0]
    W, ids, alive, labels, S, state, slot_of = K.pair_start(Z, k)
    m = n
    left = n
    g = np.int64(0)
    while left >= 2 * k:
        r, s_id = K.most_distant_pair(W, alive, ids, m, S, state, labels)
        left -= K.group_around(W, ids, alive, m, r, k, labels, g, S)
        g += 1
        s = slot_of[s_id]
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = K.argmax_alive(S.dist, alive, m)
        left -= K.group_around(W, ids, alive, m, s, k, labels, g, S)
        g += 1
        m = K.compact(W, ids, alive, m, S.sums)
        for i in range(m):
            slot_of[ids[i]] = i
    K.close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


def run(Z, k, params, rng):
    return md_labels(Z, k)


ALGORITHM = Algorithm(
    name="md",
    time="O(n²·d) and up (most distant pair kept with upper bounds; naive O(n³·d/k))",
    title="MD (maximum distance)",
    citation="004_d1273daa16c98592.txt §IV (MD); docs/algorithms/md.md",
    run=run,
    deterministic=True,
)
