"""Speed of ps, vmdav and cvmdav on 10,000 x 10 (k = 3), as ratios to MDAV in the same run.

Run with `make bench`. Published complexities: P-S with greedy filling and
V-MDAV are O(n^2) (one distance pass per record added, against MDAV's ~1.5 per
group of k), CV-MDAV O(n^2) (k + 2 passes per group). The thread-count check
lives here too: on a shared machine every parallel pass is slow.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from mabench import discovery, partition
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench

METHODS = [("mdav", {}), ("ps", {}), ("ps", {"fill": "nn"}), ("vmdav", {}), ("vmdav", {"gamma": "1.1"}),
           ("cvmdav", {}), ("cvmdav", {"zpool": "all"})]
IDS = [name + ("[" + ",".join(f"{k}={v}" for k, v in p.items()) + "]" if p else "") for name, p in METHODS]


def _data(n, d=10, seed=12345):
    return zscore(np.random.default_rng(seed).standard_normal((n, d)))


@pytest.mark.benchmark(group="ps / vmdav / cvmdav 10,000 x 10, k=3")
@pytest.mark.parametrize("name,params", METHODS, ids=IDS)
def test_10k_x_10(benchmark, name, params):
    Z = _data(10_000)
    algo = discovery.algorithm(name)
    resolved = algo.resolve(params)
    algo.run(Z[:500].copy(), 3, resolved, None)  # JIT outside the timing
    labels = benchmark.pedantic(lambda: algo.run(Z, 3, resolved, None), rounds=3, iterations=1)
    partition.check(np.asarray(labels), len(Z), 3, algo.max_group_size(3, resolved))


def test_ratios_to_mdav_same_process(capsys):
    """Best of 3 per method, interleaved, printed as ratios to MDAV (no timed assertion)."""
    Z = _data(10_000)
    best = {}
    for _ in range(3):
        for (name, params), label in zip(METHODS, IDS):
            algo = discovery.algorithm(name)
            resolved = algo.resolve(params)
            algo.run(Z[:500].copy(), 3, resolved, None)
            t = time.perf_counter()
            algo.run(Z, 3, resolved, None)
            best[label] = min(best.get(label, np.inf), time.perf_counter() - t)
    with capsys.disabled():
        print("\n10,000 x 10, k=3, best of 3 (s) and ratio to mdav:")
        for label, s in best.items():
            print(f"  {label:24s} {s:8.3f}  x{s / best['mdav']:.2f}")


@pytest.mark.parametrize("name", ["ps", "vmdav", "cvmdav"])
def test_result_does_not_depend_on_thread_count(name):
    import numba

    Z = np.random.default_rng(5).standard_normal((8400, 3))  # above the kernels' parallel threshold
    algo = discovery.algorithm(name)
    params = algo.resolve({})
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = algo.run(Z, 10, params, None)
        numba.set_num_threads(max(2, before))
        two = algo.run(Z, 10, params, None)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)
