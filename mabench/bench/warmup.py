"""Compiling ahead: `mabench warmup`.

Numba compiles a kernel the first time it runs with a new type signature and keeps the machine
code in its on-disk cache (mabench/codehash.py), so only a fresh install's first call of a
method pays for it — tens of seconds for the MDAV family. ``mabench warmup`` (:func:`warm`) compiles
the kernels of the named methods on tiny data, every path their ``index=auto`` can pick, and the
named metrics' kernels, so that the first real call loads them from the cache. A call of the
Python API that does compile says so on stderr, once, when it has compiled for more than a few
seconds (mabench.bench.compiling); the CLI shows the phase in its progress display instead.
"""

from __future__ import annotations


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
        own, _ = split_aggregation(algo.resolve({}), algo.params)
        paths = [("", own, 0)]
        if "index" in algo.params:
            paths = [(f"[index={index}]", {**own, "index": index}, n)
                     for index, n in (("scan", 0), ("tree", 0), ("tree", PAIR_FROM))]
        for label, params, n in paths:
            _warm_up(algo, k, d, params, n)
            done.append(f"{algo.name}{label}")
    warm_metrics(list(metrics), 3 * k + 1, d, k, {})
    return list(dict.fromkeys(done))
