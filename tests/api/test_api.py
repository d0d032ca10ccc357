"""The public Python API (issue 20 item 2): one call from a DataFrame to the masked data, the CLI's
numbers and messages, the sklearn-style estimator, the doctests of mabench.api, and a fast import."""

from __future__ import annotations

import doctest
import json
import importlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench import UserError
from support import ROOT


def test_docstring_examples_run():
    import mabench.api
    import mabench.catalog
    import mabench.estimator

    result = doctest.testmod(mabench.api, optionflags=doctest.NORMALIZE_WHITESPACE)
    listed = doctest.testmod(mabench.catalog, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted + listed.attempted >= 12
    assert result.failed == 0 and listed.failed == 0
    result = doctest.testmod(mabench.estimator, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 4 and result.failed == 0


def _people(n=12, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "person": [f"p{i:02d}" for i in range(n)],
        "sex": pd.Categorical(rng.choice(["f", "m"], size=n)),
        "age": rng.integers(18, 90, size=n),
        "income": rng.lognormal(10, 1, size=n),
        "score": rng.normal(size=n).astype(np.float32),
    }, index=pd.Index([100 + 3 * i for i in range(n)], name="row"))


def test_masked_passes_other_columns_and_publishes_group_means():
    df = _people()
    r = mabench.microaggregate(df, k=3)
    assert r.columns == ["age", "income", "score"]
    assert r.labels.shape == (12,) and r.groups.sum() == 12 and r.groups.min() >= 3
    assert r.masked.shape == df.shape and r.masked.index.equals(df.index)
    assert list(r.masked.columns) == list(df.columns)
    assert r.masked["person"].equals(df["person"]) and r.masked["sex"].equals(df["sex"])
    for g in range(r.groups.size):
        rows = r.labels == g
        np.testing.assert_allclose(r.masked.loc[rows, "income"], df.loc[rows, "income"].mean(), rtol=1e-12)
        np.testing.assert_allclose(r.masked.loc[rows, "age"], df.loc[rows, "age"].mean(), rtol=1e-12)
    assert r.masked["score"].dtype == np.float32  # a float column keeps its dtype
    assert r.seconds >= 0 and isinstance(r.info, dict)
    assert df["age"].dtype.kind == "i" and r.masked["age"].dtype == np.float64  # fractional means: float


def test_integer_column_stays_integer_when_means_are_whole():
    df = pd.DataFrame({"x": [1, 2, 3, 11, 12, 13]})
    r = mabench.microaggregate(df, k=3)
    assert r.masked["x"].dtype == df["x"].dtype
    assert r.masked["x"].tolist() == [2, 2, 2, 12, 12, 12]


def test_nullable_and_boolean_columns():
    df = pd.DataFrame({"n": pd.array([1, 2, 3, 11, 12, 14], dtype="Int64"), "flag": [True, False] * 3,
                       "x": [0.5, 0.1, 0.2, 3.0, 3.5, 2.9]})
    r = mabench.microaggregate(df, k=3)
    assert r.columns == ["n", "x"]  # true/false is not a variable by default: passed through
    assert r.masked["flag"].equals(df["flag"])
    assert r.masked["n"].dtype == np.float64  # 37/3 is not whole
    df.loc[4, "n"] = pd.NA
    with pytest.raises(UserError, match=r"row with index 4, column 'n', is missing \(NaN\)"):
        mabench.microaggregate(df, k=3)
    with pytest.raises(UserError, match=r"column 'flag' is not numeric"):
        mabench.microaggregate(df.fillna(0), k=3, columns=["flag", "x"])


def test_columns_pick_the_variables():
    df = _people()
    r = mabench.microaggregate(df, k=4, columns=["income"])
    assert r.columns == ["income"]
    assert r.masked["age"].equals(df["age"])


def test_array_and_path_inputs(tmp_path):
    x = _people()[["age", "income"]].to_numpy(float)
    r = mabench.microaggregate(x, k=3)
    assert list(r.masked.columns) == ["x1", "x2"]
    path = tmp_path / "people.csv"
    _people().to_csv(path, index=False)
    from_file = mabench.microaggregate(path, k=3)
    assert from_file.masked["person"].tolist() == _people()["person"].tolist()
    np.testing.assert_array_equal(from_file.labels, mabench.microaggregate(_people().reset_index(drop=True), k=3).labels)


def test_missing_value_names_first_row_and_column():
    df = _people()
    df.loc[106, "income"] = np.nan
    df.loc[109, "age"] = -1  # fine
    with pytest.raises(UserError) as err:
        mabench.microaggregate(df, k=3)
    assert str(err.value) == ("the DataFrame: the value in the row with index 106, column 'income', is missing (NaN); "
                              "microaggregation needs complete numeric data, impute or drop such rows first")
    df2 = _people().reset_index(drop=True).astype({"age": float})
    df2.loc[4, "age"] = np.nan
    with pytest.raises(UserError, match=r"row with index 4, column 'age', is missing"):
        mabench.microaggregate(df2, k=3)


def test_missing_value_outside_the_variables_is_passed_through():
    df = _people()
    df.loc[103, "person"] = None
    r = mabench.microaggregate(df, k=3)
    assert r.masked["person"].isna().sum() == 1


def test_non_numeric_column_in_columns_is_refused():
    with pytest.raises(UserError, match=r"column 'sex' is not numeric"):
        mabench.microaggregate(_people(), k=3, columns=["age", "sex"])
    with pytest.raises(UserError, match=r"columns names 'nope', which is not a column"):
        mabench.microaggregate(_people(), k=3, columns=["nope"])


def test_errors_are_the_clis(tmp_path, cli_main):
    path = tmp_path / "small.csv"
    _people()[["age", "income"]].to_csv(path, index=False)
    cases = [
        (dict(k=13), ["run", "mdav", str(path), "-k", "13"]),
        (dict(k=3, method="nope"), ["run", "nope", str(path), "-k", "3"]),
        (dict(k=3, method="mdav", bogus=1), ["run", "mdav", str(path), "-k", "3", "--param", "bogus=1"]),
        (dict(k=0), ["run", "mdav", str(path), "-k", "0"]),
    ]
    for kwargs, argv in cases:
        with pytest.raises(UserError) as err:
            mabench.microaggregate(path, **kwargs)
        proc = cli_main(*argv)
        assert proc.returncode == 2
        assert proc.stderr.strip() == f"mabench: error: {err.value}"


def test_metrics_are_the_numbers_the_cli_prints(cli_main):
    names = ["il", "dld", "id", "g_il", "m1", "sdid"]
    proc = cli_main("run", "mdav", "tarragona", "-k", "3", "--metrics", ",".join(names))
    record = json.loads(proc.stdout)
    r = mabench.microaggregate("tarragona", k=3)
    got = r.metrics(names)
    assert list(got) == names
    for name in names:
        assert got[name] == record[name], name
    # and from the DataFrame the catalog loads (same values, no data-set defaults involved here)
    df_metrics = mabench.microaggregate(mabench.load("tarragona"), k=3).metrics(names)
    assert df_metrics == got
    # evaluate gives the same for the same partition
    assert mabench.evaluate("tarragona", r.labels, k=3, metrics=names) == got


def test_evaluate_matches_cli_evaluate(tmp_path, cli_main):
    r = mabench.microaggregate("tarragona", k=4, method="mdav")
    part = tmp_path / "p.csv"
    part.write_text("group\n" + "".join(f"{g}\n" for g in r.labels))
    proc = cli_main("evaluate", "tarragona", str(part), "-k", "4", "--metrics", "il,dld,g_il")
    record = json.loads(proc.stdout)
    got = mabench.evaluate("tarragona", r.labels, k=4, metrics=["il", "dld", "g_il"])
    assert got == {name: record[name] for name in ("il", "dld", "g_il")}
    with pytest.raises(UserError, match="fewer than k=5"):
        mabench.evaluate("tarragona", r.labels, k=5)
    with pytest.raises(UserError, match="one label per row"):
        mabench.evaluate("tarragona", r.labels[:-1])


def test_methods_datasets_load():
    ms = mabench.methods()
    assert len(ms) >= 27
    mdav = next(m for m in ms if m["name"] == "mdav")
    assert mdav["citation"] and mdav["title"]
    assert mdav["parameters"]["scale"]["choices"] == ["standardized", "raw"]
    ds = {d["name"]: d for d in mabench.datasets()}
    assert ds["tarragona"]["kind"] == "fetched" and ds["uniform"]["kind"] == "generated"
    frame = mabench.load("tarragona")
    assert frame.shape == (834, 13) and frame.dtypes.eq(np.float64).all()
    a, b = mabench.load("uniform[n=50,d=2]", seed=3), mabench.load("uniform[n=50,d=2]", seed=4)
    assert a.shape == (50, 2) and not a.equals(b)
    assert mabench.load("uniform[n=50,d=2]", seed=3).equals(a)


def test_estimator_follows_sklearn_conventions():
    X = _people()[["age", "income"]].to_numpy(float)
    est = mabench.Microaggregator(method="mdav", k=3, measure="median")
    assert est.get_params() == {"method": "mdav", "k": 3, "columns": None, "seed": 0, "measure": "median",
                                "trim": None, "weights": None, "strata": None, "missing": None, "fill": None,
                                "round_integers": False, "params": None}
    assert est.set_params(k=4) is est and est.k == 4
    with pytest.raises(ValueError, match="not fitted yet"):  # scikit-learn's NotFittedError
        est.transform(X)
    masked = est.fit_transform(X)
    assert isinstance(masked, np.ndarray) and masked.shape == X.shape
    assert est.labels_.shape == (12,) and np.bincount(est.labels_).min() >= 4
    np.testing.assert_array_equal(masked, mabench.microaggregate(X, k=4, measure="median").masked.to_numpy())
    with pytest.raises(UserError, match="masks the data it was fitted on"):
        est.transform(X[::-1])
    frame = est.fit_transform(_people())
    assert isinstance(frame, pd.DataFrame) and frame["person"].equals(_people()["person"])
    clone = type(est)(**est.get_params())  # sklearn.base.clone does exactly this
    assert clone.get_params() == est.get_params()


def test_import_is_light_and_api_names_resolve():
    code = ("import sys, mabench; heavy = [m for m in ('numba', 'pandas', 'numpy') if m in sys.modules]; "
            "print(heavy); print(callable(mabench.microaggregate), mabench.UserError.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.split("\n")[:2] == ["[]", "True mabench.errors"]
    with pytest.raises(AttributeError):
        mabench.no_such_thing  # noqa: B018
    # the plugin packages do not shadow the API functions of similar names
    importlib.import_module("mabench.algorithms")
    importlib.import_module("mabench.generators")

    assert callable(mabench.methods) and callable(mabench.datasets)
    assert mabench.methods() and mabench.datasets()


def test_per_variable_method_through_the_api():
    """onedims aggregates each column on its own: (n, d) labels, each column's masked values its own
    groups' means."""
    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.normal(size=(12, 2)), columns=["a", "b"])
    df["name"] = [f"r{i}" for i in range(12)]
    r = mabench.microaggregate(df, k=3, method="onedims")
    assert r.labels.shape == (12, 2) and r.groups.sum() == 24
    for j, col in enumerate(["a", "b"]):
        means = df[col].groupby(r.labels[:, j]).transform("mean")
        np.testing.assert_allclose(r.masked[col].to_numpy(), means.to_numpy(), rtol=0, atol=1e-12)
    assert r.masked["name"].equals(df["name"])


def test_onedims_with_strata_weights_and_measure():
    """Individual ranking per stratum (it crashed with 'shape mismatch'): each stratum's per-variable
    partition is onedims on that stratum alone; weights and measure give each variable's groups their
    weighted median (sdcMicro's onedims takes both)."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"])
    df["region"] = np.repeat(["north", "south"], 15)
    df["w"] = rng.uniform(1, 5, 30)
    r = mabench.microaggregate(df, k=3, method="onedims", strata="region", weights="w", measure="median")
    assert r.labels.shape == (30, 2)
    for name, rows in df.groupby("region").groups.items():
        alone = mabench.microaggregate(df.loc[rows, ["a", "b"]], k=3, method="onedims")
        for j in range(2):  # the same groups, whatever their numbers
            pairs = set(zip(r.labels[rows, j].tolist(), alone.labels[:, j].tolist()))
            assert len(pairs) == len(set(alone.labels[:, j].tolist())) == len(set(r.labels[rows, j].tolist()))
    for j, col in enumerate(["a", "b"]):
        for g in np.unique(r.labels[:, j]):
            members = np.flatnonzero(r.labels[:, j] == g)
            assert members.size >= 3 and df.region.iloc[members].nunique() == 1
            x, w = df[col].to_numpy()[members], df.w.to_numpy()[members]
            order = np.argsort(x, kind="stable")
            share = np.cumsum(w[order]) / w.sum()
            assert np.unique(r.masked[col].to_numpy()[members]).size == 1
            assert r.masked[col].iloc[members[0]] in set(x) | {(x[order][i] + x[order][i + 1]) / 2
                                                                for i in range(members.size - 1)}
            assert share[np.flatnonzero(x[order] <= r.masked[col].iloc[members[0]])[-1]] >= 0.5 - 1e-12
    assert r.metrics(["il"])["il"] > mabench.microaggregate(df, k=3, method="onedims", strata="region").metrics(["il"])["il"]
