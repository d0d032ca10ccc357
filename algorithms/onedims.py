"""onedims — individual ranking: every variable microaggregated on its own (sdcMicro's "onedims").

Source: sdcMicro's ``microaggregation(method = "onedims")`` (help page: "individual ranking";
R/microaggregation.R ``micro_onedims``); individual ranking / blurring,
001_26cfb99743cbb1f3.txt §2.6.3.1 ("Individual Ranking": "the partition is obtained for each
variable in turn"). Docs: docs/algorithms/sdcmicro.md.

Per variable j: sort the records by x_j (equal values keep record order, R's ``order`` and
``rank(ties.method = "first")``), cut into consecutive groups of k (the last takes the remainder)
and publish each group's mean of x_j. The result is one partition PER VARIABLE: ``run`` returns an
(n, d) label matrix, column j the groups of variable j (docs/algorithms/sdcmicro.md#per-variable-partitions).

With missing values (``missing=available``) a variable ranks its observed values only and the
records missing it share one more label, a group that publishes nothing (docs/metrics.md#missing-values).
"""

import numpy as np

from mabench.kernels.methods import sdcmicro as S
from mabench.kernels.methods.sdcmicro_family import citation
from mabench.plugin import Algorithm, linear_bytes


def run(Z, k, params, rng, raw=None):
    X = S.values(Z, raw)
    n, d = X.shape
    labels = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        labels[:, j] = _ranked(X[:, j], k)
    return labels


def _ranked(x, k):
    """sdcMicro's cut of the observed values of one variable (NaN sorts last and takes no part)."""
    order = S.stable_order(x)
    m = int(np.count_nonzero(~np.isnan(x)))
    if m == x.size:
        return S.chunk_labels(order, k)
    labels = np.empty(x.size, dtype=np.int64)
    labels[order[:m]] = S.chunk_labels(np.arange(m), k) if m else 0
    labels[order[m:]] = max(m // k, 1) if m else 0
    return labels


ALGORITHM = Algorithm(
    name="onedims",
    time="O(d·n log n) (one sort per variable)",
    memory="O(n·d) (one label column per variable)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d, copies=13),
    title="onedims (individual ranking: one partition per variable, sdcMicro)",
    citation=citation("micro_onedims"),
    run=run,
    deterministic=True,
    uses_raw=True,
    notes="Per-variable partitions (an (n, d) label matrix, every column validated). Each column sorted "
          "on the original values, ties by record index; cut as sdcMicro's indexMicro.",
)
