"""Benchmark cells: (algorithm, data set, k, seed) -> validated partition + metrics.

One call to :func:`run_cells` loads and standardizes the data once, compiles
the algorithm's kernels once and then runs every requested k, so a batch of
cells costs one process start-up. Loading, standardizing and JIT compilation
happen before the clock starts; ``seconds`` is the algorithm's own time. The
partition is validated against the algorithm's declared bounds before any
metric is computed.

An algorithm that declares a ``scale`` parameter (``standardized`` | ``raw``) gets
the original values instead of the z-scores when run with ``scale=raw``.
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from mabench import data, discovery, partition
from mabench.bench import threads
from mabench.plugin import format_params, split_output
from mabench.errors import UserError
from mabench.metrics import EvalContext, applicable, evaluate
from mabench.data.seeds import check_seed, rng_for
from mabench.data.standardize import zscore


@dataclass
class CellResult:
    record: dict
    labels: np.ndarray


def shown_params(resolved: dict) -> str:
    """The record's canonical parameter string: the generic ``scale`` parameter appears only when
    it is ``raw`` (standardized is every method's default), so existing result keys stay stable."""
    return format_params({k: v for k, v in resolved.items() if not (k == "scale" and v == "standardized")})


def algorithm_input(algo, resolved: dict, values: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The data an algorithm decides on: z-scores, or the original values if it declares
    a ``scale`` parameter and was given ``scale=raw`` (docs/metrics.md#il_raw)."""
    if "scale" in algo.params and resolved.get("scale") == "raw":
        return np.ascontiguousarray(values, dtype=np.float64)
    return z


def call_run(algo, z, k: int, params: dict, rng, raw=None):
    """``algo.run`` with the raw values passed to the plugins that ask for them (``uses_raw``)."""
    if algo.uses_raw:
        return algo.run(z, k, params, rng, raw=raw)
    return algo.run(z, k, params, rng)


def _warm_up(algo, k: int, d: int, params: dict) -> None:
    """Compile the algorithm's kernels on a tiny problem of the same types."""
    tiny = np.ascontiguousarray(np.random.default_rng(0).standard_normal((3 * k + 1, d)))
    call_run(algo, tiny, k, params, np.random.default_rng(0), raw=tiny)


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (MB): a batch's cells report the running maximum."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def parse_ks(text: str) -> list[int]:
    """``"3,4,5,10"`` -> [3, 4, 5, 10]; every k a positive integer, none twice."""
    ks = []
    for item in str(text).split(","):
        item = item.strip()
        if not item.lstrip("+-").isdigit() or not item.isascii():  # int() would read "3_0" as 30
            raise UserError(f"-k {text!r}: {item!r} is not an integer; give e.g. -k 3 or -k 3,4,5,10")
        k = int(item)
        partition.check_k(k)
        if k in ks:
            raise UserError(f"-k {text!r} names k={k} twice")
        ks.append(k)
    return ks


def run_cells(algorithm: str, dataset: str, ks: Iterable[int], seed: int = 0, params: dict | None = None,
              metrics=("il",), metric_options: dict | None = None) -> Iterator[CellResult]:
    """Every k of one (algorithm, data set draw) in one process; cells are yielded as they finish."""
    algo = discovery.algorithm(algorithm)
    resolved = algo.resolve(params or {})
    ks = [partition.check_k(k) for k in ks]
    if not ks:
        raise UserError("no k given; give e.g. -k 3 or -k 3,4,5,10")
    seed = check_seed(seed)
    ds = data.load(dataset, seed)
    n, d = ds.values.shape
    too_big = [k for k in ks if k > n]
    if too_big:
        raise UserError(f"data set {ds.spec} has n={n} records, fewer than k={too_big[0]}; choose k <= {n}")
    z = zscore(ds.values, ds.columns)
    options = {**data.metric_defaults(ds.name, ds.columns), **(metric_options or {})}
    x_in = algorithm_input(algo, resolved, ds.values, z)
    _warm_up(algo, min(ks), d, resolved)
    for k in ks:
        yield _cell(algo, resolved, ds, z, k, seed, metrics, options, x_in)


def _cell(algo, resolved, ds, z, k, seed, metrics, options, x_in=None) -> CellResult:
    n, d = z.shape
    x_in = z if x_in is None else x_in
    rng = rng_for(seed, f"algorithm:{algo.name}")
    n_threads = threads.adapt()
    start = time.perf_counter()
    out = call_run(algo, x_in, k, resolved, rng, raw=np.ascontiguousarray(ds.values, dtype=np.float64))
    seconds = time.perf_counter() - start
    labels, info = split_output(out)
    sizes = partition.check(labels, n, k, algo.max_group_size(k, resolved), who=algo.name)

    def rerun(z_other: np.ndarray) -> np.ndarray:
        again = call_run(algo, np.ascontiguousarray(z_other, dtype=np.float64), k, resolved,
                         rng_for(seed, f"algorithm:{algo.name}"))
        return split_output(again)[0]

    ctx = EvalContext(ds.values, z, labels, ds.columns, ds.name, options, rerun)
    start = time.perf_counter()
    values = evaluate(ctx, metrics)
    metric_seconds = time.perf_counter() - start
    record = {
        "algorithm": algo.name,
        "params": shown_params(resolved),
        "dataset": ds.name,
        "dataset_params": format_params(ds.params),
        "k": int(k),
        "seed": int(seed),
        "n": int(n),
        "d": int(d),
        "n_groups": int(sizes.size),
        "min_group": int(sizes.min()),
        "max_group": int(sizes.max()),
        **values,
        "seconds": seconds,
        "metric_seconds": metric_seconds,
        "threads": n_threads,
        "max_rss_mb": peak_rss_mb(),
    }
    if info:
        record["info"] = info
    return CellResult(record, labels)


def run_cell(algorithm: str, dataset: str, k: int, seed: int = 0, params: dict | None = None,
             metrics=("il",), metric_options: dict | None = None) -> CellResult:
    return next(run_cells(algorithm, dataset, [k], seed, params, metrics, metric_options))


def evaluate_partition(dataset: str, partition_path, k: int | None = None, seed: int = 0,
                       metrics=None, metric_options: dict | None = None) -> dict:
    """Metrics of a given partition; ``metrics=None`` means every metric that applies to the data set."""
    k = 1 if k is None else partition.check_k(k)
    generated = data.base_name(dataset) in discovery.generators() and not data.looks_like_path(dataset)
    if seed is None:
        if generated:  # another seed is another draw: the partition would be scored on other data
            raise UserError(f"{dataset!r} is generated: give the --seed of the draw the partition was made on "
                            "(the seed of `mabench run` or `mabench prepare`)")
        seed = 0
    seed = check_seed(seed)
    ds = data.load(dataset, seed)
    n = ds.values.shape[0]
    labels = partition.read_labels(partition_path, n, k)
    z = zscore(ds.values, ds.columns)
    options = {**data.metric_defaults(ds.name, ds.columns), **(metric_options or {})}
    ctx = EvalContext(ds.values, z, labels, ds.columns, ds.name, options)
    if metrics is None:
        metrics = applicable(options)
    sizes = np.bincount(labels)
    return {
        "dataset": ds.name,
        "dataset_params": format_params(ds.params),
        **({"seed": int(seed)} if generated else {}),
        "n": int(n),
        "n_groups": int(sizes.size),
        "min_group": int(sizes.min()),
        "max_group": int(sizes.max()),
        **evaluate(ctx, metrics),
    }
