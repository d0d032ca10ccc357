"""The optimum's commands: `best-known` (verify, improve or tabulate the best-known partitions) and
`bound` (certified lower bounds on the optimal IL)."""

from __future__ import annotations

from mabench.cli.common import Command, finite, print_json
from mabench.errors import UserError


def _best_known_arguments(s) -> None:
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
    s.add_argument("--dir", help="registry folder (default: registry/best_known)")
    s.add_argument("--out-dir", help="table: where best_known.{md,csv} go")


def cmd_best_known(args) -> None:
    from mabench.optimum import best_known

    if args.action == "verify":
        report, problems = best_known.verify(args.dir)
        for rec in report.to_dict("records"):
            print_json({"dataset": rec["dataset"], "k": int(rec["k"]), "il": float(rec["il"]),
                         "il_recomputed": float(rec["il_recomputed"]), "min_group": int(rec["min_group"]),
                         "max_group": int(rec["max_group"]), "ok": bool(rec["ok"])})
        if problems:
            raise UserError(f"{len(problems)} best-known entr{'y' if len(problems) == 1 else 'ies'} fail "
                            f"verification: " + "; ".join(problems))
    elif args.action == "improve":
        if not args.dataset or args.k is None:
            raise UserError("best-known improve needs DATASET and -k, e.g. `mabench best-known improve eia -k 3 --budget 60`")
        print_json(best_known.improve(args.dataset, args.k, args.budget, args.seed, args.method, args.restarts,
                                       dissolve=args.dissolve, root=args.dir,
                                       **({} if args.neighbours is None else {"neighbours": args.neighbours})))
    else:
        if not args.out_dir:
            raise UserError("best-known table needs --out-dir")
        from mabench.report import best_known_table

        merged = best_known_table.table(args.out_dir, args.dir)
        print_json({"cells": int(len(merged)), "at_or_below_published": int(merged["beats"].sum())})


BEST_KNOWN = Command("best-known", help="verify, improve or tabulate the best-known partitions (registry/best_known)",
              arguments=_best_known_arguments, body=cmd_best_known)


def _bound_arguments(s) -> None:
    s.add_argument("dataset", help="any data set the CLI accepts (catalog name, generator spec or file)")
    s.add_argument("-k", required=True, help="minimum group sizes, e.g. 3,4,5,10")
    s.add_argument("--seed", type=int, default=0, help="seed of a generated data set")
    s.add_argument("--store", action="store_true", help="also write the bounds into registry/best_known/bounds.csv")
    s.add_argument("--method", choices=["pair", "cover", "lp", "tail"], default="pair",
                   help="pair: the cheap pair bound; cover: the degree-cover LP bound with triangle cuts "
                        "(the stronger one from k = 4); lp: the set-partitioning LP bound by column generation, "
                        "certified by a Lagrangian bound; tail: lp, then an integer program over the groups "
                        "of the costliest records (docs/bounds.md)")
    s.add_argument("--budget", type=float, default=120.0,
                   help="lp, cover, tail: seconds per k (the round or certified pass running then finishes); "
                        "tail: as much again for its integer programs")
    s.add_argument("--dir", help="registry folder for --store and for the start partitions of lp and tail (default: registry/best_known)")


def cmd_bound(args) -> None:
    from mabench.bench.runner import parse_ks
    from mabench.optimum import bounds

    finite("--budget", args.budget, 0, strict=True, high=1e7)
    if args.store:
        from mabench.data import fetch

        if args.dataset not in fetch.catalog():  # the tracked registry covers the catalog data sets only
            raise UserError(f"bound --store: {args.dataset!r} is not a catalog data set "
                            f"({', '.join(sorted(fetch.catalog()))}); the registry holds only those, drop --store")
    start = bounds.registry_start(args.dataset, args.dir) if args.method in ("lp", "tail") else None
    records = bounds.compute(args.dataset, parse_ks(args.k), args.seed, method=args.method, budget=args.budget,
                             start=start)
    if args.store:
        bounds.store(records, args.dir)
    for rec in records:
        print_json(rec)


BOUND = Command("bound", help="certified lower bound on the optimal IL of a data set at each k (docs/bounds.md)",
              arguments=_bound_arguments, body=cmd_bound)


COMMANDS = [BEST_KNOWN, BOUND]
