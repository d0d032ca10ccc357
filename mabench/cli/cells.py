"""Commands on single cells: `run` (one algorithm on one data set, one or several k) and `evaluate`
(the metrics of a given partition)."""

from __future__ import annotations

from mabench.cli.common import PENDING, Command, existing, finite, json_line, parse_options, parse_params
from mabench.errors import UserError

PROGRESS_SECONDS = (0.01, 86400.0)  # --progress: a heartbeat between a hundredth of a second and a day


def _dataset(args) -> str:
    """The data-set spec with ``--columns`` written into it (``file.csv[columns=a+b]``)."""
    from mabench.data import with_columns

    return with_columns(args.dataset, getattr(args, "columns", None))


def _run_params(args) -> dict[str, str]:
    """--param NAME=VALUE plus the aggregation shortcuts --measure, --weights and --strata."""
    params = parse_params(args.param)
    for flag, name, value in (("--measure", "measure", args.measure), ("--weights", "sampling_weights", args.weights),
                              ("--strata", "strata", args.strata), ("--missing", "missing", args.missing)):
        if value is None:
            continue
        if name in params:
            raise UserError(f"{flag} and --param {name}= both given; give it once")
        params[name] = "+".join(c.strip() for c in value.split(",") if c.strip()) if name == "strata" else value
    return params


