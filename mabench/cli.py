"""The ``mabench`` command: the contract shared by users, the workflow and the tests.

Every user error ends with exit status 2 and one line on stderr; outputs are
written atomically, so a failed command leaves nothing behind.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import EXIT_USAGE, UserError


EXIT_GATE = 1  # `mabench compare`: a regression gate failed (2 stays "bad input")


class GateFailed(Exception):
    """A regression gate of `mabench compare` failed (exit status 1, not a usage error)."""


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
    from .runner import parse_ks, run_cells

    metrics = parse_names(args.metrics)
    ks = parse_ks(args.k)
    if args.out and len(ks) > 1 and "{k}" not in args.out:
        raise UserError(f"--out {args.out!r} with several k values must contain {{k}}, e.g. --out part_k{{k}}.csv")
    results = []
    for result in run_cells(args.algorithm, args.dataset, ks, args.seed, _params(args.param), metrics,
                            _options(args.option)):
        _print_json(result.record)  # one line per cell, as soon as it is done
        sys.stdout.flush()
        results.append(result)
    if args.out:
        for result in results:
            io.write_text(args.out.replace("{k}", str(result.record["k"])), io.partition_csv(result.labels))
    if args.json_out:
        io.write_text(args.json_out, "".join(json.dumps(r.record) + "\n" for r in results))


def cmd_evaluate(args) -> None:
    from .metrics import parse_names
    from .runner import evaluate_partition

    metrics = parse_names(args.metrics) if args.metrics else None
    record = evaluate_partition(args.dataset, args.partition, args.k, args.seed, metrics, _options(args.option))
    if args.json_out:
        from . import io

        io.write_text(args.json_out, json.dumps(record) + "\n")
    _print_json(record)


def cmd_batch(args) -> None:
    from . import batch
    from .metrics import parse_names
    from .runner import parse_ks

    draws = []
    for item in args.draw:
        seed, sep, path = item.partition("=")
        if not sep or not seed.strip().isdigit():
            raise UserError(f"--draw {item!r} must be SEED=FILE, e.g. --draw 0=results/data/x/seed0.parquet")
        draws.append((int(seed), path))
    computed = batch.run_batch(args.algorithm, _params(args.param), draws, parse_ks(args.k),
                               parse_names(args.metrics), args.cells_dir, args.cache_dir, _options(args.option))
    _print_json({"cells": len(draws) * len(parse_ks(args.k)), "computed": computed, "out": args.cells_dir})


def cmd_compare(args) -> None:
    from . import compare, io, plugins, published

    baseline, current = compare.read(args.baseline), compare.read(args.current)
    registry = published.load(args.published) if args.published != "none" else None
    deterministic = {name: algo.deterministic for name, algo in plugins.algorithms().items()}
    changed = [a.strip() for a in (args.changed or "").split(",") if a.strip()]
    result = compare.compare(baseline, current, changed=changed, il_tolerance=args.il_tolerance,
                             time_ratio=args.time_ratio, min_seconds=args.min_seconds, registry=registry,
                             deterministic=deterministic)
    text = compare.markdown(result, args.baseline, args.current)
    if args.out:
        io.write_text(args.out, text + "\n")
        if args.cells_out:
            io.write_text(args.cells_out, result.cells.to_csv(index=False))
    elif args.cells_out:
        io.write_text(args.cells_out, result.cells.to_csv(index=False))
    sys.stdout.write(text + "\n")
    if not result.ok:
        raise GateFailed(len(result.failures))


def cmd_regress(args) -> None:
    from . import io, regress

    frame = regress.run(args.config, only=args.algorithms)
    io.write_text(args.out, frame.to_csv(index=False))
    _print_json({"cells": int(len(frame)), "out": args.out})


def cmd_fetch(args) -> None:
    from . import fetch

    info = fetch.fetch(args.name, args.out, url=args.url, use_vendor=not args.no_vendor)
    _print_json(info)


def cmd_prepare(args) -> None:
    from . import data, io

    seeds = _seeds(args.seed)
    if len(seeds) > 1 and "{seed}" not in args.out:
        raise UserError(f"--out {args.out!r} with several seeds must contain {{seed}}, e.g. --out d_{{seed}}.parquet")
    for seed in seeds:
        ds = data.load(args.dataset, seed, raw=args.raw)
        out = args.out.replace("{seed}", str(seed))
        io.write_parquet(out, ds.frame(), ds.metadata())
        _print_json({"dataset": ds.spec, "seed": ds.seed, "n": int(ds.values.shape[0]),
                     "d": int(ds.values.shape[1]), "out": out})


def _seeds(text: str) -> list[int]:
    """``--seed 7`` or ``--seed 7,8,9``: non-negative integers."""
    out = []
    for item in str(text).split(","):
        try:
            seed = int(item)
        except ValueError:
            raise UserError(f"--seed {text!r}: {item!r} is not an integer; give e.g. --seed 0 or --seed 1,2,3") from None
        if seed < 0:
            raise UserError(f"--seed {seed} is negative; seeds are integers >= 0")
        out.append(seed)
    return out


def cmd_aggregate(args) -> None:
    from . import aggregate

    frame = aggregate.collect(args.cells, args.cells_dir, args.benchmarks_dir)
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
    s.add_argument("-k", required=True, help="minimum group size, or several: -k 3,4,5,10 (one JSON line per k)")
    s.add_argument("--seed", type=int, default=0, help="cell seed (data draw and algorithm randomness)")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="algorithm parameter")
    s.add_argument("--metrics", help="comma-separated metric names (default: il)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--out", help="write the partition as CSV (header `group`); with several k, a path with {k}")
    s.add_argument("--json-out", help="also write the JSON records (one line per k) to this file")
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
    s.add_argument("--seed", default="0", help="draw seed, or several (1,2,3) with {seed} in --out")
    s.add_argument("--raw", help="for a catalog data set: the fetched upstream file to convert")
    s.add_argument("--out", required=True)
    s.set_defaults(func=cmd_prepare)

    s = sub.add_parser("batch", help="(workflow) run every draw and k of one algorithm; one file pair per cell")
    s.add_argument("algorithm")
    s.add_argument("--draw", action="append", required=True, metavar="SEED=FILE", help="a data draw and its seed")
    s.add_argument("-k", required=True, help="k values, e.g. 3,4,5,10")
    s.add_argument("--param", action="append", metavar="NAME=VALUE", help="algorithm parameter")
    s.add_argument("--metrics", help="comma-separated metric names (default: il)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--cells-dir", required=True, help="writes seed{S}/k{K}.json and .csv here")
    s.add_argument("--cache-dir", help="cell cache: finished cells are copied from here, never recomputed")
    s.set_defaults(func=cmd_batch)

    s = sub.add_parser("compare", help="regression check: compare two results tables cell by cell")
    s.add_argument("baseline", help="results.parquet, a results folder, or a CSV from `mabench regress`")
    s.add_argument("current", help="the same, after the change")
    s.add_argument("--changed", help="algorithms changed on purpose (comma-separated): their IL may move")
    s.add_argument("--il-tolerance", type=float, default=1e-9, help="largest IL change of a deterministic cell")
    s.add_argument("--time-ratio", type=float, default=1.25, help="largest median time ratio of an algorithm")
    s.add_argument("--min-seconds", type=float, default=0.05,
                   help="cells faster than this in the baseline are not timed (noise)")
    s.add_argument("--published", default=None, help="registry CSV for verdict changes (default: "
                   "config/published.csv; `none` to skip)")
    s.add_argument("--out", help="also write the Markdown report here")
    s.add_argument("--cells-out", help="write the per-cell deltas as CSV here")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("regress", help="run the regression cells (every algorithm id of a config on its fixed data)")
    s.add_argument("--config", default=None, help="workflow config (default: config/config.yaml)")
    s.add_argument("--algorithms", help="only these algorithm ids (comma-separated)")
    s.add_argument("--out", required=True, help="CSV results table, for `mabench compare`")
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

    s = sub.add_parser("figures", help="draw IL-versus-k and R-U map figures (PNG and PDF)")
    s.add_argument("--results", required=True)
    s.add_argument("--out-dir", required=True)
    s.set_defaults(func=cmd_figures)
    return p


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.func(args)
    except UserError as exc:
        sys.stderr.write(f"mabench: error: {exc}\n")
        return EXIT_USAGE
    except GateFailed as exc:
        sys.stderr.write(f"mabench: regression check failed: {exc.args[0]} gate(s); see the report above\n")
        return EXIT_GATE
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
