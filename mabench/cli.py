"""The ``mabench`` command: the contract shared by users, the workflow and the tests.

Every user error ends with exit status 2 and one line on stderr; outputs are
written atomically, so a failed command leaves nothing behind.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import time

from mabench.errors import EXIT_USAGE, UserError

_STARTED = time.perf_counter()  # the command's start, for `batch --benchmark-out`


EXIT_GATE = 1  # `mabench compare`: a regression gate failed (2 stays "bad input")


class GateFailed(Exception):
    """A regression gate of `mabench compare` or a check of `mabench check` failed (exit status 1, not a usage error)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        raise UserError(f"{self.prog}: {message} (see `{self.prog} --help`)")


def _params(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--param {item!r} must be NAME=VALUE, e.g. --param tail=2k")
        key, value = item.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _options(items: list[str]) -> dict:
    """--option NAME=VALUE, VALUE parsed as JSON when it is JSON (lists, numbers), else a string."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UserError(f"--option {item!r} must be NAME=VALUE, e.g. --option id_p=[1,2,3]")
        key, value = item.split("=", 1)
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value.strip()
    return out


_PENDING: list[str] = []  # what a command prints; written only after its files are committed


def _print_json(obj) -> None:
    _PENDING.append(_json(obj))


def _json(obj) -> str:
    """One line of strict JSON (a NaN or infinity is a bug: it would make the line unreadable)."""
    return json.dumps(obj, sort_keys=False, allow_nan=False) + "\n"


def _existing(what: str, path) -> list[tuple[str, str]]:
    """(what, path) when ``path`` names an existing file or folder (a catalog or generator name does not)."""
    import os

    return [(what, str(path))] if path and os.path.exists(str(path)) else []


def _results_inputs(what: str, path) -> list[tuple[str, str]]:
    """A results table given as a file or as a folder holding results.parquet."""
    import os

    if path and os.path.isdir(str(path)):
        return [(what, os.path.join(str(path), sub)) for sub in ("results.parquet", "results/results.parquet")
                if os.path.isfile(os.path.join(str(path), sub))]
    return _existing(what, path)


def _io_paths(args) -> tuple[list, list]:
    """Every command's (outputs, inputs), as (option, path) pairs: the one place the path rule reads."""
    c = args.command
    outs: list = []
    ins: list = []
    if c == "run":
        ks = [k.strip() for k in str(args.k).split(",") if k.strip()]
        outs = [("--out", args.out.replace("{k}", k)) for k in ks] if args.out else []
        outs += [("--masked-out", args.masked_out.replace("{k}", k)) for k in ks] if args.masked_out else []
        outs.append(("--json-out", args.json_out))
        ins = _existing("data", args.dataset)
    elif c == "evaluate":
        outs = [("--json-out", args.json_out)]
        ins = _existing("data", args.dataset) + _existing("partition", args.partition)
    elif c == "fetch":
        from mabench.data import fetch

        outs = [("--out", args.out)]
        ins = _existing("--url", args.url)
        try:
            ins += _existing("the vendored copy", fetch.vendored_path(args.name))
        except UserError:
            pass  # an unknown name is reported by the command itself
    elif c == "prepare":
        given = args.seed or ["0"]
        per_set = given if len(given) == len(args.out) else [given[0]] * len(args.out)
        outs = [("--out", o.replace("{seed}", x.strip())) for o, text in zip(args.out, per_set)
                for x in str(text).split(",") if x.strip()]
        for spec in args.dataset:
            ins += _existing("data", spec)
        for raw in args.raw or []:
            ins += _existing("--raw", raw) or _existing("--raw", raw.partition("=")[2])
    elif c == "compare":
        from mabench.report import published

        outs = [("--out", args.out), ("--cells-out", args.cells_out)]
        ins = _results_inputs("baseline", args.baseline) + _results_inputs("current", args.current)
        if args.published != "none":
            ins += _existing("--published", args.published or published.default_path())
    elif c == "compile":
        outs = [("--json-out", args.json_out), ("--plans-out", args.plans_out), ("--progress-out", args.progress_out)]
        ins = _existing("--config", args.config)
    elif c == "regress":
        from mabench import resources

        outs = [("--out", args.out)]
        ins = _existing("--config", args.config or resources.config_path("config.yaml"))
    elif c == "aggregate":
        outs = [("--out", args.out)]
        ins = [x for cell in args.cells for x in _existing("cell record", cell)] + _existing("--config", args.config)
    elif c in ("tables", "figures", "report"):
        ins = _existing("--results", args.results) + _existing("--published", getattr(args, "published", None))
    return [o for o in outs if o[1]], ins


def _guard_paths(args) -> None:
    """The path rule (docs/contract.md): no output of a command may be one of its inputs, after
    resolving symbolic and hard links, or a folder. Checked before any work; outputs written into a folder
    (tables, figures, report) are checked again as they are written."""
    from mabench import io

    outs, ins = _io_paths(args)
    io.check_clashes(outs, ins)
    io.protect(ins)


def _finite(option: str, value: float, low: float, strict: bool = False, high: float | None = None) -> float:
    """A numeric option: finite and in range (nan or inf would make a gate never fail, or run forever)."""
    import math

    if not math.isfinite(value) or (value <= low if strict else value < low) or (high is not None and value > high):
        bound = f"{'>' if strict else '>='} {low:g}" + (f" and <= {high:g}" if high is not None else "")
        raise UserError(f"{option} {value!r} must be a finite number {bound}")
    return value


# Commands that need an optional part of mabench: the extra and the modules it installs.
EXTRAS = {"report": ("matplotlib", "seaborn"), "workflow": ("snakemake",)}


def require_extra(command: str, extra: str) -> None:
    """One clear line when a command needs an extra that is not installed."""
    import importlib.util

    for module in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise UserError(f"mabench {command} needs the {extra} extra: pip install 'mabench[{extra}]'")


MASKED_SUFFIXES = (".csv", ".parquet")


def _run_params(args) -> dict[str, str]:
    """--param NAME=VALUE plus the aggregation shortcuts --measure, --weights and --strata."""
    params = _params(args.param)
    for flag, name, value in (("--measure", "measure", args.measure), ("--weights", "sampling_weights", args.weights),
                              ("--strata", "strata", args.strata)):
        if value is None:
            continue
        if name in params:
            raise UserError(f"{flag} and --param {name}= both given; give it once")
        params[name] = "+".join(c.strip() for c in value.split(",") if c.strip()) if name == "strata" else value
    return params


def cmd_list(args) -> None:
    from mabench import data, discovery

    if args.what == "algorithms":
        for name, algo in sorted(discovery.algorithms().items()):
            params = ", ".join(f"{p}={v.default}" for p, v in algo.params.items())
            print(f"{name}\t{algo.title}\t{params}\t{algo.citation}")
            if getattr(args, "long", False):
                print(f"  time: {algo.time or 'not declared'}\n  memory: {algo.memory or 'not declared'}")
    else:
        from mabench.data import fetch

        cat = fetch.catalog()
        gens = discovery.generators()
        for name in data.names():
            if name in cat:
                print(f"{name}\tfetched\t{cat[name]['title']}")
            else:
                params = ", ".join(f"{p}={v.default}" for p, v in gens[name].params.items())
                print(f"{name}\tgenerated\t{gens[name].title}\t{params}")


def cmd_run(args) -> None:
    from mabench import io
    from mabench.metrics import parse_names
    from mabench.bench.runner import parse_ks, run_cells

    metrics = parse_names(args.metrics)
    ks = parse_ks(args.k)
    if args.out and len(ks) > 1 and "{k}" not in args.out:
        raise UserError(f"--out {args.out!r} with several k values must contain {{k}}, e.g. --out part_k{{k}}.csv")
    if args.masked_out:
        if not args.masked_out.lower().endswith(MASKED_SUFFIXES):
            raise UserError(f"--masked-out {args.masked_out!r} must end in .csv or .parquet (the masked file's format)")
        if len(ks) > 1 and "{k}" not in args.masked_out:
            raise UserError(f"--masked-out {args.masked_out!r} with several k values must contain {{k}}, "
                            "e.g. --masked-out masked_k{k}.csv")
    from mabench.bench.progress import Progress

    if args.progress is not None and not args.progress > 0:
        raise UserError(f"--progress {args.progress} must be a positive number of seconds, e.g. --progress 10")
    progress = Progress.for_cli(args.progress)
    try:
        results = list(run_cells(args.algorithm, args.dataset, ks, args.seed, _run_params(args), metrics,
                                 _options(args.option), progress))
    finally:
        progress.close()
    lines = [_json(r.record) for r in results]  # one line per cell, printed once every file is written
    with io.outputs() as out:  # every file or none
        if args.out:
            for result in results:
                out.write_text(args.out.replace("{k}", str(result.record["k"])), io.partition_csv(result.labels))
        if args.masked_out:
            for result in results:
                target = args.masked_out.replace("{k}", str(result.record["k"]))
                frame = result.masked_frame()
                if target.lower().endswith(".parquet"):
                    out.write_parquet(target, frame)
                else:
                    out.write_text(target, frame.to_csv(index=False, lineterminator="\n"))
        if args.json_out:
            out.write_text(args.json_out, "".join(lines))
    _PENDING.extend(lines)


def cmd_evaluate(args) -> None:
    from mabench.metrics import parse_names
    from mabench.bench.runner import evaluate_partition

    metrics = parse_names(args.metrics) if args.metrics is not None else None
    record = evaluate_partition(args.dataset, args.partition, args.k, args.seed, metrics, _options(args.option))
    line = _json(record)
    if args.json_out:
        from mabench import io

        io.write_text(args.json_out, line)
    _PENDING.append(line)


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
    _print_json({"batch": plan.get("batch"), "cells": cells, "computed": computed,
                 "cpu_seconds": round(_cpu_seconds(), 3)})
    if args.benchmark_out:
        _write_benchmark(args.benchmark_out)


def _write_benchmark(path: str) -> None:
    """The job's wall seconds since the command started, its CPU seconds and its peak memory (MB), in
    the columns of a Snakemake benchmark file (``s``, ``cpu_time``, ``max_rss``): measured by the
    process itself, where Snakemake would sample it with psutil twice a second."""
    from mabench import io
    from mabench.bench.runner import peak_rss_mb

    peak_mb = peak_rss_mb()
    io.write_text(path, f"s\tcpu_time\tmax_rss\n{time.perf_counter() - _STARTED:.2f}\t{_cpu_seconds():.2f}"
                        f"\t{peak_mb:.2f}\n")


def cmd_compare(args) -> None:
    from mabench.report import compare, published
    from mabench import discovery, io

    _finite("--il-tolerance", args.il_tolerance, 0.0)
    _finite("--time-ratio", args.time_ratio, 0.0, strict=True)
    _finite("--min-seconds", args.min_seconds, 0.0)
    baseline, current = compare.read(args.baseline), compare.read(args.current)
    registry = published.load(args.published) if args.published != "none" else None
    deterministic = {name: algo.deterministic for name, algo in discovery.algorithms().items()}
    changed = [a.strip() for a in (args.changed or "").split(",") if a.strip()]
    if args.time_gate and args.no_time_gate:
        raise UserError("--time-gate and --no-time-gate both given; give one")
    # Times gate only between tables timed on the same machine in the same job, unless asked
    gate = args.time_gate or (not args.no_time_gate and compare.same_session(baseline, current))
    result = compare.compare(baseline, current, changed=changed, il_tolerance=args.il_tolerance,
                             time_ratio=args.time_ratio if gate else None,
                             min_seconds=args.min_seconds, registry=registry, deterministic=deterministic)
    text = compare.markdown(result, args.baseline, args.current)
    if args.out:
        io.write_text(args.out, text + "\n")
        if args.cells_out:
            io.write_text(args.cells_out, result.cells.to_csv(index=False))
    elif args.cells_out:
        io.write_text(args.cells_out, result.cells.to_csv(index=False))
    _PENDING.append(text + "\n")
    if not result.ok:
        raise GateFailed(len(result.failures))


def cmd_regress(args) -> None:
    from mabench import io
    from mabench.bench import regress

    frame = regress.run(args.config, only=args.algorithms, cache_dir=args.cache_dir)
    io.write_text(args.out, frame.to_csv(index=False))
    _print_json({"cells": int(len(frame)), "out": args.out})


def cmd_new(args) -> None:
    from mabench import scaffold

    files = scaffold.new_method(args.name, args.dir)
    _print_json({"written": [str(f) for f in files],
                 "next": f"MABENCH_HOME={args.dir} mabench check {args.name}; docs/method-authors.md"})


def cmd_check(args) -> None:
    from mabench import testing
    from mabench.bench.runner import parse_ks

    ks = parse_ks(args.k) if args.k else testing.DEFAULT_KS
    problems = testing.check_plugin(args.plugin, ks=ks, memory=args.memory)
    if problems:
        sys.stderr.write("".join(f"mabench: check failed: {line}\n" for line in problems))
        raise GateFailed(len(problems), "check")
    _print_json({"plugin": args.plugin, "passed": True, "k": list(ks), "memory": bool(args.memory)})


def cmd_compile(args) -> None:
    from mabench import io
    from mabench.bench import batch, plan

    if args.jobs < 1:
        raise UserError(f"--jobs {args.jobs}: give at least 1 process")
    built = plan.build(plan.load_config(args.config))
    start = _cpu_seconds()
    if args.plans_out:  # first: the batches need it even when a kernel fails to compile
        io.write_text(args.plans_out, built.plans_text())
    warmed = batch.compile_plan({"runs": built.compile_runs()}, jobs=args.jobs, progress_out=args.progress_out)
    line = _json({"compiled": warmed, "cpu_seconds": round(_cpu_seconds() - start, 3)})
    if args.json_out:
        io.write_text(args.json_out, line)
    _PENDING.append(line)


def cmd_fetch(args) -> None:
    from mabench.data import fetch

    info = fetch.fetch(args.name, args.out, url=args.url, use_vendor=not args.no_vendor)
    _print_json(info)


def cmd_prepare(args) -> None:
    from mabench import data, io

    if len(args.dataset) != len(args.out):
        raise UserError(f"give one --out per data set ({len(args.dataset)} data sets, {len(args.out)} --out)")
    raws = _raw_files(args.raw, args.dataset)
    given = args.seed or ["0"]
    if len(given) not in (1, len(args.dataset)):
        raise UserError(f"give --seed once (every data set) or once per data set ({len(args.dataset)} data sets, "
                        f"{len(given)} --seed)")
    seeds_of = [_seeds(text) for text in (given if len(given) > 1 else given * len(args.dataset))]
    for seeds, out in zip(seeds_of, args.out):
        if not out.lower().endswith(data.PARQUET_SUFFIXES):
            raise UserError(f"--out {out!r}: prepare writes Parquet; give a name ending in .parquet (e.g. "
                            f"{out.rsplit('.', 1)[0] if '.' in out.rsplit('/', 1)[-1] else out}.parquet)")
        if len(seeds) > 1 and "{seed}" not in out:
            raise UserError(f"--out {out!r} with several seeds must contain {{seed}}, e.g. --out d_{{seed}}.parquet")
    for spec, out_pattern, seeds in zip(args.dataset, args.out, seeds_of):
        for seed in seeds:
            ds = data.load(spec, seed, raw=raws.get(data.base_name(spec)))
            out = out_pattern.replace("{seed}", str(seed))
            io.write_parquet(out, ds.frame(), ds.metadata())
            _print_json({"dataset": ds.spec, "seed": ds.seed, "n": int(ds.values.shape[0]),
                         "d": int(ds.values.shape[1]), "out": out})


def _raw_files(items: list[str] | None, specs: list[str]) -> dict[str, str]:
    """--raw FILE (one data set) or --raw NAME=FILE (per catalog name) -> {catalog name: file}."""
    from mabench import data

    out = {}
    for item in items or []:
        name, sep, path = item.partition("=")
        if sep and not name.startswith((".", "/")) and "/" not in name:
            out[name] = path
        elif len(specs) == 1:
            out[data.base_name(specs[0])] = item
        else:
            raise UserError(f"--raw {item!r}: with several data sets, give --raw NAME=FILE per catalog name")
    return out


def _seeds(text: str) -> list[int]:
    """``--seed 7`` or ``--seed 7,8,9``: non-negative integers."""
    from mabench.data.seeds import check_seed

    out = []
    for item in str(text).split(","):
        try:
            seed = int(item)
        except ValueError:
            raise UserError(f"--seed {text!r}: {item!r} is not an integer; give e.g. --seed 0 or --seed 1,2,3") from None
        out.append(check_seed(seed))
    return out


def cmd_aggregate(args) -> None:
    from mabench.report import aggregate

    frame = aggregate.collect(args.cells, args.cells_dir, args.benchmarks_dir)
    aggregate.write(frame, args.out, args.root_seed, args.config)
    _print_json({"rows": int(len(frame)), "out": args.out})


def cmd_tables(args) -> None:
    from mabench.bench import provenance
    from mabench.report import published, tables

    results = tables.read_results(args.results)
    registry = published.load(args.published) if args.published else None
    commit = str(results["git_commit"].iloc[0]) if "git_commit" in results else provenance.git_commit()
    compared = tables.write_tables(results, args.out_dir, registry, commit)
    _print_json({"published": int(len(compared)),
                 **{v: int((compared["verdict"] == v).sum()) for v in tables.VERDICT_ORDER}})


def cmd_figures(args) -> None:
    require_extra("figures", "report")
    from mabench.report import figures, tables

    results = tables.read_results(args.results)
    written = (figures.il_vs_k(results, args.out_dir) + figures.ru_map(results, args.out_dir)
               + figures.anytime(results, args.out_dir))
    _print_json({"figures": [str(p) for p in written]})


def cmd_best_known(args) -> None:
    from mabench.report import best_known

    if args.action == "verify":
        report, problems = best_known.verify(args.dir)
        for rec in report.to_dict("records"):
            _print_json({"dataset": rec["dataset"], "k": int(rec["k"]), "il": float(rec["il"]),
                         "il_recomputed": float(rec["il_recomputed"]), "min_group": int(rec["min_group"]),
                         "max_group": int(rec["max_group"]), "ok": bool(rec["ok"])})
        if problems:
            raise UserError(f"{len(problems)} best-known entr{'y' if len(problems) == 1 else 'ies'} fail "
                            f"verification: " + "; ".join(problems))
    elif args.action == "improve":
        if not args.dataset or args.k is None:
            raise UserError("best-known improve needs DATASET and -k, e.g. `mabench best-known improve eia -k 3 --budget 60`")
        _print_json(best_known.improve(args.dataset, args.k, args.budget, args.seed, args.method, args.restarts,
                                       dissolve=args.dissolve, root=args.dir,
                                       **({} if args.neighbours is None else {"neighbours": args.neighbours})))
    else:
        if not args.out_dir:
            raise UserError("best-known table needs --out-dir")
        merged = best_known.table(args.out_dir, args.dir)
        _print_json({"cells": int(len(merged)), "at_or_below_published": int(merged["beats"].sum())})


def cmd_bound(args) -> None:
    from mabench.bench.runner import parse_ks
    from mabench.report import bounds

    _finite("--budget", args.budget, 0, strict=True, high=1e7)
    start = bounds.registry_start(args.dataset, args.dir) if args.method in ("lp", "tail") else None
    records = bounds.compute(args.dataset, parse_ks(args.k), args.seed, method=args.method, budget=args.budget,
                             start=start)
    if args.store:
        bounds.store(records, args.dir)
    for rec in records:
        _print_json(rec)


def cmd_report(args) -> None:
    require_extra("report", "report")
    from mabench.report import pages, published, tables

    results = tables.read_results(args.results)
    registry = published.load(args.published) if args.published else None
    pages_written = pages.write_report(results, args.out_dir, registry)
    _print_json({"pages": [str(p) for p in pages_written]})


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mabench", description="Reproducible microaggregation benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("list", help="list algorithms or data sets")
    s.add_argument("what", choices=["algorithms", "datasets"])
    s.add_argument("--long", action="store_true", help="algorithms: also how time and memory grow with n")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("run", help="run one algorithm on one data set; print JSON")
    s.add_argument("algorithm")
    s.add_argument("dataset", help="catalog name, generator name[params], or CSV/Parquet path")
    s.add_argument("-k", required=True, help="minimum group size, or several: -k 3,4,5,10 (one JSON line per k)")
    s.add_argument("--seed", type=int, default=0, help="cell seed (data draw and algorithm randomness)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="algorithm parameter")
    s.add_argument("--metrics", help="comma-separated metric names (default: il)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--out", help="write the partition as CSV (header `group`); with several k, a path with {k}")
    s.add_argument("--json-out", help="also write the JSON records (one line per k) to this file")
    s.add_argument("--masked-out", metavar="FILE", help="write the masked data (.csv or .parquet): the data set's "
                   "columns, each variable replaced by its group's value; with several k, a path with {k}")
    s.add_argument("--measure", help="what a group publishes: mean (default), median, trim (with --param trim=0.1) "
                   "or onestep; same as --param measure=...")
    s.add_argument("--weights", metavar="COL", help="column of sampling weights (weighted group means or medians)")
    s.add_argument("--strata", metavar="COL,...", help="columns whose value combinations are microaggregated "
                   "separately (each must hold at least k records)")
    s.add_argument("--progress", type=float, nargs="?", const=10.0, metavar="SECONDS",
                   help="plain progress lines on stderr: one per finished phase and a heartbeat every SECONDS "
                        "(default 10); without it a terminal shows a live status line once a run passes 3 s")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("evaluate", help="compute metrics of a partition; print JSON")
    s.add_argument("dataset")
    s.add_argument("partition", help="CSV with header `group`, one label per data row")
    s.add_argument("-k", type=int, help="check that every group has at least k records")
    s.add_argument("--seed", type=int, default=None, help="seed of a generated data set (required for one)")
    s.add_argument("--metrics", help="comma-separated metric names (default: every metric that applies "
                   "to the data set; rld, g_dr and si need key variables)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--json-out", help="also write the JSON record to this file")
    s.set_defaults(func=cmd_evaluate)

    s = sub.add_parser("fetch", help="fetch a catalog data set's upstream file (vendored copy first)")
    s.add_argument("name")
    s.add_argument("--out", required=True, help="where to write the verified upstream file")
    s.add_argument("--url", help="download from this URL instead of the catalog's")
    s.add_argument("--no-vendor", action="store_true", help="ignore the vendored copy and download")
    s.set_defaults(func=cmd_fetch)

    s = sub.add_parser("prepare", help="write data sets (catalog, generated or file) as tidy Parquet")
    s.add_argument("dataset", nargs="+", help="one or more data sets, each with its --out")
    s.add_argument("--seed", action="append", help="draw seed, or several (1,2,3) with {seed} in --out; once for "
                   "every data set or once per data set, in order (default 0)")
    s.add_argument("--raw", action="append", help="for a catalog data set: the fetched upstream file to convert "
                   "(--raw FILE, or --raw NAME=FILE per catalog name with several data sets)")
    s.add_argument("--out", action="append", required=True, help="output Parquet, one per data set")
    s.set_defaults(func=cmd_prepare)

    s = sub.add_parser("batch", help="(workflow) run a job's plan: algorithms x draws x k; one file pair per cell")
    s.add_argument("--plan", help="JSON plan (see mabench.bench.batch.run_plan)")
    s.add_argument("--plans", help="or a file of every job's plan (`mabench compile --plans-out`) ...")
    s.add_argument("--job", help="... and the name of the job to run from it")
    s.add_argument("--cache-dir", help="cell cache: finished cells are copied from here, never recomputed")
    s.add_argument("--benchmark-out", help="write the job's wall and CPU seconds and peak memory here (TSV)")
    s.add_argument("--follow", help="(the lead job) before each run, wait until the compile step that writes this "
                   "progress file has compiled it (`mabench compile --progress-out`)")
    s.set_defaults(func=cmd_batch, all_or_nothing=False)

    s = sub.add_parser("compare", help="regression check: compare two results tables cell by cell")
    s.add_argument("baseline", help="results.parquet, a results folder, or a CSV from `mabench regress`")
    s.add_argument("current", help="the same, after the change")
    s.add_argument("--changed", help="algorithms changed on purpose (comma-separated): their IL may move")
    s.add_argument("--il-tolerance", type=float, default=1e-9, help="largest IL change of a deterministic cell")
    s.add_argument("--time-ratio", type=float, default=1.25, help="largest median time ratio of an algorithm")
    s.add_argument("--no-time-gate", action="store_true", help="list the time ratios without gating them "
                   "(the default unless both tables were timed on the same machine in the same job)")
    s.add_argument("--time-gate", action="store_true", help="gate the time ratios even when the tables come "
                   "from different sessions (machine or job)")
    s.add_argument("--min-seconds", type=float, default=0.05,
                   help="cells faster than this in the baseline are not timed (noise)")
    s.add_argument("--published", default=None, help="registry CSV for verdict changes (default: "
                   "config/published.csv; `none` to skip)")
    s.add_argument("--out", help="also write the Markdown report here")
    s.add_argument("--cells-out", help="write the per-cell deltas as CSV here")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("compile", help="(workflow) compile the kernels of every run of a configuration once, "
                       "before its batches start (Numba's on-disk cache)")
    s.add_argument("--config", required=True, help="workflow config whose data files exist (the workflow passes "
                   "results/config.yaml)")
    s.add_argument("--json-out", help="also write the JSON summary to this file")
    s.add_argument("--plans-out", help="also write every batch job's plan to this file (`mabench batch --plans`)")
    s.add_argument("--jobs", type=int, default=1, help="compile in this many processes at once (default 1)")
    s.add_argument("--progress-out", help="rewrite this file as the runs are compiled, for the lead job "
                   "(`mabench batch --follow`)")
    s.set_defaults(func=cmd_compile)

    s = sub.add_parser("new", help="write a working plugin template and its test (mabench new method NAME)")
    s.add_argument("what", choices=["method"], help="what to create")
    s.add_argument("name", help="the method's name (a Python module name, e.g. pc1cut)")
    s.add_argument("--dir", default=".", help="folder to write algorithms/NAME.py and tests/test_NAME.py in "
                   "(use it as MABENCH_HOME)")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("check", help="run the generic checks every algorithm plugin must pass (mabench.testing)")
    s.add_argument("plugin", help="an algorithm name or a plugin file (.py)")
    s.add_argument("-k", help="k values, comma-separated (default 2,3,5)")
    s.add_argument("--memory", action="store_true", help="also check the memory estimate on a 10^5-record run")
    s.set_defaults(func=cmd_check)

    s = sub.add_parser("regress", help="run the regression cells (every algorithm id of a config on its fixed data)")
    s.add_argument("--config", default=None, help="workflow config (default: config/config.yaml)")
    s.add_argument("--algorithms", help="only these algorithm ids (comma-separated)")
    s.add_argument("--out", required=True, help="CSV results table, for `mabench compare`")
    s.add_argument("--cache-dir", help="cell cache: cells whose code (mabench/codehash.py) and data are "
                   "unchanged are taken from it, not recomputed")
    s.set_defaults(func=cmd_regress)

    s = sub.add_parser("aggregate", help="merge per-cell outputs into one results table (Parquet)")
    s.add_argument("cells", nargs="+", help="cell records laid out as DATASET/ALGO/seedS/kK.json")
    s.add_argument("--cells-dir", required=True)
    s.add_argument("--benchmarks-dir", help="Snakemake benchmark TSV files of the batches, DATASET/ALGO.tsv")
    s.add_argument("--root-seed", type=int)
    s.add_argument("--config", help="the workflow config file (its hash is recorded)")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_aggregate)

    s = sub.add_parser("tables", help="regenerate the published tables with verdicts")
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: config/published.csv)")
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_tables)

    s = sub.add_parser("figures", help="draw IL-versus-k, R-U map and anytime (IL versus time) figures (PNG and PDF)")
    s.add_argument("--results", required=True)
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_figures)

    s = sub.add_parser("best-known", help="verify, improve or tabulate the best-known partitions (config/best_known)")
    s.add_argument("action", choices=["verify", "improve", "table"])
    s.add_argument("dataset", nargs="?", help="improve: the data set (tarragona, census, eia)")
    s.add_argument("-k", type=int, help="improve: minimum group size")
    s.add_argument("--budget", type=float, default=0.0, help="improve: seconds of search")
    s.add_argument("--restarts", type=int, default=0, help="improve: number of perturbation restarts")
    s.add_argument("--seed", type=int, default=0, help="improve: seed of the perturbations")
    s.add_argument("--method", choices=["icsm", "ls", "lns", "merge", "region"], default="icsm",
                   help="improve: re-improve each perturbation with ICSM's inner loop, moves/swaps only, or "
                        "large-neighbourhood search (regions re-partitioned exactly); merge: pool the groups "
                        "of many local optima and recombine them by a set-partitioning integer program; region: "
                        "one integer program over the costliest groups and their neighbours, no randomness "
                        "(--budget = its time limit)")
    s.add_argument("--dissolve", type=float, default=0.2,
                   help="improve: share of restarts that dissolve a random group instead of exchanging records")
    s.add_argument("--neighbours", type=int, default=None,
                   help="improve (default 8): nearest groups the moves and perturbations consider; region: nearest records each "
                        "record's candidate groups are drawn from (at least k − 1 for groups to exist)")
    s.add_argument("--dir", help="registry folder (default: config/best_known)")
    s.add_argument("--out-dir", help="table: where best_known.{md,csv} go")
    s.set_defaults(func=cmd_best_known)
    s = sub.add_parser("bound", help="certified lower bound on the optimal IL of a data set at each k (docs/bounds.md)")
    s.add_argument("dataset", help="any data set the CLI accepts (catalog name, generator spec or file)")
    s.add_argument("-k", required=True, help="minimum group sizes, e.g. 3,4,5,10")
    s.add_argument("--seed", type=int, default=0, help="seed of a generated data set")
    s.add_argument("--store", action="store_true", help="also write the bounds into config/best_known/bounds.csv")
    s.add_argument("--method", choices=["pair", "cover", "lp", "tail"], default="pair",
                   help="pair: the cheap pair bound; cover: the degree-cover LP bound with triangle cuts "
                        "(the stronger one from k = 4); lp: the set-partitioning LP bound by column generation, "
                        "certified by a Lagrangian bound; tail: lp, then an integer program over the groups "
                        "of the costliest records (docs/bounds.md)")
    s.add_argument("--budget", type=float, default=120.0,
                   help="lp, cover, tail: seconds per k (the round or certified pass running then finishes); "
                        "tail: as much again for its integer programs")
    s.add_argument("--dir", help="registry folder for --store and for the start partitions of lp and tail (default: config/best_known)")
    s.set_defaults(func=cmd_bound)
    s = sub.add_parser("report", help="write the reproduction report: one self-contained HTML page per paper")
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: config/published.csv)")
    s.add_argument("--out-dir", required=True, help="writes index.html, <source>.html and figures/*.png")
    s.set_defaults(func=cmd_report)
    return p


