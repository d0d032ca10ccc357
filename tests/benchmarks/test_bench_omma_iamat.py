"""Speed of OMMA and IAMAT at the Fayyoumi thesis's sizes (run with `make bench`; not part of `make test`).

Every case times the method and the thesis's MDAV baseline (``cbfs`` with
``tail=group``) on the same data in the same process and reports the ratio
method / MDAV in ``extra_info`` (printed with ``-s``). CPU time of this
process (``time.process_time``) is used, so other jobs on the machine inflate
neither side. Sizes: Table 4.3 (Census, k = 3), Table 4.5 (uniform, d = 16,
n = 2,400 and 5,400, k = 3), Table 4.7 (n = 2,400, k = 12), Table 5.1 (Census),
Table 5.3 (uniform, d = 10, n = 10,000 and 100,000, k = 3).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from mabench import data, discovery, partition
from mabench.bench.runner import split_output
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench


def _uniform(n, d, seed=12345):
    return np.ascontiguousarray(zscore(np.random.default_rng(seed).random((n, d))))


def _census():
    ds = data.load("census", 0)
    return np.ascontiguousarray(zscore(ds.values, ds.columns))


def _cpu(fn, rounds):
    best = np.inf
    out = None
    for _ in range(rounds):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def _compare(benchmark, name, Z, k, rounds=1):
    algo = discovery.algorithm(name)
    params = algo.resolve({})
    base = discovery.algorithm("cbfs")
    bparams = base.resolve({"tail": "group"})
    small = np.ascontiguousarray(Z[: 4 * k])
    algo.run(small, k, params, np.random.default_rng(0))  # JIT outside the timing
    base.run(small, k, bparams, None)
    t_base, _ = _cpu(lambda: base.run(Z, k, bparams, None), 3)
    t_algo, out = _cpu(lambda: algo.run(Z, k, params, np.random.default_rng(0)), rounds)
    labels, info = split_output(out)
    partition.check(labels, len(Z), k, algo.max_group_size(k, params))
    benchmark.extra_info.update({"cpu_s": t_algo, "mdav_cpu_s": t_base, "ratio_to_mdav": t_algo / t_base, **info})
    print(f"\n{name} n={len(Z)} d={Z.shape[1]} k={k}: {t_algo:.3f} s CPU, thesis MDAV {t_base:.3f} s, "
          f"ratio {t_algo / t_base:.1f}x {info}")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)


@pytest.mark.benchmark(group="omma vs thesis MDAV")
@pytest.mark.parametrize("case", ["census-k3", "uniform-2400x16-k3", "uniform-2400x16-k12", "uniform-5400x16-k3"])
def test_omma_ratio(benchmark, case):
    Z, k = {"census-k3": (_census, 3), "uniform-2400x16-k3": (lambda: _uniform(2400, 16), 3),
            "uniform-2400x16-k12": (lambda: _uniform(2400, 16), 12),
            "uniform-5400x16-k3": (lambda: _uniform(5400, 16), 3)}[case]
    _compare(benchmark, "omma", Z(), k)


@pytest.mark.benchmark(group="iamat vs thesis MDAV")
@pytest.mark.parametrize("case", ["census-k3", "uniform-10000x10-k3", "uniform-10000x10-k10", "uniform-100000x10-k3"])
def test_iamat_ratio(benchmark, case):
    Z, k = {"census-k3": (_census, 3), "uniform-10000x10-k3": (lambda: _uniform(10_000, 10), 3),
            "uniform-10000x10-k10": (lambda: _uniform(10_000, 10), 10),
            "uniform-100000x10-k3": (lambda: _uniform(100_000, 10), 3)}[case]
    _compare(benchmark, "iamat", Z(), k, rounds=1 if len(Z()) > 50_000 else 3)
