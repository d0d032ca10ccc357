"""Compiling ahead, and saying so when a first call compiles.

Numba compiles a kernel the first time it runs with a new type signature and keeps the machine
code in its on-disk cache (mabench/fingerprint.py), so only a fresh install's first call of a
method pays for it — tens of seconds for the MDAV family. ``mabench warmup`` (:func:`warm`) compiles
the kernels of the named methods on tiny data, every path their ``index=auto`` can pick, and the
named metrics' kernels, so that the first real call loads them from the cache. A call of the
Python API that does compile says so on stderr, once, when it has compiled for more than a few
seconds (:func:`compile_notice`); the CLI shows the phase in its progress display instead.
"""

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
                stream.write(f"mabench: compiling {what} for their first use on this install (a minute or less; "
                             "cached for later calls; `mabench warmup` compiles ahead)\n")
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


def warm(algorithms: list[str], metrics=("il",), k: int = 3) -> list[str]:
    """Compile (or load) the kernels of each named method for every kernel path it can take (its
    ``index`` choices, one and two threads for the tree paths) and of the named metrics; returns
    what was warmed, as ``method[index=...]`` strings."""
    from mabench import discovery
    from mabench.bench.runner import _warm_up
    from mabench.kernels.spatial.treegroups import PAIR_FROM
    from mabench.metrics import warm as warm_metrics
    from mabench.plugin import split_aggregation

    d = 2
    done = []
    for name in algorithms:
        algo = discovery.algorithm(name)
        own, _ = split_aggregation(algo.resolve({}))
        paths = [("", own, 0)]
        if "index" in algo.params:
            paths = [(f"[index={index}]", {**own, "index": index}, n)
                     for index, n in (("scan", 0), ("tree", 0), ("tree", PAIR_FROM))]
        for label, params, n in paths:
            _warm_up(algo, k, d, params, n)
            done.append(f"{algo.name}{label}")
    warm_metrics(list(metrics), 3 * k + 1, d, k, {})
    return list(dict.fromkeys(done))
