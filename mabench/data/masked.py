"""The masked table: the input table with only the aggregated variables replaced (API, CLI, workflow).

:class:`MaskedTable` holds what the table is made of (the input table, the aggregated columns and a
way to get the masked values of any run of rows) and builds it whole (the API's ``Result.masked``)
or in parts of consecutive rows (the masked file, written part by part: mabench.data.formats), the
same table either way.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np
import pandas as pd

# Values (rows x columns) in one part of a streamed masked file: bounds the writer's memory and fixes
# the Parquet row groups (a part is one row group, at most 2**20 rows: pyarrow's default row group).
PART_VALUES = 1 << 22
MAX_PART_ROWS = 1 << 20

# How a masked column is stored, decided over all its rows (masked_table's docstring)
_SAME, _NULLABLE_INT, _PLAIN = "same", "nullable int", "plain"


@dataclass
class MaskedTable:
    """The input table ``frame`` with column ``picked[j]`` replaced by the masked values
    ``rows(start, stop)[:, j]`` (an array of the rows start:stop, original units)."""

    frame: pd.DataFrame
    picked: list
    rows: Callable[[int, int], np.ndarray]

    @property
    def n_rows(self) -> int:
        return len(self.frame)

    @property
    def part_rows(self) -> int:
        """Rows in each part but the last: fixed by the number of columns, so the same input is cut the same way."""
        return max(1, min(MAX_PART_ROWS, PART_VALUES // max(1, self.frame.shape[1])))

    @functools.cached_property
    def _storage(self) -> list[str]:
        """Per aggregated column, how its masked values are stored; an integer column stays integer only
        if every value of every row is whole, so the integer columns are read once over all parts."""
        integer = [j for j, c in enumerate(self.picked) if pd.api.types.is_integer_dtype(self.frame[c].dtype)]
        whole = dict.fromkeys(integer, True)
        complete = dict.fromkeys(integer, True)
        for start, stop in self._spans() if integer else ():
            values = self.rows(start, stop)
            for j in integer:
                col = values[:, j]
                gaps = np.isnan(col)
                observed = col[~gaps]
                whole[j] = whole[j] and bool(np.all(observed == np.round(observed)))
                complete[j] = complete[j] and not gaps.any()
        storage = []
        for j, c in enumerate(self.picked):
            if j in whole and whole[j]:
                storage.append(_SAME if complete[j] else _NULLABLE_INT)
            elif pd.api.types.is_float_dtype(self.frame[c].dtype):
                storage.append(_SAME)
            else:
                storage.append(_PLAIN)
        return storage

    def _spans(self) -> list[tuple[int, int]]:
        step = self.part_rows
        return [(start, min(start + step, self.n_rows)) for start in range(0, self.n_rows, step)] or [(0, 0)]

    def part(self, start: int, stop: int) -> pd.DataFrame:
        """Rows start:stop of the masked table (the input's index labels kept)."""
        out = self.frame.iloc[start:stop].copy()
        values = self.rows(start, stop)
        for j, c in enumerate(self.picked):
            col = values[:, j]
            how = self._storage[j]
            # pd.Series(...).astype: a nullable pandas dtype (Int64, Float64) too, which NumPy cannot cast to
            if how == _SAME:
                out[c] = pd.Series(col, index=out.index).astype(self.frame[c].dtype)
            elif how == _NULLABLE_INT:
                gaps = np.isnan(col)
                out[c] = pd.arrays.IntegerArray(np.where(gaps, 0, col).astype(np.int64), gaps)
            else:
                out[c] = col
        return out

    def parts(self) -> Iterator[pd.DataFrame]:
        """The table in consecutive parts of :attr:`part_rows` rows, in row order (one empty part for no rows)."""
        for start, stop in self._spans():
            yield self.part(start, stop)

    def whole(self) -> pd.DataFrame:
        return self.part(0, self.n_rows)


def masked_table(frame: pd.DataFrame, picked: list, values: np.ndarray) -> pd.DataFrame:
    """``frame`` with column ``picked[j]`` replaced by ``values[:, j]``; every other column, the index
    and the column order unchanged. A float column keeps its dtype; an integer column stays integer
    only if every published value is a whole number (a NaN kept by ``missing=available`` makes it a
    nullable integer), otherwise it becomes float64."""
    return MaskedTable(frame, picked, lambda start, stop: values[start:stop]).whole()
