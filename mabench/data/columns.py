"""Which columns of a table are numbers: one rule for files (CLI, workflow) and DataFrames (API).

A column is a *variable* when its values are numbers: a numeric dtype, or text that converts to
numbers entirely (integers beyond 64 bits, decimals a reader left as text, an object-dtype column of
Python numbers). Text that converts only once thousands separators are taken out (``"1,000"``) is
neither: published unaggregated it would disclose the values, and read as numbers it could be read
wrongly (``1,5`` is one and a half in much of Europe), so it is refused in one line naming the column.
Anything else (identifiers, names, categories) is *text* and passes through unchanged.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mabench.errors import UserError

NUMBER, TEXT, NUMBER_AS_TEXT, TRUE_FALSE = "number", "text", "number as text", "true/false"
_SEPARATED = re.compile(r"^[+-]?\d{1,3}([,'\s\u00a0\u202f]\d{3})+([.,]\d+)?$")


def kind(series: pd.Series) -> str:
    """NUMBER, TEXT, NUMBER_AS_TEXT (digits with thousands separators) or TRUE_FALSE."""
    if pd.api.types.is_bool_dtype(series):
        return TRUE_FALSE
    if pd.api.types.is_datetime64_any_dtype(series) or pd.api.types.is_timedelta64_dtype(series):
        return TEXT  # dates and times are passed through, never averaged
    if pd.api.types.is_numeric_dtype(series):
        return NUMBER if not pd.api.types.is_complex_dtype(series) else TEXT
    observed = series.dropna()
    if observed.empty:
        return TEXT
    if pd.api.types.infer_dtype(observed, skipna=False) == "string":
        # strings only (no true/false): each distinct value judged once, weighted by how often it occurs
        # (a stratum or region column of ten million rows holds a few hundred distinct values)
        tally = observed.value_counts(sort=False)
        return _text_kind(pd.Series(tally.index), tally.to_numpy())
    if observed.map(lambda v: isinstance(v, (bool, np.bool_))).any():
        return TRUE_FALSE if observed.map(lambda v: isinstance(v, (bool, np.bool_))).all() else TEXT
    return _text_kind(observed, np.ones(len(observed), dtype=np.int64))


def _text_kind(values: pd.Series, count: np.ndarray) -> str:
    """:func:`kind` of values that are not true/false, value i occurring ``count[i]`` times."""
    converted = pd.to_numeric(values, errors="coerce").notna().to_numpy(dtype=bool)
    if converted.all():
        return NUMBER
    text = values.astype(str).str.strip()
    separated = text.map(lambda v: bool(_SEPARATED.match(v))).to_numpy(dtype=bool)
    numeric = converted | separated
    if separated.any() and numeric.all():
        return NUMBER_AS_TEXT
    if 2 * int(count[numeric].sum()) > int(count.sum()):  # numbers with a few typos ("x", "n/a"): not text
        return NUMBER_AS_TEXT
    return TEXT


def numbers(series: pd.Series) -> np.ndarray:
    """A NUMBER column as float64, missing values as NaN."""
    if not pd.api.types.is_numeric_dtype(series):
        series = pd.to_numeric(series, errors="coerce")
    with np.errstate(all="ignore"):
        return series.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan)


def first_text(series: pd.Series) -> tuple[int, str]:
    """(0-based row, value) of the first value that is not a plain number, for messages."""
    converted = pd.to_numeric(series, errors="coerce")
    bad = np.flatnonzero((converted.isna() & series.notna()).to_numpy())
    row = int(bad[0]) if bad.size else 0
    return row, str(series.iloc[row])[:40]


def refuse_not_numeric(name, series: pd.Series, where: str, how: str) -> None:
    """One line for a column chosen as a variable that is not one; ``how`` says how to fix it."""
    what = kind(series)
    if what == TRUE_FALSE:
        raise UserError(f"{where}: column {name!r} is not numeric (true/false); convert it to 0/1 or {how}")
    row, value = first_text(series)
    if what == NUMBER_AS_TEXT and _SEPARATED.match(value.strip()):
        raise UserError(f"{where}: column {name!r} holds numbers written with thousands separators (row {row + 1}: "
                        f"{value!r}); convert it to plain numbers (e.g. pandas.read_csv(..., thousands=',')) or {how}")
    raise UserError(f"{where}: column {name!r} is not numeric (row {row + 1}: {value!r}); {how}")


def check_unique(names: list, where: str) -> None:
    """Column names appear once: with a name twice, which column is aggregated would be a guess."""
    seen = {}
    for j, name in enumerate(names):
        if name in seen:
            raise UserError(f"{where}: column name {name!r} appears twice (columns {seen[name] + 1} and {j + 1}); "
                            "give each column its own name")
        seen[name] = j


def variables(frame: pd.DataFrame, where: str, aside=()) -> list:
    """The default variables: every NUMBER column (strata and weights among them are set aside later);
    a NUMBER_AS_TEXT column that would otherwise be published unchanged is refused unless ``aside``
    names it (e.g. a stratum), so name the variables to keep it out."""
    picked = []
    for name in frame.columns:
        what = kind(frame[name])
        if what == NUMBER:
            picked.append(name)
        elif what == NUMBER_AS_TEXT and name not in aside:
            refuse_not_numeric(name, frame[name], where, "name the variables to aggregate so it is passed "
                                                         "through unchanged")
    return picked
