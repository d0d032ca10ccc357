"""Scoring a per-variable partition (onedims) on data with missing values (issue 42 item 3): per
variable, a record missing it keeps NA, a group publishes the (weighted) mean of its observed values;
the metrics are the available-case ones. Checked against plain-NumPy oracles
(tests/oracles/per_variable_missing.py, tests/oracles/available_metrics.py), and `mabench run
onedims --missing available`, `mabench evaluate` on its labels and the API give the same numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError
from mabench.metrics import AVAILABLE_CASES
from oracles import available_metrics as metric_oracle
from oracles import per_variable_missing as oracle
from support import assert_user_error, run_then_evaluate

COLUMNS = ["a", "b", "c"]


def _frame(n=40, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.lognormal(size=(n, 3)), columns=COLUMNS)
    df.loc[rng.random(n) < 0.15, "a"] = np.nan
    df.loc[rng.random(n) < 0.1, "c"] = np.nan
    df["w"] = rng.uniform(0.5, 2.0, n)
    return df


def _labels(df, k, seed):
    """A per-variable partition made by hand (not a run's): each variable's observed records shuffled
    into groups of k (the last one larger), its missing records one label of their own."""
    rng = np.random.default_rng(seed)
    x = df[COLUMNS].to_numpy()
    out = np.zeros(x.shape, dtype=np.int64)
    for j in range(x.shape[1]):
        seen = np.flatnonzero(~np.isnan(x[:, j]))
        groups = np.minimum(np.arange(seen.size) // k, seen.size // k - 1)
        out[rng.permutation(seen), j] = groups
        out[np.isnan(x[:, j]), j] = groups.max() + 1
    return out


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weights", [None, "w"])
def test_a_given_partition_is_scored_as_the_oracle(seed, weights):
    df = _frame(seed=seed)
    labels = _labels(df, 3, seed)
    x = df[COLUMNS].to_numpy()
    xm = oracle.masked(x, labels, None if weights is None else df["w"].to_numpy())
    got = mabench.evaluate(df, labels, k=3, columns=COLUMNS, missing="available", weights=weights,
                           metrics=["il", "dld", "id", "il_variables"], id_p=[1, 5, 10, 25])
    assert got["il"] == pytest.approx(oracle.il(x, xm), rel=1e-12)
    assert got["dld"] == metric_oracle.dld(x, xm)
    assert got["id"] == metric_oracle.interval_disclosure(x, xm, [1, 5, 10, 25])
    assert got["il_variables"] == pytest.approx(metric_oracle.il_variables(x, xm), rel=1e-12)


@pytest.mark.parametrize("weights", [None, "w"])
def test_evaluate_gives_the_runs_numbers_for_every_available_case_metric(weights):
    df = _frame()
    run = mabench.microaggregate(df, k=3, method="onedims", columns=COLUMNS, missing="available", weights=weights)
    names = sorted(AVAILABLE_CASES)
    scored = mabench.evaluate(df, run.labels, k=3, columns=COLUMNS, missing="available", weights=weights,
                              metrics=names)
    assert scored == run.metrics(names)
    assert mabench.evaluate(df, run.labels, k=3, columns=COLUMNS, missing="available", weights=weights) == run.metrics()
    x = df[COLUMNS].to_numpy()
    xm = oracle.masked(x, run.labels, None if weights is None else df["w"].to_numpy())
    np.testing.assert_allclose(run.masked[COLUMNS].to_numpy(), xm, rtol=1e-13)  # NaN where the input had NaN


def test_cli_run_and_evaluate_agree_with_the_api(tmp_path, cli_main):
    df = _frame().drop(columns="w").assign(id=[f"r{i}" for i in range(40)])
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    run_record, record = run_then_evaluate(cli_main, "onedims", path, ",".join(COLUMNS), tmp_path)
    labels = pd.read_csv(tmp_path / "p.csv").to_numpy()
    api = mabench.evaluate(df, labels, k=3, columns=COLUMNS, missing="available", metrics=["il", "dld", "id"])
    assert {m: record[m] for m in api} == {m: run_record[m] for m in api} == api
    assert (record["n_groups"], record["min_group"], record["max_group"]) == \
        (run_record["n_groups"], run_record["min_group"], run_record["max_group"])


def test_what_cannot_be_scored_is_refused_in_one_line(tmp_path, cli_main):
    df = _frame()
    labels = _labels(df, 3, 0)
    with pytest.raises(UserError, match=r"^a per-variable partition \(onedims\) ranks each variable's observed"):
        mabench.evaluate(df, labels, columns=COLUMNS, missing="available", fill=True)
    with pytest.raises(UserError, match=r"variable 1\): group \d+ has \d < k=20 records"):
        mabench.evaluate(df, labels, k=20, columns=COLUMNS, missing="available")
    shared = labels.copy()
    shared[np.flatnonzero(df["a"].isna())[0], 0] = 0  # a record missing a shares a group with observed ones
    with pytest.raises(UserError, match="a record missing the variable shares a group with observed ones"):
        mabench.evaluate(df, shared, k=3, columns=COLUMNS, missing="available")
    with pytest.raises(UserError, match="^metric rmd_risk1 is not defined on data with missing values"):
        mabench.evaluate(df, labels, k=3, columns=COLUMNS, missing="available", metrics="rmd_risk1")
    path = tmp_path / "s.csv"
    df.to_csv(path, index=False)
    pd.DataFrame(labels, columns=["group_1", "group_2", "group_3"]).to_csv(tmp_path / "p.csv", index=False)
    assert_user_error(cli_main("evaluate", str(path), str(tmp_path / "p.csv"), "-k", "20", "--columns",
                               ",".join(COLUMNS), "--missing", "available"), "< k=20 records")
