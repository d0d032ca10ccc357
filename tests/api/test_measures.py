"""Aggregation measures, sampling weights and strata (issue 19 item 3): the kernel against the
plain-Python oracle written from sdcMicro's and R's definitions, hand-worked values, the metrics on the
published values, and strata through the engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mabench
from mabench import UserError
from mabench.kernels.core.aggregate import aggregate
from oracles import aggregation as oracle


def test_hand_worked_values():
    x = np.array([[1.0], [2.0], [3.0], [4.0], [100.0]])
    one = np.zeros(5, dtype=np.int64)
    assert aggregate(x, one, 1, "median")[0, 0] == 3.0
    assert aggregate(x, one, 1, "trim", trim=0.2)[0, 0] == 3.0  # R: mean(c(1,2,3,4,100), trim=0.2)
    assert aggregate(x, one, 1, "trim", trim=0.0)[0, 0] == 22.0  # trim=0 is the mean (sdcMicro's default)
    assert aggregate(x, one, 1, "trim", trim=0.5)[0, 0] == 3.0  # trim >= 0.5 is the median
    # onestep: median 3, mad = 1.4826 * 1 -> limit 3/1.486*1.4826; 100 clipped to 3 + limit
    limit = 3 / 1.486 * 1.4826
    assert aggregate(x, one, 1, "onestep")[0, 0] == pytest.approx((1 + 2 + 3 + 4 + 3 + limit) / 5, rel=1e-15)
    w = np.array([1.0, 1.0, 1.0, 1.0, 6.0])
    assert aggregate(x, one, 1, "mean", weights=w)[0, 0] == pytest.approx(610 / 10)
    assert aggregate(x, one, 1, "median", weights=w)[0, 0] == 100.0  # 100 carries 60 % of the weight
    # a cumulative share of exactly 1/2: the mean of that value and the next (sdcMicro's weightedQuantile)
    assert aggregate(x[:4], one[:4], 1, "median", weights=np.ones(4))[0, 0] == 2.5


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["mean", "median", "trim", "onestep"]), st.booleans(),
       st.floats(0, 0.5))
def test_kernel_matches_oracle(seed, measure, weighted, trim):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(3, 30)), int(rng.integers(1, 4))
    x = np.round(rng.normal(size=(n, d)) * 10, int(rng.integers(0, 3)))  # rounding makes ties
    labels = rng.integers(0, max(1, n // 3), size=n)
    labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    g = int(labels.max()) + 1
    use_w = weighted and measure in ("mean", "median")
    w = rng.integers(1, 5, size=n).astype(float) if use_w else None
    got = aggregate(x, labels, g, measure, trim if measure == "trim" else 0.0, w)
    want = oracle.published(x.tolist(), labels.tolist(), measure, trim, None if w is None else w.tolist())
    np.testing.assert_allclose(got, np.array(want), rtol=1e-12, atol=1e-12)


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": [f"r{i}" for i in range(n)],
        "region": np.where(np.arange(n) % 3 == 0, "north", "south"),
        "w": rng.integers(1, 9, size=n).astype(float),
        "a": rng.lognormal(size=n), "b": rng.normal(size=n) * 100, "c": rng.integers(0, 50, size=n),
    })


@pytest.mark.parametrize("measure", ["median", "trim", "onestep"])
def test_masked_is_the_groups_statistic_and_metrics_use_it(measure):
    df = _frame()
    params = {"measure": measure, **({"trim": 0.25} if measure == "trim" else {})}
    r = mabench.microaggregate(df, k=4, columns=["a", "b", "c"], **params)
    want = aggregate(df[["a", "b", "c"]].to_numpy(float), r.labels, r.groups.size, measure, params.get("trim", 0.0))
    np.testing.assert_array_equal(r.masked[["a", "b", "c"]].to_numpy(float), want[r.labels])
    # IL is 100 * sum of squared z-score differences between original and masked / SST
    x = df[["a", "b", "c"]].to_numpy(float)
    z = (x - x.mean(0)) / x.std(0)
    zm = (want[r.labels] - x.mean(0)) / x.std(0)
    il = 100 * ((z - zm) ** 2).sum() / (z ** 2).sum()
    assert r.metrics(["il"])["il"] == pytest.approx(il, rel=1e-10)
    # the same partition published by its means loses less: the mean minimises the squared error
    mean_il = mabench.evaluate(df, r.labels, columns=["a", "b", "c"], metrics="il")["il"]
    assert r.metrics(["il"])["il"] >= mean_il - 1e-9
    # the utility metrics see the published values too
    from mabench.metrics.utility import components

    assert r.metrics(["g_il"])["g_il"] == pytest.approx(100 * sum(components(x, want[r.labels])) / 5)


def test_weighted_means():
    df = _frame()
    r = mabench.microaggregate(df, k=3, columns=["a", "b"], weights="w")
    x, w = df[["a", "b"]].to_numpy(float), df["w"].to_numpy(float)
    for g in range(r.groups.size):
        rows = r.labels == g
        np.testing.assert_allclose(r.masked.loc[rows, ["a", "b"]].to_numpy()[0],
                                   (x[rows] * w[rows, None]).sum(0) / w[rows].sum(), rtol=1e-12)
    assert r.masked["w"].equals(df["w"])  # the weights column is passed through, not aggregated
    assert r.record["params"] == "sampling_weights=w,tail=3k"


def test_weights_refused_where_undefined():
    df = _frame()
    with pytest.raises(UserError, match="sampling weights apply to measure=mean or median"):
        mabench.microaggregate(df, k=3, weights="w", measure="onestep")
    df.loc[5, "w"] = -1.0
    with pytest.raises(UserError, match="row 6 has weight -1.0"):
        mabench.microaggregate(df, k=3, weights="w")
    with pytest.raises(UserError, match="sampling-weights column 'nope' is not a column"):
        mabench.microaggregate(df, k=3, weights="nope")
    with pytest.raises(UserError, match="only used with measure=trim"):
        mabench.microaggregate(df, k=3, trim=0.1)


def test_strata_are_microaggregated_separately():
    df = _frame(90)
    r = mabench.microaggregate(df, k=3, columns=["a", "b"], strata="region")
    assert r.record["n_strata"] == 2
    for g in range(r.groups.size):  # no group crosses a stratum
        assert df.loc[r.labels == g, "region"].nunique() == 1
    # each stratum's partition is what the method gives on that stratum alone (z-scored on its own)
    for region in ("north", "south"):
        part = df[df.region == region].reset_index(drop=True)
        alone = mabench.microaggregate(part, k=3, columns=["a", "b"]).labels
        inside = r.labels[(df.region == region).to_numpy()]
        assert len(set(zip(alone.tolist(), inside.tolist()))) == alone.max() + 1  # same partition
    assert (r.masked["region"] == df["region"]).all()


def test_strata_lists_and_small_strata():
    df = _frame(90)
    df["sex"] = np.arange(90) % 2
    r = mabench.microaggregate(df, k=3, columns=["a", "b"], strata=["region", "sex"])
    assert r.record["n_strata"] == 4
    df.loc[0, "region"] = "east"
    with pytest.raises(UserError, match=r"stratum region='east' has 1 records, fewer than k=3"):
        mabench.microaggregate(df, k=3, columns=["a", "b"], strata="region")
    df.loc[0, "region"] = None
    with pytest.raises(UserError, match="strata column 'region': row 1 is missing"):
        mabench.microaggregate(df, k=3, columns=["a", "b"], strata="region")


def test_measure_choices_and_trim_range():
    df = _frame()
    with pytest.raises(UserError, match="measure='mode' is not allowed; choose one of: mean, median, trim, onestep"):
        mabench.microaggregate(df, k=3, measure="mode")
    with pytest.raises(UserError, match=r"trim=0.7 must be in \[0, 0.5\]"):
        mabench.microaggregate(df, k=3, measure="trim", trim=0.7)


def test_default_measure_keeps_results_unchanged():
    """measure=mean without weights is the engine's plain path: same record as before the option existed."""
    from mabench.bench.runner import run_cell

    plain = run_cell("mdav", "tarragona", 3, metrics=("il", "dld"))
    explicit = run_cell("mdav", "tarragona", 3, params={"measure": "mean"}, metrics=("il", "dld"))
    assert plain.record["params"] == explicit.record["params"] == "tail=3k"
    assert plain.record["il"] == explicit.record["il"]
    assert plain.context.published is None and explicit.context.published is None


