"""onedims — individual ranking: every variable microaggregated on its own (sdcMicro's "onedims").

Source: sdcMicro's ``microaggregation(method = "onedims")`` (help page: "individual ranking";
R/microaggregation.R ``micro_onedims``); individual ranking / blurring,
001_26cfb99743cbb1f3.txt §2.6.3.1 ("Individual Ranking": "the partition is obtained for each
variable in turn"). Docs: docs/algorithms/sdcmicro.md.

Per variable j: sort the records by x_j (equal values keep record order, R's ``order`` and
``rank(ties.method = "first")``), cut into consecutive groups of k (the last takes the remainder)
and publish each group's mean of x_j. The result is one partition PER VARIABLE: ``run`` returns an
(n, d) label matrix, column j the groups of variable j (docs/algorithms/sdcmicro.md#per-variable-partitions).
"""

import numpy as np

from mabench.kernels.methods import sdcmicro as S
from mabench.plugin import Algorithm, linear_bytes


def run(Z, k, params, rng, raw=None):
    X = S.values(Z, raw)
    n, d = X.shape
    labels = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        labels[:, j] = S.chunk_labels(S.stable_order(X[:, j]), k)
    return labels


ALGORITHM = Algorithm(
    name="onedims",
    time="O(d·n log n) (one sort per variable)",
    memory="O(n·d) (one label column per variable)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d, copies=13),
    title="onedims (individual ranking: one partition per variable, sdcMicro)",
    citation=f"{S.SDC_DOC} (micro_onedims); {S.SEED_UNIVARIATE}; {S.CITE_DOC}",
    run=run,
    deterministic=True,
    uses_raw=True,
    notes="Per-variable partitions (an (n, d) label matrix, every column validated). Each column sorted "
          "on the original values, ties by record index; cut as sdcMicro's indexMicro.",
)
