"""Batched cells for the workflow: one process runs every (algorithm, draw, k) of a job's plan.

A workflow job is a group of algorithm ids of one data set, or several small groups packed
together (see ``mabench/bench/plan.py``); its plan (:func:`run_plan`) lists, per algorithm,
the draws, the k values, the metrics and the folder of its cells. Each cell still gets its own outputs, ``CELLS/seed{S}/k{K}.json`` (the run
record with its metrics) and ``CELLS/seed{S}/k{K}.csv`` (the partition), so
aggregation, tables and resumption work per cell.

A finished cell is also kept in a content-addressed cache (``--cache-dir``),
keyed by the data file's bytes, the algorithm and its resolved parameters, k,
the seed, the metrics and a hash of exactly the code that computes the cell (the engine, the plugin and
its ``init=`` plugin with the mabench modules they import: :mod:`mabench.codehash`).
When Snakemake re-runs a batch (a job that died, a deleted output, a k added to
the configuration), the cells already computed with the same code are copied
from the cache instead of being recomputed.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numba
import numpy as np

from mabench import discovery, io
from mabench.bench import verify
from mabench.errors import UserError
from mabench.codehash import cell_code_hash
from mabench.bench.runner import run_cells
from mabench.bench.records import JobPlan


def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def cell_key(data_digest: str, algorithm: str, params: dict, k: int, seed: int, metrics, options) -> str:
    text = json.dumps([data_digest, algorithm, sorted((str(a), str(b)) for a, b in params.items()), int(k),
                       int(seed), list(metrics), options or {}, cell_code_hash(algorithm, params)], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def cached(cache_dir: Path | None, key: str):
    """(record, partition CSV text) of a cache entry, or None when absent or damaged."""
    if cache_dir is None:
        return None
    rec, part = cache_dir / key[:2] / f"{key}.json", cache_dir / key[:2] / f"{key}.csv"
    if rec.exists() and part.exists():
        try:
            record, labels = verify.record_ok(rec.read_text()), part.read_bytes()
        except OSError:
            return None
        if record is None or not verify.partition_ok(labels, int(record["n"]), int(record["k"])):
            return None  # a damaged cache entry is recomputed
        return record, labels.decode()
    return None


def keep(cache_dir: Path, key: str, record: dict, labels_csv: str) -> None:
    """Store a computed cell under ``key`` (both files of the entry or neither)."""
    where = Path(cache_dir) / key[:2]
    with io.outputs() as pair:
        pair.write_text(where / f"{key}.csv", labels_csv)
        pair.write_text(where / f"{key}.json", json.dumps(record) + "\n")


def data_digest(ds) -> str:
    """Hash of a loaded data set's content (values, column names): keys cells on data that has no file
    of its own (a catalog set in `mabench regress`)."""
    h = hashlib.sha256(json.dumps([list(map(str, ds.columns)), list(ds.values.shape)]).encode())
    h.update(np.ascontiguousarray(ds.values, dtype=np.float64).tobytes())
    return h.hexdigest()


def _log(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def run_plan(plan: dict, cache_dir: str | None = None, follow: str | None = None) -> tuple[int, int]:
    """Every run of a job's plan; returns (cells, cells computed). A plan is
    ``{"batch": ID, "metrics": [...], "options": {...}, "runs": [{"algorithm", "params", "draws":
    [[seed, file], ...], "k": [...], "metrics": [...], "cells_dir"}, ...]}``; a run's own
    ``metrics`` (its data set's) replace the plan's. ``follow``: the progress file of a compile step
    whose list starts with this plan's runs (the lead job's, :mod:`mabench.bench.handoff`): each run
    waits until the compile step has done it."""
    import time

    from mabench.bench import handoff

    cells = computed = 0
    waited = 0.0
    since = time.monotonic()
    # a file read again costs 5-25 ms: every file is kept while their values fit in 64 MB (a run
    # holds its own data beside them, and the loaded tables: a few times that in all)
    load = shared_loader(None, budget=64 << 20)
    warmed: set = set()  # the warm-ups done: a run's further draws, and runs of the same shape, skip theirs
    job = JobPlan.from_dict(plan)
    for i, run in enumerate(job.runs):
        if follow:
            waited += handoff.wait_for(follow, i, since)
        draws = [(seed, path) for seed, path in run.draws]
        computed += run_batch(run.algorithm, run.params, draws, run.k, run.metrics, run.cells_dir, cache_dir,
                              job.options or {}, batch=job.batch, load=load, warmed=warmed)
        cells += len(draws) * len(run.k)
    if follow:
        _log(f"waited {waited:.1f} s for the compile step")
    return cells, computed


def compile_plan(plan: dict, jobs: int = 1, progress_out: str | None = None) -> int:
    """Compile the kernels of every run of a plan (each distinct algorithm, parameters and data shape
    once), without running a cell; returns how many warm-ups were done (each distinct run's smallest
    and largest k: ``runner.warm_ks``).

    ``jobs`` > 1: that many worker processes share the algorithms (:func:`_compile_worker`).
    Compiling is single-threaded Python and LLVM work, so it is the one stage where a second core
    would otherwise wait. ``progress_out``: a file the lead job follows (:mod:`mabench.bench.handoff`);
    with several processes it is marked finished at once (their order is not the plan's)."""
    from mabench.bench import handoff

    runs = plan["runs"]
    by_algorithm: dict[str, list[int]] = {}
    for i, run in enumerate(runs):  # an algorithm's runs share most of its kernels: one worker takes them all
        by_algorithm.setdefault(run["algorithm"], []).append(i)
    jobs = min(jobs, len(by_algorithm))
    progress = handoff.Progress(progress_out, len(runs))
    if jobs <= 1:
        warmed: set = set()
        load = shared_loader(None)  # many runs read the same data file
        try:
            for indices in by_algorithm.values():
                for i in indices:
                    _compile_runs({**plan, "runs": [runs[i]]}, warmed, load)
                    progress.done(i)
        finally:
            progress.finish()
        return len(warmed)
    progress.finish()
    import multiprocessing

    shares = [{**plan, "runs": [runs[i] for i in indices]} for indices in by_algorithm.values()]
    # spawn: forking a process whose Numba threading layer may have started is unsafe
    ctx = multiprocessing.get_context("spawn")
    bounds = [len(shares) * w // jobs for w in range(jobs + 1)]
    starts = ctx.Array("q", bounds[:-1])
    ends = ctx.Array("q", bounds[1:])
    warmed = ctx.Array("q", jobs)
    first_done = ctx.Event()
    workers = [ctx.Process(target=_compile_worker, args=(w, shares, starts, ends, warmed, first_done))
               for w in range(jobs)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    failed = [w for w, worker in enumerate(workers) if worker.exitcode != 0]
    if failed:
        raise RuntimeError(f"compile worker {failed[0]} failed (exit status {workers[failed[0]].exitcode}); "
                           "its error is above")
    return int(sum(warmed))


def _compile_worker(w: int, shares: list[dict], starts, ends, warmed, first_done) -> None:
    """Worker ``w`` of :func:`compile_plan`. Worker 0 compiles the plan's first algorithm alone (the
    kernels nearly every method shares: group means, leftovers, the metrics); the others start when
    it is done and load those from Numba's on-disk cache instead of compiling them at the same moment.
    Each worker then takes the algorithms of its own stretch of the plan in order, and when that is
    done, from the far end of the stretch with most left: neighbours in a configuration tend to share
    kernels (the Ward methods, the density methods), so one worker compiles them."""
    lock = starts.get_lock()
    mine: set = set()
    load = shared_loader(None)
    if w > 0:
        first_done.wait()
    try:
        while True:
            with lock:
                if starts[w] < ends[w]:
                    at = starts[w]
                    starts[w] += 1
                else:
                    left = [ends[j] - starts[j] for j in range(len(starts))]
                    j = max(range(len(left)), key=left.__getitem__)
                    if left[j] <= 0:
                        return
                    ends[j] -= 1
                    at = ends[j]
            _compile_runs(shares[at], mine, load)
            warmed[w] = len(mine)
            first_done.set()
    finally:  # also when the first algorithm fails to compile: the others must not wait forever
        first_done.set()


def _compile_runs(plan: dict, warmed: set, load) -> None:
    """:func:`compile_plan`'s work on some of the runs, in one process: ``warmed`` holds what this
    process has compiled (updated), ``load`` its data loader."""
    from mabench.bench.runner import compile_kernels

    job = JobPlan.from_dict(plan)
    for run in job.runs:
        seed, path = run.draws[0]
        before = len(warmed)
        n, d = compile_kernels(run.algorithm, path, run.k, seed, run.params, warmed, load, run.metrics or (),
                               job.options or {})
        if len(warmed) > before:
            _log(f"compiled {run.algorithm} {run.params or ''} for {n} x {d}")


def shared_loader(size: int | None, budget: int | None = None):
    """``data.load`` for the runs of one process: a data file is read once while it is among the
    ``size`` most recently used (None: every one is kept) and, with a ``budget`` (bytes), while the
    values of those kept fit in it (the most recent always stays); each caller gets its own copy of the
    values, so a run never sees another run's changes."""
    from collections import OrderedDict
    from dataclasses import replace

    from mabench.data import load

    kept: OrderedDict = OrderedDict()
    held = [0]  # bytes of the values kept

    def shared(spec, seed=None, aside=(), missing=False):
        key = (spec, seed, tuple(aside), missing)
        if key in kept:
            kept.move_to_end(key)
        else:
            kept[key] = load(spec, seed, aside=tuple(aside), missing=missing)
            held[0] += kept[key].values.nbytes
            while len(kept) > 1 and ((size is not None and len(kept) > size) or (
                    budget is not None and held[0] > budget)):
                held[0] -= kept.popitem(last=False)[1].values.nbytes
        ds = kept[key]
        return replace(ds, values=ds.values.copy())

    return shared


def run_batch(algorithm: str, params: dict, draws: list[tuple[int, str]], ks: list[int], metrics,
              cells_dir: str, cache_dir: str | None = None, options: dict | None = None,
              batch: str | None = None, load=None, warmed: set | None = None) -> int:
    """Run (or take from the cache) every cell; write ``cells_dir/seed{S}/k{K}.{json,csv}``.

    Returns the number of cells computed (the rest came from the cache). ``load``: the data loader
    (default ``data.load``); ``warmed``: the warm-ups done in this process (``runner.run_cells``)."""
    algo = discovery.algorithm(algorithm)
    resolved = algo.resolve(params)
    cache_root = Path(cache_dir) if cache_dir else None
    out = Path(cells_dir)
    computed = 0
    total = len(draws) * len(ks)
    done = 0
    for seed, path in draws:
        digest = _file_digest(path)
        keys = {k: cell_key(digest, algo.name, resolved, k, seed, metrics, options) for k in ks}
        todo = []
        for k in ks:
            hit = cached(cache_root, keys[k])
            if hit is None:
                todo.append(k)
                continue
            record, labels_csv = hit
            _write_cell(out, seed, k, {**record, "batch": batch} if batch else record, labels_csv)
            done += 1
            _log(f"[{done}/{total}] {algorithm} seed={seed} k={k}: from cache (il={record.get('il')})")
        if not todo:
            continue
        for result in _with_cell_context(run_cells(algorithm, path, todo, seed, params, metrics, options, load=load,
                                                   warmed=warmed),
                                         f"{algorithm} on {path} seed={seed}", todo):
            k = result.record["k"]
            labels_csv = io.partition_csv(result.labels)
            if cache_root is not None:  # cache first: a crash after it still saves the work
                keep(cache_root, keys[k], result.record, labels_csv)
            _write_cell(out, seed, k, {**result.record, "batch": batch} if batch else result.record, labels_csv)
            computed += 1
            done += 1
            _log(f"[{done}/{total}] {algorithm} seed={seed} k={k}: il={result.record.get('il')} "
                 f"in {result.record['seconds']:.3f} s")
    return computed


def _with_cell_context(cells, where: str, ks: list[int]):
    """Re-raise a failure with the cell it happened in (the log then says which cell and why)."""
    it = iter(cells)
    i = 0
    while True:
        cell = f"{where} k={ks[min(i, len(ks) - 1)]}"
        try:
            result = next(it)
        except StopIteration:
            return
        except UserError as exc:
            raise UserError(f"cell {cell}: {exc}") from None
        except Exception:
            _log(f"cell {cell} failed:")
            raise
        i += 1
        yield result


def _write_cell(out: Path, seed: int, k: int, record: dict, labels_csv: str) -> None:
    record = verify.seal(record, labels_csv.encode())
    with io.outputs() as pair:  # a cell's partition and record appear together
        pair.write_text(out / f"seed{seed}" / f"k{k}.csv", labels_csv)
        pair.write_text(out / f"seed{seed}" / f"k{k}.json", json.dumps(record) + "\n")
