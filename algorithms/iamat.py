"""IAMAT — Interactive-Associative Micro-Aggregation Technique (Fayyoumi thesis, Algorithm 12).

Source: 001_26cfb99743cbb1f3.txt Ch. 5 §5.3.2 (Algorithm 12, Eqs. 5.13–5.17); the
associative clustering it simplifies (ACNN, Algorithm 11) is §5.2. Pseudocode
in our own words and the evidence are in docs/algorithms/omma_iamat.md.

One group per iteration, while at least k records are unassigned:

1. the seed X_r is the unassigned record *least associated* with the centroid μ;
2. the group grows one record at a time: the next member is the unassigned
   record of *largest interaction* with the current members, the product of
   its associations with each of them (for the second member that is just the
   association with X_r);
3. the group is removed once it has k members.

The fewer than k records left at the end join the last group (sizes k..2k−1).
Association is a_ij = exp(−||x_i − x_j||²/α) with α = √n / mean ||x_i − μ||².
Because exp is increasing and a product of exponentials is the exponential of
the sum, every choice above is independent of α: "least associated with μ" is
"farthest from μ", and "largest interaction" is "smallest summed squared
distance to the members" (= nearest to the members' centroid). This kernel
uses that α-free form (no underflow); tests/methods/test_omma_iamat.py checks it
against the literal exp/product form on data where the products do not
underflow.

Choices where the thesis is ambiguous:

* ``mu=fixed`` (default): μ is the mean of all n records, computed once, as
  Algorithm 12 places it before the loop. ``mu=recomputed``: μ is the mean of
  the still unassigned records at each iteration (the MDAV habit). Neither
  reproduces the thesis's Table 5.1 to 4 decimals; fixed is within about 1 %
  relative (docs/algorithms/omma_iamat.md).
* α vs. α² in the exponent (Algorithm 12 step 3 vs. Eq. 5.13): irrelevant, see above.
* Data are z-scored (Ch. 5 does not say so; Table 5.1's MDAV column equals
  Table 4.3's, which is z-scored). Distances are squared Euclidean.
* Ties go to the lowest record index. With k = 1 every record is its own group.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, tree_memory


@njit(cache=True)
def iamat_labels(Z, k, recompute_mu):
    n, d = Z.shape
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    T = K.kd_remaining(Z, labels, K.UNASSIGNED, pos)
    KS = K.kd_scratch(T)
    built = n
    members = np.empty(max(k, 1), dtype=np.int64)
    W, ids, free = K.work_buffer(Z)  # the remaining records' running sums (μ) and the seed pass
    S = K.scratch(n, d, k)
    m = K.compact(W, ids, free, n, S.sums)
    c = S.centroid
    for j in range(d):
        c[j] = S.sums[j] / n
    # fixed μ: seeds in order of decreasing distance to the mean of all records, ties to the lowest id
    seeds = K.farthest_first(W, free, m, c, S) if not recompute_mu else np.empty(0, dtype=np.int64)
    left_n = n
    g = np.int64(0)
    nxt = np.int64(0)
    while left_n >= k:
        if 4 * left_n < 3 * built:  # rebuild on the remaining records: the boxes shrink with them
            T = K.kd_remaining(Z, labels, K.UNASSIGNED, pos)
            KS = K.kd_scratch(T)  # sized for this tree's leaves
            built = left_n
        if recompute_mu:
            m = K.centroid(W, ids, free, m, left_n, S.sums, c)  # compacts the buffer now and then
            r = ids[K.distances_from(W, free, m, c, S)]
        else:
            nxt = K.next_unassigned(seeds, labels, nxt)
            r = seeds[nxt]
        size = 0
        while r >= 0:
            labels[r] = g
            members[size] = pos[r]
            size += 1
            K.kd_delete(T, pos[r])
            if recompute_mu:
                slot = np.searchsorted(ids[:m], r)  # slots keep record order
                free[slot] = False
                K.forget(W, slot, S.sums)
            if size == k:
                break
            # the next member: largest interaction = smallest summed squared distance to the members
            i = K.kd_nearest_to_group(T, members, size, KS)
            r = T.rec[i] if i >= 0 else -1
        left_n -= size
        g += 1
    if left_n > 0:
        for r in range(n):
            if labels[r] == K.UNASSIGNED:
                labels[r] = g - 1
    return labels


def run(Z, k, params, rng):
    return iamat_labels(Z, k, params["mu"] == "recomputed")


ALGORITHM = Algorithm(
    name="iamat",
    time="O(n²·d/k) (a pass or k-d tree query per member)",
    memory_bytes=tree_memory,
    title="IAMAT (interactive-associative micro-aggregation)",
    citation="001_26cfb99743cbb1f3.txt Ch. 5 §5.3.2 (Algorithm 12, Eqs. 5.13-5.17); docs/algorithms/omma_iamat.md",
    run=run,
    params={
        "mu": Param("fixed", "centroid the seed is farthest from: of all records (computed once, as "
                    "Algorithm 12) or of the still unassigned records", ("fixed", "recomputed")),
    },
    deterministic=True,
    notes="alpha-free form: largest interaction = smallest summed squared distance to the members",
)
