"""simple — sdcMicro's benchmark: consecutive groups in the file's own record order.

Source: sdcMicro's ``microaggregation(method = "simple")`` (help page: "microaggregation directly
on the (unsorted) data ... a benchmark"; R/microaggregation.R ``micro_simple`` and ``indexMicro``);
the fixed-size grouping of a univariate ranking is described in 001_26cfb99743cbb1f3.txt §2.6.3.1.
Docs, the differences to sdcMicro and the comparison: docs/algorithms/sdcmicro.md.

Records 1..k form group 1, k+1..2k group 2, ...; the last group takes the remainder (k..2k-1).
"""

import numpy as np

from mabench.kernels.methods import sdcmicro as S
from mabench.kernels.methods.sdcmicro_family import citation
from mabench.plugin import Algorithm


def run(Z, k, params, rng):
    return S.chunk_labels(np.arange(Z.shape[0]), k)


ALGORITHM = Algorithm(
    name="simple",
    time="O(n·d) (consecutive records of the file)",
    title="simple (sdcMicro: groups of k in record order, no sorting)",
    citation=citation("micro_simple"),
    run=run,
    deterministic=True,
    notes="Order: the records as given. Cut: floor(n/k) groups, the last takes the n mod k remainder "
          "(sdcMicro's indexMicro). sdcMicro refuses n < 2k; here k <= n < 2k is one group.",
)
