"""Benchmark cells: (algorithm, data set, k, seed) -> validated partition + metrics.

One call to :func:`run_cells` loads and standardizes the data once, compiles
the algorithm's kernels once and then runs every requested k, so a batch of
cells costs one process start-up. Loading, standardizing and JIT compilation
happen before the clock starts; ``seconds`` is the algorithm's own time. The
partition is validated against the algorithm's declared bounds before any
metric is computed.

An algorithm whose ``raw_input`` says so (e.g. ``scale=raw``) gets the original values instead of
the z-scores. What is compiled before the clock starts is the plugin's business (``warm_up``,
mabench.plugin.Algorithm): the runner names no method.

Every algorithm also takes the aggregation parameters (``mabench.plugin.AGGREGATION``): ``measure``
and ``trim`` (what a group publishes), ``sampling_weights`` (a column of weights) and ``strata``
(columns whose value combinations are microaggregated separately). The columns they name are
taken out of the variables; docs/metrics.md#aggregation-measures.
"""

from __future__ import annotations

import resource
import sys
import time
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Iterable, Iterator

import numpy as np

from mabench import codehash, data, discovery, partition
from mabench.bench import threads
from mabench import memory
from mabench.bench.progress import NULL, Progress
from mabench.bench.strata import SERIAL, Spread, join_strata, run_strata
from mabench.bench.records import RunRecord
from mabench.bench.layout import Layout, layout_for
from mabench.bench.compiling import compile_notice
from mabench.kernels.core.aggregate import aggregate
from mabench.plugin import AGGREGATION, call_run, format_params, split_aggregation, split_output
from mabench.errors import UserError
from mabench.metrics import EvalContext, applicable, evaluate, per_variable_context
from mabench.metrics import warm as warm_metrics
from mabench.data.seeds import check_seed, rng_for
from mabench.data import missing
from mabench.data.standardize import zscore, zscore_within


@dataclass
class CellResult:
    record: dict
    labels: np.ndarray
    columns: list | None = None  # the variables' names (the data set's columns minus strata/weights)
    context: EvalContext | None = None  # what the metrics were computed from (more metrics: evaluate(context, names))
    source: object = None  # the data set as loaded, strata and weight columns included

    def masked_file(self):
        """The masked file (mabench.data.masked.MaskedTable): the loaded data set's columns, each
        variable replaced by its group's value (original units), strata and weight columns unchanged."""
        import pandas as pd

        from mabench.data.masked import MaskedTable

        if getattr(self.source, "source", None) is not None:  # a file: its table with the variables replaced
            return MaskedTable(self.source.source, self.columns, self.context.masked_rows)
        frame = pd.DataFrame(self.source.values, columns=self.source.columns)
        if self.source.aside:  # text strata columns of the file, back in their place
            for name, values in self.source.aside.items():
                frame[name] = values
            frame = frame[self.source.order]
        for name in frame.columns:  # strata and weight columns read as whole numbers are written so
            col = frame[name].to_numpy()
            if name not in self.columns and col.dtype.kind == "f" and np.all(col == np.round(col)) and np.abs(col).max() < 2**53:
                frame[name] = col.astype(np.int64)
        return MaskedTable(frame, self.columns, self.context.masked_rows)

    @property
    def masked(self) -> np.ndarray:
        """(n, d) published values of the variables, original units (computed on first use)."""
        return self.context.masked


def algorithm_input(algo, resolved: dict, values: np.ndarray, z: np.ndarray) -> np.ndarray:
    """The data an algorithm decides on: z-scores, or the original values where its ``raw_input``
    says so (scale=raw: docs/metrics.md#il_raw)."""
    if algo.decides_on_raw(resolved):
        return np.ascontiguousarray(values, dtype=np.float64)
    return z


