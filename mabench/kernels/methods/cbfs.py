"""CBFS's main loop (Laszlo & Mukherjee 2005; the plugin is algorithms/cbfs.py): one group per
iteration, around the remaining record farthest from the centroid.

Two kernels give the same partition: :func:`cbfs_labels_scan`, the reference, answers each question
by a full distance pass over the remaining records (O(n²·d) in all); :func:`cbfs_labels_tree`
answers them from a k-d tree and a shell order (kernels/spatial/treegroups.py), replaying the pass kernel's
arithmetic. :func:`cbfs_labels` picks one (``index=auto|tree|scan``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core import counter
from mabench.kernels.core.buffer import UNASSIGNED, centroid, compact, scratch, work_buffer
from mabench.kernels.core.groups import close_tail
from mabench.kernels.core.nearest import farthest_group
from mabench.kernels.spatial.shell import shell_farthest, shell_order
from mabench.kernels.spatial.treegroups import (all_alive, close_tree_tail, farthest_remaining, group_from_tree,
                                                load_position, nearest_of_two, start_iteration, take_group, tree_start)
from mabench.kernels.spatial.index_choice import use_pair, use_tree


@njit(cache=True, nogil=True)
def cbfs_labels_scan(Z, k, tail_group, fixed_centroid, tally=None):
    """The reference kernel: while enough records remain, r = the remaining record farthest from the
    centroid (of the remaining records, or of the whole data set) joins its k−1 nearest.

    Seed: 004_d1273daa16c98592.txt §IV (CBFS). Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64 — the records (z-scores).
    k : int — the minimum group size.
    tail_group : bool — whether a last group of k is taken around the farthest record once fewer than 2k remain.
    fixed_centroid : bool — whether the centroid is that of the whole data set (not of the remaining records).
    tally : (2,) int64, optional — progress counter (:mod:`~mabench.kernels.core.counter`).

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    m = compact(W, ids, alive, n, S.sums)
    c_fixed = S.sums / n
    left = n
    g = np.int64(0)
    stop = 2 * k if tail_group else k
    while left >= stop:
        if tally is not None:
            tally[0], tally[1] = n - left, n
        m = centroid(W, ids, alive, m, left, S.sums, S.centroid)
        left -= farthest_group(W, ids, alive, m, c_fixed if fixed_centroid else S.centroid, k, labels, g, S)[0]
        g += 1
    close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


@njit(cache=True)
def _farthest_first(Z, c):
    """Record ids by decreasing squared distance to the fixed point c (the distance pass's
    arithmetic), ties to the lowest id: the seed order when the centre never moves."""
    n, d = Z.shape
    dist = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            t = Z[i, j] - c[j]
            s += t * t
        dist[i] = s
    return np.argsort(-dist, kind="mergesort")


@njit(cache=True, nogil=True)
def cbfs_labels_tree(Z, k, tail_group, fixed_centroid, pair=None, tally=None):
    """:func:`cbfs_labels_scan`'s partition with the farthest record taken from a shell order (or, for
    the fixed centroid, from one precomputed order) and the k−1 nearest from a k-d tree.

    ``pair``: True to find, with each seed's nearest, on a second thread those of the record that will be
    the next seed if the group does not change the answer (the farthest but one now); the next
    iteration uses them if that record is indeed its seed and they are all still remaining (they
    are then what a fresh query returns: removing records never reorders the others); None (not
    False) for one thread, so the two-thread code is not compiled. :func:`cbfs_labels` asks
    ``index_choice.use_pair``: the guess costs one more farthest scan per group, which a second
    thread repays only from ``index_choice.PAIR_FROM_D`` attributes.
    ``tally`` (kernels/core/counter.py): [records grouped, records], updated as groups form.

    Parameters
    ----------
    Z, k, tail_group, fixed_centroid, tally — as for :func:`cbfs_labels_scan`.
    pair : True or None — see above (:func:`~mabench.kernels.spatial.index_choice.use_pair`).

    Returns
    -------
    (n,) int64 — the same labels as :func:`cbfs_labels_scan`, bit for bit.
    """
    n, d = Z.shape
    labels, ids, sums, c, p, q, top_d, top_i, near_b, pos, T, KS, KS_b = tree_start(Z, k)
    counts = np.empty(2, dtype=np.int64)
    cached = -1  # tree position whose nearest near_b holds, found before the last group left
    c_fixed = sums / n
    built = n
    slots = n
    seeds = _farthest_first(Z, c_fixed) if fixed_centroid else np.empty(0, dtype=np.int64)
    nxt = 0
    c0 = c_fixed.copy()
    shell = shell_order(Z, labels if not fixed_centroid else np.zeros(0, dtype=np.int64), c0)
    head = np.int64(0)
    left = n
    g = np.int64(0)
    stop = 2 * k if tail_group else k
    while left >= stop:
        T, KS, KS_b, built, rebuilt = start_iteration(Z, labels, pos, left, built, T, KS, KS_b, tally)
        if rebuilt:
            cached = -1
        if fixed_centroid:
            while labels[seeds[nxt]] != UNASSIGNED:
                nxt += 1
            r = seeds[nxt]
        else:
            slots, shell, head, r = farthest_remaining(Z, ids, labels, slots, left, sums, c, c0, shell, head)
        pr = pos[r]
        if pr == cached and all_alive(T, near_b[1], counts[1], min(k - 1, left - 1)):
            left -= take_group(Z, T, pr, near_b[1], counts[1], labels, g, sums)
            cached = -1
        elif pair is not None and left > k:
            if fixed_centroid:
                t = nxt + 1
                while labels[seeds[t]] != UNASSIGNED:
                    t += 1
                guess = seeds[t]
            else:
                guess, head = shell_farthest(shell, head, c0, labels, c, r)
            load_position(T, pr, p)
            load_position(T, pos[guess], q)
            nearest_of_two(T, k - 1, pr, pos[guess], p, q, (top_d, top_i), near_b, KS, KS_b, counts)
            left -= take_group(Z, T, pr, top_i, counts[0], labels, g, sums)
            cached = pos[guess]
        else:
            left -= group_from_tree(Z, T, pr, k, labels, g, sums, p, top_d, top_i, KS)
        g += 1
    close_tree_tail(Z, labels, g, left, k)
    return labels


def cbfs_labels(Z, k, tail_group: bool, fixed_centroid: bool, index: str = "auto"):
    """CBFS's partition by the kernel ``index`` names (auto: kernels/spatial/index_choice.use_tree).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k : int — the minimum group size.
    tail_group, fixed_centroid : bool — as for :func:`cbfs_labels_scan`.
    index : {"auto", "tree", "scan"}, default "auto" — which kernel answers (never changes the partition).

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    if use_tree(index, *Z.shape):
        return cbfs_labels_tree(Z, k, tail_group, fixed_centroid, use_pair(*Z.shape), counter.GROUPED)
    return cbfs_labels_scan(Z, k, tail_group, fixed_centroid, counter.GROUPED)