INTERRUPTED = "mabench: interrupted; nothing was written\n"
GRACE_SECONDS = 1.0


_SIGNALLED: list = []  # set once a SIGINT or SIGTERM has arrived
_ARMED: list = []  # non-empty while _main's handlers can take a KeyboardInterrupt
_UNWOUND: list = []  # the interrupt, kept: see _keep


def _interrupt(signum, frame):  # SIGINT and SIGTERM (e.g. from a workflow manager) unwind like Ctrl-C
    _SIGNALLED.append(signum)
    gc.disable()  # see _keep; no import here: a handler can run inside another import's locking
    if _ARMED:  # unarmed (handlers still being installed, or the command committed): only recorded
        raise KeyboardInterrupt


def _arm() -> None:
    """From here a signal raises KeyboardInterrupt; one that arrived while the handlers were being
    installed raises it now."""
    _ARMED.append(True)
    if _SIGNALLED:
        raise KeyboardInterrupt


def _keep(exc: BaseException) -> None:
    """After a signal, free nothing the interrupted code held: a compile or cache load that Numba and
    llvmlite did not finish leaves LLVM objects whose release can fail or crash the process after the
    one line. The exception keeps its traceback (the frames and their objects) and the cyclic collector
    stays off (``_interrupt``) until :func:`run` ends the process with ``os._exit``."""
    if _SIGNALLED:
        _UNWOUND.append(exc)


