"""Standardization: the one place data are z-scored (and checked to be standardizable).

Every algorithm and the IL metric work on z-scores with the *population*
standard deviation (ddof = 0). For IL and for every decision of the distance
based methods the choice of ddof is irrelevant (it rescales all columns by the
same factor); it is fixed here so that numbers are byte-stable.
"""

from __future__ import annotations

import numpy as np

from mabench.errors import UserError


def check_spread(values: np.ndarray, columns: list[str] | None = None, where: str | None = None) -> None:
    """The one check that data can be standardized: at least two records and no constant column."""
    x = np.asarray(values)
    prefix = f"{where}: " if where else ""
    if x.shape[0] < 2:
        raise UserError(f"{prefix}only {x.shape[0]} record(s); microaggregation needs at least 2 records "
                        "(and a column's spread is undefined on one)")
    const = np.flatnonzero(np.all(x == x[0], axis=0))
    if const.size:
        name = columns[const[0]] if columns else f"#{const[0] + 1}"
        raise UserError(f"{prefix}column {name!r} is constant and cannot be standardized; drop it")


def zscore(values: np.ndarray, columns: list[str] | None = None) -> np.ndarray:
    """Column-wise (x - mean) / std(ddof=0), as a new C-contiguous float64 array.

    Columns whose mean or standard deviation overflow (magnitudes near 1e308) or
    underflow (subnormal spreads) are computed on values scaled by their largest
    magnitude first; every other column keeps the plain formula bit for bit.
    """
    x = np.asarray(values, dtype=np.float64)
    check_spread(x, columns)
    with np.errstate(all="ignore"):
        mean = x.mean(axis=0)
        std = x.std(axis=0)
        z = (x - mean) / std
        bad = ~(np.isfinite(mean) & np.isfinite(std) & (std > 0) & np.isfinite(z).all(axis=0))
        for j in np.flatnonzero(bad):
            col = x[:, j] / np.abs(x[:, j]).max()
            z[:, j] = (col - col.mean()) / col.std()
    if not np.isfinite(z).all():
        j = int(np.flatnonzero(~np.isfinite(z).all(axis=0))[0])
        name = columns[j] if columns else f"#{j + 1}"
        raise UserError(f"column {name!r} cannot be standardized (values too extreme); rescale it")
    return np.ascontiguousarray(z)


def zscore_like(values: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``values`` standardized with ``reference``'s column means and sds (the map :func:`zscore`
    applies to ``reference``): e.g. a masked file's values on the original's z-scale."""
    ref = np.asarray(reference, dtype=np.float64)
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        mean, std = ref.mean(axis=0), ref.std(axis=0)
        z = (x - mean) / std
        for j in np.flatnonzero(~(np.isfinite(mean) & np.isfinite(std) & (std > 0))):
            top = np.abs(ref[:, j]).max()
            col = ref[:, j] / top
            z[:, j] = (x[:, j] / top - col.mean()) / col.std()
    return np.ascontiguousarray(z)


def zscore_within(values: np.ndarray) -> np.ndarray:
    """Z-scores of one stratum: like :func:`zscore`, but a column constant within the stratum
    becomes 0 (it cannot separate the stratum's records) and a single record is all zeros."""
    x = np.asarray(values, dtype=np.float64)
    flat = np.all(x == x[:1], axis=0) if x.shape[0] else np.ones(x.shape[1], dtype=bool)
    if not flat.any():
        return zscore(x)
    z = np.zeros_like(x)
    if (~flat).any():
        z[:, ~flat] = zscore(x[:, ~flat])
    return np.ascontiguousarray(z)
