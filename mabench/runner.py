"""One benchmark cell: (algorithm, data set, k, seed) -> validated partition + metrics.

An algorithm that declares a ``scale`` parameter (``standardized`` | ``raw``) gets
the original values instead of the z-scores when run with ``scale=raw``.
Loading, standardizing and JIT compilation happen before the clock starts;
``seconds`` is the algorithm's own time. The partition is validated against
the algorithm's declared bounds before any metric is computed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import data, partition, plugins
from .api import format_params
from .errors import UserError
from .metrics import EvalContext, applicable, evaluate
from .seeds import rng_for
from .standardize import zscore


@dataclass
class CellResult:
    record: dict
    labels: np.ndarray


def algorithm_input(algo, resolved: dict, values: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The data an algorithm decides on: z-scores, or the original values if it declares
    a ``scale`` parameter and was given ``scale=raw`` (docs/metrics.md#il_raw)."""
    if "scale" in algo.params and resolved.get("scale") == "raw":
        return np.ascontiguousarray(values, dtype=np.float64)
    return z


def _warm_up(algo, k: int, d: int, params: dict) -> None:
    """Compile the algorithm's kernels on a tiny problem of the same types."""
    tiny = np.random.default_rng(0).standard_normal((3 * k + 1, d))
    algo.run(np.ascontiguousarray(tiny), k, params, np.random.default_rng(0))


def run_cell(algorithm: str, dataset: str, k: int, seed: int = 0, params: dict | None = None,
             metrics=("il",), metric_options: dict | None = None) -> CellResult:
    algo = plugins.algorithm(algorithm)
    resolved = algo.resolve(params or {})
    if k < 1:
        raise UserError(f"k must be a positive integer (the minimum group size), got {k}")
    ds = data.load(dataset, seed)
    n, d = ds.values.shape
    if n < k:
        raise UserError(f"data set {ds.spec} has n={n} records, fewer than k={k}; choose k <= {n}")
    z = zscore(ds.values, ds.columns)
    x_in = algorithm_input(algo, resolved, ds.values, z)
    _warm_up(algo, k, d, resolved)
    rng = rng_for(seed, f"algorithm:{algo.name}")
    start = time.perf_counter()
    labels = algo.run(x_in, k, resolved, rng)
    seconds = time.perf_counter() - start
    labels = np.asarray(labels, dtype=np.int64)
    sizes = partition.check(labels, n, k, algo.max_group_size(k, resolved), who=algo.name)
    def rerun(z_other: np.ndarray) -> np.ndarray:
        out = algo.run(np.ascontiguousarray(z_other, dtype=np.float64), k, resolved, rng_for(seed, f"algorithm:{algo.name}"))
        return np.asarray(out, dtype=np.int64)

    options = {**data.metric_defaults(ds.name), **(metric_options or {})}
    ctx = EvalContext(ds.values, z, labels, ds.columns, ds.name, options, rerun)
    record = {
        "algorithm": algo.name,
        "params": format_params(resolved),
        "dataset": ds.name,
        "dataset_params": format_params(ds.params),
        "k": int(k),
        "seed": int(seed),
        "n": int(n),
        "d": int(d),
        "n_groups": int(sizes.size),
        "min_group": int(sizes.min()),
        "max_group": int(sizes.max()),
        **evaluate(ctx, metrics),
        "seconds": seconds,
    }
    return CellResult(record, labels)


def evaluate_partition(dataset: str, partition_path, k: int | None = None, seed: int = 0,
                       metrics=None, metric_options: dict | None = None) -> dict:
    """Metrics of a given partition; ``metrics=None`` means every metric that applies to the data set."""
    ds = data.load(dataset, seed)
    n = ds.values.shape[0]
    labels = partition.read_labels(partition_path, n, k or 1)
    z = zscore(ds.values, ds.columns)
    options = {**data.metric_defaults(ds.name), **(metric_options or {})}
    ctx = EvalContext(ds.values, z, labels, ds.columns, ds.name, options)
    if metrics is None:
        metrics = applicable(options)
    sizes = np.bincount(labels)
    return {
        "dataset": ds.name,
        "dataset_params": format_params(ds.params),
        "n": int(n),
        "n_groups": int(sizes.size),
        "min_group": int(sizes.min()),
        "max_group": int(sizes.max()),
        **evaluate(ctx, metrics),
    }
