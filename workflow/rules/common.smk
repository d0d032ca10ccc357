# Configuration, the cell list and helpers shared by every stage.
#
# A cell is (data set id, algorithm id, k, seed). Cells are computed in batches: one job per
# (data set id, algorithm id) runs every draw and every k in one process (see run.smk), and
# writes each cell's own files
#   results/cells/{dataset_id}/{algo_id}/seed{seed}/k{k}.json   (run record with its metrics)
#   results/cells/{dataset_id}/{algo_id}/seed{seed}/k{k}.csv    (the partition)
# so a missing or damaged cell re-runs its batch, whose finished cells come from the cell cache.

import mimetypes
import os
import shlex
import shutil
import sys

import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from mabench.seeds import cell_seeds


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
def _is_path(spec):
    return spec.endswith((".csv", ".parquet", ".pq")) or "/" in spec or os.path.exists(spec)


def default_algorithms(cfg, ds_id):
    """Algorithm ids a data set without its own `algorithms` list runs: those not restricted elsewhere."""
    return [a for a, e in cfg["algorithms"].items() if "datasets" not in e or ds_id in e["datasets"]]


def _check_plugins(cfg):
    """What the schema cannot check: plugin names, parameters, metric names, cross references."""
    from mabench import data, fetch, plugins
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
        algos[algo_id] = {"algorithm": entry["algorithm"], "params": params}

    try:
        parse_names(",".join(cfg["metrics"]))
    except UserError as exc:
        problems.append(f"metrics: {exc}")

    datasets = {}
    for ds_id, entry in cfg["datasets"].items():
        where = f"datasets.{ds_id}"
        spec = entry["spec"].strip()
        draws = entry.get("draws", 1)
        info = {"spec": spec, "raw": None, "file": None}
        if _is_path(spec):
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
        info["algorithms"] = list(entry.get("algorithms", default_algorithms(cfg, ds_id)))
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

    for algo_id, entry in cfg["algorithms"].items():
        for ds_id in entry.get("datasets", []):
            if ds_id not in cfg["datasets"]:
                problems.append(
                    f"algorithms.{algo_id}.datasets: {ds_id!r} is not an id under `datasets` "
                    f"(known: {', '.join(cfg['datasets'])})"
                )

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


# Every batch and cell of the configuration, in config order.
BATCHES = [(ds_id, algo_id) for ds_id, ds in DATASETS.items() for algo_id in ds["algorithms"]]
CELLS = [
    f"{ds_id}/{algo_id}/seed{seed}/k{k}"
    for ds_id, algo_id in BATCHES
    for seed in batch_seeds(ds_id, algo_id)
    for k in DATASETS[ds_id]["k"]
]
CELL_RECORDS = [f"results/cells/{c}.json" for c in CELLS]
CELL_PARTITIONS = [f"results/cells/{c}.csv" for c in CELLS]
BENCHMARKS = [f"results/benchmarks/{ds_id}/{algo_id}.tsv" for ds_id, algo_id in BATCHES]
DATA_FILES = sorted({data_file(ds_id, s) for ds_id, ds in DATASETS.items() for s in ds["seeds"]})
RAW_FILES = {ds["raw"]: ds["name"] for ds in DATASETS.values() if ds["kind"] == "fetched"}

# The configuration as used (defaults filled in by the schema), written to results/config.yaml.
EFFECTIVE_CONFIG = yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=120)


# ---------------------------------------------------------------- helpers for the rules
def rule_name(*parts):
    """A rule name from config ids (which may contain '-')."""
    return "__".join(p.replace("-", "_") for p in parts)


def prepare_input(ds_id):
    ds = DATASETS[ds_id]
    if ds["kind"] == "fetched":
        return [f"results/data/raw/{ds['raw']}"]
    if ds["kind"] == "file":
        return [ds["file"]]
    return []


def prepare_args(ds_id):
    ds = DATASETS[ds_id]
    if ds["kind"] == "fetched":
        return f"{shlex.quote(ds['spec'])} --raw {shlex.quote(prepare_input(ds_id)[0])} --seed 0"
    if ds["kind"] == "file":
        return f"{shlex.quote(ds['spec'])} --seed 0"
    return f"{shlex.quote(ds['spec'])} --seed {','.join(str(s) for s in ds['seeds'])}"


def batch_args(ds_id, algo_id):
    params = ALGORITHMS[algo_id]["params"]
    args = [f"--param {shlex.quote(f'{k}={v}')}" for k, v in sorted(params.items())]
    args += [f"--draw {s}={shlex.quote(data_file(ds_id, s))}" for s in batch_seeds(ds_id, algo_id)]
    args += ["-k " + ",".join(str(k) for k in DATASETS[ds_id]["k"]),
             "--metrics " + ",".join(DATASETS[ds_id]["metrics"])]
    return " ".join(args)
