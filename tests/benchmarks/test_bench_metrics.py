"""Speed and memory of the metrics (run with
`.venv/bin/python -m pytest -m bench --benchmark-enable tests/benchmarks/test_bench_metrics.py`).

Targets (2-core machine, after JIT): every metric on EIA (4092 × 11, thesis
"MDAV" partition k = 3) in <= 1 s in total; ``dld`` on 100,000 × 10 in <= 30 s
with memory linear in n. No timed assertions: the numbers are reported by
pytest-benchmark (and the memory figures in ``extra_info``).

EIA has no key variables in the catalog (the thesis scores none); the RLD
here uses the 7 columns with the fewest repeated values, like Census's 7 keys.
The 100k partition is "sort along a direction, cut into triples": the linkage
kernels do the same g·n·d work for any partition with g = n/3 groups.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mabench import data, discovery
from mabench.metrics import EvalContext, evaluate
from mabench.data.standardize import zscore

pytestmark = pytest.mark.bench

ALL = ["il", "m1", "m2", "m3", "m4", "m5", "g_il", "dld", "rld", "id", "g_dr", "si", "sdid", "il1s"]
EIA_OPTIONS = {"key_variables_rule": "fewest_repeats", "n_key_variables": 7}
THESIS_MDAV = {"tail": "group", "centroid": "remaining"}


@pytest.fixture(scope="module")
def eia():
    ds = data.load("eia")
    z = zscore(ds.values, ds.columns)
    labels = np.asarray(discovery.algorithm("cbfs").run(z, 3, THESIS_MDAV, None), dtype=np.int64)
    evaluate(EvalContext(ds.values, z, labels, ds.columns, "eia", dict(EIA_OPTIONS)), ALL)  # JIT
    return ds, z, labels


def _ctx(eia, **extra):
    ds, z, labels = eia
    return EvalContext(ds.values, z, labels, ds.columns, "eia", {**EIA_OPTIONS, **extra})


@pytest.mark.benchmark(group="metrics on EIA 4092 x 11, k=3 (thesis MDAV)")
def test_eia_all_metrics(benchmark, eia):
    out = benchmark.pedantic(lambda ctx: evaluate(ctx, ALL), setup=lambda: ((_ctx(eia),), {}), rounds=5)
    assert set(out) == set(ALL)


@pytest.mark.benchmark(group="metrics on EIA 4092 x 11, k=3 (thesis MDAV): one at a time")
@pytest.mark.parametrize("name", ["m1", "g_il", "dld", "rld", "id", "sdid", "il1s"])
def test_eia_each_metric(benchmark, eia, name):
    benchmark.pedantic(lambda ctx: evaluate(ctx, [name]), setup=lambda: ((_ctx(eia),), {}), rounds=5)


@pytest.mark.benchmark(group="rld on Census 1080 x 13, 7 key variables, k=3")
@pytest.mark.parametrize("mode", ["literal", "rerun"])
def test_census_rld(benchmark, mode):
    ds = data.load("census")
    z = zscore(ds.values, ds.columns)
    algo = discovery.algorithm("cbfs")
    labels = np.asarray(algo.run(z, 3, THESIS_MDAV, None), dtype=np.int64)
    rerun = lambda zz: np.asarray(algo.run(np.ascontiguousarray(zz), 3, THESIS_MDAV, None))  # noqa: E731
    opts = {**data.metric_defaults("census"), "rld_mode": mode}
    make = lambda: ((EvalContext(ds.values, z, labels, ds.columns, "census", opts, rerun),), {})  # noqa: E731
    evaluate(make()[0][0], ["rld"])
    benchmark.pedantic(lambda ctx: evaluate(ctx, ["rld"]), setup=make, rounds=3)


DLD_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np
    from mabench.metrics import EvalContext, evaluate
    from mabench.data.standardize import zscore

    def hwm_mb():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024

    n, d, k = int(sys.argv[1]), int(sys.argv[2]), 3
    x = np.random.default_rng(12345).standard_normal((n, d))
    z = zscore(x)
    order = np.argsort(z @ np.linspace(1.0, 0.1, d), kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, n // k - 1)
    small = slice(0, 3000)
    evaluate(EvalContext(x[small], zscore(x[small]), np.arange(3000) // 3, [], "jit"), ["dld"])  # JIT
    ctx = EvalContext(x, z, labels, [f"v{j}" for j in range(d)], "bench")
    ctx.masked_z  # the context's own cached arrays are not the metric's memory
    before = hwm_mb()
    t = time.perf_counter()
    value = evaluate(ctx, ["dld"])["dld"]
    seconds = time.perf_counter() - t
    print(json.dumps({"dld": value, "seconds": seconds, "hwm_before_mb": before, "hwm_after_mb": hwm_mb()}))
    """
)


@pytest.mark.benchmark(group="dld 100,000 x 10, k=3")
def test_dld_100k_x_10(benchmark):
    """Runs in a fresh process so that its peak resident memory (VmHWM) is the metric's own."""

    def run():
        proc = subprocess.run([sys.executable, "-c", DLD_SCRIPT, "100000", "10"], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    out = benchmark.pedantic(run, rounds=1, iterations=1)
    benchmark.extra_info.update(out)
    benchmark.extra_info["extra_peak_mb"] = out["hwm_after_mb"] - out["hwm_before_mb"]
    # memory linear in n: an n×n float64 matrix would be 80 GB; the kernel needs O(n·d + g)
    assert out["hwm_after_mb"] - out["hwm_before_mb"] < 200
