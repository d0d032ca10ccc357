"""The plugin contract's hooks (issue 38 item 6): ``warm_up(n, d, k, params)`` is the plugin's, called
with the cell's shape before the clock starts; ``raw_input`` and the ``neutral`` / ``hidden_default``
parameter declarations replace the runner's special cases, so the engine's bench layer names no method
and none of their parameters."""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import numpy as np
import pytest

from support import ROOT
from mabench import discovery
from mabench.plugin import Algorithm, Param, raw_scale, scale_param

HOOKED = '''"""A user plugin with a warm_up hook that logs the shapes it is called with."""
import json
import os

import numpy as np

from mabench.plugin import Algorithm, Param, tiny_run


def run(Z, k, params, rng):
    order = np.lexsort(Z.T[::-1])
    labels = np.empty(Z.shape[0], dtype=np.int64)
    labels[order] = np.minimum(np.arange(Z.shape[0]) // k, Z.shape[0] // k - 1)
    return labels


def warm_up(n, d, k, params):
    with open(os.environ["HOOK_LOG"], "a") as fh:
        fh.write(json.dumps([n, d, k, params]) + "\\n")
    tiny_run(ALGORITHM, d, k, params)


ALGORITHM = Algorithm(
    name="hooked", title="sorted runs of k with a warm-up hook", citation="tests/plugins/test_warm_up_hook.py",
    time="O(n log n)", memory="O(n·d)", run=run, warm_up=warm_up,
    params={"how": Param("fast", "how, never what", ("fast", "slow"), neutral=True)},
)
'''


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A MABENCH_HOME holding the hooked plugin (HOOK_LOG: the hook's log); the CLI runs in it through
    ``cli_main_home``."""
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    (home / "algorithms" / "hooked.py").write_text(HOOKED)
    monkeypatch.setenv("HOOK_LOG", str(tmp_path / "hook.log"))
    return home


def _calls() -> list:
    path = Path(os.environ["HOOK_LOG"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_the_runner_calls_the_plugins_hook_with_the_cells_shape(home, cli_main_home):
    proc = cli_main_home("run", "hooked", "tarragona", "-k", "5,3", home=home)
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["k"] for r in records] == [5, 3]
    assert records[0]["params"] == ""  # a neutral parameter stays out of the record
    n, d = records[0]["n"], records[0]["d"]
    # once per batch at the smallest and at the largest k, before any cell
    assert _calls() == [[n, d, 3, {"how": "fast"}], [n, d, 5, {"how": "fast"}]]


def test_mabench_check_passes_a_plugin_with_a_hook_and_calls_it(home, cli_main_home):
    proc = cli_main_home("check", str(home / "algorithms" / "hooked.py"), "-k", "3", home=home)
    assert proc.returncode == 0, proc.stderr
    shapes = {(n, d) for n, d, k, _ in _calls()}
    assert {(23, 3), (24, 3), (23, 1)} <= shapes  # the check's data (tiny, tie-heavy, one column)


def test_mabench_check_reports_a_failing_hook_in_one_line(home, cli_main_home):
    path = home / "algorithms" / "hooked.py"
    path.write_text(HOOKED.replace("    tiny_run(ALGORITHM, d, k, params)", "    raise RuntimeError('no kernel')"))
    proc = cli_main_home("check", str(path), "-k", "3", home=home)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "warm-up" in lines[0] and "no kernel" in lines[0], proc.stderr


def test_the_warm_up_gets_defaults_for_data_sized_parameters():
    seen = []
    algo = Algorithm(name="x", title="x", citation="x", run=lambda Z, k, p, rng: np.zeros(len(Z), np.int64),
                     warm_up=lambda n, d, k, params: seen.append((n, d, k, params)),
                     params={"start": Param("", "a partition file of n labels", sized=True)})
    algo.warm(1000, 4, 3, {"start": "labels.csv"})
    assert seen == [(1000, 4, 3, {"start": ""})]


def test_declared_parameters_decide_what_the_record_shows_and_what_the_plugin_decides_on():
    algo = Algorithm(name="x", title="x", citation="x", run=lambda Z, k, p, rng: None, raw_input=raw_scale,
                     params={"how": Param("a", "", ("a", "b"), neutral=True), "scale": scale_param("z or raw"),
                             "tail": Param("3k", "", ("3k", "2k"))})
    for how in ("a", "b"):
        assert algo.record_params(algo.resolve({"how": how})) == "tail=3k"
    assert algo.record_params(algo.resolve({"scale": "raw"})) == "scale=raw,tail=3k"
    assert algo.record_params(algo.resolve({"measure": "median"})) == "measure=median,tail=3k"
    assert algo.decides_on_raw(algo.resolve({"scale": "raw"})) and not algo.decides_on_raw(algo.resolve({}))
    assert not discovery.algorithm("cbfs").decides_on_raw({})


def test_the_bench_layer_names_no_method_and_no_method_parameter():
    """What a method needs before or while it runs is its declaration's: no built-in's name, no
    ``index``/``scale`` and no kernel module in mabench/bench (the runner asks the plugin)."""
    names = set(discovery.algorithms()) | {"index", "scale"}
    found = []
    for path in sorted((ROOT / "mabench" / "bench").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.name}:{node.lineno} {node.value!r}")
            elif isinstance(node, ast.ImportFrom) and "kernels.spatial" in (node.module or ""):
                found.append(f"{path.name}:{node.lineno} imports {node.module}")
    assert found == []
