"""The report's commands: `tables` (the published tables with verdicts), `figures` and `report` (one
HTML page per paper). Their outputs go into a folder and are checked as they are written."""

from __future__ import annotations

from mabench.cli.common import Command, existing, print_json, require_extra


def _results_paths(args) -> tuple[list, list]:
    return [], existing("--results", args.results) + existing("--published", getattr(args, "published", None))


def _tables_arguments(s) -> None:
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: registry/published.csv)")
    s.add_argument("--out-dir", required=True)


def cmd_tables(args) -> None:
    from mabench.report import published, tables

    results = tables.read_results(args.results)
    registry = published.load(args.published) if args.published else None
    compared = tables.write_tables(results, args.out_dir, registry)
    print_json({"published": int(len(compared)),
                 **{v: int((compared["verdict"] == v).sum()) for v in tables.VERDICT_ORDER}})


TABLES = Command("tables", help="regenerate the published tables with verdicts",
              arguments=_tables_arguments, body=cmd_tables, paths=_results_paths)


def _figures_arguments(s) -> None:
    s.add_argument("--results", required=True)
    s.add_argument("--out-dir", required=True)


def cmd_figures(args) -> None:
    require_extra("figures", "report")
    from mabench.report import figures, render, tables

    results = tables.read_results(args.results)
    written = [path for stem, spec in (("il_vs_k", figures.il_vs_k(results)), ("ru_map", figures.ru_map(results)),
                                       ("anytime", figures.anytime(results)))
               for path in render.save(spec, args.out_dir, stem)]
    print_json({"figures": [str(p) for p in written]})


FIGURES = Command("figures", help="draw IL-versus-k, R-U map and anytime (IL versus time) figures (PNG and PDF)",
              arguments=_figures_arguments, body=cmd_figures, paths=_results_paths)


def _report_arguments(s) -> None:
    s.add_argument("--results", required=True)
    s.add_argument("--published", help="registry CSV (default: registry/published.csv)")
    s.add_argument("--out-dir", required=True, help="writes index.html, leaderboard.html, <source>.html and "
                   "figures/*.png")
    s.add_argument("--only", choices=["leaderboard"], help="write only this page (leaderboard.html and its "
                   "figures): seconds where the published tables' pages take minutes")


def cmd_report(args) -> None:
    require_extra("report", "report")
    from mabench.report import pages, published, tables

    results = tables.read_results(args.results)
    if args.only == "leaderboard":
        print_json({"pages": [str(pages.write_leaderboard(results, args.out_dir))]})
        return
    registry = published.load(args.published) if args.published else None
    pages_written = pages.write_report(results, args.out_dir, registry)
    print_json({"pages": [str(p) for p in pages_written]})


REPORT = Command("report", help="write the reproduction report: one self-contained HTML page per paper",
              arguments=_report_arguments, body=cmd_report, paths=_results_paths)


COMMANDS = [TABLES, FIGURES, REPORT]
