"""The frontier table, figure and page: gaps computed from the registry's bound and best known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mabench.report import figures, frontier, render
from mabench.report import best_known_table


def _results():
    rows = []
    for ds, il in (("tarragona", 16.9), ("census", 5.6), ("eia", 0.42)):
        for seed, extra in ((0, 0.0), (1, 0.2)):
            rows.append({"dataset": ds, "dataset_params": "", "algorithm": "mdav", "params": "", "k": 3, "seed": seed,
                         "il": il + extra})
    rows.append({"dataset": "normal", "dataset_params": "n=100", "algorithm": "mdav", "params": "", "k": 3, "seed": 0,
                 "il": 30.0})
    return pd.DataFrame(rows)


def test_frontier_table_gaps():
    frame = frontier.table(_results())
    cells = frontier.cells()
    assert len(cells) == 12 and cells["bound"].notna().all()
    assert (cells["bound"] < cells["best"]).all()
    mdav = frame[(frame["method"] != "best known") & (frame["dataset"] == "tarragona") & (frame["k"] == 3)]
    assert len(mdav) == 1  # two seeds averaged, the synthetic data set left out
    r = mdav.iloc[0]
    assert r["il"] == pytest.approx(17.0)
    assert r["gap_bound"] == pytest.approx(100 * (17.0 - r["bound"]) / 17.0)
    assert r["gap_best"] == pytest.approx(100 * (17.0 - r["best"]) / 17.0)
    best = frame[frame["method"] == "best known"]
    assert (best["gap_best"] == 0).all() and (best["gap_bound"] > 0).all()
    assert set(frame["dataset"]) == {"tarragona", "census", "eia"}


def test_frontier_files_and_figure(tmp_path):
    frame = frontier.table(_results())
    paths = frontier.write(frame, tmp_path)
    text = paths[0].read_text()
    assert "| tarragona | 3 |" in text and "Gap to bound" in text
    back = pd.read_csv(paths[1])
    assert np.allclose(back["gap_bound"], frame["gap_bound"])
    written = render.save(figures.frontier(frame), tmp_path, "frontier")
    assert any(p.suffix == ".png" and p.stat().st_size > 0 for p in written)


def test_best_known_table_has_bound_columns(tmp_path):
    merged = best_known_table.table(tmp_path)
    assert {"il_bound", "gap_pct", "below", "below_possible"} <= set(merged.columns)
    assert (merged["il_bound"] < merged["il_recomputed"]).all()
    assert "Gap %" in (tmp_path / "best_known.md").read_text()
    # where the bound is at or above the target, the cell says it cannot be reached, and is not below
    cannot = merged[~merged["below_possible"]]
    assert (cannot["il_bound"] >= cannot["published"] - 0.005).all() and not cannot["below"].any()
    text = (tmp_path / "best_known.md").read_text()
    assert text.count("| cannot (bound ≥") == len(cannot)


def test_frontier_page(tmp_path):
    from mabench.report import pages

    html = pages._frontier_page(_results(), {}, tmp_path)
    assert html is not None and 'data-figure="frontier"' in html and 'data-table="frontier"' in html
    assert (tmp_path / "frontier.png").stat().st_size > 0
