"""mabench.report.figures: figures come from the registry and the results alone (no per-method code)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mabench.report import figure_data, figures, plotting, published, render


@pytest.fixture(scope="module")
def registry():
    return published.load()


def _compared(part: pd.DataFrame, factor: float = 1.0) -> pd.DataFrame:
    """The registry slice with a 'reproduced' value = published × factor for implemented rows."""
    out = part.copy()
    vals = out["value"].astype(float) * factor
    implemented = out["algorithm"].astype(str) != ""
    out["reproduced"] = np.where(implemented, vals, np.nan)
    out["delta"] = out["reproduced"] - out["value"].astype(float)
    out["ci_low"] = out["ci_high"] = np.nan
    out["n_draws"] = implemented.astype(int)
    out["verdict"] = np.where(implemented, "reproduced", "not implemented")
    out["cause"] = ""
    return out


def test_printed_label_is_the_method_as_the_paper_names_it():
    assert figure_data.printed_label("MDAV-1", "k=3") == "MDAV-1"
    assert figure_data.printed_label("Census, G_IL", "k=3 MDAV") == "MDAV"
    assert figure_data.printed_label("Census, G_IL", "k=10 OMMA") == "OMMA"
    assert figure_data.printed_label("Tarragona", "MDAV IL") == "MDAV IL"


@pytest.mark.parametrize("table, expected", [("Table 1", "k"), ("Table 4.3", "k"), ("Table 4.4", "k"),
                                             ("Table 4.5", "n"), ("Table 4.6", "d"), ("Table 5.3", "n"),
                                             ("Table 5.4", "d"), ("Table 5.5", "k")])
def test_what_a_table_varies_is_detected(registry, table, expected):
    assert figure_data.x_variable(registry[registry["table"] == table]) == expected


def test_labels_do_not_overlap():
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(3, 3))
    points = [(1.0, 1.0), (1.01, 1.0), (1.0, 1.01), (1.02, 1.02), (2.0, 2.0), (1.99, 2.0)]
    ax.plot(*zip(*points), "o")
    plotting.place_labels(ax, points, [f"k={i}" for i in range(len(points))])
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) == len(points)
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)
    plt.close(fig)


def test_identical_labels_at_identical_points_are_written_once():
    plt = plotting.pyplot()
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], "o")
    plotting.place_labels(ax, [(1, 1), (1, 1), (2, 2)], ["k=3", "k=3", "k=4"])
    assert sorted(t.get_text() for t in ax.texts) == ["k=3", "k=4"]
    plt.close(fig)


def test_a_new_method_needs_no_plotting_code(registry):
    """Rows of an algorithm the figures have never seen are drawn like any other."""
    part = registry[registry["table"] == "Table 1"].copy()
    extra = part[part["row"] == "MDAV"].copy()
    extra["row"], extra["algorithm"], extra["params"] = "NEW-METHOD", "new_method", "alpha=1"
    fig = render.draw(figures.table_figure(_compared(pd.concat([part, extra])), None, "test"))
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "NEW-METHOD → new_method[alpha=1]" in labels
    plotting.pyplot().close(fig)


def test_close_methods_get_a_percent_vs_mdav_row(registry):
    # the MDAV-family rows of Chettri Table 1 lie within a few percent of each other
    close = registry[(registry["table"] == "Table 1") & registry["algorithm"].isin(["mdav", "mdav1", "mdav2"])]
    part = _compared(close)
    results = pd.DataFrame({"algorithm": "mdav", "params": "tail=3k", "dataset": "tarragona", "dataset_params": "",
                            "k": [3, 4, 5, 10], "il": [16.932588, 19.545962, 22.461860, 33.192885]})
    fig = render.draw(figures.table_figure(part, results, ""))
    ylabels = [ax.get_ylabel() for ax in fig.axes if ax.get_visible()]
    assert "% vs MDAV" in ylabels
    plotting.pyplot().close(fig)


def test_verdict_overview_counts_every_number(registry):
    comp = _compared(registry)
    fig = render.draw(figures.verdict_overview(comp))
    widths = sum(p.get_width() for p in fig.axes[0].patches)
    assert widths == len(comp)
    plotting.pyplot().close(fig)


def test_scalability_tables_are_log_log_with_time_ratios(registry):
    part = _compared(registry[registry["table"] == "Table 4.5"], factor=1.01)
    rows = []
    for r in part.itertuples():
        n = int(figure_data.params_of(r.dataset_params)["n"])
        rows.append({"algorithm": r.algorithm, "params": r.params, "dataset": r.dataset,
                     "dataset_params": r.dataset_params, "k": r.k, "il": r.reproduced, "seconds": (n / 1200) ** 2})
    fig = render.draw(figures.table_figure(part, pd.DataFrame(rows), ""))
    logs = [ax for ax in fig.axes if ax.get_visible() and ax.get_xscale() == "log" and ax.get_yscale() == "log"]
    assert len(logs) == 4  # IL and time ratio, for uniform and normal
    time_legend = [t.get_text() for ax in logs for leg in [ax.get_legend()] if leg for t in leg.get_texts()]
    assert any("slope 2.00" in t for t in time_legend), time_legend  # time ∝ n² recovered as a slope of 2
    plotting.pyplot().close(fig)
