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


def _print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, sort_keys=False) + "\n")


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

    metrics = parse_names(args.metrics)
    result = run_cell(args.algorithm, args.dataset, args.k, args.seed, _params(args.param), metrics,
                      _options(args.option))
    if args.out:
        lines = "group\n" + "".join(f"{g}\n" for g in result.labels.tolist())
        io.write_text(args.out, lines)
    if args.json_out:
        io.write_text(args.json_out, json.dumps(result.record) + "\n")
    _print_json(result.record)


def cmd_evaluate(args) -> None:
    from .metrics import parse_names
    from .runner import evaluate_partition

    metrics = parse_names(args.metrics) if args.metrics else None
    record = evaluate_partition(args.dataset, args.partition, args.k, args.seed, metrics, _options(args.option))
    if args.json_out:
        from . import io

        io.write_text(args.json_out, json.dumps(record) + "\n")
    _print_json(record)


def cmd_fetch(args) -> None:
    from . import fetch

    info = fetch.fetch(args.name, args.out, url=args.url, use_vendor=not args.no_vendor)
    _print_json(info)


def cmd_prepare(args) -> None:
    from . import data, io

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


def cmd_report(args) -> None:
    from . import published, report, tables

    results = tables.read_results(args.results)
    registry = published.load(args.published) if args.published else None
    pages = report.write_report(results, args.out_dir, registry)
    _print_json({"pages": [str(p) for p in pages]})


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

    s = sub.add_parser("report", help="write the reproduction report: one self-contained HTML page per paper")
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: config/published.csv)")
    s.add_argument("--out-dir", required=True, help="writes index.html, <source>.html and figures/*.png")
    s.set_defaults(func=cmd_report)
    return p


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.func(args)
    except UserError as exc:
        sys.stderr.write(f"mabench: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
