"""The leaderboard as an HTML page: per data set, a figure (IL versus k; disclosure risk versus IL)
with the user's methods highlighted, and the leaderboard rows (:mod:`mabench.report.leaderboard`)
with their time and peak memory.

The page is the report's first page (``results/report/leaderboard.html``, linked first from
``index.html``) and what ``mabench bench`` writes beside its tables. The user's methods (★, from
``MABENCH_HOME``) are drawn in colour with thick lines; the built-in methods in grey, so that an author
sees at once where their method stands. The risk panel plots the first disclosure-risk metric the run
computed (DLD, RLD, ID or SI, in that order) against IL; without one, the figure has the IL panel only
(:func:`mabench.report.figures.leaderboard`, drawn by :mod:`mabench.report.render`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mabench.report import leaderboard

def _cell(value, digits: int = 4) -> str:
    return leaderboard._num(value, digits)


def _rows_html(part: pd.DataFrame, esc, metrics: list[str]) -> str:
    head = ["k", "rank", "method", *[m.upper() for m in metrics], "gap to best-known", "gap to bound", "seconds",
            "peak MB", "draws"]
    body = []
    for r in part.itertuples(index=False):
        cells = [str(r.k), "" if pd.isna(r.rank) else str(r.rank), f"{r.algo_id}" + (" ★" if r.user else ""),
                 *[_cell(getattr(r, m)) for m in metrics], _cell(getattr(r, "gap_best_known", np.nan)),
                 _cell(getattr(r, "gap_bound", np.nan)), _cell(getattr(r, "seconds", np.nan), 3),
                 _cell(getattr(r, "max_rss_mb", np.nan), 0), str(r.draws)]
        tds = "".join(f'<td class="num">{esc(c)}</td>' if i != 2 else f'<td class="method">{esc(c)}</td>'
                      for i, c in enumerate(cells))
        body.append(f'<tr class="{"user" if r.user else ""}">{tds}</tr>')
    return (f'<table data-table="leaderboard"><thead><tr>{"".join(f"<th>{esc(h)}</th>" for h in head)}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')


def body(board: pd.DataFrame, esc, figure_html, fig_dir=None) -> str:
    """The page's HTML body: one section per data set (figure, then rows). ``esc`` and
    ``figure_html`` are the report's (mabench.report.pages); each figure's PNG is also written to
    ``fig_dir`` when given."""
    from mabench import io
    from mabench.report import figures, render

    metrics = [m for m in leaderboard.METRICS if m in board.columns]
    mine = sorted(board.loc[board["user"].astype(bool), "algo_id"].unique()) if len(board) else []
    out = ["<h1>Leaderboard</h1>",
           "<p>Every method this run computed, per data set and k, ranked by IL (1 = lowest; means over draws). "
           + (f"Your methods (★, from MABENCH_HOME): <b>{esc(', '.join(mine))}</b>, drawn in colour; the "
              "built-in methods in grey. " if mine else "")
           + "Gap to best-known = IL − the best-known partition's IL (registry/best_known); gap to bound = IL − "
           "the certified lower bound (docs/bounds.md); both in IL points: the optimum lies between them. "
           "Seconds and peak MB are measured in this run. The same rows: leaderboard.md, .csv, .tex.</p>"]
    if board.empty:
        return "".join(out + ["<p>No cells.</p>"])
    for i, (data, part) in enumerate(board.groupby("data", sort=True)):
        out.append(f'<h2 id="d{i}">{esc(data)}</h2>')
        png = render.png(figures.leaderboard(part, data))
        if fig_dir is not None:
            io.write_bytes(fig_dir / f"leaderboard_{i}.png", png)
        out.append(figure_html(png, f"{data}: IL versus k and disclosure risk versus IL; ★ = your methods",
                               f"leaderboard_{i}"))
        out.append(_rows_html(part, esc, metrics))
    return "".join(out)
