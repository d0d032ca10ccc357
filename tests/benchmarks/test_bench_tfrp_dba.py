"""Speed of TFRP-1/2, DBA-1/2, MDAV-2 and DBFS against MDAV in the same run (`make bench` only).

10,000 × 10 standard normal data, k = 3; the group's MDAV row is the baseline
(ratios, not absolute times, are what compare across machines). Published
complexities: MDAV and TFRP O(n²/k); DBA O(n²) (every record's k-neighbourhood);
DBFS like MD (O(n³) naively, O(n²) here with the lazy most-distant pair).
The refinements add O(n² d / k) (each record of a visited group scans the group centroids).
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import discovery, partition
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench

METHODS = ["mdav", "tfrp1", "tfrp2", "mdav2", "dba1", "dba2", "dbfs"]


def _data(n, d=10, seed=12345):
    return zscore(np.random.default_rng(seed).standard_normal((n, d)))


def _bench(benchmark, name, n, rounds):
    Z = _data(n)
    algo = discovery.algorithm(name)
    params = algo.resolve({})
    algo.run(Z[:1000].copy(), 3, params, None)  # JIT compile outside the timing
    labels = benchmark.pedantic(lambda: algo.run(Z, 3, params, None), rounds=rounds, iterations=1)
    partition.check(np.asarray(labels), len(Z), 3, algo.max_group_size(3, params), who=name)


@pytest.mark.benchmark(group="tfrp/dba family 10,000 x 10, k=3 (ratio to mdav)")
@pytest.mark.parametrize("name", METHODS)
def test_10k_x_10(benchmark, name):
    _bench(benchmark, name, 10_000, 3)


@pytest.mark.benchmark(group="tfrp/dba family 100,000 x 10, k=3 (ratio to mdav)")
@pytest.mark.parametrize("name", METHODS)
def test_100k_x_10(benchmark, name):
    _bench(benchmark, name, 100_000, 1)
