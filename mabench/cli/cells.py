"""Commands on single cells: `run` (one algorithm on one data set, one or several k) and `evaluate`
(the metrics of a given partition)."""

from __future__ import annotations

from mabench.cli.common import PENDING, Command, existing, json_line, parse_options, parse_params
from mabench.errors import UserError

MASKED_SUFFIXES = (".csv", ".parquet")


def _run_params(args) -> dict[str, str]:
    """--param NAME=VALUE plus the aggregation shortcuts --measure, --weights and --strata."""
    params = parse_params(args.param)
    for flag, name, value in (("--measure", "measure", args.measure), ("--weights", "sampling_weights", args.weights),
                              ("--strata", "strata", args.strata)):
        if value is None:
            continue
        if name in params:
            raise UserError(f"{flag} and --param {name}= both given; give it once")
        params[name] = "+".join(c.strip() for c in value.split(",") if c.strip()) if name == "strata" else value
    return params


def _run_arguments(s) -> None:
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
    s.add_argument("--jobs", type=int, default=1, metavar="N", help="with --strata: run N strata at once, each in "
                   "a process of its own (the same result as one at a time)")
    s.add_argument("--executor", default="processes", help="where the strata run: processes (this machine, "
                   "--jobs of them) or dask (a Dask cluster, --scheduler; pip install 'mabench[dask]')")
    s.add_argument("--scheduler", metavar="ADDRESS", help="with --executor dask: the scheduler's address, "
                   "e.g. tcp://HOST:8786")
    s.add_argument("--progress", type=float, nargs="?", const=10.0, metavar="SECONDS",
                   help="plain progress lines on stderr: one per finished phase and a heartbeat every SECONDS "
                        "(default 10); without it a terminal shows a live status line once a run passes 3 s")


def _run_paths(args) -> tuple[list, list]:
    ks = [k.strip() for k in str(args.k).split(",") if k.strip()]
    outs = [("--out", args.out.replace("{k}", k)) for k in ks] if args.out else []
    outs += [("--masked-out", args.masked_out.replace("{k}", k)) for k in ks] if args.masked_out else []
    outs.append(("--json-out", args.json_out))
    return outs, existing("data", args.dataset)


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
    from mabench.bench.strata import Spread

    spread = Spread(args.jobs, args.executor, args.scheduler)
    progress = Progress.for_cli(args.progress)
    try:
        results = list(run_cells(args.algorithm, args.dataset, ks, args.seed, _run_params(args), metrics,
                                 parse_options(args.option), progress, spread=spread))
    finally:
        progress.close()
    lines = [json_line(r.record) for r in results]  # one line per cell, printed once every file is written
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
    PENDING.extend(lines)


RUN = Command("run", help="run one algorithm on one data set; print JSON",
              arguments=_run_arguments, body=cmd_run, paths=_run_paths)


def _evaluate_arguments(s) -> None:
    s.add_argument("dataset")
    s.add_argument("partition", help="CSV with header `group`, one label per data row")
    s.add_argument("-k", type=int, help="check that every group has at least k records")
    s.add_argument("--seed", type=int, default=None, help="seed of a generated data set (required for one)")
    s.add_argument("--metrics", help="comma-separated metric names (default: every metric that applies "
                   "to the data set; rld, g_dr and si need key variables)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--json-out", help="also write the JSON record to this file")


def _evaluate_paths(args) -> tuple[list, list]:
    return [("--json-out", args.json_out)], existing("data", args.dataset) + existing("partition", args.partition)


def cmd_evaluate(args) -> None:
    from mabench.metrics import parse_names
    from mabench.bench.runner import evaluate_partition

    metrics = parse_names(args.metrics) if args.metrics is not None else None
    record = evaluate_partition(args.dataset, args.partition, args.k, args.seed, metrics, parse_options(args.option))
    line = json_line(record)
    if args.json_out:
        from mabench import io

        io.write_text(args.json_out, line)
    PENDING.append(line)


EVALUATE = Command("evaluate", help="compute metrics of a partition; print JSON",
              arguments=_evaluate_arguments, body=cmd_evaluate, paths=_evaluate_paths)


COMMANDS = [RUN, EVALUATE]
