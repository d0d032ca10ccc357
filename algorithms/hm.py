"""HM — optimal univariate microaggregation (Hansen & Mukherjee 2003).

Source: 004_d1273daa16c98592.txt §IV ("Hansen and Mukherjee [11] proposed a
microaggregation method for univariate datasets called HM"), reference [11]
there; the method itself in docs/algorithms/hm_mst.md §1.

On one attribute the optimal k-partition consists of groups that are
contiguous in sorted order and hold k..2k-1 records. Sort the records (stable:
equal values keep record order), then take the shortest path of the HM graph
(nodes 0..n, an arc a -> b for k <= b-a <= 2k-1 weighted by the SSE of the
sorted records a..b-1). The result is an exact optimum, in O(n log n + n·k).
The kernel is shared with ``mhm`` (``mabench.kernels.methods.hm``).

Choices: on equal-cost paths the smallest last group wins (see the kernel).
Multi-column data are refused: select one column (``tarragona[columns=3]``),
or use ``mhm`` for the multivariate heuristic.
"""

import numpy as np

from mabench import kernels as K
from mabench.plugin import Algorithm
from mabench.errors import UserError


def run(Z, k, params, rng):
    n, d = Z.shape
    if d != 1:
        raise UserError(
            f"algorithm hm is univariate (optimal Hansen-Mukherjee) but the data have {d} columns; "
            "select one column, e.g. 'tarragona[columns=3]', or use mhm for multivariate data"
        )
    order = np.argsort(Z[:, 0], kind="stable").astype(np.int64)
    labels, _ = K.hm_labels(Z, order, k)
    return labels


ALGORITHM = Algorithm(
    name="hm",
    time="O(n log n + n·k) (univariate, exact)",
    memory="O(n)",
    max_columns=1,
    title="HM (optimal univariate Hansen-Mukherjee; one column only)",
    citation="004_d1273daa16c98592.txt §IV (HM, ref. [11]); docs/algorithms/hm_mst.md §1",
    run=run,
    deterministic=True,
)
