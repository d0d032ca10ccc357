"""The regression check: `regress` (the regression cells of a configuration) and `compare` (two
results tables cell by cell, with gates)."""

from __future__ import annotations

from mabench.cli.common import PENDING, Command, existing, finite, print_json, results_inputs
from mabench.cli.process import GateFailed
from mabench.errors import UserError


def _compare_arguments(s) -> None:
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
                   "registry/published.csv; `none` to skip)")
    s.add_argument("--out", help="also write the Markdown report here")
    s.add_argument("--cells-out", help="write the per-cell deltas as CSV here")


def _compare_paths(args) -> tuple[list, list]:
    from mabench.report import published

    ins = results_inputs("baseline", args.baseline) + results_inputs("current", args.current)
    if args.published != "none":
        ins += existing("--published", args.published or published.default_path())
    return [("--out", args.out), ("--cells-out", args.cells_out)], ins


def cmd_compare(args) -> None:
    from mabench.report import compare, published
    from mabench import discovery, io

    finite("--il-tolerance", args.il_tolerance, 0.0)
    finite("--time-ratio", args.time_ratio, 0.0, strict=True)
    finite("--min-seconds", args.min_seconds, 0.0)
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
    PENDING.append(text + "\n")
    if not result.ok:
        raise GateFailed(len(result.failures))


COMPARE = Command("compare", help="regression check: compare two results tables cell by cell",
              arguments=_compare_arguments, body=cmd_compare, paths=_compare_paths)


def _regress_arguments(s) -> None:
    s.add_argument("--config", default=None, help="workflow config (default: config/config.yaml)")
    s.add_argument("--algorithms", help="only these algorithm ids (comma-separated)")
    s.add_argument("--out", required=True, help="CSV results table, for `mabench compare`")
    s.add_argument("--cache-dir", help="cell cache: cells whose code (mabench/codehash.py) and data are "
                   "unchanged are taken from it, not recomputed")


def _regress_paths(args) -> tuple[list, list]:
    from mabench import resources

    return [("--out", args.out)], existing("--config", args.config or resources.config_path("config.yaml"))


def cmd_regress(args) -> None:
    from mabench import io
    from mabench.bench import regress

    frame = regress.run(args.config, only=args.algorithms, cache_dir=args.cache_dir)
    io.write_text(args.out, frame.to_csv(index=False))
    print_json({"cells": int(len(frame)), "out": args.out})


REGRESS = Command("regress", help="run the regression cells (every algorithm id of a config on its fixed data)",
              arguments=_regress_arguments, body=cmd_regress, paths=_regress_paths)


COMMANDS = [COMPARE, REGRESS]