def test_workflow_entry_params_carry_measure_weights_strata(tmp_path):
    """A config entry's params reach the batch runner like any parameter: the schema accepts them and
    the cell's record and IL are the API's."""
    import json

    import jsonschema
    import yaml

    from mabench.bench import batch
    from support import ROOT

    schema = yaml.safe_load((ROOT / "mabench/bench/config.schema.yaml").read_text())
    entry = {"algorithm": "mdav", "params": {"measure": "median", "sampling_weights": "w", "strata": "region"}}
    jsonschema.validate({"algorithms": {"mdav_median": entry}, "datasets": {"d": {"spec": "d.csv"}}}, schema)

    df = _frame(60)[["region", "w", "a", "b"]].assign(region=lambda f: (f.region == "north").astype(int))
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    plan = {"batch": "b", "metrics": ["il"], "runs": [{"algorithm": "mdav", "params": entry["params"],
                                                     "draws": [[0, str(path)]], "k": [3],
                                                     "cells_dir": str(tmp_path / "cells")}]}
    assert batch.run_plan(plan) == (1, 1)
    record = json.loads((tmp_path / "cells/seed0/k3.json").read_text())
    api = mabench.microaggregate(df, k=3, measure="median", weights="w", strata="region")
    assert record["params"] == "measure=median,sampling_weights=w,strata=region,tail=3k"
    assert record["il"] == api.metrics(["il"])["il"]
