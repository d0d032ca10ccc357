"""The one line a first call prints while Numba compiles its kernels (mabench.bench.warmup says why)."""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

NOTICE_AFTER = 3.0  # seconds of compiling before the notice is printed


@contextmanager
def compile_notice(what: str, after: float = NOTICE_AFTER, stream=None):
    """Within it: if Numba compiles anything (a cache miss; loading from the cache is not compiling)
    and the block lasts ``after`` seconds, one line on stderr (``stream``) saying what is compiled."""
    import numba.core.event as ev

    stream = stream if stream is not None else sys.stderr
    compiling = threading.Event()
    done = threading.Event()

    class _Listener(ev.Listener):
        def on_start(self, event):
            compiling.set()

        def on_end(self, event):
            pass

    start = time.monotonic()

    def watch():
        while not done.wait(0.1):
            if compiling.is_set() and time.monotonic() - start >= after:
                stream.write(f"mabench: compiling {what} for their first use on this install (once: later calls "
                             "load them from the cache; `mabench warmup` compiles ahead)\n")
                stream.flush()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        with ev.install_listener("numba:compile", _Listener()):
            yield
    finally:
        done.set()
        watcher.join()
