"""The Python API under the third hostile review (issue 40: the NaN message, F7, F14, F18, F19, F21, F22).

Every input either works as documented or raises ``mabench.UserError`` with one line in the API's
own terms (keywords, index labels), never a traceback from pandas or NumPy and never a silent change
of the numbers.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench import UserError


def _frame(n=30, seed=0) -> pd.DataFrame:
    return pd.DataFrame(np.random.default_rng(seed).normal(size=(n, 3)), columns=list("abc"))


def test_a_missing_value_is_named_by_its_index_label():
    """The message said "row 38" for the label 37: df.loc[38] is another row."""
    df = _frame(50)
    df.loc[37, "b"] = np.nan
    with pytest.raises(UserError, match=r"index 37, column 'b'") as err:
        mabench.microaggregate(df, k=3)
    assert "38" not in str(err.value)
    labelled = _frame(50).set_axis([f"r{i}" for i in range(50)])
    labelled.loc["r12", "a"] = np.inf
    with pytest.raises(UserError, match=r"index 'r12', column 'a', is infinite"):
        mabench.microaggregate(labelled, k=3)


def test_a_missing_value_under_a_multiindex_is_named_by_its_tuple():
    df = _frame()
    df.index = pd.MultiIndex.from_tuples([(i // 5, i % 5) for i in range(30)])
    df.iloc[7, 1] = np.nan
    with pytest.raises(UserError, match=r"index \(1, 2\), column 'b'"):
        mabench.microaggregate(df, k=3)


@pytest.mark.parametrize("dtype", ["Int64", "Float64"])
def test_nullable_columns_are_aggregated_and_keep_their_dtype(dtype):
    block = np.repeat([1, 2, 3, 4, 5, 6], 5)  # six blocks of equal records: groups of whole means
    df = pd.DataFrame({"a": pd.array(block, dtype=dtype), "b": block * 10.0, "c": block ** 2.0})
    plain = df.astype({"a": "float64"})
    result, reference = mabench.microaggregate(df, k=5), mabench.microaggregate(plain, k=5)
    assert str(result.masked["a"].dtype) == dtype
    assert np.array_equal(result.labels, reference.labels)
    assert np.allclose(result.masked["a"].to_numpy(dtype=float), reference.masked["a"].to_numpy())


def test_duplicate_column_names_are_refused():
    df = _frame()
    df.columns = ["a", "a", "b"]
    for columns in (None, ["a"], ["b"]):
        with pytest.raises(UserError, match="'a' appears twice"):
            mabench.microaggregate(df, k=3, columns=columns)


def test_complex_data_are_refused_not_cut_to_their_real_part():
    df = _frame()
    with pytest.raises(UserError, match="'a' of the DataFrame is complex"):
        mabench.microaggregate(df.assign(a=df["a"] + 1j), k=3)
    with pytest.raises(UserError, match="complex"):
        mabench.microaggregate(df.to_numpy() + 0j, k=3)


def test_integers_beyond_2_53_are_refused_not_rounded():
    df = _frame().assign(a=np.arange(30, dtype=np.int64) + 2**62)  # rounded to float64: one constant column
    with pytest.raises(UserError, match=r"'a' of the DataFrame holds the integer 4611686018427387933, beyond 2\^53"):
        mabench.microaggregate(df, k=3)
    ok = _frame().assign(a=np.arange(30, dtype=np.int64) + 2**52)
    assert mabench.microaggregate(ok, k=3).labels.shape == (30,)


def test_evaluate_takes_per_variable_labels():
    df = _frame()
    result = mabench.microaggregate(df, k=3, method="onedims")
    assert result.labels.shape == (30, 3)
    assert mabench.evaluate(df, result.labels, k=3, metrics="il") == result.metrics(["il"])


def test_strata_with_integer_column_names():
    df = pd.DataFrame({0: [1, 2] * 15, 1: np.arange(30.0), 2: np.arange(30.0) ** 2})
    result = mabench.microaggregate(df, k=3, strata=0)
    assert result.columns == [1, 2]
    assert (result.masked[0] == df[0]).all()
    assert all(len(set(df[0][result.labels == g])) == 1 for g in range(result.groups.size))


@pytest.mark.parametrize("name", ["s+t", "s,t"])
def test_a_strata_column_named_with_a_separator_is_refused(name):
    df = _frame().assign(**{name: [1, 2] * 15})
    with pytest.raises(UserError, match="rename it"):
        mabench.microaggregate(df, k=3, strata=name)


def test_messages_name_keywords_not_cli_options():
    df = _frame()
    with pytest.raises(UserError) as err:
        mabench.microaggregate(df, k=3, method="kw")
    assert "--param" not in str(err.value) and "projection=zs" in str(err.value)
    with pytest.raises(UserError) as err:
        mabench.evaluate(df, np.arange(30) // 3, metrics="rld")
    assert "--option" not in str(err.value) and "key_variables=" in str(err.value)


@pytest.mark.parametrize("method, params", [("vmdav", {"gamma": True}), ("mdav2", {"resplit": 2}),
                                            ("mdav2", {"resplit": []}), ("mdav2", {"resplit": "yes"}),
                                            ("mdav", {"tail": True})])
def test_parameters_of_the_wrong_type_are_refused(method, params):
    with pytest.raises(UserError, match="is not a"):
        mabench.microaggregate(_frame(), k=3, method=method, **params)


def test_k_as_text_is_refused_and_shown_as_text():
    with pytest.raises(UserError, match="got '3'"):
        mabench.microaggregate(_frame(), k="3")
