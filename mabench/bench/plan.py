"""The plan of a workflow configuration: its data sets, algorithm ids, cells and batch jobs.

Built once, here, from a configuration (``config/config.yaml`` and the files like it, keys in
``config/README.md``); the Snakemake rules (``workflow/rules/common.smk``) and ``mabench regress``
only read it. Building it checks everything the schema cannot: plugin names and parameters, metric
names, cross references between ids, draws of fixed data, k against each data set's size, and
what a data set cannot give its algorithms and metrics (weights and strata columns, strata smaller
than k, key variables).

A cell is (data set id, algorithm id, seed, k). Cells run in batch jobs
(``mabench batch --plans results/plans.json --job NAME``): a data set's algorithm ids are taken in
groups of at most ``algorithms_per_job``; a group with at least ``records_per_job`` records × cells
is one job (``{dataset_id}/part{N}``), and smaller groups
are packed together, in configuration order, into jobs of up to that much work (``packed/part{N}``),
so that a process's start-up (imports, loading compiled kernels: about a second) stays a small
share of what it runs. Each cell keeps its own files
``results/cells/{dataset_id}/{algo_id}/seed{seed}/k{k}.{json,csv}``.

>>> plan = build({"k": [3], "algorithms": {"mdav": {"algorithm": "mdav"}},
...               "datasets": {"tarragona": {"spec": "tarragona"}}})
>>> plan.cells
['tarragona/mdav/seed0/k3']
>>> plan.jobs[0].cells
['tarragona/mdav/seed0/k3']
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from mabench import data, discovery
from mabench.data import fetch
from mabench.data.seeds import cell_seeds
from mabench.bench.records import JobPlan, PlannedRun
from mabench.errors import UserError



class ConfigError(UserError):
    """Every problem of a configuration, one per entry of ``problems``."""

    def __init__(self, problems: list[str]):
        super().__init__("invalid workflow configuration: " + "; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class DatasetEntry:
    """One configured data set: where it comes from, its draws, its k values, algorithms and metrics."""

    id: str
    spec: str
    kind: str  # "fetched" (catalog), "generated" (a generator plugin) or "file"
    seeds: list[int]  # the draws of a generated set; [0] for fixed data
    k: list[int]
    algorithms: list[str]
    metrics: list[str]
    name: str | None = None  # catalog name of a fetched set
    raw: str | None = None  # its catalog file
    file: str | None = None  # the path of a file data set
    n: int | None = None  # records, where known before any job runs

    @property
    def fixed(self) -> bool:
        return self.kind != "generated"


@dataclass(frozen=True)
class AlgorithmEntry:
    """One configured algorithm id: the plugin, its parameters, its own k list and its seeds on fixed data."""

    id: str
    algorithm: str
    params: dict[str, str]
    only_k: list[int] | None
    fixed_seeds: list[int]


@dataclass(frozen=True)
class Job:
    """One batch job: one or more groups (data set id, its algorithm ids), with the cells it writes."""

    name: str  # "{dataset_id}/part{N}", or "packed/part{N}" for small groups packed together
    groups: list[tuple[str, list[str]]]
    cells: list[str] = field(default_factory=list)
    priority: int = 0  # larger first: see _ranked

    @property
    def dataset_ids(self) -> list[str]:
        return list(dict.fromkeys(ds_id for ds_id, _ in self.groups))


@dataclass
class Plan:
    config: dict
    datasets: dict[str, DatasetEntry]
    algorithms: dict[str, AlgorithmEntry]
    jobs: list[Job] = field(default_factory=list)

    # ------------------------------------------------------------------ cells
    def batch_seeds(self, ds_id: str, algo_id: str) -> list[int]:
        """Repetition seeds of one batch: the data draws, or the algorithm's seeds on fixed data."""
        ds = self.datasets[ds_id]
        return self.algorithms[algo_id].fixed_seeds if ds.fixed else ds.seeds

    def algo_ks(self, ds_id: str, algo_id: str) -> list[int]:
        """The data set's k values, restricted to the algorithm's own `k` list if it has one."""
        only = self.algorithms[algo_id].only_k
        return [k for k in self.datasets[ds_id].k if only is None or k in only]

    def data_file(self, ds_id: str, seed: int) -> str:
        return f"results/data/{ds_id}/seed{0 if self.datasets[ds_id].fixed else seed}.parquet"

    def cells_of(self, ds_id: str, algo_ids) -> list[str]:
        return [f"{ds_id}/{a}/seed{s}/k{k}" for a in algo_ids
                for s in self.batch_seeds(ds_id, a) for k in self.algo_ks(ds_id, a)]

    @property
    def batches(self) -> list[tuple[str, str]]:
        """Every (data set id, algorithm id) pair, in configuration order."""
        return [(ds_id, a) for ds_id, ds in self.datasets.items() for a in ds.algorithms]

    @property
    def cells(self) -> list[str]:
        return [c for ds_id, a in self.batches for c in self.cells_of(ds_id, [a])]

    # ------------------------------------------------------------------ files
    @property
    def fixed(self) -> list[str]:
        return [ds_id for ds_id, ds in self.datasets.items() if ds.fixed]

    @property
    def data_files(self) -> list[str]:
        return sorted({self.data_file(ds_id, s) for ds_id, ds in self.datasets.items() for s in ds.seeds})

    @property
    def raw_files(self) -> dict[str, str]:
        """Catalog file -> catalog name, for the fetched data sets."""
        return {ds.raw: ds.name for ds in self.datasets.values() if ds.kind == "fetched"}

    def job_inputs(self, job: Job) -> list[str]:
        return sorted({self.data_file(ds_id, s) for ds_id, ids in job.groups for a in ids
                       for s in self.batch_seeds(ds_id, a)})

    def job_plan(self, job: Job) -> JobPlan:
        """What ``mabench batch`` runs for one job: its runs grouped by method, the method with the
        most work (records × cells) first, each method's runs in configuration order.

        Why this order: the lead job starts while the compile step is still compiling its runs'
        kernels in this order, and waits before a run whose kernels are not compiled yet. Started
        on a long method, it keeps its core busy while the compile step works ahead; started on
        dozens of millisecond runs of distinct methods, it caught up with the compile step at once
        (docs/scaling.md). The order decides no number: every cell has its own seed and record."""
        runs = [(ds_id, a) for ds_id, ids in job.groups for a in ids]
        work: dict[str, int] = {}
        for ds_id, a in runs:
            method = self.algorithms[a].algorithm
            cells = len(self.batch_seeds(ds_id, a)) * len(self.algo_ks(ds_id, a))
            work[method] = work.get(method, 0) + (self.datasets[ds_id].n or 1) * cells
        rank = {m: i for i, m in enumerate(sorted(work, key=lambda m: -work[m]))}  # stable: config order on ties
        runs.sort(key=lambda run: rank[self.algorithms[run[1]].algorithm])
        return JobPlan(job.name, [
            PlannedRun(self.algorithms[a].algorithm, self.algorithms[a].params,
                       [[s, self.data_file(ds_id, s)] for s in self.batch_seeds(ds_id, a)],
                       self.algo_ks(ds_id, a), self.datasets[ds_id].metrics, f"results/cells/{ds_id}/{a}")
            for ds_id, a in runs
        ])

    def job_plans(self) -> dict:
        """Every job's plan by job name: the file (``results/plans.json``) the batch jobs read, so that
        a job's command line and Snakemake's per-file records stay short however many cells it runs."""
        return {"jobs": {job.name: self.job_plan(job).as_dict() for job in self.jobs}}

    def plans_text(self) -> str:
        """:meth:`job_plans` as the text of ``results/plans.json`` (compact JSON, one line)."""
        import json

        return json.dumps(self.job_plans(), separators=(",", ":")) + "\n"

    def lead_job(self) -> Job | None:
        """The job that does not wait for the compile step: the longest (first in priority), when
        there is more than one. It starts as soon as its data is there, on one core, while the
        compile step compiles its runs' kernels, in its order, on the other; before each run it waits
        until the compile step has done that run (:mod:`mabench.bench.handoff`). None with a single
        job."""
        if len(self.jobs) < 2:
            return None
        return max(self.jobs, key=lambda job: job.priority)

    def compile_runs(self) -> list[dict]:
        """The runs the compile step warms up, in order: the lead job's, in the lead job's order (run
        i of the lead job is run i here, which is what the lead job waits for), then every other
        job's."""
        lead = self.lead_job()
        order = ([lead] if lead is not None else []) + [job for job in self.jobs if job is not lead]
        return [run.as_dict() for job in order for run in self.job_plan(job).runs]

    def job_digest(self, job: Job | None = None) -> str:
        """A short hash of one job's plan (of every job's when ``job`` is None): a job whose plan
        changes has a new digest among its parameters, so Snakemake re-runs it and no other."""
        import hashlib
        import json

        plan = self.job_plans() if job is None else self.job_plan(job).as_dict()
        return hashlib.sha256(json.dumps(plan, sort_keys=True).encode()).hexdigest()[:16]

    def job_code_hash(self, job: Job) -> str:
        """A short hash of the code that computes the job's cells (:func:`mabench.codehash.cell_code_hash`
        of each run): an edit to a plugin or to a module it imports changes the hash of exactly the jobs
        that run it, so Snakemake re-runs those (their cells of other methods come from the cell cache)."""
        import hashlib

        from mabench.codehash import cell_code_hash

        codes = sorted({cell_code_hash(run.algorithm, run.params) for run in self.job_plan(job).runs})
        return hashlib.sha256(" ".join(codes).encode()).hexdigest()[:16]

    def write_job_stamps(self, folder: str = "results/batches") -> dict[str, str]:
        """One small file per batch job, ``FOLDER/<job>.code``, holding the job's plan digest and code
        hash, rewritten only when they change: an input of the job, so Snakemake re-runs exactly the
        jobs whose plan or code changed (by modification time, which it checks also where its per-file
        records are incomplete, as for a batch's cell files; a changed parameter alone would not do).
        Returns job name -> file."""
        from mabench import io

        stamps = {}
        for job in self.jobs:
            path = Path(folder) / f"{job.name}.code"
            text = f"plan {self.job_digest(job)}\ncode {self.job_code_hash(job)}\n"
            try:
                same = path.read_text() == text
            except OSError:
                same = False
            if not same:
                io.write_text(path, text)
            stamps[job.name] = str(path)
        return stamps

    def prepare_priority(self, ds_ids) -> int:
        """Data sets' files are written as early as the first job that needs them would start."""
        wanted = {ds_ids} if isinstance(ds_ids, str) else set(ds_ids)
        return max((job.priority for job in self.jobs if wanted.intersection(job.dataset_ids)), default=0)

    @property
    def generated(self) -> list[str]:
        return [ds_id for ds_id, ds in self.datasets.items() if not ds.fixed]

    def prepare_generated(self) -> list[str]:
        """Arguments of the one ``mabench prepare`` that writes every draw of every generated data set."""
        args = [self.datasets[ds_id].spec for ds_id in self.generated]
        for ds_id in self.generated:
            args += ["--out", f"results/data/{ds_id}/seed{{seed}}.parquet"]
        for ds_id in self.generated:
            args += ["--seed", ",".join(str(s) for s in self.datasets[ds_id].seeds)]
        return args

    def prepare_fixed(self) -> tuple[list[str], list[str]]:
        """(inputs, arguments) of the one ``mabench prepare`` that writes every fixed data set."""
        raws = {f"results/data/raw/{ds.raw}" for ds in self.datasets.values() if ds.kind == "fetched"}
        files = {ds.file for ds in self.datasets.values() if ds.kind == "file"}
        args = [self.datasets[ds_id].spec for ds_id in self.fixed]
        for ds_id in self.fixed:
            args += ["--out", self.data_file(ds_id, 0)]
        for raw, name in self.raw_files.items():
            args += ["--raw", f"{name}=results/data/raw/{raw}"]
        return sorted(raws | files), [*args, "--seed", "0"]

    # ------------------------------------------------------------------ regression cells
    def regression_batches(self, only: set[str] | None = None):
        """(dataset_id, spec, algo_id, algorithm, params, ks) of every algorithm id on the catalog data
        sets, at seed 0 (``mabench regress``): at every k of the data set, or at those of the id's own
        `k` list where it has one (a setting chosen for those k: lns with 12-record regions cannot run
        at k = 10, and lns's default regions cost minutes at k = 4 and 5)."""
        for ds_id, ds in self.datasets.items():
            if ds.kind != "fetched":
                continue
            for a in ds.algorithms:
                if only is None or a in only:
                    algo = self.algorithms[a]
                    yield ds_id, ds.spec, a, algo.algorithm, algo.params, self.algo_ks(ds_id, a)


