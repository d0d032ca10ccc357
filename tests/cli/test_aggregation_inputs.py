"""Weights, strata and robust methods on hostile data (issue 40: F5, F7 clustmcdpca, F24)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench import UserError
from support import assert_user_error, main_in_process as main


def _frame(n=30, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.normal(size=(n, 3)), columns=list("abc")).assign(w=rng.uniform(0.5, 2.0, n))


def _near_max(w: pd.Series) -> pd.Series:
    """The same weights up to a factor, the largest 1.7e308: a group's total overflows float64."""
    return w / w.max() * 1.7e308


@pytest.mark.parametrize("measure", ["mean", "median"])
def test_weights_near_1e308_give_the_weighted_values(measure):
    """F5: weights near 1e308 overflowed: medians off by up to 0.98, NaN cells published."""
    df = _frame()
    small = mabench.microaggregate(df, k=3, measure=measure, weights="w")
    huge = mabench.microaggregate(df.assign(w=_near_max(df["w"])), k=3, measure=measure, weights="w")
    values = huge.masked[list("abc")].to_numpy()
    assert np.isfinite(values).all()
    np.testing.assert_allclose(values, small.masked[list("abc")].to_numpy(), rtol=1e-12, atol=1e-12)
    assert huge.metrics(["il"])["il"] == pytest.approx(small.metrics(["il"])["il"], rel=1e-12)


def test_cli_weights_near_1e308_write_complete_masked_cells(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    df = _frame()
    df.assign(w=_near_max(df["w"])).to_csv("d.csv", index=False)
    proc = main(capsys, "run", "mdav", "d.csv", "-k", "3", "--weights", "w", "--metrics", "il,dld",
                "--masked-out", "m.csv")
    assert proc.returncode == 0, proc.stderr
    assert np.isfinite(json.loads(proc.stdout)["il"])
    masked = pd.read_csv("m.csv")
    assert masked[list("abc")].notna().all().all()


def test_a_strata_column_named_twice_is_refused(tmp_path, monkeypatch, capsys):
    """F24: `--strata reg,reg` was accepted."""
    monkeypatch.chdir(tmp_path)
    _frame().assign(reg=[1, 2] * 15).to_csv("d.csv", index=False)
    assert_user_error(main(capsys, "run", "mdav", "d.csv", "-k", "3", "--strata", "reg,reg"), "'reg' twice")


@pytest.mark.parametrize("case", ["one-column", "tied"])
def test_mcd_on_data_it_cannot_fit_is_one_line(case):
    """F7: clustmcdpca with d = 1 or tied records ended in scikit-learn's traceback. mabench's own MCD
    fits both (the exact univariate MCD; the classical estimate when h records tie): a valid result."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 1)) if case == "one-column" else np.repeat(rng.normal(size=(4, 3)), 10, axis=0)
    result = mabench.microaggregate(X, k=3, method="clustmcdpca")
    assert result.groups.min() >= 3 and result.groups.sum() == 40
