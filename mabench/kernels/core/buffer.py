"""The work buffer of the remaining records and its running column sums.

The remaining records live in a *work buffer* ``W`` of shape (d, n): one row
per attribute, so each distance pass runs over contiguous memory and
vectorizes. Removed records are only flagged (``alive[pos] = False``); the next
centroid pass compacts the buffer in order while it sums, so

* positions stay in original record order, and every tie (equal distances,
  e.g. duplicate records in Tarragona) is broken towards the lowest original
  index, exactly like a stable sort over the input rows;
* the centroid is summed in original record order, bit for bit like
  ``Z[remaining].sum(axis=0) / m`` in NumPy;
* no loop allocates: scratch arrays are made once per call.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

UNASSIGNED = -1
BLOCK = 2048  # records per distance block: the block's distances stay in L1 across attributes
PARALLEL_MIN = 4 * BLOCK  # below this many slots, thread start-up costs more than it saves


@njit(cache=True)
def transposed(Z):
    """Z (n, d) copied as W (d, n): a distance pass then runs over one attribute's contiguous row.

    Parameters
    ----------
    Z : (n, d) float64 — the records.

    Returns
    -------
    (d, n) float64, C-contiguous.
    """
    n, d = Z.shape
    W = np.empty((d, n))
    for i in range(n):
        for j in range(d):
            W[j, i] = Z[i, j]
    return W


@njit(cache=True)
def work_buffer(Z):
    """Transposed copy of Z (n, d) -> W (d, n), with record ids and alive flags.

    Parameters
    ----------
    Z : (n, d) float64 — the records.

    Returns
    -------
    W (d, n) float64, ids (n,) int64 = 0..n−1, alive (n,) bool all True.
    """
    return transposed(Z), np.arange(Z.shape[0]), np.ones(Z.shape[0], dtype=np.bool_)


@njit(cache=True)
def _compact_column(row, alive, m):
    s = 0.0
    w = 0
    for i in range(m):
        if alive[i]:
            v = row[i]
            row[w] = v
            s += v
            w += 1
    return s


@njit(cache=True, parallel=True)
def _compact_columns_par(W, alive, m, sums):
    for j in prange(W.shape[0]):
        sums[j] = _compact_column(W[j], alive, m)


@njit(cache=True)
def compact(W, ids, alive, m, sums):
    """Squeeze out dead slots (order kept) and write the survivors' column sums; return their count.

    Each column is summed by one thread in record order, so the sums are the
    same bits whatever the thread count.

    Parameters
    ----------
    W, ids, alive : (d, n) float64, (n,) int64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`); m : int — the slots in use.
    sums : (d,) float64 — filled: the alive slots' column sums.

    Returns
    -------
    int — the alive slots, now the first ones.
    """
    if m >= PARALLEL_MIN:
        _compact_columns_par(W, alive, m, sums)
    else:
        for j in range(W.shape[0]):
            sums[j] = _compact_column(W[j], alive, m)
    w = 0
    for i in range(m):
        if alive[i]:
            ids[w] = ids[i]
            alive[w] = True
            w += 1
    return w


@njit(cache=True)
def centroid(W, ids, alive, slots, left, sums, c):
    """Mean of the remaining records into ``c``; returns the (possibly compacted) slot count.

    The column sums are kept up to date by :func:`forget` (each removed record
    subtracted in removal order). Once more than 1/8 of the slots are dead the
    buffer is compacted and the sums are recomputed afresh in record order,
    which bounds the rounding drift and the distance passes' wasted work.

    Parameters
    ----------
    W, ids, alive : (d, n) float64, (n,) int64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`); slots : int — in use.
    left : int — records that remain; sums : (d,) float64 — their running column sums.
    c : (d,) float64 — filled: their mean.

    Returns
    -------
    int — the slots in use after a possible compaction.
    """
    if sums_due(slots, left):
        slots = compact(W, ids, alive, slots, sums)
    mean_of_sums(sums, left, c)
    return slots


@njit(cache=True, inline="always")
def sums_due(slots, left):
    """The running centroid's schedule, one rule for the buffer (:func:`centroid`) and for the tree
    path, which replays it on the records' own layout (kernels/spatial/treegroups.py): recompute the
    column sums afresh once more than 1/8 of the slots are dead.

    Parameters
    ----------
    slots : int — slots in use; left : int — records that remain among them.

    Returns
    -------
    bool — whether the sums are recomputed now.
    """
    return (slots - left) * 8 > slots


@njit(cache=True, inline="always")
def mean_of_sums(sums, left, c):
    """``c = sums / left``, column by column: the running centroid of both paths.

    Parameters
    ----------
    sums : (d,) float64 — the remaining records' column sums; left : int — how many remain.
    c : (d,) float64 — filled: their mean.

    Returns
    -------
    None.
    """
    for j in range(c.size):
        c[j] = sums[j] / left


@njit(cache=True)
def forget(W, slot, sums):
    """Take the record in ``slot`` of W (d, n) out of the running column sums ``sums`` (d,).

    Parameters
    ----------
    W : (d, n) float64 — the work buffer (:func:`work_buffer`).
    slot : int — the slot leaving.
    sums : (d,) float64 — the running column sums of the remaining records (updated in place).

    Returns
    -------
    None
    """
    for j in range(W.shape[0]):
        sums[j] -= W[j, slot]


# Scratch of one kernel call, by name: the centroid, a loaded point, the distances of the last pass,
# the k nearest's values and slots, the pass's per-block maxima and their slots, and the running
# column sums of the remaining records.
Scratch = namedtuple("Scratch", ["centroid", "point", "dist", "top_d", "top_i", "block_v", "block_i", "sums"])


@njit(cache=True)
def scratch(n, d, k):
    """Scratch for one call (:data:`Scratch`), allocated once.

    Parameters
    ----------
    n, d, k : int — records, attributes, the largest group taken at once.

    Returns
    -------
    Scratch — centroid, point (d,); dist (n,); top_d, top_i (k,); block_v, block_i (blocks,); sums (d,).
    """
    nb = (n + BLOCK - 1) // BLOCK
    kk = max(k, 1)
    return Scratch(np.empty(d), np.empty(d), np.empty(n), np.empty(kk), np.empty(kk, dtype=np.int64),
                   np.empty(nb), np.empty(nb, dtype=np.int64), np.zeros(d))