# ---------------------------------------------------------------------- building
def build(config: dict) -> Plan:
    """The plan of a configuration (the schema's defaults filled in for what it leaves out:
    :func:`mabench.bench.config.with_defaults`); every problem the schema cannot see is collected and
    raised as one UserError."""
    from mabench.bench.config import with_defaults
    from mabench.metrics import parse_names

    config = with_defaults(config)

    problems: list[str] = []
    catalog = fetch.catalog()
    generators = discovery.generators()
    root_seed = config["root_seed"]
    default_k = list(config["k"])
    default_metrics = list(config["metrics"])
    algo_cfg = config.get("algorithms") or {}

    params_of: dict[str, dict[str, str]] = {}
    for algo_id, entry in algo_cfg.items():
        params = {str(k): str(v) for k, v in (entry.get("params") or {}).items()}
        try:
            discovery.algorithm(entry["algorithm"]).resolve(params)
        except UserError as exc:
            problems.append(f"algorithms.{algo_id}: {exc}")
        params_of[algo_id] = params
    try:
        parse_names(",".join(default_metrics))
    except UserError as exc:
        problems.append(f"metrics: {exc}")

    datasets = {}
    everywhere = [a for a, e in algo_cfg.items() if e.get("on_every_dataset", True)]
    for ds_id, entry in (config.get("datasets") or {}).items():
        ds = _dataset(ds_id, entry, root_seed, default_k, default_metrics, everywhere, algo_cfg,
                      catalog, generators, problems)
        if ds is not None:
            datasets[ds_id] = ds

    algorithms = {}
    for algo_id, entry in algo_cfg.items():
        try:
            deterministic = discovery.algorithm(entry["algorithm"]).deterministic
        except UserError:
            continue
        # A randomized method runs several seeds on fixed data too (its own draws); on generated data
        # each draw's seed also seeds the algorithm.
        seeds = [0] if deterministic else cell_seeds(root_seed, entry.get("seeds", config["algorithm_seeds"]))
        only = entry.get("k")
        algorithms[algo_id] = AlgorithmEntry(algo_id, entry["algorithm"], params_of[algo_id],
                                             list(only) if only is not None else None, seeds)
    if problems:
        raise ConfigError(problems)

    plan = Plan(config, datasets, algorithms)
    plan.jobs.extend(_jobs(plan, int(config["algorithms_per_job"]), int(config["records_per_job"])))
    return plan


