"""What many test modules share: the checkout's root, running a plugin with its contract checked,
running the CLI in a fresh process, the CLI's error contract, and the tie-heavy data strategy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# A small valid data file: six records, two numeric columns.
GOOD_CSV = "a,b\n1,2\n3,5\n4,1\n7,8\n2,2\n9,4\n"


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder holding only good.csv (:data:`GOOD_CSV`), as the current directory (a CLI test imports
    it: ``from support import work``)."""
    (tmp_path / "good.csv").write_text(GOOD_CSV)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def tied_records(max_n: int, max_d: int, span: int = 3, min_n: int = 1):
    """Hypothesis strategy: (n, d) float64 records on the integer grid -span..span.

    Small grids make duplicate and equidistant records common, so a kernel must break every tie
    exactly like the plain-NumPy reference (lowest record index)."""
    return st.integers(1, max_d).flatmap(lambda d: st.integers(min_n, max_n).flatmap(
        lambda n: arrays(np.float64, (n, d), elements=st.integers(-span, span).map(float))))


def run_plugin(name: str, params: dict, Z, k: int, seed: int = 0) -> np.ndarray:
    """The labels of algorithm ``name`` on ``Z``, after checking them against its declared contract.
    The plugin runs as every run calls it (``plugin.call_run``: read-only views), so its kernels are
    the ones compiled for a run, which the Numba cache then shares with the rest of the suite."""
    from mabench import discovery, partition
    from mabench.plugin import call_run

    algo = discovery.algorithm(name)
    resolved = algo.resolve(params)
    labels = np.asarray(call_run(algo, np.ascontiguousarray(Z, dtype=np.float64), k, resolved,
                                 np.random.default_rng(seed)))
    partition.check(labels, len(Z), k, algo.max_group_size(k, resolved), who=name)
    return labels


def as_run(Z) -> np.ndarray:
    """``Z`` as a run hands it to a plugin (``plugin.call_run``): float64, C-contiguous, a read-only view.
    Numba compiles a kernel once more for a writable array; a test that calls kernels on this checks
    the kernels runs use and loads them from the cache when another test compiled them."""
    from mabench.plugin import read_only

    return read_only(np.ascontiguousarray(Z, dtype=np.float64))


def same_partition(a, b) -> bool:
    """Whether two labelings group the records alike (group numbers aside)."""
    from mabench import partition

    return partition.canonical_labels(np.asarray(a)).tolist() == partition.canonical_labels(np.asarray(b)).tolist()


def reference_tests(cases, ids, tied, *, examples: int, max_k: int, shape: tuple[int, int]):
    """The two checks of a module whose ``cases`` are (plugin name, parameters, reference(X, k)): the
    plugin's partition is the plain-NumPy reference's on tie-heavy records (``tied``, hypothesis,
    ``examples`` draws, k = 1..max_k) and on ``shape`` standard-normal records at k = 2, 3, 5.
    Returns the two test functions; the module names them ``test_...``."""
    from hypothesis import given, settings

    @pytest.mark.parametrize("name,params,ref", cases, ids=ids)
    @settings(max_examples=examples, deadline=None)
    @given(X=tied, k=st.integers(1, max_k))
    def on_tied_data(name, params, ref, X, k):
        if len(X) < k:
            return
        assert same_partition(run_plugin(name, params, X, k), ref(X, k))

    @pytest.mark.parametrize("name,params,ref", cases, ids=ids)
    def on_continuous_data(name, params, ref):
        X = np.random.default_rng(11).standard_normal(shape)
        for k in (2, 3, 5):
            assert same_partition(run_plugin(name, params, X, k), ref(X, k))

    return on_tied_data, on_continuous_data


def safety_net(slowest: float) -> float:
    """The timeout of a subprocess or a wait in a test: a net against a hang, never the verdict.

    ``slowest``: the slowest honest run of that call in seconds (measured ones are in
    docs/testing.md; elsewhere the fixed timeout the call had, which was set above its runs on an
    idle machine). The net is 10 times that and at least 10 minutes, times
    ``MABENCH_TEST_TIMEOUT_FACTOR`` (default 1) for a slower machine: at load 6-7 on 2 cores the
    runs took up to 3 times their idle time, so a loaded machine makes a test slow, never red."""
    factor = float(os.environ.get("MABENCH_TEST_TIMEOUT_FACTOR") or 1)
    return max(10 * slowest, 600.0) * max(factor, 1.0)


