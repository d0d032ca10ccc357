"""Speed of hm, mhm, mdst and muapprox against MDAV-generic (run with `make bench`).

Every group holds the MDAV baseline (``kernels.mdav_labels``, tail=3k) on the
same data, so ratios are taken within one run. Published complexities
(003_58f0e37d459aa4df.txt Table 3): NPN-MHM, M-d and μ-Approx are O(n²), worse
than MDAV's O(n²/k); MD-MHM inherits MD's O(n³/k) (the harness's MD is exact but
lazy); MDAV-MHM is MDAV plus an O(n·k) path; HM is O(n log n + n·k).
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import discovery, kernels, partition
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench

CASES = [
    ("mdav-generic", None, {}),
    ("mhm-npn", "mhm", {"order": "npn"}),
    ("mhm-mdav", "mhm", {"order": "mdav"}),
    ("mhm-md", "mhm", {"order": "md"}),
    ("mhm-cbfs", "mhm", {"order": "cbfs"}),
    ("mdst", "mdst", {}),
    ("muapprox", "muapprox", {}),
]
O_N2 = [c for c in CASES if c[0] != "mhm-md"]  # MD-MHM is O(n³/k) in its source: 10,000 only


def _data(n, d=10, seed=12345):
    return zscore(np.random.default_rng(seed).standard_normal((n, d)))


def _bench(benchmark, case, Z, k, rounds):
    label, name, params = case
    if name is None:
        fn = lambda: kernels.mdav_labels(Z, k, kernels.TAIL_3K)  # noqa: E731
        bound = 2 * k - 1
    else:
        algo = discovery.algorithm(name)
        resolved = algo.resolve(params)
        fn = lambda: algo.run(Z, k, resolved, np.random.default_rng(0))  # noqa: E731
        bound = algo.max_group_size(k, resolved)
    small = np.ascontiguousarray(Z[:300])
    (kernels.mdav_labels(small, k, kernels.TAIL_3K) if name is None
     else discovery.algorithm(name).run(small, k, discovery.algorithm(name).resolve(params), None))  # JIT outside
    labels = benchmark.pedantic(fn, rounds=rounds, iterations=1)
    partition.check(np.asarray(labels), len(Z), k, bound)


@pytest.mark.benchmark(group="hm/mst family 10,000 x 10, k=3 (ratio to mdav-generic)")
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_10k_x_10(benchmark, case):
    _bench(benchmark, case, _data(10_000), 3, rounds=3)


@pytest.mark.benchmark(group="hm/mst family 100,000 x 10, k=3 (ratio to mdav-generic)")
@pytest.mark.parametrize("case", O_N2, ids=[c[0] for c in O_N2])
def test_100k_x_10(benchmark, case):
    _bench(benchmark, case, _data(100_000), 3, rounds=1)


@pytest.mark.benchmark(group="hm 100,000 x 1, k=3 (ratio to mdav-generic)")
@pytest.mark.parametrize("case", [CASES[0], ("hm", "hm", {})], ids=["mdav-generic", "hm"])
def test_hm_100k_x_1(benchmark, case):
    _bench(benchmark, case, np.ascontiguousarray(_data(100_000)[:, :1]), 3, rounds=3)
