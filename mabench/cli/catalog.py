"""Commands about what mabench knows: `list` (algorithms, data sets and metrics), `fetch` (a catalog data
set's upstream file) and `prepare` (data sets written as tidy Parquet)."""

from __future__ import annotations

from mabench.cli.common import Command, existing, print_json
from mabench.errors import UserError


def _list_arguments(s) -> None:
    s.add_argument("what", choices=["algorithms", "datasets", "metrics"])
    s.add_argument("--long", action="store_true", help="algorithms: also how time and memory grow with n")


def cmd_list(args) -> None:
    from mabench import data, discovery

    if args.what == "algorithms":
        for name, algo in sorted(discovery.algorithms().items()):
            params = ", ".join(f"{p}={v.default}" for p, v in algo.params.items())
            print(f"{name}\t{algo.title}\t{params}\t{algo.citation}")
            if getattr(args, "long", False):
                print(f"  time: {algo.time or 'not declared'}\n  memory: {algo.memory or 'not declared'}")
    elif args.what == "metrics":
        from mabench.metrics import listing

        print("\n".join(listing()))
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


LIST = Command("list", help="list algorithms, data sets or metrics (with their options)",
              arguments=_list_arguments, body=cmd_list)


def _fetch_arguments(s) -> None:
    s.add_argument("name")
    s.add_argument("--out", required=True, help="where to write the verified upstream file")
    s.add_argument("--url", help="download from this URL instead of the catalog's")
    s.add_argument("--no-vendor", action="store_true", help="ignore the vendored copy and download")


def _fetch_paths(args) -> tuple[list, list]:
    from mabench.data import fetch

    ins = existing("--url", args.url)
    try:
        ins += existing("the vendored copy", fetch.vendored_path(args.name))
    except UserError:
        pass  # an unknown name is reported by the command itself
    return [("--out", args.out)], ins


def cmd_fetch(args) -> None:
    from mabench.data import fetch

    info = fetch.fetch(args.name, args.out, url=args.url, use_vendor=not args.no_vendor)
    print_json(info)


FETCH = Command("fetch", help="fetch a catalog data set's upstream file (vendored copy first)",
              arguments=_fetch_arguments, body=cmd_fetch, paths=_fetch_paths)


def _prepare_arguments(s) -> None:
    s.add_argument("dataset", nargs="+", help="one or more data sets, each with its --out")
    s.add_argument("--seed", action="append", help="draw seed, or several (1,2,3) with {seed} in --out; once for "
                   "every data set or once per data set, in order (default 0)")
    s.add_argument("--raw", action="append", help="for a catalog data set: the fetched upstream file to convert "
                   "(--raw FILE, or --raw NAME=FILE per catalog name with several data sets)")
    s.add_argument("--out", action="append", required=True, help="output Parquet, one per data set")


def _prepare_paths(args) -> tuple[list, list]:
    given = args.seed or ["0"]
    per_set = given if len(given) == len(args.out) else [given[0]] * len(args.out)
    outs = [("--out", o.replace("{seed}", x.strip())) for o, text in zip(args.out, per_set)
            for x in str(text).split(",") if x.strip()]
    ins = []
    for spec in args.dataset:
        ins += existing("data", spec)
    for raw in args.raw or []:
        ins += existing("--raw", raw) or existing("--raw", raw.partition("=")[2])
    return outs, ins


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
            print_json({"dataset": ds.spec, "seed": ds.seed, "n": int(ds.values.shape[0]),
                         "d": int(ds.values.shape[1]), "out": out})


PREPARE = Command("prepare", help="write data sets (catalog, generated or file) as tidy Parquet",
              arguments=_prepare_arguments, body=cmd_prepare, paths=_prepare_paths)


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


COMMANDS = [LIST, FETCH, PREPARE]
