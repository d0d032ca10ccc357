"""Missing values (``missing=available``): the checks, z-scores and group values over observed values.

A record with missing values is still grouped (every record is published); each variable's
z-score uses the mean and standard deviation of its observed values; a group publishes, per
variable, the (weighted) mean of its members' observed values; a record keeps NA where it had NA
unless ``fill=True`` (then it gets its group's value, if any member observed the variable).
docs/metrics.md#missing-values.
"""

from __future__ import annotations

import numpy as np

from mabench.errors import UserError

# The methods that take missing values, and the one line for the others.
METHODS = ("mdav",)


def refuse_method(name: str) -> UserError:
    return UserError(f"{name} cannot take missing values; missing=available works with {', '.join(METHODS)} "
                     "(or impute or drop the rows with missing values first)")


def check_observed(values: np.ndarray, columns: list[str], where: str) -> None:
    """No infinity; every variable observed at least twice and not constant over its observed values."""
    inf = np.isinf(values)
    if inf.any():
        row, col = np.argwhere(inf)[0]
        raise UserError(f"{where}: value in row {row + 1}, column {columns[col]!r} is infinite (or beyond ±1.8e308); "
                        "give finite numbers (missing values as empty cells or NaN)")
    seen = ~np.isnan(values)
    if values.shape[0] < 2:
        raise UserError(f"{where}: only {values.shape[0]} record(s); microaggregation needs at least 2 records")
    for j, name in enumerate(columns):
        observed = values[seen[:, j], j]
        if observed.size < 2:
            raise UserError(f"{where}: column {name!r} has {observed.size} observed value(s); a variable needs at "
                            "least 2 to be standardized, leave it out of the columns")
        if np.all(observed == observed[0]):
            raise UserError(f"{where}: column {name!r} is constant over its observed values and cannot be "
                            "standardized; drop it")


def zscore_observed(values: np.ndarray) -> np.ndarray:
    """Column-wise (x - mean) / std(ddof=0) over the observed values; NaN stays NaN. Summed like
    :func:`mabench.data.standardize.zscore` (the observed values in record order), so a column
    without NaN gets the same z-scores."""
    x = np.asarray(values, dtype=np.float64)
    z = np.empty_like(x)
    for j in range(x.shape[1]):
        col = x[:, j]
        seen = ~np.isnan(col)
        obs = col[seen]
        with np.errstate(all="ignore"):
            std = obs.std()
            z[:, j] = (col - obs.mean()) / std if std > 0 else 0.0
    return np.ascontiguousarray(z)


def group_values(values: np.ndarray, labels: np.ndarray, n_groups: int, weights=None) -> np.ndarray:
    """(n_groups, d): each group's (weighted) mean of its members' observed values; NaN where no
    member observed the variable (or their weights sum to 0)."""
    x = np.asarray(values, dtype=np.float64)
    w = np.ones(x.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    out = np.empty((n_groups, x.shape[1]))
    for j in range(x.shape[1]):
        seen = ~np.isnan(x[:, j])
        total = np.bincount(labels[seen], weights=(w * x[:, j])[seen], minlength=n_groups)
        mass = np.bincount(labels[seen], weights=w[seen], minlength=n_groups)
        with np.errstate(all="ignore"):
            out[:, j] = np.where(mass > 0, total / np.where(mass > 0, mass, 1.0), np.nan)
    return out


def masked_values(values: np.ndarray, labels: np.ndarray, published: np.ndarray, fill: bool) -> np.ndarray:
    """Each record's group value; NA where the record had NA unless ``fill``."""
    out = np.ascontiguousarray(published[labels])
    if not fill:
        out[np.isnan(values)] = np.nan
    return out


def available_layout(algo, own: dict, values: np.ndarray, layout, agg: dict) -> np.ndarray:
    """missing=available with NaN in the variables: check the method and measure can take them, mark
    the observed cells in ``layout`` (the runner's); returns the z-scores over observed values (NaN kept)."""
    if algo.name not in METHODS or own.get("tail", "3k") != "3k" or own.get("scale") == "raw":
        raise refuse_method(algo.name if algo.name not in METHODS else
                            f"{algo.name} with {'tail=' + own['tail'] if own.get('tail') != '3k' else 'scale=raw'}")
    if layout.measure != "mean":
        raise UserError(f"measure={layout.measure} cannot take missing values; missing=available publishes each "
                        "group's (weighted) mean of the observed values, so drop measure")
    layout.observed = ~np.isnan(values)
    layout.fill = bool(agg["fill"])
    return zscore_observed(values)


def available_partition(z: np.ndarray, observed: np.ndarray, k: int) -> np.ndarray:
    """MDAV over the observed attributes (the one method that takes missing values)."""
    from mabench.kernels.methods.mdav_missing import mdav_missing_labels

    return mdav_missing_labels(np.ascontiguousarray(np.where(observed, z, 0.0)), np.ascontiguousarray(observed), k)
