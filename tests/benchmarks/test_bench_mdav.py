"""Speed of the MDAV-family kernels (run with `make bench`; not part of `make test`).

The headline case is the issue's target: 100,000 × 10 standard normal data,
k = 3. The baseline, measured in the same run, is a straightforward vectorized
NumPy MDAV-generic (boolean masks, one NumPy call per step), on a size it
finishes in seconds; ratios are taken at that size.
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import discovery, partition
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench


def numpy_mdav(Z, k):
    n = len(Z)
    alive = np.ones(n, bool)
    labels = np.full(n, -1)
    g = 0

    def take(seed):
        nonlocal g
        idx = np.flatnonzero(alive)
        d = ((Z[idx] - Z[seed]) ** 2).sum(axis=1)
        d[idx == seed] = -1.0
        members = idx[np.argsort(d, kind="stable")[:k]]
        labels[members] = g
        alive[members] = False
        g += 1

    while alive.sum() >= 3 * k:
        idx = np.flatnonzero(alive)
        c = Z[idx].mean(axis=0)
        r = idx[np.argmax(((Z[idx] - c) ** 2).sum(axis=1))]
        s = idx[np.argmax(((Z[idx] - Z[r]) ** 2).sum(axis=1))]
        take(r)
        take(s)
    if alive.sum() >= 2 * k:
        idx = np.flatnonzero(alive)
        take(idx[np.argmax(((Z[idx] - Z[idx].mean(axis=0)) ** 2).sum(axis=1))])
    labels[alive] = g
    return labels


def _data(n, d=10, seed=12345):
    return zscore(np.random.default_rng(seed).standard_normal((n, d)))


@pytest.mark.benchmark(group="mdav 10,000 x 10, k=3: numba vs numpy")
@pytest.mark.parametrize("impl", ["numba", "numpy"])
def test_mdav_10k_numba_vs_numpy(benchmark, impl):
    Z = _data(10_000)
    algo = discovery.algorithm("mdav")
    params = algo.resolve({})
    fn = (lambda: algo.run(Z, 3, params, None)) if impl == "numba" else (lambda: numpy_mdav(Z, 3))
    fn() if impl == "numba" else None  # JIT compile outside the timing
    labels = benchmark.pedantic(fn, rounds=3 if impl == "numba" else 1, iterations=1)
    partition.check(np.asarray(labels), len(Z), 3, 5)


@pytest.mark.benchmark(group="fixed-size methods 100,000 x 10, k=3")
@pytest.mark.parametrize("name,params", [("mdav", {}), ("cbfs", {"tail": "group"})], ids=["mdav", "cbfs-thesis"])
def test_100k_x_10(benchmark, name, params):
    Z = _data(100_000)
    algo = discovery.algorithm(name)
    resolved = algo.resolve(params)
    algo.run(Z[:1000].copy(), 3, resolved, None)
    labels = benchmark.pedantic(lambda: algo.run(Z, 3, resolved, None), rounds=2, iterations=1)
    partition.check(np.asarray(labels), len(Z), 3, 5)
