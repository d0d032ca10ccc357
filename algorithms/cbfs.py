"""CBFS — centroid-based fixed-size microaggregation (Laszlo & Mukherjee 2005).

Source: 004_d1273daa16c98592.txt §IV ("Centroid based Fixed size
microaggregation ... builds only one cluster during each iteration");
pseudocode, choices and evidence in docs/algorithms/cbfs.md (the thesis's
variant: 001_26cfb99743cbb1f3.txt Ch. 4 §4.5, Ch. 5 §5.4; docs/findings.md).

Each iteration: r = the remaining record farthest from the centroid; r and
its k-1 nearest remaining records form a group.

* ``tail=nearest`` (default, the P-S wording): iterate while >= k records remain;
  the fewer-than-k leftovers go one by one to the group with the nearest
  centroid (centroids frozen before they are added).
* ``tail=group``: iterate while >= 2k remain; the last k..2k-1 records form one
  group. With ``centroid=remaining`` this is what the Fayyoumi thesis
  (001_26cfb99743cbb1f3.txt, Ch. 4–5 tables, "MDAV", Dr. Sebé's code) calls
  MDAV: it reproduces every MDAV IL of its Table 4.3 to 4 decimals.
* ``centroid=remaining`` (default) recomputes the centroid of the remaining
  records each iteration; ``centroid=fixed`` uses the centroid of the whole data
  set throughout (the P-S wording "current centroid of the dataset" allows both).

Ties go to the lowest record index; distances are Euclidean on z-scores.

Scaling: time O(n²·d/k) (a pass per group; a k-d tree for the k nearest at large n, low d); memory O(n·d).
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, linear_bytes


@njit(cache=True)
def cbfs_labels(Z, k, tail_group, fixed_centroid, use_tree):
    n, d = Z.shape
    W, ids, alive = K.work_buffer(Z)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, k)
    m = K.compact(W, ids, alive, n, S[7])
    c_fixed = S[7] / n
    c_now = S[0]
    pos = np.empty(n, dtype=np.int64)
    T = K.kd_remaining(Z, labels if use_tree else np.zeros(0, dtype=np.int64), K.UNASSIGNED, pos)
    KS = K.kd_scratch(T)
    built = n
    seeds = K.farthest_first(W, alive, m, c_fixed, S) if use_tree and fixed_centroid else np.empty(0, dtype=np.int64)
    nxt = 0
    left = n
    g = 0
    stop = 2 * k if tail_group else k
    while left >= stop:
        m = K.centroid(W, ids, alive, m, left, S[7], c_now)
        if use_tree:  # same groups, found by a k-d tree instead of a second pass (K.tree_pays)
            # rebuilt on the remaining records so the boxes shrink with them; without a pass per group
            # a rebuild costs relatively more, so the fixed-centroid path rebuilds less often (measured:
            # 20,000 x 3 0.074 s at 3/4 left, 0.038 s at 1/2; 100,000 x 10 with a pass 14.9 s vs 18.6 s)
            if (2 * left < built) if fixed_centroid else (4 * left < 3 * built):
                T = K.kd_remaining(Z, labels, K.UNASSIGNED, pos)
                built = left
            if fixed_centroid:  # the farthest from a fixed point: the next in one precomputed order
                nxt = K.next_unassigned(seeds, labels, nxt)
                r = np.searchsorted(ids[:m], seeds[nxt])
            else:
                r = K.distances_from(W, alive, m, c_now, S)
            left -= K.group_around_kd(W, ids, alive, m, r, k, labels, g, S, T, pos, KS)
        else:
            left -= K.farthest_group(W, ids, alive, m, c_fixed if fixed_centroid else c_now, k, labels, g, S)[0]
        g += 1
    K.close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


def run(Z, k, params, rng):
    fixed = params["centroid"] == "fixed"
    return cbfs_labels(Z, k, params["tail"] == "group", fixed, K.tree_pays(*Z.shape, passes_left=0 if fixed else 1))


ALGORITHM = Algorithm(
    name="cbfs",
    time="O(n²·d/k) (a pass per group; a k-d tree for the k nearest at large n, low d)",
    memory="O(n·d)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d),
    title="CBFS (centroid-based fixed size; the thesis's 'MDAV' with tail=group)",
    citation="004_d1273daa16c98592.txt §IV (CBFS); 001_26cfb99743cbb1f3.txt Ch. 4 §4.5 and Ch. 5 §5.4 "
    "(the MDAV baseline); docs/algorithms/cbfs.md",
    run=run,
    max_group_size=lambda k, params: 2 * k - 1,
    params={
        "tail": Param("nearest", "leftovers: nearest = to nearest groups; group = last k..2k-1 form one group",
                      ("nearest", "group")),
        "centroid": Param("remaining", "centroid of the remaining records, or of the whole data set",
                          ("remaining", "fixed")),
    },
    deterministic=True,
)
