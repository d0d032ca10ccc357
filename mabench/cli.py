"""The ``mabench`` command: the contract shared by users, the workflow and the tests.

Every user error ends with exit status 2 and one line on stderr; outputs are
written atomically, so a failed command leaves nothing behind.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import EXIT_USAGE, UserError


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


def _check_outputs(outputs: dict[str, str | None], inputs: dict[str, str | None]) -> None:
    """Refuse an output that is one of the command's input files (it would be replaced)."""
    import os

    for oname, out in outputs.items():
        if not out or not os.path.isfile(out):
            continue
        for iname, inp in inputs.items():
            if inp and os.path.isfile(inp) and os.path.samefile(out, inp):
                raise UserError(f"{oname} {out!r} is the {iname} file; writing it would replace your input, "
                                "choose another file name")


def cmd_list(args) -> None:
    from . import data, plugins

    if args.what == "algorithms":
        for name, algo in sorted(plugins.algorithms().items()):
            params = ", ".join(f"{p}={v.default}" for p, v in algo.params.items())
            print(f"{name}\t{algo.title}\t{params}\t{algo.citation}")
    else:
        from . import fetch

        cat = fetch.catalog()
        gens = plugins.generators()
        for name in data.names():
            if name in cat:
                print(f"{name}\tfetched\t{cat[name]['title']}")
            else:
                params = ", ".join(f"{p}={v.default}" for p, v in gens[name].params.items())
                print(f"{name}\tgenerated\t{gens[name].title}\t{params}")


def cmd_run(args) -> None:
    from . import io
    from .metrics import parse_names
    from .runner import run_cell

    _check_outputs({"--out": args.out, "--json-out": args.json_out}, {"data": args.dataset})
    metrics = parse_names(args.metrics)
    result = run_cell(args.algorithm, args.dataset, args.k, args.seed, _params(args.param), metrics,
                      _options(args.option))
    line = _json(result.record)
    with io.outputs() as out:  # both files or neither
        if args.out:
            out.write_text(args.out, "group\n" + "".join(f"{g}\n" for g in result.labels.tolist()))
        if args.json_out:
            out.write_text(args.json_out, line)
    _PENDING.append(line)


def cmd_evaluate(args) -> None:
    from .metrics import parse_names
    from .runner import evaluate_partition

    _check_outputs({"--json-out": args.json_out}, {"data": args.dataset, "partition": args.partition})
    metrics = parse_names(args.metrics) if args.metrics is not None else None
    record = evaluate_partition(args.dataset, args.partition, args.k, args.seed, metrics, _options(args.option))
    line = _json(record)
    if args.json_out:
        from . import io

        io.write_text(args.json_out, line)
    _PENDING.append(line)


def cmd_fetch(args) -> None:
    from . import fetch

    info = fetch.fetch(args.name, args.out, url=args.url, use_vendor=not args.no_vendor)
    _print_json(info)


def cmd_prepare(args) -> None:
    from . import data, io

    _check_outputs({"--out": args.out}, {"data": args.dataset, "--raw": args.raw})
    ds = data.load(args.dataset, args.seed, raw=args.raw)
    io.write_parquet(args.out, ds.frame(), ds.metadata())
    _print_json({"dataset": ds.spec, "seed": ds.seed, "n": int(ds.values.shape[0]),
                 "d": int(ds.values.shape[1]), "out": args.out})


def cmd_aggregate(args) -> None:
    from . import aggregate

    frame = aggregate.collect(args.runs, args.runs_dir, args.metrics_dir, args.benchmarks_dir)
    aggregate.write(frame, args.out, args.root_seed, args.config)
    _print_json({"rows": int(len(frame)), "out": args.out})


def cmd_tables(args) -> None:
    from . import provenance, published, tables

    results = tables.read_results(args.results)
    registry = published.load(args.published) if args.published else None
    commit = str(results["git_commit"].iloc[0]) if "git_commit" in results else provenance.git_commit()
    compared = tables.write_tables(results, args.out_dir, registry, commit)
    _print_json({"published": int(len(compared)),
                 **{v: int((compared["verdict"] == v).sum()) for v in tables.VERDICT_ORDER}})


