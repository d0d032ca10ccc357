"""The reproduction report: one static, self-contained HTML page per seed paper, plus an index.

``results/report/<source>.html`` shows each of the paper's source tables with verdict colours, the
figures of :mod:`mabench.report.figures` (drawn by :mod:`mabench.report.render`) embedded as base64 PNG, every number that does not hold with its
cause and the evidence in numbers, and the provenance of the run (commit, versions, machine, seeds).
The pages need no network and no script: they open from the file system. The figures are also
written as PNG files to ``results/report/figures/``.
"""

from __future__ import annotations

import base64
import html
import math
from pathlib import Path

import pandas as pd

from mabench.report import figures, published, render, tables
from mabench import io

CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}h3{font-size:1em}
table{border-collapse:collapse;font-size:.78em;margin:.5em 0 1em;width:100%}
td.cause{min-width:26em}td.method{word-break:break-all;max-width:14em}
th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.v-reproduced td.verdict{background:#1a9850;color:#fff}
tr.v-within-tolerance td.verdict{background:#a6d96a}
tr.v-not-reproduced td.verdict{background:#d73027;color:#fff}
tr.v-not-run td.verdict{background:#969696;color:#fff}
tr.v-not-implemented td.verdict{background:#e0e0e0}
tr.v-not-reproduced{background:#fdecea}tr.user{background:#fff5d6;font-weight:600}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:.8em;color:#555}
.counts span{display:inline-block;padding:1px 8px;margin-right:4px;border-radius:3px;font-size:.85em}
.c-reproduced{background:#1a9850;color:#fff}.c-within-tolerance{background:#a6d96a}
.c-not-reproduced{background:#d73027;color:#fff}.c-not-run{background:#969696;color:#fff}
.c-not-implemented{background:#e0e0e0}
dl.prov{display:grid;grid-template-columns:max-content auto;gap:2px 12px;font-size:.85em}
dl.prov dt{font-weight:600}dl.prov dd{margin:0;font-family:monospace;word-break:break-all}
nav a{margin-right:1em}
.k-open{background:#67001f;color:#fff}.k-source-error{background:#d73027;color:#fff}
.k-under-specified{background:#f46d43}.k-quoted{background:#fdae61}.k-stochastic{background:#fee090}
.k-machine{background:#c2a5cf}.k-harness-better{background:#4575b4;color:#fff}
h4.k-open{padding:2px 6px}p.headline{font-size:1.05em;font-weight:600}
"""

HEAT_MIN_ROWS = 20  # tables with at least this many numbers also get a per-cell Δ heat map


def _esc(x) -> str:
    return html.escape("" if x is None or (isinstance(x, float) and math.isnan(x)) else str(x))


def _cls(verdict: str) -> str:
    return verdict.replace(" ", "-")


def _counts_html(part: pd.DataFrame) -> str:
    counts = part["verdict"].value_counts()
    spans = [f'<span class="c-{_cls(v)}">{int(counts[v])} {_esc(v)}</span>'
             for v in tables.VERDICT_ORDER if counts.get(v, 0)]
    return f'<p class="counts">{"".join(spans)}</p>'


def _figure_html(png: bytes, caption: str, name: str) -> str:
    data = base64.b64encode(png).decode("ascii")
    return (f'<figure data-figure="{_esc(name)}"><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>")


def _table_html(part: pd.DataFrame, name: str) -> str:
    shown = tables.display(part)
    head = "".join(f"<th>{_esc(c)}</th>" for c in shown.columns)
    numeric = {"k", "Published", "Reproduced", "Δ"}
    body = []
    for verdict, (_, row) in zip(part["verdict"], shown.iterrows()):
        cells = []
        for col, val in row.items():
            cls = {"Verdict": "verdict", "Cause": "cause", "Harness method": "method",
                   "Data set": "method"}.get(col, "num" if col in numeric else "")
            cells.append(f'<td class="{cls}">{_esc(val)}</td>' if cls else f"<td>{_esc(val)}</td>")
        body.append(f'<tr class="v-{_cls(verdict)}">{"".join(cells)}</tr>')
    return (f'<table data-table="{_esc(name)}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def _evidence(row) -> str:
    """The numbers behind a verdict, in one line."""
    digits = int(row["decimals"]) + 2
    parts = [f"published {row['value']}"]
    if row["rule"] == "draws" and row["n_draws"]:
        parts.append(f"reproduced mean {row['reproduced']:.{digits}f} over {int(row['n_draws'])} draws, "
                     f"95 % CI [{row['ci_low']:.{digits}f}, {row['ci_high']:.{digits}f}]")
    elif pd.notna(row["reproduced"]):
        parts.append(f"reproduced {row['reproduced']:.{digits}f}")
    if pd.notna(row["delta"]):
        parts.append(f"Δ = {row['delta']:+.{digits}f}")
        if row["rule"] == "exact":
            parts.append(f"tolerance ±{row['tolerance']}")
    return "; ".join(parts)


def _item_html(row) -> str:
    cause = row["cause"] or row["note"] or "no known cause recorded (see docs/findings.md)"
    evidence = f" Evidence: <code>{_esc(row['evidence'])}</code>." if row.get("evidence") else ""
    return (f"<li><b>{_esc(row['row'])} / {_esc(row['column'])}</b> ({_esc(row['dataset'])}, "
            f"k = {int(row['k'])}, {_esc(row['metric'])}): {_esc(_evidence(row))}. "
            f"<i>Cause:</i> {_esc(cause)}{evidence}</li>")


def _causes_html(part: pd.DataFrame) -> str:
    """The numbers not reproduced, grouped by cause class in ``published.CLASSES`` order (open first,
    each as a question with what was tried)."""
    bad = part[part["verdict"] == "not reproduced"]
    if bad.empty:
        return ""
    cls = bad["class"].replace("", "open")
    out = ['<h3>Not reproduced: causes and evidence, by class</h3>']
    for c in published.CLASSES:
        group = bad[cls == c]
        if group.empty:
            continue
        if c == "open":
            items = "".join(f"<li>{_esc(tables.question(r))}</li>" for _, r in group.iterrows())
            out.append(f'<h4 class="k-open">open ({len(group)}): questions</h4><ol class="causes" '
                       f'data-class="open">{items}</ol>')
        else:
            items = "".join(_item_html(r) for _, r in group.iterrows())
            out.append(f'<h4>{_esc(c)} ({len(group)}) — {_esc(tables.CLASS_MEANING[c])}</h4>'
                       f'<ul class="causes" data-class="{_esc(c)}">{items}</ul>')
    return "".join(out)


def _classes_html(part: pd.DataFrame) -> str:
    """The numbers not reproduced, counted per cause class."""
    n = published.class_counts(part)
    spans = [f'<span class="k-{_esc(c)}">{n[c]} {_esc(c)}</span>' for c in published.CLASSES if n[c]]
    return f'<p class="counts classes">Not reproduced, by cause class: {"".join(spans)}</p>' if spans else ""


def provenance(results: pd.DataFrame) -> dict[str, str]:
    """Commit, versions, machine and seeds of the run, from the results table's provenance columns."""
    prov = {}
    first = results.iloc[0] if len(results) else {}
    for col in results.columns:
        if col in ("git_commit", "lock_sha256", "root_seed", "config", "config_sha256") or col.startswith(("version_", "machine_")):
            prov[col] = str(first[col])
    if {"dataset_id", "seed"} <= set(results.columns):
        seeds = results.groupby("dataset_id", sort=True)["seed"].apply(lambda s: sorted(set(int(x) for x in s)))
        prov["cells"] = f"{len(results)} (data set × method × k × seed)"
        prov["seeds"] = "; ".join(f"{ds}: {', '.join(map(str, v[:6]))}{' …' if len(v) > 6 else ''} ({len(v)})"
                                  for ds, v in seeds.items())
    return prov


def _provenance_html(prov: dict[str, str]) -> str:
    rows = "".join(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in prov.items())
    return f'<h2 id="provenance">Provenance</h2><dl class="prov">{rows}</dl>'


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title)}</title><link rel=\"icon\" href=\"data:,\"><style>{CSS}</style></head>"
            f"<body>{body}</body></html>\n")


def _table_figures(part: pd.DataFrame, results: pd.DataFrame, title: str) -> list[tuple[str, figures.FigureSpec, str]]:
    out = []
    spec = figures.table_figure(part, results, title)
    if spec is not None:
        out.append(("plot", spec, f"{title}: published (hollow) and reproduced (filled)"))
    spec = figures.table_ru_map(part, title)
    if spec is not None:
        out.append(("ru_map", spec, f"{title}: R–U map, one line per method through its k values"))
    if len(part) >= HEAT_MIN_ROWS:
        out.append(("delta", figures.delta_heatmap(part, title),
                    f"{title}: Δ per cell, % of the published value (✓ reproduced, ≈ within tolerance, "
                    "✗ not reproduced; grey: no reproduced value)"))
    return out


def _source_page(source: str, comp: pd.DataFrame, results: pd.DataFrame, prov: dict, fig_dir: Path) -> str:
    title = tables.SOURCES.get(source, source)
    seeds_files = ", ".join(f"<code>{_esc(s)}</code>" for s in dict.fromkeys(comp["seed_file"]))
    body = [f'<nav><a href="index.html">← all papers</a><a href="#provenance">provenance</a></nav>',
            f"<h1>Reproduction report: {_esc(title)}</h1>",
            f"<p>Seed document: {seeds_files}. Every number below is printed in the paper and recomputed by "
            "mabench from <code>registry/published.csv</code>; verdict rules in <code>docs/published.md</code>, "
            "the evidence behind each known cause in <code>docs/findings.md</code>.</p>",
            f'<p class="headline">{_esc(tables.class_summary(comp))}</p>', _counts_html(comp), _classes_html(comp)]
    png = render.png(figures.verdict_overview(comp))
    io.write_bytes(fig_dir / f"{source}_verdicts.png", png)
    body.append(_figure_html(png, f"{title}: verdicts per table", f"{source}_verdicts"))
    for table, part in comp.groupby("table", sort=True):
        name = tables.slug(source, table)
        body.append(f'<h2 id="{_esc(name)}">{_esc(table)}</h2>{_counts_html(part)}{_classes_html(part)}')
        for kind, spec, caption in _table_figures(part, results, f"{source} {table}"):
            png = render.png(spec)
            io.write_bytes(fig_dir / f"{name}_{kind}.png", png)
            body.append(_figure_html(png, caption, f"{name}_{kind}"))
        body.append(_table_html(part, name))
        body.append(_causes_html(part))
    body.append(_provenance_html(prov))
    return _page(f"mabench reproduction: {title}", "".join(body))


def _index_page(compared: pd.DataFrame, prov: dict, fig_dir: Path, frontier_link: bool = False,
                left_out: int = 0) -> str:
    body = ['<p class="headline"><a href="leaderboard.html">Leaderboard</a>: every method this run computed, '
            "per data set and k, ranked by IL, with the gaps to the best-known partition and the certified bound "
            "and a figure per data set.</p>",
            "<h1>mabench reproduction reports</h1>",
            "<p>The published numbers in <code>registry/published.csv</code> whose tables this run computed, "
            "recomputed by mabench. One page per seed paper; verdict rules and cause classes in "
            "<code>docs/published.md</code>."
            + (f" {left_out} table(s) of the registry whose cells this configuration does not run are left out."
               if left_out else "") + "</p>"]
    if compared.empty:
        body.append("<p>This configuration runs none of the published tables' cells.</p>")
        body.append(_provenance_html(prov))
        return _page("mabench reproduction reports", "".join(body))
    body += [f'<p class="headline">{_esc(tables.class_summary(compared))}</p>', _counts_html(compared),
             _classes_html(compared)]
    body.append("<ul>" + "".join(f'<li><span class="k-{_esc(c)}">{_esc(c)}</span> {_esc(tables.CLASS_MEANING[c])}</li>'
                                 for c in published.CLASSES) + "</ul>")
    png = render.png(figures.verdict_overview(compared))
    io.write_bytes(fig_dir / "verdicts.png", png)
    body.append(_figure_html(png, "Verdicts per source table; the numbers not reproduced split by cause class",
                             "verdicts"))
    rows = []
    for source, part in compared.groupby("source", sort=True):
        counts = part["verdict"].value_counts()
        n = published.class_counts(part)
        cells = "".join(f'<td class="num">{int(counts.get(v, 0))}</td>' for v in tables.VERDICT_ORDER)
        cells += "".join(f'<td class="num">{n[c]}</td>' for c in published.CLASSES)
        rows.append(f'<tr><td><a href="{_esc(source)}.html">{_esc(tables.SOURCES.get(source, source))}</a></td>'
                    f"<td>{_esc(', '.join(dict.fromkeys(part['seed_file'])))}</td>{cells}</tr>")
    head = "".join(f"<th>{_esc(v)}</th>" for v in tables.VERDICT_ORDER)
    head += "".join(f"<th>✗ {_esc(c)}</th>" for c in published.CLASSES)
    body.append(f'<table data-table="index"><thead><tr><th>paper</th><th>seed file</th>{head}</tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table>')
    body.append('<p><a href="sdcmicro.html">mabench vs sdcMicro</a>: sdcMicro\'s microaggregation() methods and '
                "mabench's plugins of the same names on the same files (IL, DLD, time).</p>")
    if frontier_link:
        body.append('<h2 id="frontier">Frontier</h2><p><a href="frontier.html">How far each method is from the '
                    'certified lower bound and the best known partition</a>.</p>')
    body.append(_provenance_html(prov))
    return _page("mabench reproduction reports", "".join(body))


def write_report(results: pd.DataFrame, out_dir, registry: pd.DataFrame | None = None,
                 workers: int | None = None) -> list[Path]:
    """Write ``index.html`` and one ``<source>.html`` per source of the registry; return the pages.

    The pages are independent, so up to ``workers`` processes build them at once (default: the cores
    this process may use when the report draws at least PARALLEL_FIGURES figures, else one); each page
    and figure is the same bytes whichever process draws it."""
    registry = published.load() if registry is None else registry
    out_dir = Path(out_dir)
    fig_dir = out_dir / "figures"
    prov = provenance(results)
    compared, left_out = tables.run_tables(published.compare(registry, results))
    jobs = [(_leaderboard_job, (results, out_dir, prov))]
    jobs += [(_source_job, (source, compared[compared["source"] == source], results, prov, out_dir))
             for source in sorted(registry["source"].unique())]
    jobs += [(_sdcmicro_job, (results, prov, out_dir)), (_frontier_job, (results, prov, out_dir))]
    if workers is None:
        workers = _default_workers(results, compared)
    written = [path for path in _run_jobs(jobs, workers) if path is not None]
    frontier_link = (out_dir / "frontier.html") in written
    io.write_text(out_dir / "index.html", _index_page(compared, prov, fig_dir, frontier_link=frontier_link,
                                                      left_out=left_out))
    return [out_dir / "index.html"] + written


# Starting the worker processes costs about 2 CPU s (the fork server imports pandas and matplotlib);
# a figure about 0.3 s: below this many figures one process is as fast (docs/report.md, "Time").
PARALLEL_FIGURES = 40


def _default_workers(results: pd.DataFrame, compared: pd.DataFrame) -> int:
    """The cores this process may use when the report draws at least PARALLEL_FIGURES figures (one per
    data set on the leaderboard, up to three per published table), else 1."""
    from mabench.bench import threads

    tables_run = len(compared[["source", "table"]].drop_duplicates()) if len(compared) else 0
    data_sets = results["dataset_id"].nunique() if "dataset_id" in results.columns else 1
    return threads.cores() if data_sets + 3 * tables_run >= PARALLEL_FIGURES else 1


def _run_jobs(jobs: list, workers: int) -> list:
    """Each ``(function, args)`` called, results in order; in ``workers`` processes when more than one.
    The workers come from a fork server that has imported this module (so no worker imports pandas
    and matplotlib again, and none inherits the threads of this process)."""
    workers = min(workers, len(jobs))
    if workers <= 1:
        return [fn(*args) for fn, args in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__, "matplotlib.pyplot"])
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        futures = [pool.submit(fn, *args) for fn, args in jobs]
        return [f.result() for f in futures]


def _leaderboard_job(results: pd.DataFrame, out_dir: Path, prov: dict) -> Path:
    return write_leaderboard(results, out_dir, prov)


def _source_job(source: str, comp: pd.DataFrame, results: pd.DataFrame, prov: dict, out_dir: Path) -> Path:
    target = out_dir / f"{source}.html"
    if comp.empty:  # the workflow's report rule names every source's page
        title = tables.SOURCES.get(source, source)
        page = _page(f"mabench reproduction: {title}",
                     f'<nav><a href="index.html">← all papers</a></nav><h1>{_esc(title)}</h1><p>This '
                     "configuration runs none of this paper's tables.</p>" + _provenance_html(prov))
    else:
        page = _source_page(source, comp, results, prov, out_dir / "figures")
    io.write_text(target, page)
    return target


def _sdcmicro_job(results: pd.DataFrame, prov: dict, out_dir: Path) -> Path:
    from mabench.report import sdcmicro

    target = out_dir / "sdcmicro.html"
    body = sdcmicro.page_body(results, _esc, _figure_html) + _provenance_html(prov)
    io.write_text(target, _page("mabench vs sdcMicro", body))
    return target


def _frontier_job(results: pd.DataFrame, prov: dict, out_dir: Path) -> Path | None:
    page = _frontier_page(results, prov, out_dir / "figures")
    if page is None:
        return None
    io.write_text(out_dir / "frontier.html", page)
    return out_dir / "frontier.html"


def write_leaderboard(results: pd.DataFrame, out_dir, prov: dict | None = None) -> Path:
    """``leaderboard.html`` (mabench.report.leaderboard_page) in ``out_dir``, its figures in ``figures/``."""
    from mabench.report import leaderboard, leaderboard_page

    out_dir = Path(out_dir)
    board = leaderboard.table(results, *leaderboard.references())
    prov = provenance(results) if prov is None else prov
    body = ('<nav><a href="index.html">reproduction reports</a><a href="#provenance">provenance</a></nav>'
            + leaderboard_page.body(board, _esc, _figure_html, out_dir / "figures") + _provenance_html(prov))
    io.write_text(out_dir / "leaderboard.html", _page("mabench leaderboard", body))
    return out_dir / "leaderboard.html"


def _plain_table_html(frame: pd.DataFrame, name: str) -> str:
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    rows = []
    for rec in frame.to_dict("records"):
        cells = "".join(f'<td class="num">{v:.4f}</td>' if isinstance(v, float) else f"<td>{_esc(v)}</td>"
                        for v in rec.values())
        rows.append(f"<tr>{cells}</tr>")
    return f'<table data-table="{_esc(name)}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _frontier_page(results: pd.DataFrame, prov: dict, fig_dir: Path) -> str | None:
    """The frontier section: gaps to the certified lower bound and to the best known (None when the
    registry has no bounds.csv)."""
    from mabench.errors import UserError
    from mabench.report import frontier

    try:
        frame = frontier.table(results)
    except UserError:
        return None
    png = render.png(figures.frontier(frame))
    io.write_bytes(fig_dir / "frontier.png", png)
    show = frame[["dataset", "k", "method", "il", "bound", "best", "gap_bound", "gap_best"]].rename(columns={
        "il": "IL", "bound": "lower bound", "best": "best known", "gap_bound": "gap to bound %",
        "gap_best": "gap to best %"})
    body = ["<h1>The frontier: distance to optimal</h1>",
            "<p>Per real data set and k, each method's IL (default run, mean over seeds) against the certified "
            "lower bound (<code>mabench bound</code>, docs/bounds.md) and the best known partition "
            "(<code>registry/best_known</code>). Gap = 100·(IL − reference)/IL. The optimum lies between the bound "
            "and the best known.</p>",
            _figure_html(png, "Gap to the certified lower bound per method", "frontier"),
            _plain_table_html(show, "frontier"), _provenance_html(prov)]
    return _page("mabench frontier", "".join(body))
