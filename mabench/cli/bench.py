"""`mabench bench`: the leaderboard of a few methods on the user's own file (or a catalog or generated
set), without writing a workflow configuration.

``mabench bench FILE --methods a,b,c -k 3,5 [--strata COL] [--weights COL] --out DIR`` builds the plan a
configuration naming those methods on that file would give (:mod:`mabench.bench.plan`: the same checks
of the data, the strata and weights columns, the same seeds: one for a deterministic method,
``--seeds`` draws of a randomized one) and runs its cells with the workflow's cell cache (``DIR/cache``,
keyed as :mod:`mabench.bench.batch` keys a cell, on the loaded data's values and column names, as
`mabench regress` does, and exactly the code of each cell). It writes

* ``DIR/cells/<data id>/<method>/seed<S>/k<K>.{json,csv}`` — each cell's record and partition;
* ``DIR/masked/<method>_k<K>.<ext>`` — the masked file of each method and k (its first seed; the input's
  format for CSV and Parquet, CSV otherwise);
* ``DIR/results.parquet`` and ``DIR/leaderboard.{md,csv,tex,html}`` with ``leaderboard_cost.{md,csv}``.

Run it again after an interruption and it resumes: the finished cells come from the cache.
"""

from __future__ import annotations

from pathlib import Path

from mabench.cli.common import PENDING, Command, json_line, parse_options
from mabench.errors import UserError


def _arguments(s) -> None:
    s.add_argument("dataset", help="a CSV, Parquet, SPSS, Stata or SAS file, a catalog name or a generator name")
    s.add_argument("--methods", required=True, help="comma-separated algorithm names, e.g. mdav,cbfs,pc1cut")
    s.add_argument("-k", required=True, help="minimum group sizes, e.g. -k 3,5")
    s.add_argument("--strata", metavar="COL,...", help="columns whose value combinations are microaggregated separately")
    s.add_argument("--weights", metavar="COL", help="column of sampling weights (weighted group means)")
    s.add_argument("--columns", metavar="COL,...", help="the variables to aggregate (default: every numeric column "
                   "that is not a strata or weights column)")
    s.add_argument("--metrics", default="il,dld", help="comma-separated metric names (default: il,dld)")
    s.add_argument("--option", action="append", metavar="NAME=VALUE", help="metric option (JSON value)")
    s.add_argument("--seeds", type=int, default=1, help="draws of each randomized method (default 1: seed 0)")
    s.add_argument("--out", required=True, help="the output folder")
    s.add_argument("--progress", type=float, nargs="?", const=10.0, metavar="SECONDS",
                   help="plain progress lines on stderr (default: a progress bar on a terminal)")


def _paths(args) -> tuple[list, list]:
    from mabench.cli.common import existing

    return [], existing("data", args.dataset)


def data_id(dataset: str) -> str:
    """The data set's id in the plan and the cell folders: the file's stem (or the set's name),
    reduced to the id characters a configuration allows."""
    import re

    stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(dataset.split("[")[0]).stem) or "data"
    return stem if stem[0].isalpha() else f"d{stem}"


def _config(args, ks: list[int], methods: list[str]) -> dict:
    """The workflow configuration `bench` stands for (checked and planned like any other)."""
    from mabench.bench import config as config_module

    params = {}
    if args.strata:
        params["strata"] = "+".join(c.strip() for c in args.strata.split(",") if c.strip())
    if args.weights:
        params["sampling_weights"] = args.weights
    data = {"spec": args.dataset, "k": ks}
    if args.columns:
        data["columns"] = [c.strip() for c in args.columns.split(",") if c.strip()]
    raw = {"k": ks, "metrics": [m.strip() for m in args.metrics.split(",") if m.strip()],
           "algorithm_seeds": args.seeds, "datasets": {data_id(args.dataset): data},
           "algorithms": {m: {"algorithm": m, **({"params": dict(params)} if params else {})} for m in methods}}
    config_module.prepare(raw, [])
    return raw


def cmd_bench(args) -> None:
    from mabench import data, discovery, io
    from mabench.bench import batch, plan as plan_module
    from mabench.bench.progress import Progress
    from mabench.bench.runner import parse_ks, run_cells
    from mabench.data.formats import write_masked
    from mabench.metrics import parse_names
    from mabench.report import aggregate, leaderboard, pages

    ks = parse_ks(args.k)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods or len(set(methods)) != len(methods):
        raise UserError(f"--methods {args.methods!r}: give each method once, e.g. --methods mdav,cbfs")
    for name in methods:
        discovery.algorithm(name)  # an unknown name: one line naming the known ones
    parse_names(args.metrics)
    if not 1 <= args.seeds <= 1000:
        raise UserError(f"--seeds {args.seeds}: give 1 to 1000 draws of a randomized method")
    plan = plan_module.build(_config(args, ks, methods))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {args.out!r} is a file; give a folder")
    ds_id = data_id(args.dataset)
    entry = plan.datasets[ds_id]
    spec = data.with_columns(args.dataset, args.columns) if args.columns else args.dataset
    suffix = Path(args.dataset).suffix.lower()
    masked_ext = suffix if suffix in (".csv", ".parquet") else ".csv"
    digest = batch.data_digest(data.load(spec, 0, aside=tuple(args.strata.split(",")) if args.strata else ()))
    options = parse_options(args.option)
    cache = out / "cache"
    progress = Progress.for_cli(args.progress)
    cell_files, computed = [], 0
    try:
        for algo_id in entry.algorithms:
            algo = plan.algorithms[algo_id]
            resolved = discovery.algorithm(algo.algorithm).resolve(algo.params)
            seeds = plan.batch_seeds(ds_id, algo_id)
            for seed in seeds:
                todo = []
                for k in plan.algo_ks(ds_id, algo_id):
                    key = batch.cell_key(digest, algo.algorithm, resolved, k, seed, entry.metrics, options)
                    masked = out / "masked" / f"{algo_id}_k{k}{masked_ext}"
                    hit = batch.cached(cache, key)
                    if hit is not None and (seed != seeds[0] or masked.exists()):
                        batch._write_cell(out / "cells" / ds_id / algo_id, seed, k, hit[0], hit[1])
                    else:
                        todo.append((k, key, masked))
                    cell_files.append(out / "cells" / ds_id / algo_id / f"seed{seed}" / f"k{k}.json")
                if not todo:
                    continue
                for (k, key, masked), result in zip(todo, run_cells(algo.algorithm, spec, [t[0] for t in todo], seed,
                                                                     algo.params, entry.metrics, options, progress)):
                    labels = io.partition_csv(result.labels)
                    batch.keep(cache, key, result.record, labels)
                    batch._write_cell(out / "cells" / ds_id / algo_id, seed, k, result.record, labels)
                    if seed == seeds[0]:
                        with io.outputs() as pair:
                            write_masked(pair, str(masked), result.masked_file(), result.source)
                    computed += 1
    finally:
        progress.close()
    results = aggregate.collect(cell_files, out / "cells")
    aggregate.write(results, out / "results.parquet", plan.config.get("root_seed"))
    leaderboard.write(results, out, *leaderboard.references())
    pages.write_leaderboard(results, out)
    PENDING.append(json_line({"cells": len(cell_files), "computed": computed, "leaderboard": str(out / "leaderboard.html"),
                              "masked": str(out / "masked")}))


BENCH = Command("bench", help="the leaderboard of a few methods on your own file: cells, masked files, "
                "leaderboard.{md,csv,tex,html}", arguments=_arguments, body=cmd_bench, paths=_paths,
                all_or_nothing=False)

COMMANDS = [BENCH]
