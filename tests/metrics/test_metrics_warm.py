"""mabench.metrics.warm compiles every Numba kernel a metric will run, so a cell's metric time never
includes compiling (nor loading a compiled kernel from Numba's cache).

Each case runs in a fresh interpreter: in this test process another test may already have compiled
the kernels, which would make the check pass whatever ``warm`` does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support import DISPATCHER_SIGNATURES, safety_net

SCRIPT = r"""
import json, sys
import numpy as np
from mabench import metrics
from mabench.kernels import mdav_labels, TAIL_3K
from mabench.metrics import EvalContext, evaluate

n, d, k, names, options = json.loads(sys.argv[1])
""" + DISPATCHER_SIGNATURES + r"""
rng = np.random.default_rng(1)
x = np.ascontiguousarray(rng.standard_normal((n, d)) * 3.0 + 10.0)
z = np.ascontiguousarray((x - x.mean(0)) / x.std(0, ddof=1))
labels = mdav_labels(z, k, TAIL_3K)  # compiled here, before the snapshot: only the metrics are watched
columns = [f"v{j}" for j in range(d)]
metrics.warm(names, n, d, k, options)
before = signatures()
ctx = EvalContext(x, z, labels, columns, "warm-test", options)
values = evaluate(ctx, names)
after = signatures()
print(json.dumps({"new": sorted(f for f, c in after.items() if c > before.get(f, 0)), "values": values,
                  "warmed": sorted(f for f, c in before.items() if c)}))
"""


def _run(n, d, k, names, options=None, env=None):
    out = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([n, d, k, names, options or {}])],
                         capture_output=True, text=True, timeout=safety_net(600), env={**os.environ, **(env or {})})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("n, d, k, names, options", [
    (300, 5, 3, ["il", "il_raw", "g_il", "dld", "id"], {}),
    (300, 5, 3, ["rld", "g_dr", "si"], {"key_variables": "all"}),
    (6000, 3, 3, ["dld"], {}),  # the k-d tree search (d <= 4, n >= 5,000)
    (3000, 12, 3, ["dld"], {"linkage_search": "scan"}),  # g·n·d >= PARALLEL_MIN_WORK: the parallel pass
])
def test_no_metric_kernel_is_compiled_inside_a_cell(n, d, k, names, options):
    result = _run(n, d, k, names, options)
    assert set(result["values"]) == set(names)
    assert result["new"] == []


def test_one_thread_warms_and_runs_the_serial_drivers_only():
    """The workflow's runs have one Numba thread: warm compiles no parallel driver, and none is
    compiled inside the cell either (both would take the serial one)."""
    result = _run(3000, 12, 3, ["dld", "rld"], {"linkage_search": "scan", "key_variables": "all"},
                  env={"NUMBA_NUM_THREADS": "1"})
    assert set(result["values"]) == {"dld", "rld"}
    assert result["new"] == []
    assert "mabench.metrics.linkage._subsets_serial" in result["warmed"]
    assert not [f for f in result["warmed"] if f.endswith("_parallel")], result["warmed"]

