"""Standardization: the one place data are z-scored.

Every algorithm and the IL metric work on z-scores with the *population*
standard deviation (ddof = 0). For IL and for every decision of the distance
based methods the choice of ddof is irrelevant (it rescales all columns by the
same factor); it is fixed here so that numbers are byte-stable.
"""

from __future__ import annotations

import numpy as np

from .errors import UserError


def zscore(values: np.ndarray, columns: list[str] | None = None) -> np.ndarray:
    """Column-wise (x - mean) / std(ddof=0), as a new C-contiguous float64 array."""
    x = np.asarray(values, dtype=np.float64)
    mean = x.mean(axis=0)
    std = x.std(axis=0)
    flat = np.flatnonzero(std == 0)
    if flat.size:
        name = columns[flat[0]] if columns else f"#{flat[0]}"
        raise UserError(f"column {name!r} is constant and cannot be standardized; drop it from the input")
    return np.ascontiguousarray((x - mean) / std)