def _jobs(plan: Plan, size: int, pack: int) -> list[Job]:
    """Groups of at most ``size`` algorithm ids per data set; a group of less than ``pack`` records ×
    cells joins the current pack while the pack stays within ``pack`` (configuration order, so a
    configuration always gives the same jobs)."""
    jobs: list[Job] = []
    packed: list[tuple[str, list[str]]] = []
    packed_cells: list[str] = []
    packed_work = packs = 0

    def close_pack():
        nonlocal packed, packed_cells, packed_work, packs
        if packed:
            jobs.append(Job(f"packed/part{packs}", packed, packed_cells, _priority(packed_work)))
            packs += 1
        packed, packed_cells, packed_work = [], [], 0

    for ds_id, ds in plan.datasets.items():
        for part, start in enumerate(range(0, len(ds.algorithms), size)):
            ids = ds.algorithms[start: start + size]
            cells = plan.cells_of(ds_id, ids)
            work = (ds.n or 1) * len(cells)
            if ds.n is None or work >= pack:
                jobs.append(Job(f"{ds_id}/part{part}", [(ds_id, ids)], cells, _priority(work)))
                continue
            if packed_work + work > pack:
                close_pack()
            packed.append((ds_id, ids))
            packed_cells += cells
            packed_work += work
    close_pack()
    return _ranked(jobs)


