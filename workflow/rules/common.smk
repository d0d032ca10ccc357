# Configuration, the cell list and helpers shared by every stage.
#
# A cell is (data set id, algorithm id, k, seed). Cells are computed in batches: one job per
# (data set id, algorithm id) runs every draw and every k in one process (see run.smk), and
# writes each cell's own files
#   results/cells/{dataset_id}/{algo_id}/seed{seed}/k{k}.json   (run record with its metrics)
#   results/cells/{dataset_id}/{algo_id}/seed{seed}/k{k}.csv    (the partition)
# so a missing or damaged cell re-runs its batch, whose finished cells come from the cell cache.

import json
import mimetypes
import os
import shlex
import shutil
import sys

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from mabench.bench.config_check import check_config
from mabench.data.seeds import cell_seeds


check_config(config, workflow.configfiles, os.path.join(workflow.basedir, "workflow", "schemas", "config.schema.yaml"))
validate(config, "../schemas/config.schema.yaml")


# Rules call `mabench` by name. Put the command installed beside the Python running Snakemake
# first on PATH, so that .venv/bin/snakemake works without an activated virtualenv (jobs inherit it).
def _put_mabench_on_path():
    bindir = os.path.dirname(sys.executable)
    if os.access(os.path.join(bindir, "mabench"), os.X_OK):
        os.environ["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
    elif shutil.which("mabench") is None:
        raise WorkflowError(
            "cannot find the `mabench` command; install the package into the environment that runs "
            "Snakemake (`make env`, then use .venv/bin/snakemake)"
        )


envvars:
    "PATH",


_put_mabench_on_path()
PUBLISHED = os.path.join(workflow.basedir, "config", "published.csv")
# So that `snakemake --report` offers results.parquet as a download instead of inlining it as text.
mimetypes.add_type("application/vnd.apache.parquet", ".parquet")


wildcard_constraints:
    dataset_id=r"[A-Za-z][A-Za-z0-9_-]*",
    algo_id=r"[A-Za-z][A-Za-z0-9_-]*",
    k=r"[0-9]+",
    seed=r"[0-9]+",


# ---------------------------------------------------------------- checks against the plugins
def _n_records(info, catalog, generators):
    """The number of records of a configured data set, known before any job runs (k > n is a config error)."""
    from mabench import data

    spec = info["spec"]
    if info["kind"] == "fetched":
        return int(catalog[info["name"]]["n"])
    if info["kind"] == "generated":
        name, params = data.parse_spec(spec)
        resolved = generators[name].resolve(data.split_selection(spec, params)[0])
        if "n" in resolved:
            return int(resolved["n"])
        if "clusters" in resolved and "per_cluster" in resolved:
            return int(resolved["clusters"]) * int(resolved["per_cluster"])
    if info["kind"] == "file" and not os.path.exists(info["file"]):
        return None
    return int(data.load(spec, 0).values.shape[0])


def _check_plugins(cfg):
    """What the schema cannot check: plugin names, parameters, metric names, cross references."""
    from mabench import data, discovery as plugins
    from mabench.data import fetch
    from mabench.errors import UserError
    from mabench.metrics import parse_names

    problems = []
    catalog = fetch.catalog()
    generators = plugins.generators()

    algos = {}
    for algo_id, entry in cfg["algorithms"].items():
        params = {str(k): str(v) for k, v in (entry.get("params") or {}).items()}
        try:
            plugins.algorithm(entry["algorithm"]).resolve(params)
        except UserError as exc:
            problems.append(f"algorithms.{algo_id}: {exc}")
        algos[algo_id] = {"algorithm": entry["algorithm"], "params": params, "k": entry.get("k")}

    try:
        parse_names(",".join(cfg["metrics"]))
    except UserError as exc:
        problems.append(f"metrics: {exc}")

    datasets = {}
    for ds_id, entry in cfg["datasets"].items():
        where = f"datasets.{ds_id}"
        known_problems = len(problems)
        spec = entry["spec"].strip()
        draws = entry.get("draws", 1)
        info = {"spec": spec, "raw": None, "file": None}
        if data.looks_like_path(spec):
            info["kind"] = "file"
            info["file"] = spec
            if not os.path.exists(spec):
                problems.append(f"{where}: spec {spec!r} looks like a file path but does not exist")
        else:
            try:
                name, params = data.parse_spec(spec)
            except UserError as exc:
                problems.append(f"{where}: {exc}")
                continue
            if name in catalog:
                info["kind"] = "fetched"
                info["name"] = name
                info["raw"] = catalog[name]["file"]
                try:
                    rest, _ = data.split_selection(spec, params)
                except UserError as exc:
                    problems.append(f"{where}: {exc}")
                    continue
                if rest:
                    problems.append(f"{where}: fetched data set {name!r} takes only columns= or drop=, got {spec!r}")
            elif name in generators:
                info["kind"] = "generated"
                try:
                    generators[name].resolve(params)
                except UserError as exc:
                    problems.append(f"{where}: {exc}")
            else:
                problems.append(
                    f"{where}: unknown data set {name!r}; available: {', '.join(sorted(set(catalog) | set(generators)))}"
                )
                continue
        if info["kind"] != "generated" and draws != 1:
            problems.append(
                f"{where}: draws={draws} but {spec!r} is fixed data (only generated data sets have draws); remove `draws`"
            )
        info["seeds"] = cell_seeds(cfg["root_seed"], draws) if info["kind"] == "generated" else [0]
        info["fixed"] = info["kind"] != "generated"
        info["k"] = list(entry.get("k", cfg["k"]))
        n = None
        if len(problems) == known_problems:  # only for a data set that is otherwise valid
            try:
                n = _n_records(info, catalog, generators)
            except UserError as exc:
                problems.append(f"{where}: {exc}")
        too_big = [k for k in info["k"] if n is not None and k > n]
        if too_big:
            problems.append(f"{where}: k={too_big[0]} is larger than the data set's n={n} records; use k <= {n}")
        everywhere = [a for a, e in cfg["algorithms"].items() if e.get("on_every_dataset", True)]
        info["algorithms"] = list(entry.get("algorithms", everywhere))
        for algo_id in info["algorithms"]:
            if algo_id not in cfg["algorithms"]:
                problems.append(
                    f"{where}.algorithms: {algo_id!r} is not an id under `algorithms` "
                    f"(known: {', '.join(cfg['algorithms'])})"
                )
        info["metrics"] = list(entry.get("metrics", cfg["metrics"]))
        if "metrics" in entry:
            try:
                parse_names(",".join(entry["metrics"]))
            except UserError as exc:
                problems.append(f"{where}.metrics: {exc}")
        datasets[ds_id] = info

    for algo_id, entry in cfg["algorithms"].items():
        seeds = entry.get("seeds", cfg["algorithm_seeds"])
        try:
            deterministic = plugins.algorithm(entry["algorithm"]).deterministic
        except UserError:
            continue
        # A randomized method runs several seeds on fixed data too (its own draws); on generated data
        # each draw's seed also seeds the algorithm.
        algos[algo_id]["fixed_seeds"] = [0] if deterministic else cell_seeds(cfg["root_seed"], seeds)

    if problems:
        raise WorkflowError("Invalid workflow configuration:\n  " + "\n  ".join(problems))
    return algos, datasets


ALGORITHMS, DATASETS = _check_plugins(config)

def batch_seeds(ds_id, algo_id):
    """Repetition seeds of one batch: the data draws, or the algorithm's seeds on fixed data."""
    ds = DATASETS[ds_id]
    return ALGORITHMS[algo_id]["fixed_seeds"] if ds["fixed"] else ds["seeds"]


def data_file(ds_id, seed):
    ds = DATASETS[ds_id]
    return f"results/data/{ds_id}/seed{0 if ds['fixed'] else seed}.parquet"


def algo_ks(ds_id, algo_id):
    """The k values of one algorithm on one data set: the data set's k, restricted to the
    algorithm's own `k` list if it has one."""
    only = ALGORITHMS[algo_id]["k"]
    return [k for k in DATASETS[ds_id]["k"] if only is None or k in only]


# Every (data set, algorithm) batch and cell of the configuration, in config order.
BATCHES = [(ds_id, algo_id) for ds_id, ds in DATASETS.items() for algo_id in ds["algorithms"]]
CELLS = [
    f"{ds_id}/{algo_id}/seed{seed}/k{k}"
    for ds_id, algo_id in BATCHES
    for seed in batch_seeds(ds_id, algo_id)
    for k in algo_ks(ds_id, algo_id)
]
CELL_RECORDS = [f"results/cells/{c}.json" for c in CELLS]
CELL_PARTITIONS = [f"results/cells/{c}.csv" for c in CELLS]


def _jobs():
    """One job per data set and group of at most `algorithms_per_job` of its algorithm ids."""
    size = config["algorithms_per_job"]
    out = []
    for ds_id, ds in DATASETS.items():
        ids = ds["algorithms"]
        for part, start in enumerate(range(0, len(ids), size)):
            out.append((ds_id, part, ids[start : start + size]))
    return out


JOBS = _jobs()
BENCHMARKS = [f"results/benchmarks/{ds_id}/part{part}.tsv" for ds_id, part, _ in JOBS]
FIXED = [ds_id for ds_id, ds in DATASETS.items() if ds["fixed"]]
DATA_FILES = sorted({data_file(ds_id, s) for ds_id, ds in DATASETS.items() for s in ds["seeds"]})
RAW_FILES = {ds["raw"]: ds["name"] for ds in DATASETS.values() if ds["kind"] == "fetched"}

# The configuration as used (defaults filled in by the schema), written to results/config.yaml.
EFFECTIVE_CONFIG = yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=120)


