"""Partitions: validation and bookkeeping.

A partition is an int64 label per record. Every partition an algorithm returns
is validated here before any metric sees it: every record in exactly one group
(one label, labels 0..g-1 all used), every group of at least k records, and no
group larger than the algorithm's declared bound.
"""

from __future__ import annotations

import re

import numpy as np

from mabench.errors import UserError


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


def check_columns(labels: np.ndarray, n: int, d: int, k: int, max_size: int | None = None, *,
                  who: str = "partition") -> list[np.ndarray]:
    """A per-variable partition (an (n, d) label matrix, column j the groups of variable j, as
    individual ranking makes): every column must be a valid partition; their group sizes."""
    labels = np.asarray(labels)
    if labels.shape != (n, d):
        raise InvalidPartition(f"{who}: per-variable labels of shape {labels.shape}, expected ({n}, {d})")
    return [check(np.ascontiguousarray(labels[:, j]), n, k, max_size, who=f"{who} (variable {j + 1})")
            for j in range(d)]


def check_k(k) -> int:
    """The one check of a user's k (the minimum group size)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise UserError(f"k must be a positive integer (the minimum group size), got {k!r}")
    return int(k)


_LABEL = re.compile(r"^\s*\+?[0-9]+(\.0*)?\s*$")
_MAX_LABEL = np.iinfo(np.int64).max


def read_labels(path, n: int, k: int) -> np.ndarray:
    """Read a partition CSV given by a user: header ``group``, one non-negative integer label per data row.

    Labels are any non-negative integers (``3`` or ``3.0``); they are relabelled 0..g-1 in order of
    first appearance. Negative labels (−1 is the engine's "unassigned" marker), true/false, text,
    fractions, empty cells and labels beyond 64 bits are refused.
    """
    import pandas as pd

    where = f"partition file {str(path)!r}"
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig", index_col=False)
    except FileNotFoundError:
        raise UserError(f"{where} does not exist; write one with `mabench run ... --out FILE`") from None
    except pd.errors.EmptyDataError:
        raise UserError(f"{where} is empty; expected a header `group` and one integer per row") from None
    except Exception as exc:  # noqa: BLE001 - any parse failure is the user's file
        raise UserError(f"cannot read {where} as CSV ({exc.__class__.__name__}); expected a header `group` "
                        "and one integer per row") from None
    names = [str(c).strip() for c in frame.columns]
    if names and names == [f"group_{j + 1}" for j in range(len(names))]:
        # a per-variable partition (one column per variable, as `mabench run onedims --out` writes it)
        return np.column_stack([_labels_column(frame.iloc[:, j].tolist(), f"{where} column {names[j]}", n, k)
                                for j in range(len(names))])
    if names != ["group"]:
        raise UserError(f"{where} must have exactly one column named `group` (or group_1..group_d, one per "
                        f"variable), found {list(frame.columns)}")
    return _labels_column(frame.iloc[:, 0].tolist(), where, n, k)


def _labels_column(text: list, where: str, n: int, k: int) -> np.ndarray:
    bad = [i for i, t in enumerate(text) if not _LABEL.match(t)]
    if bad:
        i = bad[0]
        value = text[i].strip()
        if not value:
            why = "is empty"
        elif value.lstrip().startswith("-") and _LABEL.match(value.replace("-", "", 1)):
            why = f"is negative ({value}; -1 marks an unassigned record)"
        else:
            why = f"is {value[:40]!r}"
        raise UserError(f"{where}: the label in row {i + 1} {why}; labels must be non-negative integers")
    ints = [int(t.strip().split(".")[0]) for t in text]
    if ints and max(ints) > _MAX_LABEL:
        raise UserError(f"{where}: label {max(ints)} is too large; labels must be below 2^63 (renumber the groups)")
    values = np.asarray(ints, dtype=np.int64)
    if len(values) != n:
        raise UserError(f"{where} has {len(values)} labels but the data set has {n} records; use the partition "
                        "written for this data set")
    labels = canonical_labels(values)
    check_given_k(labels, k, where)
    return labels


def check_given_k(labels: np.ndarray, k: int, where: str) -> None:
    """A user's partition (labels 0..g-1) has no group smaller than the k given with it."""
    sizes = np.bincount(labels)
    if sizes.min() < k:
        raise UserError(f"{where}: a group has {sizes.min()} records, fewer than k={k}; pass the k the partition "
                        "was made with")
