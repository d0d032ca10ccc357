"""The masked table: the input table with only the aggregated variables replaced (API, CLI, workflow)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def masked_table(frame: pd.DataFrame, picked: list, values: np.ndarray) -> pd.DataFrame:
    """``frame`` with column ``picked[j]`` replaced by ``values[:, j]``; every other column, the index
    and the column order unchanged. A float column keeps its dtype; an integer column stays integer
    only if every published value is a whole number (a NaN kept by ``missing=available`` makes it a
    nullable integer), otherwise it becomes float64."""
    out = frame.copy()
    for j, c in enumerate(picked):
        col = values[:, j]
        dtype = frame[c].dtype
        observed = col[~np.isnan(col)]
        # pd.Series(...).astype: a nullable pandas dtype (Int64, Float64) too, which NumPy cannot cast to
        if pd.api.types.is_integer_dtype(dtype) and np.all(observed == np.round(observed)):
            if observed.size == col.size:
                out[c] = pd.Series(col, index=out.index).astype(dtype)
            else:
                gaps = np.isnan(col)
                out[c] = pd.arrays.IntegerArray(np.where(gaps, 0, col).astype(np.int64), gaps)
        elif pd.api.types.is_float_dtype(dtype):
            out[c] = pd.Series(col, index=out.index).astype(dtype)
        else:
            out[c] = col
    return out
