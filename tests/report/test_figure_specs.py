"""Figures as data (mabench.report.figures): each figure's numbers equal the tables they come from,
computed without matplotlib; and the renderer (mabench.report.render) draws every kind."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mabench.report import figures, leaderboard, published
from mabench.report.figure_spec import FigureSpec


def _results() -> pd.DataFrame:
    """mdav and cbfs on tarragona at k = 3, 4, 5, two draws each; icsm with an anytime trace at k = 3."""
    rows = []
    for algo, params, base in (("mdav", "tail=3k", 16.0), ("cbfs", "", 15.5)):
        for k in (3, 4, 5):
            for seed in (0, 1):
                rows.append({"dataset_id": "tarragona", "algo_id": algo, "algorithm": algo, "params": params,
                             "dataset": "tarragona", "dataset_params": "", "k": k, "seed": seed,
                             "il": base + k + 0.25 * seed, "g_il": base + k, "g_dr": 40.0 - k - seed, "dld": 5.0 - k,
                             "seconds": 0.01 * k, "info": None, "plugin_path": "/me/cbfs.py" if algo == "cbfs" else None})
    trace = json.dumps({"trace": [[0.0, 17.0], [0.02, 15.0]]})
    rows.append({**rows[0], "algo_id": "icsm", "algorithm": "icsm", "params": "", "il": 15.0, "seconds": 0.05,
                 "info": trace, "plugin_path": None})
    return pd.DataFrame(rows)


def _compared(part: pd.DataFrame, factor: float = 1.02) -> pd.DataFrame:
    out = part.copy()
    implemented = out["algorithm"].astype(str) != ""
    out["reproduced"] = np.where(implemented, out["value"].astype(float) * factor, np.nan)
    out["delta"] = out["reproduced"] - out["value"].astype(float)
    out["ci_low"] = out["ci_high"] = np.nan
    out["n_draws"] = implemented.astype(int)
    out["verdict"] = np.where(implemented, "reproduced", "not implemented")
    out["class"] = out["cause"] = ""
    return out


@pytest.fixture(scope="module")
def registry():
    return published.load()


def test_il_vs_k_holds_the_mean_the_ci_and_the_percent_to_mdav():
    results = _results()
    spec = figures.il_vs_k(results)
    data = spec.data.set_index(["label", "x"])
    means = results.groupby(["algorithm", "k"])["il"].mean()
    assert data.loc[("mdav[tail=3k]", 4), "il"] == means[("mdav", 4)] == 20.125
    assert data.loc[("cbfs", 5), "il"] == means[("cbfs", 5)]
    assert data.loc[("cbfs", 5), "half"] == pytest.approx(1.96 * results[results.algorithm.eq("cbfs") & results.k.eq(5)]
                                                          ["il"].std() / np.sqrt(2))
    assert data.loc[("cbfs", 3), "rel"] == pytest.approx(100 * (means[("cbfs", 3)] / means[("mdav", 3)] - 1))
    assert data.loc[("icsm", 3), "count"] == 1 and np.isnan(data.loc[("icsm", 3), "half"])  # one draw: no CI
    assert spec.extra["relative"] == ("tarragona",)


def test_ru_map_and_anytime_hold_the_results_numbers():
    results = _results()
    ru = figures.ru_map(results).data.set_index(["label", "k"])
    assert ru.loc[("mdav[tail=3k]", 4), "g_dr"] == results[results.algorithm.eq("mdav") & results.k.eq(4)]["g_dr"].mean()
    spec = figures.anytime(results)
    assert spec.extra["panels"] == [("tarragona", 3)]
    steps = spec.data[spec.data["method"] == "icsm"]
    assert list(steps["seconds"]) == [1e-4, 0.02, 0.05] and list(steps["il"]) == [17.0, 15.0, 15.0]
    mdav = spec.data[spec.data["method"] == "mdav[tail=3k]"].iloc[0]
    assert mdav["shape"] == "point" and mdav["il"] == 19.125 and mdav["seconds"] == pytest.approx(0.03)


def test_the_leaderboard_figure_holds_the_boards_rows_and_highlights_the_users_methods():
    board = leaderboard.table(_results())
    part = board[board["data"] == "tarragona"]
    spec = figures.leaderboard(part, "tarragona")
    assert spec.highlight == ("cbfs",) and spec.labels["risk"] == "dld"
    got = spec.data.set_index(["algo_id", "k"])
    for r in part.itertuples():
        assert got.loc[(r.algo_id, r.k), "il"] == r.il and got.loc[(r.algo_id, r.k), "dld"] == r.dld


def test_table_figure_holds_the_published_and_reproduced_values(registry):
    part = _compared(registry[registry["table"] == "Table 1"])
    spec = figures.table_figure(part, None, "t")
    assert spec.kind == "table_k" and len(spec.data) == len(part)
    assert np.allclose(spec.data["published"], part["value"].astype(float))
    assert np.allclose(spec.data["reproduced"], part["reproduced"], equal_nan=True)


def test_verdict_counts_and_deltas_equal_the_compared_table(registry):
    comp = _compared(registry[registry["source"] == "chettri"])
    counts = figures.verdict_overview(comp).data
    assert counts.to_numpy().sum() == len(comp)
    assert counts["reproduced"].sum() == (comp["verdict"] == "reproduced").sum()
    part = comp[comp["table"] == "Table 1"]
    grid = figures.delta_heatmap(part).data
    first = part.iloc[0]
    assert grid.loc[first["row"]].dropna().iloc[0] == pytest.approx(2.0)  # reproduced = 1.02 × published


def test_the_figure_functions_need_no_matplotlib():
    from pathlib import Path

    code = ("import sys; from mabench.report import figures; "
            "sys.path.insert(0, sys.argv[1]); from test_figure_specs import _results; r = _results(); "
            "[f(r) for f in (figures.il_vs_k, figures.ru_map, figures.anytime)]; "
            "assert 'matplotlib' not in sys.modules and 'seaborn' not in sys.modules, 'drawing library imported'")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def _specs(registry) -> dict[str, FigureSpec]:
    results = _results()
    size = _compared(registry[registry["table"] == "Table 4.5"])
    gr = _compared(registry[registry["metric"].isin(["g_il", "g_dr"])])
    gr = gr[gr["table"] == gr["table"].iloc[0]]
    board = leaderboard.table(results)
    frontier = pd.DataFrame({"dataset": "tarragona", "k": [3, 3, 4, 4], "method": ["best known", "mdav[tail=3k]"] * 2,
                             "gap_bound": [1.0, 3.0, 1.5, 4.0]})
    from mabench.report import sdcmicro

    return {"message": figures.il_vs_k(results.assign(k=3)),
            "table_k": figures.table_figure(_compared(registry[registry["table"] == "Table 1"])),
            "table_size": figures.table_figure(size), "ru_map": figures.table_ru_map(gr),
            "verdict_bars": figures.verdict_overview(gr), "heatmap": figures.delta_heatmap(gr),
            "il_vs_k": figures.il_vs_k(results), "anytime": figures.anytime(results),
            "frontier": figures.frontier(frontier), "leaderboard": figures.leaderboard(board, "tarragona"),
            "identity_scatter": sdcmicro.summary_figure(sdcmicro.load_agreement())}


def test_the_renderer_draws_every_kind(registry, tmp_path):
    from mabench.report import plotting, render

    specs = _specs(registry)
    assert set(specs) == set(render.KINDS)
    for kind, spec in specs.items():
        assert spec.kind == kind
        fig = render.draw(spec)
        assert [ax for ax in fig.axes if ax.get_visible()], kind
        plotting.pyplot().close(fig)
    assert render.png(specs["leaderboard"]).startswith(b"\x89PNG")
    assert [p.name for p in render.save(specs["message"], tmp_path, "m")] == ["m.png", "m.pdf"]
    with pytest.raises(ValueError, match="no drawing for figure kind 'pie'"):
        render.draw(FigureSpec(kind="pie"))


def test_the_theme_is_seaborns_without_importing_it():
    """plotting.pyplot() sets seaborn's whitegrid/paper theme itself; drawing imports seaborn only for more
    than ten colours."""
    code = ("import matplotlib, sys; from mabench.report import plotting, figures, render; "
            "plotting.pyplot(); mine = dict(matplotlib.rcParams); "
            "render.png(figures.il_vs_k(__import__('pandas').DataFrame({'dataset_id': 'a', 'algorithm': ['m', 'm', 'c', 'c'], "
            "'params': '', 'dataset': 'a', 'dataset_params': '', 'k': [3, 4, 3, 4], 'il': [1.0, 2.0, 1.5, 2.5]}))); "
            "assert 'seaborn' not in sys.modules, 'seaborn imported'; "
            "matplotlib.rc_file_defaults(); import seaborn as sns; sns.set_theme(style='whitegrid', context='paper'); "
            "theirs = dict(matplotlib.rcParams); "
            "bad = sorted(k for k in theirs if k != 'image.cmap' and theirs[k] != mine[k]); assert not bad, bad; "
            "assert plotting.palette(3) == [tuple(c) for c in sns.color_palette('tab10', 3)]; "
            "assert plotting.palette(13) == [tuple(c) for c in sns.color_palette('husl', 13)]")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def _seaborn_heatmap(spec: FigureSpec):
    """The heat map as drawn with seaborn before the renderer did it itself (the reference)."""
    import seaborn as sns

    from mabench.report import plotting, render

    plt = plotting.pyplot()
    grid, lim = spec.data, spec.extra["limit"]
    rows, cols = grid.shape
    fig, ax = plt.subplots(figsize=(1.0 + 0.75 * cols, 0.8 + 0.3 * rows))
    ax.set_facecolor("#eeeeee")
    sns.heatmap(grid, ax=ax, cmap="RdBu_r", center=0, vmin=-lim, vmax=lim, annot=spec.extra["glyphs"], fmt="",
                annot_kws={"fontsize": 7}, linewidths=0.5, linecolor="white",
                cbar_kws={"label": spec.labels["colorbar"], "shrink": 0.8})
    return render.heatmap_layout(fig, ax, spec.title)


@pytest.mark.parametrize("table", ["Table 1", "Table 4.5"])
def test_the_heat_map_is_seaborns_to_the_byte(registry, table):
    """The renderer draws seaborn's heat map itself (no seaborn and scipy.stats import): the same PNG,
    NaN cells (not implemented) and light and dark cells (the glyph's colour) included."""
    pytest.importorskip("seaborn")
    from mabench.report import plotting, render

    rows = registry[registry["table"] == table]
    part = _compared(rows, 1 + 0.05 * np.sin(np.arange(len(rows))))
    spec = figures.delta_heatmap(part, table)
    assert plotting.png_bytes(render.draw(spec)) == plotting.png_bytes(_seaborn_heatmap(spec))