def _run_arguments(s) -> None:
    s.add_argument("algorithm")
    s.add_argument("dataset", help="catalog name, generator name[params], or a CSV, Parquet, SPSS, Stata or SAS file")
    s.add_argument("-k", required=True, help="minimum group size, or several: -k 3,4,5,10 (one JSON line per k)")
    s.add_argument("--seed", type=int, default=0, help="cell seed (data draw and algorithm randomness)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="algorithm parameter")
    s.add_argument("--metrics", help="comma-separated metric names (default: il)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--out", help="write the partition as CSV (header `group`); with several k, a path with {k}")
    s.add_argument("--json-out", help="also write the JSON records (one line per k) to this file")
    s.add_argument("--risk-out", metavar="FILE", help="write each record's disclosure risk (sdcMicro's dRiskRMD) "
                   "as CSV, one line per data row: rmd, rmd_risk1, rmd_risk2 (options rmd_k, rmd_k2, rmd_seed); "
                   "with several k, a path with {k}")
    s.add_argument("--rl-pairs-out", metavar="FILE", help="write recordLinkage's pair table as CSV (x_row, y_row, "
                   "x_id, y_id, distance, correct_match, n_best; options rl_*); with several k, a path with {k}")
    s.add_argument("--masked-out", metavar="FILE", help="write the masked data (.csv, .parquet, .sav, .zsav or .dta): "
                   "the data set's columns, each variable replaced by its group's value, every other column and "
                   "SPSS/Stata label unchanged; with several k, a path with {k}")
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
    s.add_argument("--columns", metavar="COL,...", help="the variables to aggregate (numeric); every other "
                   "column is passed through unchanged (same as DATA[columns=a+b+c])")
    s.add_argument("--missing", choices=["refuse", "available"], help="missing values (NaN) in the variables: "
                   "refuse (default) or available (distances and group values over the observed values; "
                   "methods that support it: see docs/metrics.md#missing-values)")
    s.add_argument("--progress", type=float, nargs="?", const=10.0, metavar="SECONDS",
                   help="plain progress lines on stderr: one per finished phase and a heartbeat every SECONDS "
                        "(default 10); without it a terminal shows a progress bar once a phase passes 3 s")
    s.add_argument("--no-progress", action="store_true", help="no progress on stderr, not even on a terminal")


# --risk-out and --rl-pairs-out: the per-record table each writes (mabench.metrics.record_tables)
_TABLE_FLAGS = {"--risk-out": "risk", "--rl-pairs-out": "rl_pairs"}


def _per_k_outputs(args) -> list[tuple[str, str]]:
    """(flag, path) of every output written once per k (a path with {k} when several k are run)."""
    given = (("--out", args.out), ("--masked-out", args.masked_out), ("--risk-out", args.risk_out),
             ("--rl-pairs-out", args.rl_pairs_out))
    return [(flag, path) for flag, path in given if path]


def _run_paths(args) -> tuple[list, list]:
    ks = [k.strip() for k in str(args.k).split(",") if k.strip()]
    outs = []
    for flag, path in _per_k_outputs(args):
        outs += [(flag, path.replace("{k}", k)) for k in ks]
    outs.append(("--json-out", args.json_out))
    return outs, existing("data", args.dataset)


def cmd_run(args) -> None:
    from mabench import io
    from mabench.metrics import parse_names
    from mabench.bench.runner import parse_ks, run_cells

    metrics = parse_names(args.metrics)
    ks = parse_ks(args.k)
    if args.masked_out:
        from mabench.data.formats import WRITABLE, writable

        if not writable(args.masked_out):
            raise UserError(f"--masked-out {args.masked_out!r} must end in {', '.join(WRITABLE)} "
                            "(the masked file's format)")
    for flag, path in _per_k_outputs(args):
        if len(ks) > 1 and "{k}" not in path:
            stem = {"--out": "part", "--masked-out": "masked", "--risk-out": "risk", "--rl-pairs-out": "pairs"}[flag]
            raise UserError(f"{flag} {path!r} with several k values must contain {{k}}, e.g. {flag} {stem}_k{{k}}.csv")
    from mabench.bench.progress import Progress

    if args.progress is not None:  # 1e-300 floods the log (thousands of lines a second); inf, 1e300 overflow its timer
        finite("--progress", args.progress, PROGRESS_SECONDS[0], high=PROGRESS_SECONDS[1])
    from mabench.bench.strata import Spread

    spread = Spread(args.jobs, args.executor, args.scheduler)
    if args.no_progress and args.progress is not None:
        raise UserError("--progress and --no-progress both given; give one")
    progress = Progress(quiet=True) if args.no_progress else Progress.for_cli(args.progress)
    try:
        results = list(run_cells(args.algorithm, _dataset(args), ks, args.seed, _run_params(args), metrics,
                                 parse_options(args.option), progress, spread=spread))
    finally:
        progress.close()
    tables = {flag: [_record_table(r, name) for r in results] for flag, name in _TABLE_FLAGS.items()
              if getattr(args, flag[2:].replace("-", "_"))}  # computed (or refused) before anything is written
    lines = [json_line(r.record) for r in results]  # one line per cell, printed once every file is written
    with io.outputs() as out:  # every file or none
        if args.out:
            for result in results:
                out.write_text(args.out.replace("{k}", str(result.record["k"])), io.partition_csv(result.labels))
        if args.masked_out:
            for result in results:
                target = args.masked_out.replace("{k}", str(result.record["k"]))
                from mabench.data.formats import write_masked

                write_masked(out, target, result.masked_file(), result.source)
        for flag, per_k in tables.items():
            path = getattr(args, flag[2:].replace("-", "_"))
            for result, table in zip(results, per_k):
                out.write_text(path.replace("{k}", str(result.record["k"])), table.to_csv(index=False))
        if args.json_out:
            out.write_text(args.json_out, "".join(lines))
    PENDING.extend(lines)


def _record_table(result, name: str):
    from mabench.metrics.record_tables import record_table

    return record_table(result.context, name)


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
    s.add_argument("--columns", metavar="COL,...", help="the aggregated variables (same as DATA[columns=a+b+c])")
    s.add_argument("--measure", help="what each group published (mean, median, trim, onestep), as in `run`")
    s.add_argument("--trim", help="with --measure trim: the share trimmed at each end")
    s.add_argument("--weights", metavar="COL", help="column of sampling weights the partition was published with")
    s.add_argument("--strata", metavar="COL,...", help="columns of the strata the partition was made within")
    s.add_argument("--missing", choices=["refuse", "available"], help="missing values (NaN) in the variables: "
                   "refuse (default) or available (each group's mean of its observed values, the metrics "
                   "defined on available cases: docs/metrics.md#missing-values), as in `run`")
    s.add_argument("--risk-out", metavar="FILE", help="write each record's disclosure risk (sdcMicro's dRiskRMD) "
                   "as CSV, as `run --risk-out` does")
    s.add_argument("--rl-pairs-out", metavar="FILE", help="write recordLinkage's pair table as CSV, as "
                   "`run --rl-pairs-out` does")


def _evaluate_paths(args) -> tuple[list, list]:
    outs = [(flag, getattr(args, flag[2:].replace("-", "_"))) for flag in ("--json-out", *_TABLE_FLAGS)]
    return outs, existing("data", args.dataset) + existing("partition", args.partition)


def cmd_evaluate(args) -> None:
    from mabench.metrics import parse_names
    from mabench.bench.runner import evaluate_partition

    metrics = parse_names(args.metrics) if args.metrics is not None else None
    aggregation = {"measure": args.measure, "trim": args.trim, "sampling_weights": args.weights, "missing": args.missing,
                   "strata": None if args.strata is None else "+".join(c.strip() for c in args.strata.split(",")
                                                                     if c.strip())}
    kept: dict = {}
    record = evaluate_partition(_dataset(args), args.partition, args.k, args.seed, metrics, parse_options(args.option),
                                {name: value for name, value in aggregation.items() if value is not None}, kept)
    from mabench import io
    from mabench.metrics.record_tables import record_table

    tables = {flag: record_table(kept["context"], name) for flag, name in _TABLE_FLAGS.items()
              if getattr(args, flag[2:].replace("-", "_"))}  # computed (or refused) before anything is written
    line = json_line(record)
    with io.outputs() as out:  # every file or none
        for flag, table in tables.items():
            out.write_text(getattr(args, flag[2:].replace("-", "_")), table.to_csv(index=False))
        if args.json_out:
            out.write_text(args.json_out, line)
    PENDING.append(line)


EVALUATE = Command("evaluate", help="compute metrics of a partition; print JSON",
              arguments=_evaluate_arguments, body=cmd_evaluate, paths=_evaluate_paths)


COMMANDS = [RUN, EVALUATE]
