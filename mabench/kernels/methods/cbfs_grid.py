"""CBFS around a fixed centre in one to four dimensions, answered from a grid of cells
(kernels/spatial/grid.py): EMAD's MAT runs (algorithms/emad.py, ``mat=cbfs_fixed``), one per
possibility or column subset.

The seeds come in one precomputed order (decreasing distance from the centroid of all records,
ties to the lowest id: :func:`~mabench.kernels.methods.cbfs.cbfs_labels_tree`'s order), each seed
joins its k−1 nearest remaining records, and the last k..2k−1 records form a group — the partition of
``cbfs_labels_scan(Z, k, True, True)``, bit for bit (tests/kernels/test_cbfs_grid.py). On EMAD's
Sim-1/2/3 subsets (d = 1-4, 5,000-20,000 records) it took a third to a half of the k-d tree kernel's time
(docs/scaling.md, issue 39 item 1): the grid needs no rebuilds and no box tests per query.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core import counter
from mabench.kernels.core.buffer import UNASSIGNED
from mabench.kernels.methods.cbfs import _farthest_first, cbfs_labels
from mabench.kernels.spatial.grid import (OCCUPANCY, grid_build, grid_crowding, grid_delete,
                                          grid_nearest_k, reach_offsets)
from mabench.kernels.spatial.treegroups import close_tree_tail, start_sums

GRID_MAX_D = 4   # at d = 5 the tree kernel was faster (Sim-1, 5,000 records)
CROWDED = 64.0   # a record's cell holds this many on average: outliers stretch the box; use the tree


@njit(cache=True, nogil=True)
def cbfs_fixed_grid(Z, k, crowded=CROWDED, tally=None):
    """CBFS with the fixed centroid and a last group of k..2k−1 records, by the grid; an empty array
    when the grid is crowded (more than ``crowded`` records in a record's cell on average), for the
    caller to use another kernel.

    Seed: 004_d1273daa16c98592.txt §IV (CBFS), the centre fixed as in
    001_26cfb99743cbb1f3.txt Ch. 6 (docs/algorithms/emad.md). Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64, C-contiguous — the records (n >= 1).
    k : int — the minimum group size.
    crowded : float, default :data:`CROWDED` — the crowding (:func:`~mabench.kernels.spatial.grid.grid_crowding`)
        above which the grid is not used (``np.inf``: always used).
    tally : (2,) int64, optional — progress counter (:mod:`~mabench.kernels.core.counter`).

    Returns
    -------
    (n,) int64 — each record's group label, or (0,) int64 when the grid is crowded.
    """
    n, d = Z.shape
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    grid = grid_build(Z, OCCUPANCY)
    if grid_crowding(grid) > crowded:
        return np.empty(0, dtype=np.int64)
    _, sums = start_sums(Z, labels)
    seeds = _farthest_first(Z, sums / n)
    offsets, least = reach_offsets(d)
    top_d = np.empty(max(k - 1, 1))
    top_i = np.empty(max(k - 1, 1), dtype=np.int64)
    cp = np.empty(d, dtype=np.int64)
    ring = np.empty(d, dtype=np.int64)
    frac = np.empty(d)
    p = np.empty(d)
    nxt = 0
    left = n
    g = np.int64(0)
    while left >= 2 * k:
        if tally is not None:
            tally[0], tally[1] = n - left, n
        while labels[seeds[nxt]] != UNASSIGNED:
            nxt += 1
        r = seeds[nxt]
        grid_delete(grid, r)
        labels[r] = g
        for j in range(d):
            p[j] = Z[r, j]
        cnt = grid_nearest_k(grid, p, k - 1, top_d, top_i, offsets, least, cp, frac, ring)
        for t in range(cnt):
            grid_delete(grid, top_i[t])
            labels[top_i[t]] = g
        left -= cnt + 1
        g += 1
    close_tree_tail(Z, labels, g, left, k)
    return labels


def takes_grid(index: str, n: int, d: int, k: int) -> bool:
    """Whether :func:`cbfs_fixed_labels` tries the grid kernel first for n x d records (it still falls
    back when the grid is crowded).

    Parameters
    ----------
    index : {"auto", "tree", "scan"} — the method's ``index`` parameter.
    n, d : int — records and the columns the kernel sees.
    k : int — the minimum group size.

    Returns
    -------
    bool — true when the grid is tried first.

    Examples
    --------
    >>> takes_grid("auto", 1000, 3, 3), takes_grid("auto", 1000, 5, 3), takes_grid("tree", 1000, 3, 3)
    (True, False, False)
    """
    return index == "auto" and 1 <= d <= GRID_MAX_D and n >= 2 * k


def cbfs_fixed_labels(Z, k, index: str = "auto"):
    """``cbfs_labels(Z, k, True, True, index)``'s partition; with ``index=auto`` in at most
    :data:`GRID_MAX_D` dimensions from :func:`cbfs_fixed_grid` (unless the grid is crowded).

    Parameters
    ----------
    Z : (n, d) float64, C-contiguous — the records.
    k : int — the minimum group size.
    index : {"auto", "tree", "scan"}, default "auto" — which kernel answers (never changes the partition).

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    if takes_grid(index, Z.shape[0], Z.shape[1], k):
        labels = cbfs_fixed_grid(Z, k, CROWDED, counter.GROUPED)
        if labels.size:
            return labels
    return cbfs_labels(Z, k, True, True, index)
