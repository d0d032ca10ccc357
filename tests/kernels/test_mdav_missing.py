"""MDAV with missing values (missing=available): the Numba kernel against the plain-NumPy oracle
(tests/oracles/mdav_missing.py), against MDAV on complete data, and the API's contract."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import mabench
from mabench.errors import UserError
from mabench.kernels.methods.mdav import TAIL_3K, mdav_labels
from mabench.kernels.methods.mdav_missing import mdav_missing_labels
from mabench.partition import canonical_labels
from oracles.mdav_missing import mdav_missing


def _kernel(Z, k):
    seen = ~np.isnan(Z)
    return canonical_labels(mdav_missing_labels(np.ascontiguousarray(np.where(seen, Z, 0.0)), seen, k))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 60), d=st.integers(1, 4), k=st.integers(1, 5), share=st.sampled_from([0.0, 0.15, 0.5]),
       seed=st.integers(0, 2**32 - 1), coarse=st.booleans())
def test_kernel_is_the_oracle(n, d, k, share, seed, coarse):
    """Same partition as the plain-NumPy oracle, ties included (coarse values tie often)."""
    if n < k:
        return
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, d))
    if coarse:
        Z = Z.round(0)
    Z[rng.random(Z.shape) < share] = np.nan
    got, want = _kernel(Z, k), canonical_labels(mdav_missing(Z, k))
    np.testing.assert_array_equal(got, want)
    sizes = np.bincount(got)
    assert sizes.min() >= k and (n < 2 * k or sizes.max() <= 2 * k - 1)


@pytest.mark.parametrize("seed", range(8))
def test_complete_data_gives_mdavs_partition(seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((int(rng.integers(10, 200)), int(rng.integers(1, 6))))
    k = int(rng.integers(2, 6))
    np.testing.assert_array_equal(_kernel(Z, k), canonical_labels(mdav_labels(Z, k, TAIL_3K)))


def test_record_with_nothing_observed_is_still_grouped():
    Z = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0], [np.nan, np.nan], [0.2, np.nan]])
    got = _kernel(Z, 2)
    np.testing.assert_array_equal(got, canonical_labels(mdav_missing(Z, 2)))
    assert np.bincount(got).min() >= 2


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
    with pytest.raises(UserError, match=r"^onedims cannot take missing values; missing=available works with mdav"):
        mabench.microaggregate(df, k=3, method="onedims", missing="available")
    with pytest.raises(UserError, match=r"^mdav with tail=2k cannot take missing values"):
        mabench.microaggregate(df, k=3, tail="2k", missing="available")
    with pytest.raises(UserError, match=r"^measure=median cannot take missing values"):
        mabench.microaggregate(df, k=3, measure="median", missing="available")
    r = mabench.microaggregate(df, k=3, missing="available")
    with pytest.raises(UserError, match=r"^metric dld is not defined on data with missing values yet"):
        r.metrics(["dld"])
    with pytest.raises(UserError, match=r"column 'a' has 1 observed value"):
        mabench.microaggregate(df.assign(a=[1.0] + [np.nan] * 39), k=3, missing="available")
