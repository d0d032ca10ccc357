"""One hash of the code that computes results: the engine's sources, the plugin folders, numpy/numba.

It keys the cell cache (:mod:`mabench.bench.batch`) and Numba's on-disk cache (:mod:`mabench.kernels`).
Numba keys a cached function by the time stamp of its own file only: after an edit to a kernel in
another file, its callers would load machine code with the old kernel inlined. A cache directory
per fingerprint cannot be stale.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

import numba
import numpy as np


@cache
def source_fingerprint() -> str:
    h = hashlib.sha256(f"numpy {np.__version__} numba {numba.__version__}".encode())
    engine = Path(__file__).resolve().parent
    # the engine's own sources (in an installed package, the plugins' too: they are subpackages)
    files = sorted(p for p in engine.rglob("*.py") if p.parent.name not in ("algorithms", "generators"))
    from mabench import discovery  # imports nothing numeric

    files += discovery.plugin_files("algorithms") + discovery.plugin_files("datasets")
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def numba_cache_dir() -> str:
    """``$NUMBA_CACHE_DIR/<fingerprint>``, by default under ~/.cache/mabench/numba."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mabench", "numba")
    return os.path.join(base, source_fingerprint()[:16])
