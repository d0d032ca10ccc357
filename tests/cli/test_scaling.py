"""Every method declares how it scales; a run whose memory need exceeds the machine is refused up front."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from support import ROOT, assert_user_error, run_cli
from mabench import discovery, memory
from mabench.bench import runner
from mabench.errors import UserError

QUADRATIC_MEMORY = {"icsm", "omma"}  # the methods whose memory grows faster than the data


def test_every_algorithm_declares_time_and_memory_in_its_record_and_docstring():
    algos = discovery.algorithms()
    assert len(algos) >= 27
    for name, algo in algos.items():
        assert "O(" in algo.time and algo.memory.startswith("O("), name
        assert algo.memory_bytes is not None, name
        doc = ast.get_docstring(ast.parse(discovery.algorithm_path(name).read_text(encoding="utf-8")))
        assert f"Scaling: time {algo.time}; memory {algo.memory}." in " ".join(doc.split()), name


@pytest.mark.parametrize("name", sorted(discovery.algorithms()))
def test_memory_estimates_grow_as_declared(name):
    algo = discovery.algorithm(name)
    small = algo.memory_bytes(10_000, 10, 3, algo.resolve({}))
    big = algo.memory_bytes(100_000, 10, 3, algo.resolve({}))
    assert small >= 8 * 10_000 * 10  # at least the data
    growth = big / small
    if name in QUADRATIC_MEMORY:
        assert growth > 50, (name, growth)  # ~100 for 10x the records
    else:
        assert 9 < growth < 11, (name, growth)  # linear


def test_omma_estimate_covers_its_pair_list():
    # 4 bytes per pair, nearly all n(n-1)/2 pairs qualify on real data (algorithms/omma.py)
    assert discovery.algorithm("omma").memory_bytes(63_000, 13, 3, {}) > 4 * 63_000 * 62_999 // 2


def test_list_long_prints_the_scaling_of_every_method():
    proc = run_cli("list", "algorithms", "--long")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    names = sorted(discovery.algorithms())
    for name in names:
        i = next(j for j, line in enumerate(lines) if line.startswith(name + "\t"))
        assert lines[i + 1].startswith("  time: ") and "O(" in lines[i + 1], name
        assert lines[i + 2].startswith("  memory: O("), name
    plain = run_cli("list", "algorithms").stdout
    assert "time:" not in plain


def test_a_run_over_the_memory_limit_is_refused_with_one_line():
    proc = run_cli("run", "icsm", "census", "-k", "3", env={"MABENCH_MEMORY_LIMIT": "2M"})
    assert_user_error(proc, "icsm", "n=1080", "2.1 MB", "memory")
    ok = run_cli("run", "mdav", "census", "-k", "3", env={"MABENCH_MEMORY_LIMIT": "2M"})
    assert ok.returncode == 0, ok.stderr  # a linear method of the same size fits


def test_the_limit_comes_from_physical_memory_minus_a_margin(monkeypatch):
    monkeypatch.delenv(memory.ENV, raising=False)
    monkeypatch.setattr(memory, "physical_bytes", lambda: 8 << 30)
    assert memory.limit_bytes() == (8 << 30) - int(0.15 * (8 << 30))
    monkeypatch.setattr(memory, "physical_bytes", lambda: 2 << 30)
    assert memory.limit_bytes() == 1 << 30  # at least 1 GiB of margin
    omma = discovery.algorithm("omma")
    with pytest.raises(UserError) as err:
        memory.check(omma, 40_000, 10, 3, omma.resolve({}))
    text = str(err.value)
    assert "\n" not in text and re.search(r"omma on n=40000 .* limit of 1\.1 GB", text), text
    assert memory.check(discovery.algorithm("mdav"), 40_000, 10, 3, {}) < 1 << 30


def test_refusal_happens_before_the_algorithm_runs(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(memory, "limit_bytes", lambda: 1000)
    monkeypatch.setattr(runner, "call_run", lambda *a, **kw: calls.append(1))
    path = tmp_path / "x.csv"
    np.savetxt(path, np.random.default_rng(0).normal(size=(30, 2)), delimiter=",", header="a,b", comments="")
    with pytest.raises(UserError, match="mdav on n=30 records"):
        list(runner.run_cells("mdav", str(path), [3]))
    assert calls == []


def test_bad_limit_is_a_user_error():
    proc = run_cli("run", "mdav", "census", "-k", "3", env={"MABENCH_MEMORY_LIMIT": "lots"})
    assert_user_error(proc, "MABENCH_MEMORY_LIMIT='lots'")


def test_the_peak_memory_a_run_reports_is_its_own_not_its_parents():
    """A process started from a large one: getrusage's ru_maxrss there starts at the parent's size
    (331 MB beside this 320 MB array, measured), the run record's peak (VmHWM) at its own."""
    ballast = np.ones(40_000_000)  # 320 MB, written, so resident
    code = "from mabench.bench.runner import peak_rss_mb; print(peak_rss_mb())"
    own = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                               check=True).stdout)
    assert 20 < own < ballast.nbytes / 2**20 - 20, own


# What a run adds to the process: the subprocess's own peak resident memory (the run record's) after
# a 100,000-record run minus its peak after a 1,000-record run of the same method. Compiling would
# set the peak, so a first subprocess compiles what both runs use and the measured one must compile
# nothing (it counts what it compiles). The estimate the refusal trusts must not be below the growth.
_GROWTH = """
import json, sys
from numba.core import event
from mabench.bench import runner

class Compiled(event.Listener):
    count = 0
    def on_start(self, e):
        pass
    def on_end(self, e):
        Compiled.count += 1

event.register("numba:compile", Compiled())
name, small, big, params = sys.argv[1:]
peak = lambda: runner.peak_rss_mb() * 1024 * 1024
runner.run_cell(name, small, 3, 0, json.loads(params))
before = peak()
runner.run_cell(name, big, 3, 0, json.loads(params))
print(json.dumps({"grew": peak() - before, "compiled": Compiled.count}))
"""


@pytest.fixture(scope="module")
def sizes(tmp_path_factory):
    """(1,000-record file, 100,000-record file)."""
    folder = tmp_path_factory.mktemp("growth")
    frame = pd.DataFrame(np.random.default_rng(1).standard_normal((100_000, 10)),
                         columns=[f"x{j}" for j in range(10)])
    frame.head(1000).to_parquet(folder / "small.parquet")
    frame.to_parquet(folder / "big.parquet")
    return str(folder / "small.parquet"), str(folder / "big.parquet")


@pytest.mark.slow
@pytest.mark.parametrize("name, params", [("mdav", {"index": "tree"}), ("iamat", {}), ("onedims", {})])
def test_the_memory_estimate_covers_what_a_run_adds(name, params, sizes):
    """mdav and iamat on the k-d tree (tree_bytes; mdav's own choice at this size); onedims sorts
    copies of every column."""
    small, big = sizes
    for _ in range(2):  # the first compiles what the larger run uses (e.g. MDAV's two-thread steps)
        proc = subprocess.run([sys.executable, "-c", _GROWTH, name, small, big, json.dumps(params)],
                              capture_output=True, text=True, cwd=ROOT, check=True)
    measured = json.loads(proc.stdout.splitlines()[-1])
    assert measured["compiled"] == 0, f"the measured run compiled {measured['compiled']} functions"
    grew = measured["grew"]
    estimate = discovery.algorithm(name).memory_bytes(100_000, 10, 3, {})
    assert grew > 40e6, "the 100,000-record run should add at least its data"
    assert grew <= estimate, f"{name} added {grew / 1e6:.1f} MB, its estimate is {estimate / 1e6:.1f} MB"