def _quiet_interrupt(previous):
    def hook(unraisable):
        # once a signal has arrived, a library object whose __del__ fails later (e.g. llvmlite's, freed
        # after a compile was cut short) must not print a traceback after the one line either
        if not isinstance(unraisable.exc_value, KeyboardInterrupt) and not _SIGNALLED:
            previous(unraisable)
    return hook


class _Interrupts:
    """Ctrl-C and SIGTERM end the command with status 130, no traceback and no output file.

    In Python code the signal raises KeyboardInterrupt and the output layer removes its temporary
    files while the stack unwinds. A Numba kernel does not return to Python until it is done, so a
    watchdog thread, woken by the signal itself (``signal.set_wakeup_fd``), gives the main thread
    GRACE_SECONDS to unwind and otherwise removes the temporary files and exits with status 130.

    The handlers raise only while armed, from the start of ``_main``'s try until its files are
    committed; a signal before that is recorded and raised by ``_arm``, one after it only recorded.
    """

    def __enter__(self):
        import signal
        import socket
        import threading

        _SIGNALLED.clear()
        _ARMED.clear()
        self.active = threading.current_thread() is threading.main_thread()
        if not self.active:
            return self
        # first, and unarmed until _main's try (_arm): a signal from here on is recorded, never raised
        # where nothing would catch it (e.g. in Thread.start below)
        self.previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
        # the KeyboardInterrupt of a signal that lands in a C callback cannot propagate there; Python
        # would print it with a traceback ("Exception ignored ..."): the one line comes from _main
        self.previous_hook = sys.unraisablehook
        sys.unraisablehook = _quiet_interrupt(self.previous_hook)
        self.done = threading.Event()
        self.reader, self.writer = socket.socketpair()
        self.writer.setblocking(False)
        self.previous_fd = signal.set_wakeup_fd(self.writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="mabench-interrupts", daemon=True).start()
        return self

    def _watch(self):
        import os

        from mabench import io

        try:
            if not self.reader.recv(1):
                return
        except OSError:
            return
        if self.done.wait(GRACE_SECONDS) or not _ARMED:  # unwound, or committed: the outcome stands
            return
        io.abort_all()
        os.write(2, INTERRUPTED.encode())
        os._exit(130)

    def __exit__(self, *exc):
        if not self.active:
            return False
        import signal

        self.done.set()
        if not _SIGNALLED:  # after a signal the quiet hook stays until the process ends
            sys.unraisablehook = self.previous_hook
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.writer.close()  # ends the watchdog (recv returns b"")
        self.reader.close()
        return False


