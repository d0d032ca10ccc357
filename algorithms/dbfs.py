"""DBFS — diameter-based fixed-size microaggregation (Laszlo & Mukherjee 2005).

Source: 004_d1273daa16c98592.txt §IV ("Laszlo and Mukherjee modified the last
step of the MD method such that each remaining record is added to its own
nearest cluster ... This method is however not a fixed size method because
it allows more than one cluster to have more than k records"). Pseudocode:
docs/algorithms/tfrp_dba.md. No seed publishes DBFS numbers.

* ``step=pair`` (default; the seed's wording): MD's step — the most distant
  remaining pair (r, s); r with its k-1 nearest remaining records, then s with
  its k-1 nearest of what is left — while at least 2k records remain; then
  every leftover (fewer than 2k) goes to the group with the nearest centroid
  (centroids frozen before they are added). Groups reach at most 3k-1;
  fewer than 2k records in all form one group.
* ``step=single``: one group per iteration, around r of the most distant pair,
  while at least k records remain; the fewer-than-k leftovers to the nearest
  groups (the method as Laszlo & Mukherjee describe it, from memory of the
  wider literature, not from a seed). Groups reach at most 2k-1.

The most distant pair is exact (``kernels.most_distant_pair``); r is the
lower-indexed record of the pair; ties go to the lowest index.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


@njit(cache=True)
def dbfs_labels(Z, k, pairs):
    n = Z.shape[0]
    W, ids, alive, labels, S, state, slot_of = K.pair_start(Z, k)
    m = n
    left = n
    g = np.int64(0)
    while left >= (2 * k if pairs else k):
        r, s_id = K.most_distant_pair(W, alive, ids, m, S, state, labels)
        left -= K.group_around(W, ids, alive, m, r, k, labels, g, S)
        g += 1
        if pairs:
            s = slot_of[s_id]
            if not alive[s]:  # only when every remaining record is equidistant from r
                s = K.argmax_alive(S.dist, alive, m)
            left -= K.group_around(W, ids, alive, m, s, k, labels, g, S)
            g += 1
        if (m - left) * 8 > m:
            m = K.compact(W, ids, alive, m, S.sums)
            for i in range(m):
                slot_of[ids[i]] = i
    if left > 0 and g == 0:  # fewer than 2k records in all: one group
        K.label_rest(alive, ids, m, labels, np.int64(0))
    elif left > 0:
        K.assign_leftovers(Z, labels, g)
    return labels


def run(Z, k, params, rng):
    return dbfs_labels(Z, k, params["step"] == "pair")


ALGORITHM = Algorithm(
    name="dbfs",
    time="O(n²·d) and up (MD's most distant pair with upper bounds; naive O(n³·d/k))",
    title="DBFS (diameter-based fixed size)",
    citation="004_d1273daa16c98592.txt §IV (DBFS); docs/algorithms/tfrp_dba.md",
    run=run,
    max_group_size=lambda k, params: 3 * k - 1 if params["step"] == "pair" else 2 * k - 1,
    params={
        "step": Param("pair", "pair = MD's two groups per iteration, all < 2k leftovers to nearest groups "
                      "(seed wording); single = one group per iteration", ("pair", "single")),
    },
    deterministic=True,
)
