"""One BLAS kernel on every x86-64 machine, so that results which follow LAPACK's rounding do not
depend on the processor.

OpenBLAS (inside numpy's and scipy's wheels) chooses its kernels for the processor it finds, and
kernels for different instruction sets round differently. Most methods never call BLAS; the
eigenvectors of pca and the clusterings do. The robust covariance of rmd, mcdpca and clustmcdpca used
to (scikit-learn's ``MinCovDet``: its concentration steps turned a last-bit difference into another
h-subset and so another partition; docs/regression.md gives the cells that moved between two
machines) and is now mabench's own BLAS-free kernel (mabench/kernels/methods/mcd.py).

OpenBLAS reads ``OPENBLAS_CORETYPE`` once, when it is loaded, so :func:`pin` has to run before numpy
is imported. ``mabench/__init__.py`` calls it: that covers the ``mabench`` command, every workflow
job, and a program that imports mabench before numpy. A value the user set is kept.
"""

from __future__ import annotations

import os
import platform
import sys

ENV = "OPENBLAS_CORETYPE"
CORETYPE = "Haswell"  # AVX2 and FMA (Intel since 2013, AMD since 2015)
NEEDS = ("avx2", "fma")


def cpu_flags() -> set[str]:
    """The processor's feature flags from /proc/cpuinfo (empty where there is none)."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def pin(environ=None, machine: str | None = None, flags: set[str] | None = None) -> str | None:
    """Set ``OPENBLAS_CORETYPE`` to :data:`CORETYPE` unless it is already set, numpy is already loaded
    (its OpenBLAS has chosen; scipy's would then choose differently) or the processor is not an
    x86-64 with AVX2 and FMA. Returns the value in effect, or None when OpenBLAS chooses.

    >>> pin(environ={"OPENBLAS_CORETYPE": "Zen"})
    'Zen'
    >>> pin(environ={}, machine="aarch64", flags=set()) is None
    True
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV):
        return environ[ENV]
    if "numpy" in sys.modules:
        return None
    machine = platform.machine() if machine is None else machine
    flags = cpu_flags() if flags is None else flags
    if machine.lower() not in ("x86_64", "amd64") or not set(NEEDS) <= flags:
        return None
    environ[ENV] = CORETYPE
    return CORETYPE


def in_use() -> str:
    """The BLAS libraries loaded in this process and their kernels, for provenance (e.g.
    ``openblas 0.3.30 Haswell``), from threadpoolctl when it is installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return f"{ENV}={os.environ.get(ENV, 'unset')}"
    found = [f"{lib.get('internal_api')} {lib.get('version')} {lib.get('architecture', '')}".strip()
             for lib in threadpool_info() if lib.get("user_api") == "blas"]
    return "; ".join(dict.fromkeys(found)) or f"{ENV}={os.environ.get(ENV, 'unset')}"
