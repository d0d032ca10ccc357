"""The MDAV family (mdav with either tail, mdav1, cbfs) and onedims with missing values
(missing=available): the kernels against the plain-NumPy oracle (tests/oracles/mdav_missing.py),
against the complete-data kernels on complete data, and the API's contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import mabench
from mabench.errors import UserError
from mabench import discovery
from mabench.data.missing import available_partition
from mabench.kernels.methods.cbfs import cbfs_labels_scan
from mabench.kernels.methods.mdav import TAIL_2K, TAIL_3K, TAIL_MDAV1, mdav_labels
from mabench.partition import canonical_labels
from mabench.plugin import call_run
from oracles.mdav_missing import cbfs_missing, mdav_missing, onedims_missing

# (method, its parameters, the oracle, the complete-data kernel)
VARIANTS = {
    "mdav": ({"tail": "3k"}, lambda Z, k: mdav_missing(Z, k, "3k"), lambda Z, k: mdav_labels(Z, k, TAIL_3K)),
    "mdav tail=2k": ({"tail": "2k"}, lambda Z, k: mdav_missing(Z, k, "2k"), lambda Z, k: mdav_labels(Z, k, TAIL_2K)),
    "mdav1": ({}, lambda Z, k: mdav_missing(Z, k, "mdav1"), lambda Z, k: mdav_labels(Z, k, TAIL_MDAV1)),
    "cbfs": ({"tail": "nearest", "centroid": "remaining"}, lambda Z, k: cbfs_missing(Z, k),
             lambda Z, k: cbfs_labels_scan(Z, k, False, False)),
    "cbfs tail=group": ({"tail": "group", "centroid": "remaining"}, lambda Z, k: cbfs_missing(Z, k, "group"),
                        lambda Z, k: cbfs_labels_scan(Z, k, True, False)),
    "cbfs centroid=fixed": ({"tail": "nearest", "centroid": "fixed"},
                            lambda Z, k: cbfs_missing(Z, k, "nearest", "fixed"),
                            lambda Z, k: cbfs_labels_scan(Z, k, False, True)),
    "cbfs tail=group centroid=fixed": ({"tail": "group", "centroid": "fixed"},
                                       lambda Z, k: cbfs_missing(Z, k, "group", "fixed"),
                                       lambda Z, k: cbfs_labels_scan(Z, k, True, True)),
}


def _kernel(Z, k, variant="mdav"):
    own = VARIANTS[variant][0]
    return canonical_labels(available_partition(discovery.algorithm(variant.split()[0]), own, Z, ~np.isnan(Z), k))


def _sizes_ok(labels, n, k):
    sizes = np.bincount(labels)
    assert sizes.min() >= k and (n < 2 * k or sizes.max() <= 2 * k - 1)


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(1, 5), share=st.sampled_from([0.0, 0.15, 0.5]),
       seed=st.integers(0, 2**32 - 1), coarse=st.booleans(), blank=st.integers(0, 3))
def test_kernel_is_the_oracle(variant, n, d, k, share, seed, coarse, blank):
    """Same partition as the plain-NumPy oracle, ties included (coarse values tie often), with up to
    3 records that miss every variable."""
    if n < k:
        return
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    if coarse:
        Z = Z.round(0)
    Z[rng.random(Z.shape) < share] = np.nan
    Z[rng.permutation(n)[:blank]] = np.nan
    got, want = _kernel(Z, k, variant), canonical_labels(VARIANTS[variant][1](Z, k))
    np.testing.assert_array_equal(got, want)
    _sizes_ok(got, n, k)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("seed", range(6))
def test_complete_data_gives_the_methods_partition(variant, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((int(rng.integers(10, 200)), int(rng.integers(1, 6))))
    k = int(rng.integers(2, 6))
    np.testing.assert_array_equal(_kernel(Z, k, variant), canonical_labels(VARIANTS[variant][2](Z, k)))


@pytest.mark.parametrize("variant", VARIANTS)
def test_record_with_nothing_observed_is_still_grouped(variant):
    """A record missing every variable has no distance to anyone: it is nobody's nearest while a
    record with a distance remains, so it ends in the tail (or, as a leftover, in group 0)."""
    Z = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0], [np.nan, np.nan], [0.2, np.nan], [5.2, 4.9]])
    got = _kernel(Z, 2, variant)
    np.testing.assert_array_equal(got, canonical_labels(VARIANTS[variant][1](Z, 2)))
    assert np.bincount(got).min() >= 2


@pytest.mark.parametrize("variant", ["mdav tail=2k", "mdav1"])
def test_a_leftover_equidistant_from_two_groups_joins_the_lower_label(variant):
    """Record 4 is left over at distance 1 from both groups' centroids: group 0 by the ties rule; a
    leftover with nothing observed joins group 0 too."""
    Z = np.array([[-1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 0.0]])
    got = available_partition(discovery.algorithm(variant.split()[0]), VARIANTS[variant][0], Z, ~np.isnan(Z), 2)
    assert got.tolist() == [0, 0, 1, 1, 0]
    Z[4] = np.nan
    got = available_partition(discovery.algorithm(variant.split()[0]), VARIANTS[variant][0], Z, ~np.isnan(Z), 2)
    assert got[4] == 0 and np.array_equal(got, VARIANTS[variant][1](Z, 2))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(1, 5), share=st.sampled_from([0.0, 0.15, 0.5]),
       seed=st.integers(0, 2**32 - 1), coarse=st.booleans())
def test_onedims_ranks_the_observed_values_only(n, d, k, share, seed, coarse):
    """onedims: each column's observed records form sdcMicro's cut of their own ranking; the records
    missing the variable share one label of their own (the oracle); complete columns are unchanged."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if coarse:
        X = X.round(0)
    X[rng.random(X.shape) < share] = np.nan
    seen = ~np.isnan(X)
    if ((seen.sum(axis=0) > 0) & (seen.sum(axis=0) < k)).any():
        with pytest.raises(UserError, match=r"has \d+ observed value\(s\), fewer than k="):
            available_partition(discovery.algorithm("onedims"), {}, X, seen, k, X)
        return
    got = available_partition(discovery.algorithm("onedims"), {}, X, seen, k, X)
    np.testing.assert_array_equal(got, onedims_missing(X, k))
    for j in range(d):
        if seen[:, j].all():
            whole = call_run(discovery.algorithm("onedims"), X, k, {}, None, raw=X)
            np.testing.assert_array_equal(got[:, j], whole[:, j])


