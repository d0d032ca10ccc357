"""What makes reading a file of millions of rows with a text stratum fast gives the same answers as a
plain row-by-row reading: a text column is judged by its distinct values weighted by their counts
(mabench.data.columns.kind), and the strata are numbered by pandas.factorize
(mabench.bench.runner._stratum_codes) as a dict of key tuples numbers them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mabench.bench.runner import _stratum_codes
from mabench.data import columns as kinds
from mabench.errors import UserError

# values that compare equal across types (1, 1.0, True), signed zeros, text, and missing values
KEY = st.sampled_from([0.0, -0.0, 1.0, 2.5, 1, 2, True, "a", "b", "1", None, float("nan")])


def _numbered_by_dict(cols, names):
    """The reference: each row's key tuple numbered in order of first appearance, as Python's dict
    compares keys; the first row with a missing value (None, NaN) is refused."""
    keys = list(zip(*[np.asarray(c).tolist() for c in cols]))
    codes, seen = np.empty(len(keys), dtype=np.int64), {}
    for i, key in enumerate(keys):
        gaps = [j for j, v in enumerate(key) if v is None or (isinstance(v, float) and v != v)]
        if gaps:
            raise UserError(f"strata column {names[gaps[0]]!r}: row {i + 1} is missing; give every record a stratum")
        codes[i] = seen.setdefault(key, len(seen))
    return codes, list(seen)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(KEY, min_size=1, max_size=3), min_size=1, max_size=40),
       st.sampled_from(["object", "float"]))
def test_strata_are_numbered_as_a_dict_of_key_tuples_numbers_them(rows, storage):
    width = len(rows[0])
    rows = [(row * width)[:width] for row in rows]
    cols = [np.array([row[j] for row in rows], dtype=object) for j in range(width)]
    if storage == "float":  # a numeric strata column as read from a file
        cols = [np.array([v if isinstance(v, (int, float)) and v is not None else np.nan for v in c], dtype=float)
                for c in cols]
    names = [f"c{j}" for j in range(width)]
    try:
        want = _numbered_by_dict(cols, names)
    except UserError as exc:
        with pytest.raises(UserError) as got:
            _stratum_codes(cols, names)
        assert str(got.value) == str(exc)
        return
    codes, keys = _stratum_codes(cols, names)
    assert np.array_equal(codes, want[0])
    assert [tuple(map(repr, k)) for k in keys] == [tuple(map(repr, k)) for k in want[1]]


def _kind_row_by_row(series: pd.Series) -> str:
    """The reference: every value of a text column looked at once per row."""
    observed = series.dropna().astype(object)
    converted = pd.to_numeric(observed, errors="coerce")
    if converted.notna().all():
        return kinds.NUMBER
    separated = observed.astype(str).str.strip().map(lambda v: bool(kinds._SEPARATED.match(v)))
    if separated.any() and (converted.notna() | separated).all():
        return kinds.NUMBER_AS_TEXT
    if (converted.notna() | separated).mean() > 0.5:
        return kinds.NUMBER_AS_TEXT
    return kinds.TEXT


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["1", "2.5", " 3 ", "1,000", "12 345", "x", "n/a", "north", "", "1e3"]),
                min_size=1, max_size=30))
def test_a_text_column_is_judged_by_its_distinct_values_as_row_by_row(values):
    series = pd.Series(values, dtype="str")
    assert kinds.kind(series) == _kind_row_by_row(series)