# ---------------------------------------------------------------- helpers for the rules
def repair_damaged(wildcards):
    """Input function of the targets: runs while the DAG is built, before Snakemake decides what is
    missing, and deletes damaged intermediates (mabench/bench/verify.py) so their jobs are redone."""
    from mabench.bench import verify

    verify.repair("results", dry_run=workflow.dryrun)
    return []


def rule_name(*parts):
    """A rule name from config ids (which may contain '-')."""
    return "__".join(p.replace("-", "_") for p in parts)


def prepare_fixed_input():
    raws = {f"results/data/raw/{ds['raw']}" for ds in DATASETS.values() if ds["kind"] == "fetched"}
    files = {ds["file"] for ds in DATASETS.values() if ds["kind"] == "file"}
    return sorted(raws | files)


def prepare_fixed_args():
    """Every fixed data set (catalog sets, their column selections, files) in one process."""
    args = [shlex.quote(DATASETS[ds_id]["spec"]) for ds_id in FIXED]
    args += [f"--out {shlex.quote(data_file(ds_id, 0))}" for ds_id in FIXED]
    fetched = {d["name"]: d["raw"] for d in DATASETS.values() if d["kind"] == "fetched"}
    args += [f"--raw {shlex.quote(f'{name}=results/data/raw/{raw}')}" for name, raw in fetched.items()]
    return " ".join([*args, "--seed 0"])


def job_cells(ds_id, algo_ids):
    """The cells of one batch job."""
    return [f"{ds_id}/{a}/seed{s}/k{k}" for a in algo_ids for s in batch_seeds(ds_id, a) for k in algo_ks(ds_id, a)]


def job_plan(ds_id, part, algo_ids):
    """The plan a batch job runs (mabench.bench.batch.run_plan), as JSON for the shell."""
    plan = {
        "batch": f"{ds_id}/part{part}",
        "metrics": DATASETS[ds_id]["metrics"],
        "runs": [
            {
                "algorithm": ALGORITHMS[a]["algorithm"],
                "params": ALGORITHMS[a]["params"],
                "draws": [[s, data_file(ds_id, s)] for s in batch_seeds(ds_id, a)],
                "k": algo_ks(ds_id, a),
                "cells_dir": f"results/cells/{ds_id}/{a}",
            }
            for a in algo_ids
        ],
    }
    return json.dumps(plan, separators=(",", ":"))
