"""The workflow's commands: `compile` (every kernel of a configuration, once, before the batches),
`warmup` (the kernels of named methods, ahead of a first call),
`batch` (one job's plan: algorithms x draws x k), `aggregate` (the cells into one results table) and
`workflow` (the packaged Snakefile run on the working directory, from an installed mabench)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from mabench.cli.common import PENDING, Command, existing, json_line, print_json
from mabench.cli.process import STARTED, cpu_seconds
from mabench.errors import UserError

_PLAN_SHAPE = ("--plan must be a JSON object with a list `runs` (written by the workflow, "
               "workflow/rules/run.smk); to run cells yourself use `mabench run ALGO DATA -k 3,4,5`")


def _plan_json(text: str) -> dict:
    try:
        return _checked_plan(json.loads(text))
    except json.JSONDecodeError:
        raise UserError(_PLAN_SHAPE) from None


def _checked_plan(plan) -> dict:
    try:
        if not isinstance(plan["runs"], list):
            raise TypeError
    except (KeyError, TypeError):
        raise UserError(_PLAN_SHAPE) from None
    return plan


def _job_plan(path: str, job: str) -> dict:
    from pathlib import Path

    try:
        jobs = json.loads(Path(path).read_text(encoding="utf-8"))["jobs"]
    except OSError as exc:
        raise UserError(f"cannot read --plans {path}: {exc.strerror or exc}; the workflow writes it "
                        "(`mabench compile --plans-out`)") from None
    except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
        raise UserError(f"--plans {path} is not a plans file (a JSON object with `jobs`, written by "
                        "`mabench compile --plans-out`)") from None
    if not isinstance(jobs, dict) or job not in jobs:
        raise UserError(f"--job {job!r} is not a job of {path}; give one of its `jobs` (the workflow's compile "
                        "step rewrites the file when the configuration changes)")
    return _checked_plan(jobs[job])


def _batch_arguments(s) -> None:
    s.add_argument("--plan", help="JSON plan (see mabench.bench.batch.run_plan)")
    s.add_argument("--plans", help="or a file of every job's plan (`mabench compile --plans-out`) ...")
    s.add_argument("--job", help="... and the name of the job to run from it")
    s.add_argument("--cache-dir", help="cell cache: finished cells are copied from here, never recomputed")
    s.add_argument("--benchmark-out", help="write the job's wall and CPU seconds and peak memory here (TSV)")
    s.add_argument("--follow", help="(the lead job) before each run, wait until the compile step that writes this "
                   "progress file has compiled it (`mabench compile --progress-out`)")


def cmd_batch(args) -> None:
    from mabench.bench import batch
    from mabench.metrics import parse_names

    if (args.plan is None) == (args.plans is None) or (args.plans is not None) != (args.job is not None):
        raise UserError("give either --plan JSON, or --plans FILE with --job NAME (written by `mabench compile "
                        "--plans-out`); to run cells yourself use `mabench run ALGO DATA -k 3,4,5`")
    plan = _job_plan(args.plans, args.job) if args.plans is not None else _plan_json(args.plan)
    plan["metrics"] = parse_names(",".join(plan.get("metrics") or ["il"]))
    for run in plan["runs"]:
        if isinstance(run, dict) and "metrics" in run:
            run["metrics"] = parse_names(",".join(run["metrics"] or ["il"]))
    cells, computed = batch.run_plan(plan, args.cache_dir, follow=args.follow)
    # the process's whole CPU time (start-up, imports and loading kernels included): its log then shows
    # what the job cost beyond its cells' own seconds
    print_json({"batch": plan.get("batch"), "cells": cells, "computed": computed,
                 "cpu_seconds": round(cpu_seconds(), 3)})
    if args.benchmark_out:
        _write_benchmark(args.benchmark_out)


BATCH = Command("batch", help="(workflow) run a job's plan: algorithms x draws x k; one file pair per cell",
              arguments=_batch_arguments, body=cmd_batch, all_or_nothing=False)


def _write_benchmark(path: str) -> None:
    """The job's wall seconds since the command started, its CPU seconds and its peak memory (MB), in
    the columns of a Snakemake benchmark file (``s``, ``cpu_time``, ``max_rss``): measured by the
    process itself, where Snakemake would sample it with psutil twice a second."""
    from mabench import io
    from mabench.bench.runner import peak_rss_mb

    peak_mb = peak_rss_mb()
    io.write_text(path, f"s\tcpu_time\tmax_rss\n{time.perf_counter() - STARTED:.2f}\t{cpu_seconds():.2f}"
                        f"\t{peak_mb:.2f}\n")


def _compile_arguments(s) -> None:
    s.add_argument("--config", required=True, help="workflow config whose data files exist (the workflow passes "
                   "results/config.yaml)")
    s.add_argument("--json-out", help="also write the JSON summary to this file")
    s.add_argument("--plans-out", help="also write every batch job's plan to this file (`mabench batch --plans`)")
    s.add_argument("--jobs", type=int, default=1, help="compile in this many processes at once (default 1)")
    s.add_argument("--progress-out", help="rewrite this file as the runs are compiled, for the lead job "
                   "(`mabench batch --follow`)")


def _compile_paths(args) -> tuple[list, list]:
    return ([("--json-out", args.json_out), ("--plans-out", args.plans_out), ("--progress-out", args.progress_out)],
            existing("--config", args.config))


def cmd_compile(args) -> None:
    from mabench import io
    from mabench.bench import batch, config, plan

    if args.jobs < 1:
        raise UserError(f"--jobs {args.jobs}: give at least 1 process")
    built = plan.build(config.load(args.config))
    start = cpu_seconds()
    if args.plans_out:  # first: the batches need it even when a kernel fails to compile
        io.write_text(args.plans_out, built.plans_text())
    warmed = batch.compile_plan({"runs": built.compile_runs()}, jobs=args.jobs, progress_out=args.progress_out)
    line = json_line({"compiled": warmed, "cpu_seconds": round(cpu_seconds() - start, 3)})
    if args.json_out:
        io.write_text(args.json_out, line)
    PENDING.append(line)


COMPILE = Command("compile", help="(workflow) compile the kernels of every run of a configuration once, "
                    "before its batches start (Numba's on-disk cache)",
              arguments=_compile_arguments, body=cmd_compile, paths=_compile_paths)


def _warmup_arguments(s) -> None:
    s.add_argument("algorithm", nargs="*", help="methods to compile (default: mdav)")
    s.add_argument("--all", action="store_true", help="every method (takes minutes on a fresh install)")
    s.add_argument("--metrics", help="comma-separated metric names to compile too (default: il)")


def cmd_warmup(args) -> None:
    from mabench import discovery
    from mabench.bench.warmup import warm
    from mabench.metrics import parse_names

    names = sorted(discovery.algorithms()) if args.all else (args.algorithm or ["mdav"])
    start = cpu_seconds()
    warmed = warm(names, parse_names(args.metrics))
    PENDING.append(json_line({"warmed": warmed, "cpu_seconds": round(cpu_seconds() - start, 3)}))


WARMUP = Command("warmup", help="compile the kernels of methods and metrics ahead of their first call (kept in "
                 "Numba's cache: later calls start at once)", arguments=_warmup_arguments, body=cmd_warmup)


def _aggregate_arguments(s) -> None:
    s.add_argument("cells", nargs="+", help="cell records laid out as DATASET/ALGO/seedS/kK.json")
    s.add_argument("--cells-dir", required=True)
    s.add_argument("--benchmarks-dir", help="Snakemake benchmark TSV files of the batches, DATASET/ALGO.tsv")
    s.add_argument("--root-seed", type=int)
    s.add_argument("--config", help="the workflow config file (its hash is recorded)")
    s.add_argument("--out", required=True)


def _aggregate_paths(args) -> tuple[list, list]:
    ins = [x for cell in args.cells for x in existing("cell record", cell)] + existing("--config", args.config)
    return [("--out", args.out)], ins


def cmd_aggregate(args) -> None:
    from mabench.report import aggregate

    frame = aggregate.collect(args.cells, args.cells_dir, args.benchmarks_dir)
    aggregate.write(frame, args.out, args.root_seed, args.config)
    print_json({"rows": int(len(frame)), "out": args.out})


AGGREGATE = Command("aggregate", help="merge per-cell outputs into one results table (Parquet)",
              arguments=_aggregate_arguments, body=cmd_aggregate, paths=_aggregate_paths)


COMMANDS = [BATCH, COMPILE, AGGREGATE]


def workflow_folder() -> Path:
    """The folder of the Snakefile the workflow runs: inside an installed mabench (``mabench/_workflow``,
    pyproject.toml), else the checkout mabench was loaded from (an editable install)."""
    import mabench

    package = Path(mabench.__file__).resolve().parent
    for folder in (package / "_workflow", package.parent):
        if (folder / "Snakefile").is_file() and (folder / "workflow" / "rules").is_dir():
            return folder
    raise UserError(f"no Snakefile in the installed mabench ({package}); reinstall it (pip install 'mabench[all]')")


def _given(words: list[str], *options: str) -> bool:
    return any(w == o or w.startswith(o + "=") for w in words for o in options)


def snakemake_command(words: list[str], folder: Path, cwd: Path) -> list[str]:
    """Snakemake's command line for `mabench workflow WORDS`: the packaged Snakefile on the working
    directory, with the working directory's config.yaml (or config/config.yaml, else the bundled default)
    and the packaged local profile unless WORDS name their own; ``--workflow-profile default|slurm`` names
    a packaged profile when no such folder exists here."""
    from mabench import resources

    words = list(words)
    profiles = folder / "workflow" / "profiles"
    for i, word in enumerate(words[:-1]):
        if word == "--workflow-profile" and not (cwd / words[i + 1]).exists() and (profiles / words[i + 1]).is_dir():
            words[i + 1] = str(profiles / words[i + 1])
    extra = []
    if not _given(words, "--profile", "--workflow-profile"):
        extra.append(f"--workflow-profile={profiles / 'default'}")
    if not _given(words, "--configfile", "--configfiles"):
        mine = [cwd / "config.yaml", cwd / "config" / "config.yaml"]
        extra.append(f"--configfile={next((p for p in mine if p.is_file()), resources.config_path('config.yaml'))}")
    # NAME=VALUE forms: Snakemake's --configfile takes several values and would swallow a target after it
    return [sys.executable, "-m", "snakemake", "--snakefile", str(folder / "Snakefile"), *extra, *words]


def _workflow_arguments(s) -> None:
    s.add_argument("snakemake", nargs=argparse.REMAINDER, help="Snakemake's own arguments, passed on (e.g. -n, "
                   "--cores 4, --configfile my.yaml, --workflow-profile slurm, a target such as leaderboard)")


def cmd_workflow(args) -> None:
    import importlib.util
    import os

    if importlib.util.find_spec("snakemake") is None:
        raise UserError("Snakemake is not installed beside mabench; install it with pip install 'mabench[workflow]'")
    command = snakemake_command(args.snakemake, workflow_folder(), Path.cwd())
    sys.stdout.flush()
    sys.stderr.flush()
    # Snakemake takes over this process: its exit status, output and signal handling are the command's.
    os.execv(command[0], command)


WORKFLOW = Command("workflow", help="run the packaged Snakemake workflow on the working directory (mabench "
                   "workflow [snakemake args...]; config.yaml here, or --configfile)",
                   arguments=_workflow_arguments, body=cmd_workflow, passes_through=True)
