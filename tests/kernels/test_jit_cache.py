"""Cached kernels load in a fresh process whatever compiled them first.

Replays the sequence that crashed a cold-cache workflow run: kernels compiled
and cached by one job (cbfs), a second method compiled on top of the cached
kernels (md), then that method loaded from the cache (md again).
"""

import os
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_cached_kernels_reload_in_new_processes(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "NUMBA_NUM_THREADS": "1"}
    for args in (["cbfs", "eia", "-k", "3"], ["md", "eia", "-k", "3"], ["md", "eia", "-k", "4"],
                 ["mdav1", "eia", "-k", "4"]):
        proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", *args], env=env,
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"{args}: exit {proc.returncode}: {proc.stderr[-300:]}"


_PROBE = '''
from numba import njit


@njit(cache=True)
def step(x):
    return x + {inc}
'''

_LOAD_PROBE = '''
import importlib.util, sys
import mabench.kernels  # installs mabench's cache locator
spec = importlib.util.spec_from_file_location("mabench.jit_cache_probe", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module  # as mabench.discovery loads a plugin file
spec.loader.exec_module(module)
print(module.step(40))
'''


def _probe(tmp_path, folder: str, inc: int, env: dict) -> tuple[str, str]:
    """Run a one-kernel module named ``mabench.*`` from ``folder``: (its output, Numba's cache log)."""
    path = tmp_path / folder / "probe.py"
    path.parent.mkdir()
    path.write_text(_PROBE.format(inc=inc))
    proc = subprocess.run([sys.executable, "-c", _LOAD_PROBE, str(path)], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip().splitlines()[-1], proc.stdout


def test_a_copy_of_mabench_elsewhere_loads_the_kernels_and_a_changed_copy_compiles_its_own(tmp_path):
    """mabench.kernels.core.jit_cache: kernels are filed by module name, not by install folder (a
    wheel in another venv, a second clone), and Numba's content check still tells copies apart."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"), "NUMBA_DEBUG_CACHE": "1"}
    value, log = _probe(tmp_path, "checkout", 1, env)
    assert value == "41" and "data saved" in log
    value, log = _probe(tmp_path, "installed", 1, env)  # the same file in another folder: loaded
    assert value == "41" and "data loaded" in log and "data saved" not in log
    value, log = _probe(tmp_path, "edited", 2, env)  # same name and lines, other content: compiled
    assert value == "42" and "data saved" in log and "data loaded" not in log
