"""One xdist worker compiles a cached Numba kernel at a time; the other waits and loads it from the cache.

On an empty Numba cache both workers of `make test` meet the same kernels (the methods' kernels through
``tests/plugins/test_check.py``, the published-values module, the method tests...), and without this each
compiled the kernel the other was compiling, for the same cache entry. Here a worker takes a file lock
named after the kernel before it compiles one; the other worker, wanting the same kernel, waits on the
lock and then finds it in Numba's cache (Numba looks there before compiling). The kernels and what they
return are untouched: only who compiles first is decided.

Only a compile started from Python takes the lock (the kernels it compiles inside, for its own calls,
do not): a worker never waits on a lock while it holds Numba's compiler lock, so two threads of one
worker, or two workers, cannot wait on each other. A wait longer than ``WAIT`` gives up and compiles,
as without the lock."""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from pathlib import Path

WAIT = 600.0  # seconds: far above one kernel's compile on a loaded machine; beyond it, compile anyway
_depth = threading.local()


def _locked(path: Path):
    """An open file holding the exclusive lock on ``path``, or None after ``WAIT`` seconds."""
    handle = open(path, "a")
    deadline = time.monotonic() + WAIT
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                return None
            time.sleep(0.05)


def serialize_compiles(folder: Path) -> None:
    """Make every cached Numba dispatcher of this process compile under a lock file in ``folder``,
    which all the workers share."""
    from numba.core import sigutils
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    folder.mkdir(parents=True, exist_ok=True)
    compile_unlocked = Dispatcher.compile

    def compile(self, sig):
        if (getattr(_depth, "n", 0) or isinstance(self._cache, NullCache)
                or tuple(sigutils.normalize_signature(sig)[0]) in self.overloads):
            return compile_unlocked(self, sig)
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        handle = _locked(folder / hashlib.sha256(name.encode()).hexdigest()[:20])
        _depth.n = 1
        try:
            return compile_unlocked(self, sig)
        finally:
            _depth.n = 0
            if handle is not None:
                handle.close()

    Dispatcher.compile = compile