def peak_rss_mb() -> float:
    """The process's peak resident memory so far (MB): a batch's cells report the running maximum.

    On Linux from ``VmHWM`` (/proc/self/status), the high-water mark of this process's own memory:
    ``getrusage``'s ``ru_maxrss`` also counts the memory of the parent the process was started from
    (the kernel carries the old address space's peak over the exec), so a run started from a large
    Python process would report that process's size."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
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
              metrics=("il",), metric_options: dict | None = None,
              progress: Progress | None = None, load=None, spread: Spread = SERIAL,
              warmed: set | None = None) -> Iterator[CellResult]:
    """Every k of one (algorithm, data set draw) in one process; cells are yielded as they finish.

    ``progress`` (mabench.bench.progress) reports the phases on stderr; default silent. ``load``: the
    data loader (default ``data.load``; a batch shares one between its runs). ``spread``: where the
    strata run (mabench.bench.strata). ``warmed``: the warm-ups this process has done (skipped;
    updated), as in :func:`compile_kernels`; a batch shares one set between its runs and draws."""
    progress = progress or NULL
    algo = discovery.algorithm(algorithm)
    resolved = algo.resolve(params or {})
    ks = [partition.check_k(k) for k in ks]
    if not ks:
        raise UserError("no k given; give e.g. -k 3 or -k 3,4,5,10")
    seed = check_seed(seed)
    _, agg = split_aggregation(resolved, algo.params)
    strata = [c for c in str(agg["strata"]).replace(",", "+").split("+") if c.strip()]
    progress.start(f"loading {dataset}")
    kw = {"missing": True} if agg["missing"] == "available" else {}
    ds = (load or data.load)(dataset, seed, aside=tuple(strata), **kw)  # a file's text columns are kept aside
    progress.end()
    yield from run_dataset(algo, resolved, ds, ks, seed, metrics, metric_options, ds.aside or None, progress, spread,
                           warmed=warmed)


def compile_kernels(algorithm: str, dataset: str, ks: Iterable[int], seed: int = 0,
                    params: dict | None = None, warmed: set | None = None, load=None, metrics=(),
                    metric_options: dict | None = None) -> tuple[int, int]:
    """Compile (or load from Numba's cache) the kernels that ``run_cells`` with the same arguments
    will use, and stop: the workflow does it once for every run before the batches fan out, so that
    two batches never compile the same kernel at the same time. Returns the data's (n, d).
    ``warmed``: what was already compiled in this process (skipped; updated); ``load``: the data
    loader (default ``data.load``; a caching one when many runs share a file)."""
    algo = discovery.algorithm(algorithm)
    own, agg = split_aggregation(algo.resolve(params or {}), algo.params)
    strata = [c for c in str(agg["strata"]).replace(",", "+").split("+") if c.strip()]
    kw = {"missing": True} if agg["missing"] == "available" else {}
    ds, _ = layout_for((load or data.load)(dataset, check_seed(seed), aside=tuple(strata), **kw), agg, None)
    n, d = ds.values.shape
    ks = [partition.check_k(k) for k in ks]
    warm_ks(algo, own, n, d, ks, warmed)
    k = min(ks)
    warm_metrics(list(metrics), n, d, k, {**data.metric_defaults(ds.name, ds.columns), **(metric_options or {})})
    return n, d


def warm_k_values(ks) -> list[int]:
    """The k values a run over ``ks`` is warmed up at: the smallest and the largest. Which kernels a
    method takes can depend on k past a threshold (LNS splits two-group regions by enumeration from
    k = 9 on, ``lns.region_limit``), so the smallest k alone would leave the largest k's kernels to be
    compiled inside a cell's time.

    Examples
    --------
    >>> warm_k_values([5, 3, 10, 4])
    [3, 10]
    """
    return sorted({min(ks), max(ks)})


def warm_ks(algo, own: dict, n: int, d: int, ks, warmed: set | None) -> None:
    """:func:`warm_once` at each of :func:`warm_k_values`."""
    for k in warm_k_values(ks):
        warm_once(algo, own, n, d, k, warmed)


def warm_once(algo, own: dict, n: int, d: int, k: int, warmed: set | None) -> None:
    """``algo.warm(n, d, k, own)`` unless ``warmed`` (what this process has warmed up, updated; None:
    always) holds it: the same method, parameters, k, shape and thread count (the tree kernels'
    two-thread specialization, ``index_choice.use_pair``) compile the same kernels."""
    import numba

    key = (algo.name, format_params(own), k, n, d, numba.get_num_threads())
    if warmed is None or key not in warmed:
        algo.warm(n, d, k, own)
        if warmed is not None:
            warmed.add(key)


def run_dataset(algo, resolved: dict, ds, ks: list[int], seed: int = 0, metrics=("il",),
                metric_options: dict | None = None, extra: dict | None = None,
                progress: Progress | None = None, spread: Spread = SERIAL, notice: bool = False,
                warmed: set | None = None) -> Iterator[CellResult]:
    """Every k of one algorithm on a loaded data set (``run_cells`` after loading; the Python API
    calls it with a DataFrame's columns). ``extra``: non-variable columns strata/weights may name.
    ``notice``: say on stderr when compiling takes a while (the API; the CLI shows its progress
    instead, and its stderr stays empty on success). ``warmed``: see :func:`run_cells`."""
    progress = progress or NULL
    own, agg = split_aggregation(resolved, algo.params)
    source = ds
    ds, layout = layout_for(ds, agg, extra)
    n, d = ds.values.shape
    too_big = [k for k in ks if k > n]
    if too_big:
        raise UserError(f"data set {ds.spec} has n={n} records, fewer than k={too_big[0]}; choose k <= {n}")
    if layout.strata is not None:
        sizes = np.bincount(layout.strata)
        small = [(s, sizes[s]) for s in range(sizes.size) if sizes[s] < max(ks)]
        if small:
            s, m = small[0]
            raise UserError(f"stratum {layout.stratum_names[s]} has {m} records, fewer than k={max(ks)}; every "
                            "stratum needs at least k records (merge small strata or lower k)")
    for k in ks:  # before standardizing or compiling anything: a run that cannot fit never starts
        memory.check(algo, n, d, k, own)
    progress.start(f"standardizing {n} x {d}")
    if agg["missing"] == "available" and np.isnan(ds.values).any():
        z = missing.available_layout(algo, own, ds.values, layout, agg)
    else:
        z = zscore(ds.values, ds.columns)
    progress.end()
    options = {**data.metric_defaults(ds.name, ds.columns), **(metric_options or {})}
    x_in = algorithm_input(algo, own, ds.values, z)
    progress.start(f"compiling {algo.name}", grouping=False)
    with compile_notice(f"{algo.name}'s kernels") if notice else nullcontext():
        if layout.observed is not None:
            for k in warm_k_values(ks):
                tiny = 3 * k + 1
                missing.available_partition(algo, own, np.arange(tiny * d, dtype=np.float64).reshape(tiny, d),
                                            np.ones((tiny, d), dtype=bool), k)
        else:
            warm_ks(algo, own, n, d, ks, warmed)
        warm_metrics(list(metrics), n, d, min(ks), options)
        if layout.observed is not None and "dld" in metrics:
            from mabench.metrics.available import warm_dld

            warm_dld()
    progress.end()
    for k in ks:
        cell = _cell(algo, resolved, ds, z, k, seed, metrics, options, x_in, layout, progress, spread)
        cell.source = source
        yield cell


def _partition(algo, own: dict, x_in: np.ndarray, raw: np.ndarray | None, k: int, seed: int, layout: Layout,
               progress: Progress = NULL, spread: Spread = SERIAL, who: str = ""):
    """(labels, info) of the algorithm on the whole data, or on each stratum separately (labels offset
    so that groups of different strata never share a label; each stratum z-scored on its own, like
    sdcMicro, which runs the method on each stratum's data), the strata run where ``spread`` says
    (mabench.bench.strata: the same labels)."""
    who = who or f"algorithm {algo.name} with k={k}"
    if layout.strata is None:
        if layout.observed is not None:
            return missing.available_partition(algo, own, x_in, layout.observed, k, raw, who), {}
        return split_output(call_run(algo, x_in, k, own, rng_for(seed, f"algorithm:{algo.name}"), raw=raw), who)
    raw_scale = algo.decides_on_raw(own)
    rows_of = [np.flatnonzero(layout.strata == s) for s in range(len(layout.stratum_names))]
    # the strata a method runs on (the others are one group, or take the missing-values kernel)
    tasks = [(algo.name, own, np.ascontiguousarray(x_in[rows]) if raw_scale else zscore_within(x_in[rows]),
              None if raw is None else np.ascontiguousarray(raw[rows]), k, seed, name)
             for rows, name in zip(rows_of, layout.stratum_names) if rows.size >= 2 * k and layout.observed is None]
    # with missing values every stratum takes the missing-values kernels (a small one comes out as one
    # group by the method's own rule; a per-variable method gives its missing records a label of their own)
    done = iter(run_strata(tasks, spread))
    parts, infos = [], {}
    progress.start(f"{algo.name} k={k} on {x_in.shape[0]} records in {len(layout.stratum_names)} strata",
                   len(layout.stratum_names), " strata", records=x_in.shape[0])
    finished = 0  # records of the strata done
    for s, (rows, name) in enumerate(zip(rows_of, layout.stratum_names)):
        progress.step(s, finished)
        if layout.observed is not None:
            part, info = missing.available_partition(algo, own, missing.zscore_observed(x_in[rows]), layout.observed[rows],
                                                     k, None if raw is None else raw[rows], f"{who}, stratum {name}"), {}
        elif rows.size < 2 * k:  # one group; also spares a method a stratum it cannot split
            part, info = np.zeros(rows.size, dtype=np.int64), {}
        else:
            part, info = next(done)
            # each stratum's own partition: a stray label (-1, a gap) would otherwise land in a neighbour's group
            bound, where = algo.max_group_size(k, own), f"{who}, stratum {name}"
            if part.ndim == 2:
                partition.check_columns(part, rows.size, part.shape[1], k, bound, who=where)
            else:
                partition.check(part, rows.size, k, bound, who=where)
        parts.append((rows, part))
        finished += rows.size
        if info:
            infos[name] = info
    progress.step(len(rows_of), finished)
    return join_strata(parts, x_in.shape), ({"strata": infos} if infos else {})


def _cell(algo, resolved, ds, z, k, seed, metrics, options, x_in=None, layout: Layout | None = None,
          progress: Progress = NULL, spread: Spread = SERIAL) -> CellResult:
    n, d = z.shape
    own, _ = split_aggregation(resolved, algo.params)
    layout = layout or Layout()
    x_in = z if x_in is None else x_in
    raw = np.ascontiguousarray(ds.values, dtype=np.float64)
    n_threads = threads.adapt()
    progress.start(f"{algo.name} k={k} on {n} records")
    start, cpu_start = time.perf_counter(), time.process_time()
    who = f"algorithm {algo.name} on {ds.spec} with k={k}"
    try:
        labels, info = _partition(algo, own, x_in, raw, k, seed, layout, progress, spread, who)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        progress.end()
        per_variable = labels.ndim == 2
        bound = algo.max_group_size(k, own)
        if per_variable and layout.observed is not None:  # the observed records of each variable
            column_sizes = missing.check_per_variable(labels, layout.observed, k, bound, who)
            sizes = np.concatenate(column_sizes)
        elif per_variable:  # one partition per variable (individual ranking): every column validated
            column_sizes = partition.check_columns(labels, n, d, k, bound, who=who)
            sizes = np.concatenate(column_sizes)
        else:
            sizes = partition.check(labels, n, k, bound, who=who)
    except partition.InvalidPartition as exc:  # nothing is scored or written from a broken partition
        raise UserError(f"{exc}: an invalid partition, refused before any metric; the plugin breaks its "
                        "contract (docs/contract.md)") from None

    def rerun(z_other: np.ndarray) -> np.ndarray:
        z_other = np.ascontiguousarray(z_other, dtype=np.float64)
        return _partition(algo, own, z_other, None, k, seed, layout, NULL, spread, who)[0]

    ctx = _context(ds, z, labels, options, _published(raw, labels, layout), layout, rerun)
    start, cpu_start = time.perf_counter(), time.process_time()
    values = {}
    for i, name in enumerate(metrics):  # one at a time, so a long one is named while it runs
        progress.start(f"k={k} metric {name} ({i + 1} of {len(metrics)})")
        values.update(evaluate(ctx, [name]))
        progress.end()
    metric_seconds, metric_cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    record = RunRecord(
        algo.name, algo.record_params(resolved), ds.name, format_params(ds.params), int(k), int(seed), int(n), int(d),
        # Per-variable: the largest number of groups of any variable, sizes over all variables.
        n_groups=int(max(c.size for c in column_sizes)) if per_variable else int(sizes.size),
        min_group=int(sizes.min()), max_group=int(sizes.max()), metrics=values,
        seconds=seconds, metric_seconds=metric_seconds,
        # CPU time of the process (all its threads) over the same spans: unlike wall time, it does not
        # grow when other processes share the cores (the workflow's start-up share is counted in CPU)
        cpu_seconds=cpu_seconds, metric_cpu_seconds=metric_cpu_seconds,
        threads=n_threads, max_rss_mb=peak_rss_mb(), provenance=codehash.cell_provenance(algo.name, resolved),
        n_strata=len(layout.stratum_names) if layout.strata is not None else None,
        per_variable=per_variable, info=info or None,
    ).as_dict()
    return CellResult(record, labels, list(ds.columns), ctx)


def _published(raw: np.ndarray, labels: np.ndarray, layout: Layout) -> np.ndarray | None:
    """What a partition publishes where a group's value is not its plain mean (another measure,
    sampling weights, or the mean of the observed values under missing=available): (g, d) group values,
    or (n, d) record values of a per-variable partition; None for plain means."""
    observed = layout.observed is not None
    if labels.ndim == 2:
        if observed:
            return missing.per_variable_values(raw, labels, layout.weights)
        return None if layout.plain_means else _per_variable_values(raw, labels, layout)
    if layout.plain_means and not observed:
        return None
    g = int(labels.max()) + 1
    if layout.weights is not None:
        totals = np.bincount(labels, weights=layout.weights, minlength=g)
        if (totals <= 0).any():
            raise UserError(f"group {int(np.flatnonzero(totals <= 0)[0])} has only zero sampling weights; its "
                            f"weighted {layout.measure} is undefined (give positive weights, or drop the weights)")
    if observed:
        return missing.group_values(raw, labels, g, layout.weights)
    return aggregate(raw, labels, g, layout.measure, layout.trim, layout.weights)


def _context(ds, z: np.ndarray, labels: np.ndarray, options: dict, published, layout: Layout, rerun=None):
    """The metrics' view of a scored partition (a run's or a given one): per variable or not, with the
    observed cells and the masked values under missing=available."""
    if labels.ndim == 2:
        ctx = per_variable_context(ds.values, z, labels, ds.columns, ds.name, options, rerun, published)
    else:
        ctx = EvalContext(ds.values, z, labels, ds.columns, ds.name, options, rerun, published)
    if layout.observed is not None:
        ctx.observed = layout.observed
        ctx.__dict__["masked"] = missing.masked_values(ds.values, ctx.labels, published, layout.fill)
    return ctx


def _per_variable_values(raw: np.ndarray, labels: np.ndarray, layout: Layout) -> np.ndarray:
    """(n, d): each record's published value of each variable under its own partition, with the
    layout's measure and weights (sdcMicro's individual ranking takes both; docs/metrics.md)."""
    out = np.empty(raw.shape)
    for j in range(raw.shape[1]):
        lab = np.ascontiguousarray(labels[:, j])
        g = int(lab.max()) + 1
        if layout.weights is not None and (np.bincount(lab, weights=layout.weights, minlength=g) <= 0).any():
            raise UserError(f"a group of variable {j + 1} has only zero sampling weights; its weighted "
                            f"{layout.measure} is undefined (give positive weights, or drop the weights)")
        values = aggregate(np.ascontiguousarray(raw[:, j:j + 1]), lab, g, layout.measure, layout.trim, layout.weights)
        out[:, j] = values[lab, 0]
    return out


def run_cell(algorithm: str, dataset: str, k: int, seed: int = 0, params: dict | None = None,
             metrics=("il",), metric_options: dict | None = None) -> CellResult:
    return next(run_cells(algorithm, dataset, [k], seed, params, metrics, metric_options))


def evaluate_partition(dataset: str, partition_path, k: int | None = None, seed: int = 0,
                       metrics=None, metric_options: dict | None = None, aggregation: dict | None = None,
                       kept: dict | None = None) -> dict:
    """Metrics of a given partition; ``metrics=None`` means every metric that applies to the data set.
    ``aggregation``: the measure, weights and strata the partition was published with (as for a run).
    ``kept``: receives the evaluation context as ``kept["context"]`` (for the per-record tables)."""
    k = 1 if k is None else partition.check_k(k)
    generated = data.base_name(dataset) in discovery.generators() and not data.looks_like_path(dataset)
    if seed is None:
        if generated:  # another seed is another draw: the partition would be scored on other data
            raise UserError(f"{dataset!r} is generated: give the --seed of the draw the partition was made on "
                            "(the seed of `mabench run` or `mabench prepare`)")
        seed = 0
    seed = check_seed(seed)
    agg = aggregation_of(aggregation)
    strata = [c for c in str(agg["strata"]).replace(",", "+").split("+") if c.strip()]
    available = agg["missing"] == "available"
    ds = data.load(dataset, seed, aside=tuple(strata), missing=available)
    n = ds.values.shape[0]
    labels = partition.read_labels(partition_path, n, 1 if available else k)
    if available and labels.ndim == 1:  # (per-variable: k over each variable's observed records, evaluate_labels)
        partition.check_given_k(labels, k, f"partition file {str(partition_path)!r}")
    record = evaluate_labels(ds, labels, metrics, metric_options, aggregation=agg, extra=ds.aside or None, kept=kept,
                             k=k)
    if generated:  # the draw the partition was scored on
        record = {**{key: record[key] for key in ("dataset", "dataset_params")}, "seed": int(seed), **record}
    return record


def aggregation_of(given: dict | None) -> dict:
    """The aggregation parameters (measure, trim, sampling_weights, strata), checked, defaults filled in."""
    given = dict(given or {})
    unknown = sorted(set(given) - set(AGGREGATION))
    if unknown:
        raise UserError(f"unknown aggregation parameter {unknown[0]!r}; known: {', '.join(AGGREGATION)}")
    return {name: p.parse("evaluate", name, given[name]) if given.get(name) is not None else p.default
            for name, p in AGGREGATION.items()}


def evaluate_labels(ds, labels: np.ndarray, metrics=None, metric_options: dict | None = None,
                    published: np.ndarray | None = None, aggregation: dict | None = None,
                    extra: dict | None = None, kept: dict | None = None, k: int = 1) -> dict:
    """Metrics of a checked partition (labels 0..g-1) of a loaded data set; ``metrics=None`` means
    every metric that applies to it. ``aggregation`` (:func:`aggregation_of`): score the values the
    partition publishes with that measure and those weights, the strata and weight columns set aside
    (``extra``: the non-variable columns they may name), every group checked to lie in one stratum.
    ``k``: the minimum group size of a per-variable partition on data with missing values, counted
    over each variable's observed records (its records missing the variable are a group of their own,
    as a run writes it; the callers check every other partition's k as they read it)."""
    layout = Layout()
    column_sizes = None  # per-variable with missing values: each variable's observed groups' sizes
    if aggregation is not None:
        agg = aggregation_of(aggregation)
        ds, layout = layout_for(ds, agg, extra)
        if agg["missing"] == "available" and np.isnan(ds.values).any():
            missing.mark_available(layout, ds.values, agg["fill"],
                                   "a per-variable partition (onedims)" if labels.ndim == 2 else "")
        if layout.strata is not None:
            flat = labels if labels.ndim == 1 else labels.reshape(labels.shape[0], -1)
            for j in range(1 if flat.ndim == 1 else flat.shape[1]):
                lab = flat if flat.ndim == 1 else flat[:, j]
                spread = np.unique(np.stack([lab, layout.strata]), axis=1)
                if np.unique(spread[0]).size != spread.shape[1]:
                    g = int(spread[0][np.flatnonzero(np.diff(spread[0]) == 0)[0]])
                    raise UserError(f"group {g} spans several strata; a partition made with these strata "
                                    "keeps each group within one (check the strata columns)")
        if layout.observed is not None and labels.ndim == 2:  # validated as a run's (runner._cell)
            try:
                column_sizes = missing.check_per_variable(labels, layout.observed, k, None, "the partition")
            except partition.InvalidPartition as exc:
                raise UserError(f"{exc}; give the partition `mabench run` wrote for these data") from None
        given = _published(np.ascontiguousarray(ds.values, dtype=np.float64), labels, layout)
        published = published if given is None else given
    observed = layout.observed
    n = ds.values.shape[0]
    # missing=available: z-scores over the observed values and the metrics on available cases, as a run's
    z = zscore(ds.values, ds.columns) if observed is None else missing.zscore_observed(ds.values)
    options = {**data.metric_defaults(ds.name, ds.columns), **(metric_options or {})}
    per_variable = labels.ndim == 2
    if per_variable:
        if labels.shape[1] != z.shape[1]:
            raise UserError(f"the partition has {labels.shape[1]} per-variable columns but the data set has "
                            f"{z.shape[1]} variables; use the partition written for this data set")
    ctx = _context(ds, z, labels, options, published, layout)
    if kept is not None:
        kept["context"] = ctx
    if metrics is None:
        metrics = applicable(options, available_cases=observed is not None)
    if column_sizes is None and per_variable:
        for j in range(labels.shape[1]):
            partition.check_given_k(labels[:, j], k, f"the partition's variable {j + 1}")
        column_sizes = [np.bincount(labels[:, j]) for j in range(labels.shape[1])]
    sizes = np.concatenate(column_sizes) if per_variable else np.bincount(labels)
    extra = {"per_variable": True} if per_variable else {}
    # as a run's record: per-variable, the largest number of groups of any variable
    n_groups = int(max(c.size for c in column_sizes)) if per_variable else int(sizes.size)
    return {
        "dataset": ds.name,
        "dataset_params": format_params(ds.params),
        "n": int(n),
        "n_groups": n_groups,
        "min_group": int(sizes.min()),
        "max_group": int(sizes.max()),
        **evaluate(ctx, metrics),
        **extra,
    }
