"""Speed of the search methods on the real data sets, k = 3 (run with `make bench`).

The baseline, measured in the same run, is MDAV with the 2k tail (ICSM's initialization,
`kernels.mdav_labels`); ratios are what to quote, the machine is shared.
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import data, discovery, kernels as K
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench


def _z(name):
    ds = data.load(name, 0)
    return zscore(ds.values, ds.columns)


@pytest.mark.parametrize("dataset", ["tarragona", "census", "eia"])
@pytest.mark.parametrize("method", ["mdav_2k", "ls", "icsm"])
def test_search_k3(benchmark, dataset, method):
    Z = _z(dataset)
    benchmark.group = f"{dataset}, k=3: ICSM / LS vs MDAV (2k tail)"
    if method == "mdav_2k":
        fn = lambda: K.mdav_labels(Z, 3, K.TAIL_2K)  # noqa: E731
    else:
        algo = discovery.algorithm(method)
        params = algo.resolve({})
        algo.run(Z[:200].copy(), 3, params, np.random.default_rng(0))  # compile
        fn = lambda: algo.run(Z, 3, params, np.random.default_rng(0))  # noqa: E731
    benchmark.pedantic(fn, rounds=2 if method == "icsm" else 3, iterations=1)