def run_cli(*args: str, cwd: Path | None = ROOT, env: dict | None = None, timeout: float | None = None
            ) -> subprocess.CompletedProcess:
    """``mabench ARGS`` in a fresh process (``python -m mabench.cli``); ``timeout``: a safety net
    (default: :func:`safety_net` of a minute)."""
    return subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})},
                          timeout=safety_net(60) if timeout is None else timeout)


class Proc:
    """What an in-process CLI call gave: exit status and the captured output."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def main_in_process(capsys, *args) -> Proc:
    """``mabench ARGS`` in this process (``cli.main``), its output captured by pytest's ``capsys``."""
    from mabench import cli

    capsys.readouterr()
    status = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return Proc(status, out.out, out.err)


def forget_plugins() -> None:
    """Make the next discovery read ``MABENCH_HOME`` afresh: drop the loaded user plugins, the cached
    registries and the code hashes of the files read (for in-process tests that change or write a
    plugin tree)."""
    from mabench import codehash, discovery

    codehash.clear_caches()
    for name in [m for m in sys.modules if m.startswith("mabench_user_plugins.")]:
        del sys.modules[name]
    discovery._algorithms.cache_clear()
    discovery._generators.cache_clear()


def assert_user_error(proc, *needles):
    """The CLI's error contract: exit status 2, one line on stderr, no traceback, no stdout."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mabench: error: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    for needle in needles:
        assert needle in lines[0], lines[0]


def run_then_evaluate(cli_main, method: str, path, columns: str, out_dir, metrics: str = "il,dld,id"
                      ) -> tuple[dict, dict]:
    """(run record, evaluate record) of `mabench run METHOD PATH --missing available --out p.csv` and
    `mabench evaluate PATH p.csv` on it, both at k=3 with ``columns`` and ``metrics``; p.csv in ``out_dir``.
    ``cli_main``: the test's fixture of that name (the CLI's main in this process)."""
    import json

    labels = str(Path(out_dir) / "p.csv")
    ran = cli_main("run", method, str(path), "-k", "3", "--columns", columns, "--missing", "available",
                   "--metrics", metrics, "--out", labels)
    assert ran.returncode == 0, ran.stderr
    scored = cli_main("evaluate", str(path), labels, "-k", "3", "--columns", columns, "--missing", "available",
                      "--metrics", metrics)
    assert scored.returncode == 0, scored.stderr
    return json.loads(ran.stdout.splitlines()[-1]), json.loads(scored.stdout)


def group_under(display, n: int = 20_000) -> None:
    """MDAV's kernel (which counts the records it groups, kernels/core/counter.py) on n × 4 normal
    records in a thread while ``display`` (a mabench.bench.progress.Progress) shows the phase
    `mdav k=3 on N records`; compiled before the phase starts; the display is closed at the end."""
    import threading

    from mabench import kernels as K

    Z = np.random.default_rng(1).standard_normal((n, 4))
    K.mdav_partition(Z[:500], 3, K.TAIL_3K, "scan")
    display.start(f"mdav k=3 on {n} records")
    worker = threading.Thread(target=K.mdav_partition, args=(Z, 3, K.TAIL_3K, "scan"))
    worker.start()
    worker.join()
    display.end()
    display.close()


# Source of ``signatures()`` for a script run in a fresh interpreter: {"module.function": number of
# compiled (or cache-loaded) signatures} of every Numba dispatcher of the loaded mabench modules
# (algorithm plugins included), so the script can tell whether a step compiled anything.
DISPATCHER_SIGNATURES = r"""
def signatures():
    from numba.core.registry import CPUDispatcher
    out = {}
    for mod_name, mod in list(sys.modules.items()):
        if not mod_name.startswith("mabench"):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, CPUDispatcher):
                out[f"{obj.__module__}.{obj.__name__}"] = len(obj.signatures)
    return out
"""
