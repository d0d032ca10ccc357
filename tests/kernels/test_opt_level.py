"""The Numba cache folder names LLVM's optimization level (``NUMBA_OPT``): Numba's cache index does not
record it, so a process at another level must not load the machine code compiled at this one."""

from __future__ import annotations

import os
import subprocess
import sys

import numba

from mabench.codehash import engine_sources_hash, numba_cache_dir
from support import ROOT


def test_the_cache_folder_names_the_optimization_level():
    here = numba_cache_dir()
    assert os.path.basename(here) == f"{engine_sources_hash()[:16]}-O{int(numba.config.OPT)}"
    level = "1" if int(numba.config.OPT) != 1 else "2"
    env = {**os.environ, "NUMBA_OPT": level}
    other = subprocess.run([sys.executable, "-c", "from mabench.codehash import numba_cache_dir; print(numba_cache_dir())"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert other.returncode == 0, other.stderr
    assert other.stdout.strip() == f"{here[:-len(str(int(numba.config.OPT)))]}{level}"
    assert other.stdout.strip() != here
