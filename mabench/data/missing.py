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
METHODS = ("mdav", "mdav1", "cbfs", "onedims")
# ... of which these make one partition per variable (the records missing a variable share a label
# of their own in its column, a group that publishes nothing)
PER_VARIABLE = ("onedims",)


# fill=True with a per-variable partition (the run's message and evaluate's)
FILL_PER_VARIABLE = ("ranks each variable's observed values only, so a missing value has no group to take a value "
                     "from; drop fill")


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
        if obs.size == 0:  # a stratum where nobody observed the variable
            z[:, j] = np.nan
            continue
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


def per_variable_values(values: np.ndarray, labels: np.ndarray, weights=None) -> np.ndarray:
    """(n, d): per record and variable, the (weighted) mean of the observed values of its group in that
    variable's partition (NaN for the group of the records missing it)."""
    out = np.empty(values.shape)
    for j in range(values.shape[1]):
        lab = np.ascontiguousarray(labels[:, j])
        g = int(lab.max()) + 1
        col = np.ascontiguousarray(values[:, j:j + 1])
        if weights is not None:
            seen = ~np.isnan(col[:, 0])
            if (np.bincount(lab[seen], weights=np.asarray(weights)[seen], minlength=g)[np.unique(lab[seen])] <= 0).any():
                raise UserError(f"a group of variable {j + 1} has only zero sampling weights; its weighted mean is "
                                "undefined (give positive weights, or drop the weights)")
        out[:, j] = group_values(col, lab, g, weights)[lab, 0]
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
    if algo.name not in METHODS or own.get("scale") == "raw":
        raise refuse_method(algo.name if algo.name not in METHODS else f"{algo.name} with scale=raw")
    mark_available(layout, values, agg["fill"], algo.name if algo.name in PER_VARIABLE else "")
    return zscore_observed(values)


def mark_available(layout, values: np.ndarray, fill, per_variable: str = "") -> None:
    """missing=available with NaN in the variables, for a run and for a partition given to evaluate:
    check the measure and ``fill`` can take them (``per_variable``: who ranks each variable alone, when
    that is so) and mark the observed cells in ``layout``."""
    if layout.measure != "mean":
        raise UserError(f"measure={layout.measure} cannot take missing values; missing=available publishes each "
                        "group's (weighted) mean of the observed values, so drop measure")
    if per_variable and fill:
        raise UserError(f"{per_variable} {FILL_PER_VARIABLE}")
    layout.observed = ~np.isnan(values)
    layout.fill = bool(fill)


def available_partition(algo, own: dict, z: np.ndarray, observed: np.ndarray, k: int,
                        raw: np.ndarray | None = None, where: str = "the data") -> np.ndarray:
    """The method's partition over the observed attributes (kernels/methods/mdav_missing.py for the
    MDAV family; onedims ranks each variable's observed values, on ``raw`` when given)."""
    from mabench.kernels.methods.mdav import TAIL_2K, TAIL_3K, TAIL_MDAV1
    from mabench.kernels.methods.mdav_missing import cbfs_missing_labels, mdav_missing_labels

    if algo.name in PER_VARIABLE:
        x = np.where(observed, z if raw is None else raw, np.nan)
        counts = observed.sum(axis=0)
        short = np.flatnonzero((counts > 0) & (counts < k))
        if short.size:
            j = int(short[0])
            raise UserError(f"{where}: variable {j + 1} has {counts[j]} observed value(s), fewer than k={k}; "
                            f"{algo.name} would publish a mean of fewer than k values (lower k, or leave it out)")
        x = np.ascontiguousarray(x)
        return algo.run(x, k, own, None, **({"raw": x} if algo.uses_raw else {}))
    zc = np.ascontiguousarray(np.where(observed, z, 0.0))
    seen = np.ascontiguousarray(observed)
    if algo.name == "cbfs":
        return cbfs_missing_labels(zc, seen, k, own["tail"] == "group", own["centroid"] == "fixed")
    tail = TAIL_MDAV1 if algo.name == "mdav1" else {"3k": TAIL_3K, "2k": TAIL_2K}[own["tail"]]
    return mdav_missing_labels(zc, seen, k, tail)


def check_per_variable(labels: np.ndarray, observed: np.ndarray, k: int, bound, who: str) -> list[np.ndarray]:
    """A per-variable partition with missing values: in each column the observed records form a valid
    partition (their group sizes, returned) and the records missing the variable share no label with
    them; raises :class:`~mabench.partition.InvalidPartition` otherwise."""
    from mabench import partition

    sizes = []
    for j in range(labels.shape[1]):
        lab, seen = labels[:, j], observed[:, j]
        where = f"{who} (variable {j + 1})"
        if np.isin(lab[~seen], lab[seen]).any():
            raise partition.InvalidPartition(f"{where}: a record missing the variable shares a group with observed ones")
        if seen.any():
            _, relabelled = np.unique(lab[seen], return_inverse=True)
            sizes.append(partition.check(relabelled.astype(np.int64), int(seen.sum()), min(k, int(seen.sum())),
                                         bound, who=where))
    return sizes
