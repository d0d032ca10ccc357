"""Compiling ahead: `mabench warmup`.

Numba compiles a kernel the first time it runs with a new type signature and keeps the machine
code in its on-disk cache (mabench/codehash.py), so only a fresh install's first call of a
method pays for it — tens of seconds for the MDAV family. ``mabench warmup`` (:func:`warm`) compiles
the kernels of the named methods on tiny data through their ``warm_up`` (small and large sizes, each
choice of a neutral parameter such as ``index``), and the named metrics' kernels, so that the first real call loads them from the cache. A call of the
Python API that does compile says so on stderr, once, when it has compiled for more than a few
seconds (mabench.bench.compiling); the CLI shows the phase in its progress display instead.
"""

from __future__ import annotations


# The sizes every method is warmed for: a plugin's warm_up hook compiles what each would run (the
# tree kernels, for one: the pass kernel on small data, the k-d tree and its two-thread code on large).
SIZES = (0, 1_000_000)


def warm(algorithms: list[str], metrics=("il",), k: int = 3) -> list[str]:
    """Compile (or load) the kernels of each named method through its ``warm_up`` (mabench.plugin) at
    small and large sizes, for each choice of its neutral parameters (e.g. ``index``: how, never
    what, a run computes), and the kernels of the named metrics; returns what was warmed, as
    ``method`` or ``method[param=choice]`` strings."""
    from mabench import discovery
    from mabench.metrics import warm as warm_metrics
    from mabench.plugin import split_aggregation, tiny_rows

    d = 2
    done = []
    for name in algorithms:
        algo = discovery.algorithm(name)
        own, _ = split_aggregation(algo.resolve({}), algo.params)
        paths = [("", own)]
        for pname, p in algo.params.items():
            if p.neutral and p.choices:
                paths = [(f"{label}[{pname}={choice}]", {**params, pname: choice})
                         for label, params in paths for choice in p.choices]
        for label, params in paths:
            for n in SIZES:
                algo.warm(n, d, k, params)
            done.append(f"{algo.name}{label}")
    warm_metrics(list(metrics), tiny_rows(k, d), d, k, {})
    return list(dict.fromkeys(done))
