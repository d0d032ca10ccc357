"""Threads under load (run with `make bench`).

MDAV's kernels fork and join once per pass. With every core busy with other work, two threads used
to be 40–50x slower than one (30,000 × 10, k = 3). The runner now picks the thread count per cell
from the cores that are idle (mabench.bench.threads). These benchmarks measure MDAV 30,000 × 10, k = 3,
with a background load on every core, at the default thread count and at one thread; and
100,000 × 10 on the idle machine at both. The ratios land in the benchmark JSON (extra_info) and
the README; a benchmark asserts no time.
"""

from __future__ import annotations

import multiprocessing as mp
import time

import numba
import numpy as np
import pytest

from mabench import kernels as K
from mabench.bench import threads

pytestmark = pytest.mark.bench


def _spin(stop):
    while not stop.is_set():
        pass


@pytest.fixture
def busy_cores():
    """A spinning process on every core for the duration of the test."""
    stop = mp.Event()
    procs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(threads.cores())]
    for p in procs:
        p.start()
    time.sleep(1.0)
    yield
    stop.set()
    for p in procs:
        p.join(5)


def _data(n):
    return np.ascontiguousarray(np.random.default_rng(0).standard_normal((n, 10)))


def _mdav(Z, n_threads):
    numba.set_num_threads(n_threads)
    return K.mdav_labels(Z, 3, K.TAIL_3K)


@pytest.mark.parametrize("mode", ["default", "one"])
def test_mdav_30k_under_load(benchmark, busy_cores, mode):
    Z = _data(30_000)
    _mdav(Z[:1000].copy(), 1)
    chosen = threads.choose() if mode == "default" else 1
    benchmark.extra_info["threads"] = chosen
    benchmark.pedantic(_mdav, args=(Z, chosen), rounds=3, iterations=1)


@pytest.mark.parametrize("mode", ["default", "one"])
def test_mdav_100k_idle(benchmark, mode):
    Z = _data(100_000)
    _mdav(Z[:1000].copy(), 1)
    chosen = threads.choose() if mode == "default" else 1
    benchmark.extra_info["threads"] = chosen
    benchmark.pedantic(_mdav, args=(Z, chosen), rounds=2, iterations=1)
