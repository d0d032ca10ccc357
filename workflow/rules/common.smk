# The workflow's configuration and its plan. The plan (data sets, algorithm ids, cells, batch jobs)
# is built once, in Python (mabench/bench/plan.py); the rules only read it. A cell is
# (data set id, algorithm id, seed, k); each batch job writes its cells' own files
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

from mabench import resources as mabench_resources
from mabench.bench import config as mabench_config
from mabench.bench import plan as mabench_plan
from mabench.errors import UserError


# extends resolved (config/full.yaml names only what it adds), checked, the schema's defaults filled in;
# then the plan. A configuration error is the user's input error: one line on stderr and exit status 2,
# as for the commands (Snakemake would print the exception with its frames).
try:
    mabench_config.prepare(config, workflow.configfiles)
    PLAN = mabench_plan.build(config)
except UserError as exc:
    print(f"mabench: {exc}", file=sys.stderr)
    sys.exit(2)


# Rules call `mabench` by name: the command installed beside the Python running Snakemake comes
# first on PATH, so .venv/bin/snakemake works without an activated virtualenv (jobs inherit it).
_bindir = os.path.dirname(sys.executable)
if os.access(os.path.join(_bindir, "mabench"), os.X_OK):
    os.environ["PATH"] = _bindir + os.pathsep + os.environ.get("PATH", "")
elif shutil.which("mabench") is None:
    raise WorkflowError("cannot find the `mabench` command; install the package into the environment that runs "
                        "Snakemake (`make env`, then use .venv/bin/snakemake)")


envvars:
    "PATH",


# The registry of the mabench that runs the workflow (a checkout's registry/, or the installed package's:
# `mabench workflow` runs a Snakefile that has no registry/ beside it).
PUBLISHED = str(mabench_resources.registry_path("published.csv"))
BEST_KNOWN_INDEX = str(mabench_resources.registry_path("best_known", "index.csv"))
# So that `snakemake --report` offers results.parquet as a download instead of inlining it as text.
mimetypes.add_type("application/vnd.apache.parquet", ".parquet")


wildcard_constraints:
    dataset_id=r"[A-Za-z][A-Za-z0-9_-]*",
    algo_id=r"[A-Za-z][A-Za-z0-9_-]*",
    k=r"[0-9]+",
    seed=r"[0-9]+",


CELL_RECORDS = [f"results/cells/{c}.json" for c in PLAN.cells]
BENCHMARKS = [f"results/benchmarks/{job.name}.tsv" for job in PLAN.jobs]
# One marker per batch job, what the targets ask for instead of the thousands of cell files: Snakemake
# matches every requested file against every output of its producer, which for every cell costs
# more than the rest of building the graph. A missing or damaged cell is asked for by name
# (cells_to_redo), so its batch still re-runs.
BATCH_DONE = {job.name: f"results/batches/{job.name}.done" for job in PLAN.jobs}
# Each batch job's plan digest and code hash (mabench/codehash.py), rewritten only when they change:
# an input of the job, so an edited plugin or kernel re-runs exactly the jobs that run it.
JOB_STAMPS = PLAN.write_job_stamps("results/batches")
# A batch's cell files are outputs of its job only once the job has finished (its marker exists).
# Until then the marker alone makes it run, and Snakemake does not track thousands of files it would
# otherwise mark incomplete and record metadata for, one file each (25 MB for the default run), and
# read back at every later start. Afterwards a missing or damaged cell re-runs its batch.
TRACKED_CELLS = {job.name: list(job.cells) if os.path.exists(BATCH_DONE[job.name]) else [] for job in PLAN.jobs}
TRACKED_CELL_FILES = [f"results/cells/{c}.{ext}" for cells in TRACKED_CELLS.values() for c in cells
                      for ext in ("json", "csv")]
# The configuration as used (defaults filled in by the schema), written to results/config.yaml.
EFFECTIVE_CONFIG = yaml.safe_dump(config, sort_keys=False, default_flow_style=None, width=120)


# Damaged intermediates (mabench/bench/verify.py) are deleted here, once, when the main process reads
# the workflow and before Snakemake decides what is missing, so their jobs are redone (a dry run only
# names them). Not in an input function: Snakemake may call one any number of times, in any order.
if workflow.is_main_process:
    from mabench.bench import verify as _verify

    DAMAGED = _verify.repair("results", dry_run=workflow.dryrun)
else:
    DAMAGED = []


def cells_to_redo(wildcards):
    """Input function of the targets: the cell files of finished batches that are missing or damaged,
    so that those batches re-run (an unfinished batch runs anyway). It only reads."""
    from mabench.bench import verify

    return verify.missing(TRACKED_CELL_FILES, DAMAGED)


def rule_name(*parts):
    """A rule name from config ids (which may contain '-')."""
    return "__".join(p.replace("-", "_") for p in parts)


def shell_args(args):
    return " ".join(shlex.quote(str(a)) for a in args)
