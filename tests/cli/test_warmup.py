"""`mabench warmup` and the notice a first call prints while it compiles (mabench.bench.warmup)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from support import ROOT, assert_user_error, run_cli, safety_net


def test_the_notice_is_one_line_when_numba_compiles_past_the_threshold():
    from mabench.bench.compiling import compile_notice

    @njit(cache=False)
    def fresh(x):  # a new function: compiled, never loaded from a cache
        return x.sum() * 2.0

    out = io.StringIO()
    with compile_notice("the test's kernels", after=0.0, stream=out):
        fresh(np.ones(3))
        import time
        time.sleep(0.3)  # the watcher looks every 0.1 s
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mabench: compiling the test's kernels") and "mabench warmup" in lines[0]


def test_no_notice_without_compiling_or_before_the_threshold():
    from mabench.bench.compiling import compile_notice

    @njit(cache=False)
    def fresh(x):
        return x.sum() + 1.0

    fresh(np.ones(3))  # compiled here, outside the block
    out = io.StringIO()
    with compile_notice("x", after=0.0, stream=out):
        fresh(np.ones(4))
        import time
        time.sleep(0.3)
    assert out.getvalue() == ""

    @njit(cache=False)
    def other(x):
        return x.sum() - 1.0

    with compile_notice("x", after=3600.0, stream=out):  # compiles, but not for long enough
        other(np.ones(3))
    assert out.getvalue() == ""


def test_warmup_compiles_every_index_path_of_a_method_and_prints_one_json_line():
    proc = run_cli("warmup", "mdav", "cbfs", "--metrics", "il")
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout)
    assert line["warmed"] == [f"{name}[index={index}]" for name in ("mdav", "cbfs") for index in ("auto", "tree", "scan")]
    assert proc.stderr == ""


def test_warmup_of_an_unknown_method_is_an_input_error():
    assert_user_error(run_cli("warmup", "nosuchmethod"), "nosuchmethod")


README_CALL = """
import numba.core.event as ev
import pandas as pd, mabench
compiled = []
class Count(ev.Listener):
    def on_start(self, event):
        compiled.append(event.data["dispatcher"].py_func.__qualname__)
    def on_end(self, event):
        pass
ev.register("numba:compile", Count())
df = pd.DataFrame({"id": ["a", "b", "c", "d", "e", "f"], "region": ["N", "N", "N", "S", "S", "S"],
                   "age": [23, 25, 24, 61, 65, 60], "income": [1.0e4, 1.2e4, 1.1e4, 5.0e4, 5.5e4, 4.5e4]})
mabench.microaggregate(df, k=3, method="mdav").metrics(["il"])
print(sorted(set(compiled)))
"""


def test_after_warmup_the_readme_example_compiles_nothing():
    # What `make env` runs at install: the README's first example then loads every kernel from
    # Numba's cache (an event is a cache miss; loading from the cache sends none).
    assert run_cli("warmup", "mdav", timeout=safety_net(600)).returncode == 0
    proc = subprocess.run([sys.executable, "-c", README_CALL], capture_output=True, text=True, cwd=ROOT,
                          timeout=safety_net(120))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ["emad", "hm", "kw"])
def test_warmup_takes_a_method_whose_defaults_refuse_two_columns(name):
    # emad's c=3 selects three variables, hm and kw (projection=none) take one column: the warm-up's
    # data adapt instead of the warm-up refusing the method
    from mabench.bench.warmup import warm

    warmed = warm([name])
    assert warmed and all(w == name or w.startswith(f"{name}[") for w in warmed)
