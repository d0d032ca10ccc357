"""The scikit-learn transformer (issue 42 item 7, F17): check_estimator, set_output,
get_feature_names_out, ColumnTransformer with pass-through columns, pickling, round_integers."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("sklearn", reason="the sdcmicro extra (scikit-learn) is not installed")

import mabench  # noqa: E402
from mabench.errors import UserError  # noqa: E402

# Microaggregation masks the data it is fitted on and has no rule for other records (as DBSCAN has
# no predict): these checks call transform on data other than the fitted data, which is refused.
EXPECTED_FAILURES = {
    "check_methods_sample_order_invariance": "transform is only defined on the fitted data (no out-of-sample rule)",
    "check_methods_subset_invariance": "transform is only defined on the fitted data (no out-of-sample rule)",
    "check_fit_idempotent": "transform is only defined on the fitted data (no out-of-sample rule)",
}


def test_check_estimator():
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(mabench.Microaggregator(k=2), on_fail=None, expected_failed_checks=EXPECTED_FAILURES)
    bad = [(r["check_name"], str(r["exception"])[:200]) for r in results
           if r["status"] == "failed" and r["check_name"] not in EXPECTED_FAILURES]
    assert not bad
    assert {r["check_name"] for r in results if r["status"] == "xfail"} == set(EXPECTED_FAILURES)


def _people():
    rng = np.random.default_rng(0)
    return pd.DataFrame({"id": [f"p{i}" for i in range(30)], "region": np.repeat(["n", "s"], 15),
                         "age": rng.integers(18, 90, 30), "income": rng.lognormal(10, 1, 30)})


def test_column_transformer_with_pandas_output_and_passthrough():
    from sklearn.compose import ColumnTransformer

    df = _people()
    ct = ColumnTransformer([("mask", mabench.Microaggregator(k=3), ["age", "income"])], remainder="passthrough",
                           verbose_feature_names_out=False).set_output(transform="pandas")
    out = ct.fit_transform(df)
    assert list(out.columns) == ["age", "income", "id", "region"]
    assert out["id"].equals(df["id"]) and out["region"].equals(df["region"])
    direct = mabench.microaggregate(df[["age", "income"]], k=3).masked
    np.testing.assert_array_equal(out[["age", "income"]].to_numpy(float), direct.to_numpy(float))


def test_set_output_feature_names_and_fit_transform_on_arrays():
    X = _people()[["age", "income"]].to_numpy(float)
    m = mabench.Microaggregator(k=3).set_output(transform="pandas")
    out = m.fit_transform(X)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["x0", "x1"]
    assert list(m.get_feature_names_out()) == ["x0", "x1"]
    with pytest.raises(ValueError, match="masks the data it was fitted on"):
        m.transform(X[::-1])
    with pytest.raises(ValueError, match="not fitted yet"):  # scikit-learn's NotFittedError
        mabench.Microaggregator(k=3).transform(X)


def test_fitted_estimator_and_result_pickle():
    df = _people()[["age", "income"]]
    m = mabench.Microaggregator(k=3).fit(df)
    again = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(again.labels_, m.labels_)
    assert again.transform(df).equals(m.transform(df))
    assert again.result_.metrics(["il", "dld"]) == m.result_.metrics(["il", "dld"])


def test_round_integers_keeps_integer_columns_integer():
    df = _people()[["age", "income"]]
    plain = mabench.Microaggregator(k=3).fit_transform(df)
    rounded = mabench.Microaggregator(k=3, round_integers=True).fit_transform(df)
    assert rounded["age"].dtype == df["age"].dtype
    np.testing.assert_array_equal(rounded["age"].to_numpy(), np.round(plain["age"].to_numpy(float)))
    assert rounded["income"].equals(plain["income"])
    arr = mabench.Microaggregator(k=3, round_integers=True).fit_transform(df[["age"]].to_numpy())
    assert arr.dtype.kind == "i"