def _priority(work: int) -> int:
    """Largest jobs first (longest-processing-time order): on a few cores a big job started last
    is a tail nobody can share. Work grows at least with records × cells; the size class is its log."""
    import math

    return int(10 * math.log10(max(1, work)))


def _ranked(jobs: list[Job]) -> list[Job]:
    """Distinct priorities: larger size classes first, and within a class configuration order.
    Snakemake starts equal priorities in any order, and packed jobs all fall in the class of the pack
    limit although their cost differs: the default configuration's first pack (the real data sets'
    many search cells) is its longest job, and started last it would be a tail of minutes."""
    order = sorted(range(len(jobs)), key=lambda i: (-jobs[i].priority, i))
    rank = {i: len(jobs) - at for at, i in enumerate(order)}
    return [replace(job, priority=rank[i]) for i, job in enumerate(jobs)]


def _dataset(ds_id, entry, root_seed, default_k, default_metrics, everywhere, algo_cfg, catalog, generators,
             problems) -> DatasetEntry | None:
    from mabench.metrics import parse_names

    where = f"datasets.{ds_id}"
    before = len(problems)
    try:  # `columns: [a, b]` is the selection `spec[columns=a+b]`
        spec = data.with_columns(entry["spec"].strip(), entry.get("columns"), flag=f"{where}.columns")
    except UserError as exc:
        problems.append(str(exc))
        return None
    draws = entry.get("draws", 1)
    kind, name, raw, file = None, None, None, None
    if data.file_of(spec) is not None:
        kind, file = "file", data.file_of(spec)
        if not os.path.exists(file):
            problems.append(f"{where}: spec {spec!r} looks like a file path but does not exist")
    else:
        try:
            name, params = data.parse_spec(spec)
        except UserError as exc:
            problems.append(f"{where}: {exc}")
            return None
        if name in catalog:
            kind, raw = "fetched", catalog[name]["file"]
            try:
                rest, _ = data.split_selection(spec, params)
            except UserError as exc:
                problems.append(f"{where}: {exc}")
                return None
            if rest:
                problems.append(f"{where}: fetched data set {name!r} takes only columns= or drop=, got {spec!r}")
        elif name in generators:
            kind = "generated"
            try:
                generators[name].resolve(params)
            except UserError as exc:
                problems.append(f"{where}: {exc}")
        else:
            problems.append(f"{where}: unknown data set {name!r}; available: "
                            f"{', '.join(sorted(set(catalog) | set(generators)))}")
            return None
    if kind != "generated" and draws != 1:
        problems.append(f"{where}: draws={draws} but {spec!r} is fixed data (only generated data sets have draws); "
                        "remove `draws`")
    ds = DatasetEntry(
        id=ds_id, spec=spec, kind=kind, name=name, raw=raw, file=file,
        seeds=cell_seeds(root_seed, draws) if kind == "generated" else [0],
        k=list(entry.get("k", default_k)),
        algorithms=list(entry.get("algorithms", everywhere)),
        metrics=list(entry.get("metrics", default_metrics)),
    )
    if len(problems) == before:  # only for a data set that is otherwise valid
        try:
            n = _n_records(ds, catalog, generators)
        except UserError as exc:
            problems.append(f"{where}: {exc}")
            n = None
        too_big = [k for k in ds.k if n is not None and k > n]
        if too_big:
            problems.append(f"{where}: k={too_big[0]} is larger than the data set's n={n} records; use k <= {n}")
        ds = replace(ds, n=n)
    for algo_id in ds.algorithms:
        if algo_id not in algo_cfg:
            problems.append(f"{where}.algorithms: {algo_id!r} is not an id under `algorithms` "
                            f"(known: {', '.join(algo_cfg)})")
    if len(problems) == before:
        problems += _data_problems(ds, algo_cfg)
    if "metrics" in entry:
        try:
            parse_names(",".join(entry["metrics"]))
        except UserError as exc:
            problems.append(f"{where}.metrics: {exc}")
    return ds