def _frame(n=40, seed=1):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    df.loc[rng.random(n) < 0.2, "a"] = np.nan
    df.loc[rng.random(n) < 0.2, "c"] = np.nan
    df["id"] = [f"r{i}" for i in range(n)]
    return df


def test_api_available_keeps_na_and_fill_fills():
    df = _frame()
    r = mabench.microaggregate(df, k=3, missing="available")
    assert r.masked[["a", "b", "c"]].isna().equals(df[["a", "b", "c"]].isna())
    x = df[["a", "b", "c"]].to_numpy()
    for g in np.unique(r.labels):
        rows = r.labels == g
        for j, c in enumerate("abc"):
            seen = rows & ~np.isnan(x[:, j])
            if seen.any():
                np.testing.assert_allclose(r.masked[c].to_numpy()[seen], x[seen, j].mean(), rtol=1e-13)
    filled = mabench.microaggregate(df, k=3, missing="available", fill=True)
    np.testing.assert_array_equal(filled.labels, r.labels)
    assert filled.masked[["a", "b", "c"]].notna().all().all()
    il = r.metrics(["il"])["il"]
    assert 0 < il < 100


def test_available_on_complete_data_is_the_plain_run():
    df = _frame().fillna(0.5)
    a = mabench.microaggregate(df, k=3, missing="available")
    b = mabench.microaggregate(df, k=3)
    np.testing.assert_array_equal(a.labels, b.labels)
    assert a.metrics(["il", "dld"]) == b.metrics(["il", "dld"])


