"""The ``mabench`` command: the contract shared by users, the workflow and the tests.

Every user error ends with exit status 2 and one line on stderr; outputs are
written atomically, so a failed command leaves nothing behind. Each command is declared in the
module of its group (:class:`mabench.cli.common.Command`: arguments, inputs and outputs beside
its body); :mod:`mabench.cli.process` handles signals and exit statuses.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from mabench.cli import bench, catalog, cells, common, optimum, plugins, process, regression, report, workflow

# in the order `mabench --help` lists them
COMMANDS = [catalog.LIST, cells.RUN, cells.EVALUATE, catalog.FETCH, catalog.PREPARE, workflow.BATCH,
            regression.COMPARE, workflow.COMPILE, workflow.WARMUP, regression.REGRESS, workflow.AGGREGATE, report.TABLES,
            report.FIGURES, report.REPORT, optimum.BEST_KNOWN, optimum.BOUND, plugins.NEW, plugins.CHECK, bench.BENCH,
            workflow.WORKFLOW]


def build_parser() -> argparse.ArgumentParser:
    p = common.Parser(prog="mabench", description="Reproducible microaggregation benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=common.Parser)
    for command in COMMANDS:
        command.arguments(sub.add_parser(command.name, help=command.help, **command.parser_options()))
    return p


def _execute(argv) -> None:
    from mabench import io

    common.PENDING.clear()
    try:
        args = build_parser().parse_args(argv)
        command = next(c for c in COMMANDS if c.name == args.command)
        gate = None
        # Every file a command writes is committed together, before anything is printed; `batch`
        # commits cell by cell instead, so a killed job keeps the cells it finished.
        with io.outputs() if command.all_or_nothing else contextlib.nullcontext():
            try:
                common.guard_paths(command, args)
                command.body(args)
            except process.GateFailed as exc:  # a finished comparison: its report files are kept
                gate = exc
        process.disarm()  # committed: a signal now no longer undoes the command (it is only recorded)
        sys.stdout.write("".join(common.PENDING))
        sys.stdout.flush()
        if gate is not None:
            raise gate
    finally:
        common.PENDING.clear()


def main(argv=None) -> int:
    """Run one command. Exit status: 0 success, 2 user error (one line on stderr), 130 interrupted."""
    return process.main(lambda: _execute(argv), argv)


def run() -> None:
    """The ``mabench`` program: :func:`main`, then exit without the interpreter's teardown."""
    process.run(main)


if __name__ == "__main__":
    run()
