"""Metrics on available cases (missing=available): dld, id, eigen, il_correl and il_variables against
the plain-NumPy oracle (tests/oracles/available_metrics.py), their complete-data values on complete
data, and the one-line refusal of every other metric (docs/metrics.md#missing-values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError
from mabench.metrics import AVAILABLE_CASES, REGISTRY, evaluate
from mabench.metrics.context import EvalContext
from oracles import available_metrics as oracle

NAMES = ["dld", "id", "eigen", "il_correl", "il_variables"]


def _frame(n=45, seed=2):
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(n, 1))
    df = pd.DataFrame(base + 0.7 * rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    df.loc[rng.random(n) < 0.2, "a"] = np.nan
    df.loc[rng.random(n) < 0.15, "c"] = np.nan
    df.loc[4, ["a", "b", "c"]] = np.nan  # a record with nothing observed
    return df


@pytest.mark.parametrize("method, fill", [("mdav", False), ("mdav", True), ("onedims", False)])
def test_each_metric_is_the_oracle(method, fill):
    """(onedims refuses fill: tests/kernels/test_mdav_missing.py)"""
    df = _frame()
    r = mabench.microaggregate(df, k=3, method=method, missing="available", fill=fill)
    x, xm = df.to_numpy(), np.where(df.isna(), np.nan, r.masked[["a", "b", "c"]].to_numpy())
    got = r.metrics(NAMES, options={"id_p": [1, 5, 10, 25]})
    want = {"dld": oracle.dld(x, xm), "id": oracle.interval_disclosure(x, xm, [1, 5, 10, 25]),
            "eigen": oracle.eigen(x, xm), "il_correl": oracle.il_correl(x, xm),
            "il_variables": oracle.il_variables(x, xm)}
    assert got["dld"] == want["dld"] and got["id"] == want["id"]
    for name in ("eigen", "il_correl", "il_variables"):
        assert got[name] == pytest.approx(want[name], rel=1e-12, abs=1e-14), name
    assert all(np.isfinite(v) for v in got.values())


def test_fill_changes_no_metric():
    """The metrics compare the cells the original observes: a filled cell has no original."""
    df = _frame()
    plain = mabench.microaggregate(df, k=3, missing="available").metrics(NAMES)
    filled = mabench.microaggregate(df, k=3, missing="available", fill=True).metrics(NAMES)
    assert plain == filled


@pytest.mark.parametrize("seed", range(3))
def test_complete_data_gives_the_complete_data_values(seed):
    """Every cell observed: the available-case definitions are the complete-data metrics (dld and id
    exactly, the correlation-based ones to rounding)."""
    df = _frame(seed=seed).fillna(0.25)
    x = df.to_numpy()
    cell = mabench.microaggregate(df, k=3)
    want = cell.metrics(NAMES)
    ctx = EvalContext(x, (x - x.mean(0)) / x.std(0), np.asarray(cell.labels), ["a", "b", "c"])
    ctx.observed = np.ones_like(x, dtype=bool)
    got = evaluate(ctx, NAMES)
    assert got["dld"] == want["dld"] and got["id"] == want["id"]
    for name in ("eigen", "il_correl", "il_variables"):
        assert got[name] == pytest.approx(want[name], rel=1e-10), name


def test_every_other_metric_is_refused_in_one_line():
    r = mabench.microaggregate(_frame(), k=3, missing="available")
    for name in sorted(set(REGISTRY) - AVAILABLE_CASES):
        with pytest.raises(UserError, match=rf"^metric {name} is not defined on data with missing values; on "
                                            r"available cases mabench computes: dld, eigen, id, il, il_correl, "
                                            r"il_variables$"):
            r.metrics([name])
    with pytest.raises(UserError, match=r"^metric dld on data with missing values takes dld_scale=original only"):
        r.metrics(["dld"], options={"dld_scale": "own"})


def test_a_pair_never_observed_together_is_refused_by_name():
    df = _frame()
    df.loc[df["a"].notna(), "c"] = np.nan
    df.loc[:5, "c"] = 1.0 + np.arange(6)
    df.loc[:5, "a"] = np.nan
    r = mabench.microaggregate(df, k=3, missing="available")
    with pytest.raises(UserError, match=r"^variables 1 and 3 are observed together in fewer than 2 records"):
        r.metrics(["il_correl"])
