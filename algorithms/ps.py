"""P-S — pairwise systematic microaggregation (Kabir, Wang & Zhang, ICDM 2010).

Source: 004_d1273daa16c98592.txt §V.A (the sorting function SF, Eq. 4) and
§V.B with its Fig. 2 (the algorithm); cross-checked against the second OCR
000_e6880ce76e23191b.txt §V. Pseudocode, choices and evidence:
docs/algorithms/ps_cvmdav.md.

SF(x) = Σ_j (x_j − x̄_j) orders the records once (re-sorting the remaining
records "with the same SF" cannot change the order: removing records shifts
every SF by the same constant). While at least 3k records remain, the first
record f and the last record l of that order each seed a group of k; with
2k..3k−1 left, f seeds one group of k and the rest is one group; with fewer
than 2k left, they form one group. Groups therefore have k..2k−1 records.

Choices where the paper is ambiguous (each a parameter):

* ``fill=greedy`` (default): the k−1 companions are added one at a time, each
  the remaining record nearest to the current group centroid (= the least SSE
  increase, the paper's "inclusion of these records causes less SSE");
  ``fill=nn``: the seed's k−1 nearest remaining records.
* ``scale=standardized`` (default, like every harness method) or ``scale=raw``:
  SF and all distances on the original values. The paper's Tables I–III
  evidently used raw values (its P-S cells are reproduced only on that scale;
  compare them with the metric ``il_raw``, not ``il``).
* Ties: f is the lowest record id among equal smallest SF, l the highest id
  among equal largest SF (first and last of a stable ascending sort); l is
  taken after f's group is removed (if f's group absorbed the old l, the next
  largest remaining SF seeds the second group). Distance ties go to the lowest id.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, raw_scale, scale_param


@njit(cache=True)
def sort_function(X):
    """SF of Eq. 4: the sum of the record's centred attributes (column means summed in record order)."""
    n, d = X.shape
    mean = np.empty(d)
    K.rows_mean(X, np.arange(n), mean)
    sf = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += X[i, j] - mean[j]
        sf[i] = s
    return sf


@njit(cache=True)
def _extreme(sf, ids, alive, m, lowest):
    """Alive slot with the smallest SF (first such) or the largest SF (last such)."""
    best = -1
    bv = 0.0
    for i in range(m):
        if not alive[i]:
            continue
        v = sf[ids[i]]
        if best < 0 or (v < bv if lowest else v >= bv):
            bv = v
            best = i
    return best


@njit(cache=True)
def _fill(W, ids, alive, m, seed, k, greedy, labels, g, S, gsum, c):
    """Group ``seed`` with k−1 companions (greedy: nearest to the growing centroid; else seed's NN)."""
    if not greedy:
        return K.group_around(W, ids, alive, m, seed, k, labels, g, S)
    gsum[:] = 0.0
    K.add_member(W, ids, alive, seed, labels, g, S.sums, gsum)
    size = 1
    while size < k:
        for j in range(W.shape[0]):
            c[j] = gsum[j] / size
        K.distances_from(W, alive, m, c, S)
        nxt = K.argmin_alive(S.dist, alive, m)
        if nxt < 0:
            break
        K.add_member(W, ids, alive, nxt, labels, g, S.sums, gsum)
        size += 1
    return size


@njit(cache=True)
def ps_labels(X, k, greedy):
    n, d = X.shape
    sf = sort_function(X)
    W, ids, alive = K.work_buffer(X)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, k)
    gsum = np.zeros(d)
    c = np.empty(d)
    m = K.compact(W, ids, alive, n, S.sums)
    left = n
    g = np.int64(0)
    while left >= 3 * k:
        m = K.centroid(W, ids, alive, m, left, S.sums, S.centroid)  # keeps the buffer compact
        f = _extreme(sf, ids, alive, m, np.bool_(True))
        left -= _fill(W, ids, alive, m, f, k, greedy, labels, g, S, gsum, c)
        g += 1
        last = _extreme(sf, ids, alive, m, np.bool_(False))
        left -= _fill(W, ids, alive, m, last, k, greedy, labels, g, S, gsum, c)
        g += 1
    if left >= 2 * k:
        f = _extreme(sf, ids, alive, m, np.bool_(True))
        left -= _fill(W, ids, alive, m, f, k, greedy, labels, g, S, gsum, c)
        g += 1
    if left > 0:
        K.label_rest(alive, ids, m, labels, g)
    return labels


def run(X, k, params, rng):
    return ps_labels(X, k, params["fill"] == "greedy")


ALGORITHM = Algorithm(
    name="ps",
    time="O(n log n + n²·d/k) (one sort, then k nearest of each seed by passes)",
    title="P-S (pairwise systematic; Kabir, Wang & Zhang 2010)",
    citation="004_d1273daa16c98592.txt §V.A (Eq. 4), §V.B and Fig. 2; docs/algorithms/ps_cvmdav.md",
    run=run,
    params={
        "fill": Param("greedy", "companions of a seed: greedy = nearest to the growing group centroid "
                      "(least SSE increase); nn = the seed's k-1 nearest", ("greedy", "nn")),
        "scale": scale_param("decide on z-scores (standardized) or on the original values (raw; "
                             "the scale of the paper's own P-S cells, score them with il_raw)"),
    },
    raw_input=raw_scale,
    deterministic=True,
    notes="ties: f = lowest id of the smallest SF, l = highest id of the largest SF; distance ties -> lowest id",
)
