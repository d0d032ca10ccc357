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
