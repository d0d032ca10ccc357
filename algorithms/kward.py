"""k-Ward — multivariate k-Ward microaggregation (Domingo-Ferrer & Mateo-Sanz 2002).

Source: 004_d1273daa16c98592.txt §IV (k-Ward among the compared methods);
001_26cfb99743cbb1f3.txt §2.6.3 (the multivariate k-Ward of its ref. [45],
Table 2.4 "k ward multi-variate micro-aggregation") and Ch. 3 Algorithm 2,
of which this is the unprojected form. Pseudocode, choices and evidence:
docs/algorithms/kward.md.

    kWard(S): if |S| < 2k: one group
      (r, s) = the two most distant records; G_r = r + its k−1 nearest,
      G_s = s + its k−1 nearest among the rest; every other record a singleton
      merge by Ward's SSE increase n_i n_j/(n_i+n_j)·||mean_i − mean_j||²,
      never two groups that both have >= k records, until all have >= k
      every group of >= 2k records: kWard(group)

Euclidean distances on z-scores; the merge step is the same kernel as the
univariate ``kw`` (mabench/kernels/methods/ward.py).

Choices where the sources are silent: the most distant pair is the first in
(i, j) record order; nearest-neighbour ties go to the lowest record index
(the seed record itself always comes first); the group order for Ward ties
is G_r, G_s, then the singletons in record order (first pair in row-major
order wins); if s falls in G_r (all records equidistant from r) the farthest
remaining record from r replaces it. On one column this gives kW's partition
(tests/methods/test_kward.py).
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, read_only


@njit(cache=True)
def farthest_pair(X):
    """The most distant pair (i < j) of rows of X; ties go to the first pair in (i, j) order."""
    n = X.shape[0]
    bi, bj, bv = 0, min(1, n - 1), -1.0
    for i in range(n):
        for j in range(i + 1, n):
            s = K.sq_between(X, i, j)
            if s > bv:
                bv, bi, bj = s, i, j
    return bi, bj


def _nearest(X, center, k, available):
    """``center`` and its k−1 nearest available rows (stable: ties to the lowest index)."""
    d2 = ((X - X[center]) ** 2).sum(axis=1)
    d2[~available] = np.inf
    d2[center] = -1.0
    return np.argsort(d2, kind="stable")[:k]


def kward_labels(Z, k):
    def owners(idx):
        X = read_only(np.ascontiguousarray(Z[idx]))  # the run's data's type: its kernels compiled once
        r, s = farthest_pair(X)
        available = np.ones(idx.size, dtype=bool)
        g_r = _nearest(X, r, k, available)
        available[g_r] = False
        if not available[s]:
            d_r = ((X - X[r]) ** 2).sum(axis=1)
            d_r[~available] = -np.inf
            s = int(np.argmax(d_r))
        g_s = _nearest(X, s, k, available)
        available[g_s] = False
        singles = np.flatnonzero(available)
        slot = np.empty(idx.size, dtype=np.int64)
        slot[g_r] = 0
        slot[g_s] = 1
        slot[singles] = 2 + np.arange(singles.size)
        m = 2 + singles.size
        sums = np.zeros((m, X.shape[1]))
        np.add.at(sums, slot, X)
        sizes = np.bincount(slot, minlength=m).astype(np.int64)
        return K.ward_merge(sums, sizes, k)[slot]

    return K.split_until_small(Z.shape[0], k, owners)


def run(Z, k, params, rng):
    return kward_labels(Z, k)


ALGORITHM = Algorithm(
    name="kward",
    time="O(n²·d) (Ward merges from singletons, best partner per row)",
    title="k-Ward (multivariate, unprojected)",
    citation="004_d1273daa16c98592.txt §IV; 001_26cfb99743cbb1f3.txt §2.6.3 and Ch. 3 Algorithm 2; "
    "docs/algorithms/kward.md",
    run=run,
    deterministic=True,
)