def cmd_figures(args) -> None:
    from . import figures, tables

    results = tables.read_results(args.results)
    written = figures.il_vs_k(results, args.out_dir) + figures.ru_map(results, args.out_dir)
    _print_json({"figures": [str(p) for p in written]})


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mabench", description="Reproducible microaggregation benchmarks.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("list", help="list algorithms or data sets")
    s.add_argument("what", choices=["algorithms", "datasets"])
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("run", help="run one algorithm on one data set; print JSON")
    s.add_argument("algorithm")
    s.add_argument("dataset", help="catalog name, generator name[params], or CSV/Parquet path")
    s.add_argument("-k", type=int, required=True, help="minimum group size")
    s.add_argument("--seed", type=int, default=0, help="cell seed (data draw and algorithm randomness)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="algorithm parameter")
    s.add_argument("--metrics", help="comma-separated metric names (default: il)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--out", help="write the partition as CSV (header `group`)")
    s.add_argument("--json-out", help="also write the JSON record to this file")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("evaluate", help="compute metrics of a partition; print JSON")
    s.add_argument("dataset")
    s.add_argument("partition", help="CSV with header `group`, one label per data row")
    s.add_argument("-k", type=int, help="check that every group has at least k records")
    s.add_argument("--seed", type=int, default=0, help="seed of a generated data set")
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

    s = sub.add_parser("prepare", help="write a data set (catalog, generated or file) as tidy Parquet")
    s.add_argument("dataset")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--raw", help="for a catalog data set: the fetched upstream file to convert")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_prepare)

    s = sub.add_parser("aggregate", help="merge per-cell outputs into one results table (Parquet)")
    s.add_argument("runs", nargs="+", help="run JSON files laid out as DATASET/ALGO/kK/seedS.json")
    s.add_argument("--runs-dir", required=True)
    s.add_argument("--metrics-dir", help="metrics JSON files, same relative paths")
    s.add_argument("--benchmarks-dir", help="Snakemake benchmark TSV files, same relative paths")
    s.add_argument("--root-seed", type=int)
    s.add_argument("--config", help="the workflow config file (its hash is recorded)")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_aggregate)

    s = sub.add_parser("tables", help="regenerate the published tables with verdicts")
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: config/published.csv)")
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_tables)

    s = sub.add_parser("figures", help="draw IL-versus-k and R-U map figures (PNG and PDF)")
    s.add_argument("--results", required=True)
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_figures)
    return p


INTERRUPTED = "mabench: interrupted; nothing was written\n"
GRACE_SECONDS = 1.0


def _interrupt(signum, frame):  # SIGINT and SIGTERM (e.g. from a workflow manager) unwind like Ctrl-C
    raise KeyboardInterrupt


class _Interrupts:
    """Ctrl-C and SIGTERM end the command with status 130, no traceback and no output file.

    In Python code the signal raises KeyboardInterrupt and the output layer removes its temporary
    files while the stack unwinds. A Numba kernel does not return to Python until it is done, so a
    watchdog thread, woken by the signal itself (``signal.set_wakeup_fd``), gives the main thread
    GRACE_SECONDS to unwind and otherwise removes the temporary files and exits with status 130.
    """

    def __enter__(self):
        import signal
        import socket
        import threading

        self.active = threading.current_thread() is threading.main_thread()
        if not self.active:
            return self
        self.done = threading.Event()
        self.reader, self.writer = socket.socketpair()
        self.writer.setblocking(False)
        self.previous = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
        self.previous_fd = signal.set_wakeup_fd(self.writer.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="mabench-interrupts", daemon=True).start()
        return self

    def _watch(self):
        import os

        from . import io

        try:
            if not self.reader.recv(1):
                return
        except OSError:
            return
        if self.done.wait(GRACE_SECONDS):
            return
        io.abort_all()
        os.write(2, INTERRUPTED.encode())
        os._exit(130)

    def __exit__(self, *exc):
        if not self.active:
            return False
        import signal

        self.done.set()
        signal.set_wakeup_fd(self.previous_fd)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.writer.close()  # ends the watchdog (recv returns b"")
        self.reader.close()
        return False


def main(argv=None) -> int:
    """Run one command. Exit status: 0 success, 2 user error (one line on stderr), 130 interrupted."""
    with _Interrupts():
        return _main(argv)


def _main(argv) -> int:
    from . import io

    _PENDING.clear()
    try:
        args = build_parser().parse_args(argv)
        with io.outputs():  # every file the command writes, committed together before anything is printed
            args.func(args)
        sys.stdout.write("".join(_PENDING))
        sys.stdout.flush()
    except UserError as exc:
        sys.stderr.write(f"mabench: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        # Outputs are staged in temporary files that the output layer removed while unwinding.
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
        from .io import os_error

        sys.stderr.write(f"mabench: error: {os_error(exc, exc.filename or '?', 'access')}\n")
        return EXIT_USAGE
    finally:
        _PENDING.clear()
    return 0


if __name__ == "__main__":
    sys.exit(main())
