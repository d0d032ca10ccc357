"""Column selection (`columns=` / `drop=`) on every kind of data set, and its effect on matching."""

import numpy as np
import pandas as pd
import pytest

from mabench import data
from mabench.report import published
from mabench.errors import UserError


def test_drop_by_name_keeps_the_rest_in_order():
    full = data.load("eia")
    ds = data.load("eia[drop=UTILITYID]")
    assert ds.columns == full.columns[1:]
    np.testing.assert_array_equal(ds.values, full.values[:, 1:])
    assert ds.params == {"drop": "UTILITYID"}
    assert ds.spec == "eia[drop=UTILITYID]"


def test_columns_by_position_and_name_in_the_given_order():
    full = data.load("tarragona")
    ds = data.load("tarragona[columns=3+FIXED.ASSETS]")
    assert ds.columns == [full.columns[2], "FIXED.ASSETS"]
    np.testing.assert_array_equal(ds.values, full.values[:, [2, 0]])


def test_generator_draw_does_not_depend_on_the_selection():
    full = data.load("uniform[n=50,d=4]", seed=7)
    ds = data.load("uniform[n=50,d=4,columns=2+4]", seed=7)
    np.testing.assert_array_equal(ds.values, full.values[:, [1, 3]])
    assert ds.params["columns"] == "2+4" and ds.params["n"] == 50


def test_file_path_with_selection(tmp_path):
    path = tmp_path / "x.csv"
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3.0, 1.0, 2.0], "c": [5.0, 6.0, 9.0]}).to_csv(path, index=False)
    ds = data.load(f"{path}[drop=b]")
    assert ds.columns == ["a", "c"]


@pytest.mark.parametrize("spec, words", [
    ("tarragona[columns=99]", "names no column '99'"),
    ("tarragona[columns=0]", "names no column '0'"),
    ("tarragona[columns=1+1]", "names a column twice"),
    ("tarragona[columns=1,drop=2]", "either columns= or drop="),
    ("tarragona[drop=1+2+3+4+5+6+7+8+9+10+11+12+13]", "leaves no column"),
    ("tarragona[n=3]", "takes only columns= or drop="),
])
def test_bad_selections_say_how_to_fix(spec, words):
    with pytest.raises(UserError, match=words.replace("+", r"\+").replace("[", r"\[")):
        data.load(spec)


def test_key_variables_follow_the_selection():
    keys = data.metric_defaults("census")["key_variables"]
    kept = data.metric_defaults("census", [c for c in data.load("census").columns if c != "AGI"])
    assert kept["key_variables"] == [k for k in keys if k != "AGI"]
    assert "key_variables" not in data.metric_defaults("census", ["INTVAL"])


def test_registry_matches_the_selection_exactly():
    registry = pd.DataFrame([
        {"algorithm": "mdav", "params": "", "dataset": "eia", "dataset_params": "", "k": 3},
        {"algorithm": "mdav", "params": "", "dataset": "eia", "dataset_params": "drop=UTILITYID", "k": 3},
    ])
    results = pd.DataFrame([
        {"algorithm": "mdav", "params": "tail=3k", "dataset": "eia", "dataset_params": "", "k": 3, "il": 1.0},
        {"algorithm": "mdav", "params": "tail=3k", "dataset": "eia", "dataset_params": "drop=UTILITYID", "k": 3,
         "il": 2.0},
    ])
    hits = [
        [i for i, r in results.iterrows()
         if published._same_data(published.parse_params(row.dataset_params), published.parse_params(r.dataset_params))]
        for row in registry.itertuples()
    ]
    assert hits == [[0], [1]]