def main(argv=None) -> int:
    """Run one command. Exit status: 0 success, 2 user error (one line on stderr), 130 interrupted."""
    with _Interrupts():
        status = _main(argv)
    _log_cpu(argv)
    return status


def _cpu_seconds() -> float:
    """CPU seconds of this process and of the worker processes it has waited for (`compile --jobs`)."""
    import resource

    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def _log_cpu(argv) -> None:
    """With ``MABENCH_CPU_LOG`` set (``python -m mabench.bench.timing`` sets it for a workflow run), add
    this process's command and CPU seconds to that file, so that the run's CPU time splits by stage."""
    import os

    path = os.environ.get("MABENCH_CPU_LOG")
    if not path:
        return
    words = sys.argv[1:] if argv is None else list(argv)
    line = json.dumps({"command": words[0] if words else "", "cpu_seconds": round(_cpu_seconds(), 3)})
    try:  # one short line with O_APPEND: concurrent jobs do not interleave
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
    except OSError:  # a measurement aid: never the reason a command fails
        pass


def _main(argv) -> int:
    from mabench import io

    _PENDING.clear()
    try:
        _arm()
        args = build_parser().parse_args(argv)
        gate = None
        # Every file a command writes is committed together, before anything is printed; `batch`
        # commits cell by cell instead, so a killed job keeps the cells it finished.
        with io.outputs() if getattr(args, "all_or_nothing", True) else contextlib.nullcontext():
            try:
                _guard_paths(args)
                args.func(args)
            except GateFailed as exc:  # a finished comparison: its report files are kept
                gate = exc
        _ARMED.clear()  # committed: a signal now no longer undoes the command (it is only recorded)
        sys.stdout.write("".join(_PENDING))
        sys.stdout.flush()
        if gate is not None:
            raise gate
    except UserError as exc:
        sys.stderr.write(f"mabench: error: {exc}\n")
        return EXIT_USAGE
    except GateFailed as exc:
        if len(exc.args) == 1:  # `mabench check` has said its one line per failed check already
            sys.stderr.write(f"mabench: regression check failed: {exc.args[0]} gate(s); see the report above\n")
        return EXIT_GATE
    except KeyboardInterrupt as exc:
        # Outputs are staged in temporary files that the output layer removed while unwinding.
        _keep(exc)
        sys.stderr.write(INTERRUPTED)
        return 130
    except BrokenPipeError:  # e.g. `mabench list algorithms | head -1`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError:
        sys.stderr.write("mabench: error: not enough memory for this input; try a smaller data set\n")
        return EXIT_USAGE
    except OSError as exc:  # an unforeseen file-system error: still one line, naming the file
        from mabench.io import os_error

        sys.stderr.write(f"mabench: error: {os_error(exc, exc.filename or '?', 'access')}\n")
        return EXIT_USAGE
    except Exception as exc:
        # A signal that lands inside a library callback (e.g. LLVM's while Numba compiles) is swallowed
        # there and resurfaces as that library's own error: after a signal, any failure is the interrupt.
        if not _SIGNALLED:
            raise
        _keep(exc)
        sys.stderr.write(INTERRUPTED)
        return 130
    finally:
        _ARMED.clear()
        _PENDING.clear()
    return 0


def run() -> None:
    """The ``mabench`` program (console script and ``python -m mabench.cli``): :func:`main`, then exit
    without the interpreter's teardown (``os._exit`` once the standard streams are flushed).

    Every file a command writes is closed (and synced) before :func:`main` returns, so the teardown
    only frees memory, and freeing Numba's compiled code and the loaded data costs about 0.3 s of CPU
    a process (measured on ``mabench run`` with four metrics; a workflow starts about 25 of them).
    It also keeps an interrupted command's status 130: a KeyboardInterrupt that passed through C code
    calling back into Python (``PyRun_*``) marks the interpreter, and a normal exit would then turn
    the handled interrupt into death by SIGINT (status −2 to the caller) after the message."""
    import os

    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


if __name__ == "__main__":
    run()
