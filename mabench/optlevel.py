"""The LLVM optimization level Numba compiles mabench's kernels at: -O1 instead of Numba's -O3.

The default workflow's compile step takes about a fifth less CPU at -O1 and the kernels run as fast
(docs/scaling.md, "Optimization level"). Without fast-math, no level may reorder floating-point
operations, so every level gives the same numbers (tests/kernels/test_opt_level.py).

Numba reads ``NUMBA_OPT`` from the environment, so :func:`pin` sets it there, for this process and
the processes it starts (workflow jobs, strata workers). ``mabench/__init__.py`` calls it before
anything imports Numba; a level the user set is kept.
"""

from __future__ import annotations

import os

ENV = "NUMBA_OPT"
LEVEL = "1"


def pin(environ=None) -> str:
    """Set ``NUMBA_OPT`` to :data:`LEVEL` unless it is set; return the value in force."""
    environ = os.environ if environ is None else environ
    return environ.setdefault(ENV, LEVEL)


def current() -> str:
    """The level Numba compiles at now ("0"–"3" or "max"); Numba's configuration is read again
    first, since Numba may have been imported before :func:`pin` ran."""
    import numba

    numba.config.reload_config()
    return "max" if numba.config.OPT.is_opt_max else str(int(numba.config.OPT))
