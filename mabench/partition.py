"""Partitions: validation and bookkeeping.

A partition is an int64 label per record. Every partition an algorithm returns
is validated here before any metric sees it: every record in exactly one group
(one label, labels 0..g-1 all used), every group of at least k records, and no
group larger than the algorithm's declared bound.
"""

from __future__ import annotations

import numpy as np

from .errors import UserError


class InvalidPartition(RuntimeError):
    """An algorithm produced a partition that breaks its contract (a bug, not a user error)."""


def canonical_labels(labels: np.ndarray) -> np.ndarray:
    """Relabel groups 0..g-1 in order of first appearance (so equal partitions compare equal)."""
    labels = np.asarray(labels)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.reshape(-1)]


def group_sizes(labels: np.ndarray) -> np.ndarray:
    return np.bincount(labels)


def check(labels: np.ndarray, n: int, k: int, max_size: int | None = None, *, who: str = "partition") -> np.ndarray:
    """Return the sizes of a valid partition; raise :class:`InvalidPartition` otherwise."""
    labels = np.asarray(labels)
    if labels.shape != (n,):
        raise InvalidPartition(f"{who}: {labels.shape} labels for {n} records")
    if labels.dtype.kind not in "iu":
        raise InvalidPartition(f"{who}: labels are {labels.dtype}, not integers")
    if n and labels.min() < 0:
        raise InvalidPartition(f"{who}: negative label {labels.min()} (a record left unassigned)")
    sizes = np.bincount(labels)
    if np.any(sizes == 0):
        raise InvalidPartition(f"{who}: label {int(np.flatnonzero(sizes == 0)[0])} is unused")
    if sizes.min() < k:
        raise InvalidPartition(f"{who}: group {int(sizes.argmin())} has {sizes.min()} < k={k} records")
    if max_size is not None and sizes.max() > max_size:
        raise InvalidPartition(f"{who}: group {int(sizes.argmax())} has {sizes.max()} > {max_size} records")
    return sizes


def read_labels(path, n: int, k: int) -> np.ndarray:
    """Read a partition CSV (header ``group``, one integer per input row) given by a user."""
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except FileNotFoundError:
        raise UserError(f"partition file {str(path)!r} does not exist; write one with `mabench run ... --out FILE`") from None
    except Exception as exc:  # noqa: BLE001 - any parse failure is the user's file
        raise UserError(f"cannot read partition file {str(path)!r} as CSV ({exc.__class__.__name__}); expected a header `group` and one integer per row") from None
    if list(frame.columns) != ["group"]:
        raise UserError(f"partition file {str(path)!r} must have exactly one column named `group`, found {list(frame.columns)}")
    col = frame["group"]
    if col.isna().any() or not np.all(np.isfinite(pd.to_numeric(col, errors="coerce"))):
        raise UserError(f"partition file {str(path)!r}: labels must be integers, found a non-numeric or empty value")
    values = pd.to_numeric(col).to_numpy()
    if values.dtype.kind == "f":
        if not np.all(values == np.round(values)):
            raise UserError(f"partition file {str(path)!r}: labels must be integers, found {values[values != np.round(values)][0]}")
        values = values.astype(np.int64)
    if len(values) != n:
        raise UserError(f"partition file {str(path)!r} has {len(values)} labels but the data set has {n} records; use the partition written for this data set")
    labels = canonical_labels(values.astype(np.int64))
    sizes = np.bincount(labels)
    if sizes.min() < k:
        raise UserError(f"partition file {str(path)!r}: a group has {sizes.min()} records, fewer than k={k}; pass the k the partition was made with")
    return labels
