"""Metrics on available cases (missing=available): dld, id, eigen, il_correl and il_variables against
the plain-NumPy oracle (tests/oracles/available_metrics.py), their complete-data values on complete
data, and the one-line refusal of every other metric (docs/metrics.md#missing-values)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import mabench
from mabench.errors import UserError
from mabench.metrics import AVAILABLE_CASES, NOT_ON_MISSING, REGISTRY, evaluate
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
        if name.startswith(tuple(NOT_ON_MISSING)):  # their own reason: tests/metrics/test_sdcmicro_on_missing.py
            continue
        with pytest.raises(UserError, match=rf"^metric {name} is not defined on data with missing values; on "
                                            r"available cases mabench computes: dld, eigen, id, il, il_correl, "
                                            r"il_variables, rl_rate, robeigen$"):
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


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 30), d=st.integers(2, 4), k=st.integers(2, 3), seed=st.integers(0, 2**32 - 1),
       coarse=st.booleans())
def test_dld_and_id_are_the_oracle_on_random_partitions(n, d, k, seed, coarse):
    """Random data with NA (records with nothing observed included) and a random partition: dld and
    id equal the oracle's, ties included (coarse values tie often)."""
    from mabench.data.missing import group_values, masked_values

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, d))
    if coarse:
        x = x.round(0)
    x[rng.random(x.shape) < 0.2] = np.nan
    x[0] = np.nan
    x[1:3, 0] = [0.0, 1.0]  # every variable observed at least twice and not constant
    x[1:3, 1:] = [[0.0] * (d - 1), [1.0] * (d - 1)]
    labels = rng.permutation(np.arange(n) // k)
    labels[labels == labels.max()] = 0 if n % k else labels.max()
    labels = np.unique(labels, return_inverse=True)[1]
    published = group_values(x, labels, int(labels.max()) + 1)
    ctx = EvalContext(x, (x - np.nanmean(x, 0)) / np.nanstd(x, 0), labels, [f"v{j}" for j in range(d)],
                      options={"id_p": [5, 20, 50]}, published=published)
    ctx.observed = ~np.isnan(x)
    ctx.__dict__["masked"] = masked_values(x, labels, published, False)
    got = evaluate(ctx, ["dld", "id"])
    xm = ctx.masked
    assert got["dld"] == oracle.dld(x, xm)
    assert got["id"] == oracle.interval_disclosure(x, xm, [5, 20, 50])


EVALUATED = ["il", "dld", "id", "eigen", "il_correl", "il_variables", "robeigen"]  # rl_rate: _frame has a record with nothing observed


@pytest.mark.parametrize("extra", [{}, {"fill": True}, {"weights": "w"}])
def test_evaluate_scores_a_partition_as_its_run_did(extra):
    """mabench.evaluate(..., missing="available") gives the numbers Result.metrics() gives for the run."""
    frame = _frame().assign(w=np.random.default_rng(5).uniform(0.5, 2.0, 45))
    columns = [c for c in frame.columns if c != "w"]
    run = mabench.microaggregate(frame, k=3, columns=columns, missing="available", **extra)
    scored = mabench.evaluate(frame, run.labels, k=3, columns=columns, missing="available", metrics=EVALUATED, **extra)
    assert scored == run.metrics(EVALUATED)
    assert mabench.evaluate(frame, run.labels, k=3, columns=columns, missing="available", **extra) == run.metrics()
    with pytest.raises(UserError, match="is missing"):  # without missing=available: refused, as before
        mabench.evaluate(frame, run.labels, k=3, columns=columns)


def test_cli_evaluate_gives_the_runs_numbers(tmp_path, cli_main):
    from support import run_then_evaluate

    path = tmp_path / "s.csv"
    _frame().assign(id=[f"r{i}" for i in range(45)]).to_csv(path, index=False)
    run_record, record = run_then_evaluate(cli_main, "mdav", path, ",".join(_frame().columns), tmp_path)
    assert {m: record[m] for m in ("il", "dld", "id")} == {m: run_record[m] for m in ("il", "dld", "id")}