def test_refusals_are_one_line():
    df = _frame()
    with pytest.raises(UserError, match=r"row with index \d+, column 'a', is missing \(NaN\)"):
        mabench.microaggregate(df, k=3)  # the default stays missing="refuse"
    with pytest.raises(UserError, match=r"^pca cannot take missing values; missing=available works with "
                                        r"mdav, mdav1, cbfs, onedims \(or impute"):
        mabench.microaggregate(df, k=3, method="pca", missing="available")
    with pytest.raises(UserError, match=r"^mdav with scale=raw cannot take missing values"):
        mabench.microaggregate(df, k=3, scale="raw", missing="available")
    with pytest.raises(UserError, match=r"^onedims ranks each variable's observed values only.*drop fill$"):
        mabench.microaggregate(df, k=3, method="onedims", missing="available", fill=True)
    with pytest.raises(UserError, match=r"^measure=median cannot take missing values"):
        mabench.microaggregate(df, k=3, measure="median", missing="available")
    r = mabench.microaggregate(df, k=3, missing="available")
    with pytest.raises(UserError, match=r"^metric rmd_risk1 is not defined on data with missing values: sdcMicro's dRiskRMD .* or use one of: "):
        r.metrics(["rmd_risk1"])
    with pytest.raises(UserError, match=r"column 'a' has 1 observed value"):
        mabench.microaggregate(df.assign(a=[1.0] + [np.nan] * 39), k=3, missing="available")


@pytest.mark.parametrize("method, params", [("mdav", {"tail": "2k"}), ("mdav1", {}), ("cbfs", {"tail": "group"}),
                                            ("onedims", {})])
def test_api_every_method_with_strata_and_weights(method, params):
    """Through the API with strata and weights: the partition is the oracle's in each stratum
    (z-scored within it), groups never cross strata, every observed value is published as its
    group's weighted mean of the observed values, NA stays NA (a record missing every variable too)."""
    df = _frame(60, seed=3)
    df.loc[7, ["a", "b", "c"]] = np.nan
    df["region"] = [f"r{i % 3}" for i in range(60)]
    df["w"] = np.random.default_rng(4).uniform(1, 3, 60)
    r = mabench.microaggregate(df, k=3, method=method, columns=["a", "b", "c"], strata="region", weights="w",
                               missing="available", **params)
    x, w = df[["a", "b", "c"]].to_numpy(), df["w"].to_numpy()
    assert r.masked[["a", "b", "c"]].isna().equals(df[["a", "b", "c"]].isna())
    labels = np.asarray(r.labels)
    columns = labels if labels.ndim == 2 else np.repeat(labels[:, None], 3, axis=1)
    for region in ("r0", "r1", "r2"):
        rows = np.flatnonzero(df["region"].to_numpy() == region)
        xs = x[rows]
        if method == "onedims":
            want = onedims_missing(xs, 3)
        else:
            zs = (xs - np.nanmean(xs, axis=0)) / np.nanstd(xs, axis=0)
            oracle = VARIANTS[{"mdav": "mdav tail=2k", "mdav1": "mdav1", "cbfs": "cbfs tail=group"}[method]][1]
            want = np.repeat(oracle(zs, 3)[:, None], 3, axis=1)
        for j in range(3):
            np.testing.assert_array_equal(canonical_labels(columns[rows, j]), canonical_labels(want[:, j]))
    for j, c in enumerate("abc"):
        other = ~np.isin(np.arange(60), np.flatnonzero(df["region"].to_numpy() == "r0"))
        assert not np.isin(columns[~other, j], columns[other, j]).any()
        for g in np.unique(columns[:, j]):
            seen = (columns[:, j] == g) & ~np.isnan(x[:, j])
            if seen.any():
                np.testing.assert_allclose(r.masked[c].to_numpy()[seen], np.average(x[seen, j], weights=w[seen]),
                                           rtol=1e-13)
                if method == "onedims":
                    assert seen.sum() >= 3
    assert 0 < r.metrics(["il"])["il"] < 100


def test_onedims_refuses_a_stratum_where_a_variable_has_fewer_than_k_observed_values():
    df = _frame(60, seed=5)
    df["region"] = ["r0"] * 30 + ["r1"] * 30
    df.loc[30:59, "a"] = np.nan
    df.loc[59, "a"] = 1.0  # r1 observes a once
    with pytest.raises(UserError, match=r"stratum region='r1': variable 1 has 1 observed value\(s\), fewer than k=3; onedims "
                                        r"would publish a mean of fewer than k values"):
        mabench.microaggregate(df, k=3, method="onedims", columns=["a", "b", "c"], strata="region",
                               missing="available")
    df.loc[30:59, "a"] = np.nan  # r1 observes a never: its records are all in a's NA group, published NA
    r = mabench.microaggregate(df, k=3, method="onedims", columns=["a", "b", "c"], strata="region", missing="available")
    assert r.masked["a"].iloc[30:].isna().all() and r.masked["a"].iloc[:30].notna().sum() == df["a"].iloc[:30].notna().sum()