def _n_records(ds: DatasetEntry, catalog, generators) -> int | None:
    """The number of records of a configured data set, known before any job runs (k > n is a config error)."""
    if ds.kind == "fetched":
        return int(catalog[ds.name]["n"])
    if ds.kind == "generated":
        name, params = data.parse_spec(ds.spec)
        resolved = generators[name].resolve(data.split_selection(ds.spec, params)[0])
        if "n" in resolved:
            return int(resolved["n"])
        if "clusters" in resolved and "per_cluster" in resolved:
            return int(resolved["clusters"]) * int(resolved["per_cluster"])
    if ds.kind == "file" and not os.path.exists(ds.file):
        return None
    return int(data.load(ds.spec, 0, missing=True).values.shape[0])  # a run may take missing=available


def _data_problems(ds: DatasetEntry, algo_cfg: dict) -> list[str]:
    """What a data set cannot give its algorithms and metrics, found before any job runs, as a run
    would find them (``layout.layout_for``, ``data.metric_defaults``): a `sampling_weights` or
    `strata` column it lacks (a file: read; a catalog set: its listed columns), strata of a file with
    fewer records than the largest k, and a metric that needs key variables where the data set
    defines none (the workflow passes no metric options: they come from the data set). Generated
    sets' columns are known only once drawn: not checked here."""
    import numpy as np

    from mabench.bench.layout import layout_for
    from mabench.metrics import REGISTRY, applicable, parse_names
    from mabench.plugin import split_aggregation

    where = f"datasets.{ds.id}"
    problems = []
    for algo_id in ds.algorithms if ds.kind in ("file", "fetched") else ():
        entry = algo_cfg[algo_id]
        params = {str(k): str(v) for k, v in (entry.get("params") or {}).items()}
        try:
            algo = discovery.algorithm(entry["algorithm"])
            _, agg = split_aggregation(algo.resolve(params), algo.params)
        except UserError:
            continue  # reported under algorithms.<id>
        if not (agg["sampling_weights"] or agg["strata"]):
            continue
        strata = tuple(c.strip() for c in str(agg["strata"]).replace(",", "+").split("+") if c.strip())
        try:
            if ds.kind == "file":
                source = data.load(ds.spec, 0, aside=strata, missing=True)
            else:
                source = _catalog_columns(ds)
            _, layout = layout_for(source, agg, source.aside or None)
        except UserError as exc:
            problems.append(f"{where} with algorithms.{algo_id}: {exc}; fix the column name in "
                            f"algorithms.{algo_id}.params or give {algo_id} only data sets that have it")
            continue
        ks = [k for k in ds.k if entry.get("k") is None or k in entry["k"]]
        if layout.strata is not None and layout.strata.size and ks:
            sizes = np.bincount(layout.strata)
            if int(sizes.min()) < max(ks):
                s = int(np.argmin(sizes))
                problems.append(
                    f"{where} with algorithms.{algo_id}: strata={agg['strata']} makes {sizes.size} strata and "
                    f"stratum {layout.stratum_names[s]} has {int(sizes[s])} record(s), fewer than k={max(ks)}; "
                    "stratify by a column with few values (a category, not a measurement) or lower k")
    try:
        names = parse_names(",".join(ds.metrics))
    except UserError:
        names = []  # reported as the metrics' own problem
    keyed = [m for m in names if REGISTRY[m].needs_key_variables]
    if keyed:
        if ds.kind in ("file", "fetched"):  # a file is named by its stem; both with their selected columns
            source = data.load(ds.spec, 0, missing=True) if ds.kind == "file" else _catalog_columns(ds)
            options = data.metric_defaults(source.name, source.columns)
        else:
            options = data.metric_defaults(ds.name or data.parse_spec(ds.spec)[0])
        lacking = [m for m in keyed if m not in applicable(options)]
        if lacking:
            problems.append(f"{where}: metric {lacking[0]} needs key variables and {ds.spec!r} defines none (the "
                            f"workflow passes no metric options); remove {lacking[0]} from {where}.metrics or the "
                            "top-level `metrics`, or use a data set that names key variables (e.g. census)")
    return problems


def _catalog_columns(ds: DatasetEntry):
    """A catalog data set with no records and its listed columns, selection applied: what a run's
    columns will be, known without fetching the data."""
    import numpy as np

    columns = list(fetch.catalog()[ds.name]["columns"])
    empty = data.Dataset(ds.name, np.empty((0, len(columns))), columns, {}, 0, {})
    return data.select_columns(empty, data.split_selection(ds.spec, data.parse_spec(ds.spec)[1])[1], ds.spec)
