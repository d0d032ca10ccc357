"""The MDAV family's main loop (MDAV-generic, the papers' 2k wording, MDAV-1)."""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core import counter
from mabench.kernels.core.buffer import UNASSIGNED, compact, centroid, scratch, work_buffer
from mabench.kernels.core.distances import argmax_alive
from mabench.kernels.core.groups import close_tail
from mabench.kernels.core.nearest import farthest_group, group_around
from mabench.kernels.spatial.shell import shell_farthest, shell_order
from mabench.kernels.spatial.treegroups import (all_alive, centroid_of_remaining, close_tree_tail, far_and_near,
                                                farthest_remaining, group_from_tree, load_position, start_iteration,
                                                take_group, tree_start)
from mabench.kernels.spatial.index_choice import use_pair, use_tree

TAIL_3K = 0  # MDAV-generic: pairs while >= 3k left; 2k..3k-1 -> one group + the rest
TAIL_2K = 1  # MDAV as worded in P-S / CV-MDAV / ICSM Alg. 1: pairs while >= 2k; k..2k-1 -> one group
TAIL_MDAV1 = 2  # MDAV-1 (Lin et al.): pairs while >= 2k; k..2k-1 -> NN_k of the farthest, rest to nearest


@njit(cache=True, nogil=True)
def mdav_labels(Z, k, tail, tally=None):
    """Two groups per iteration: around r (farthest from the centroid) and s (farthest from r).

    Seed: 004_d1273daa16c98592.txt §IV (MDAV); 002_81f9d5b914b1df78.txt §3. Ties go to the lowest record index.

    Parameters
    ----------
    Z : (n, d) float64 — the records (z-scores).
    k : int — the minimum group size.
    tail : int — ``TAIL_3K``, ``TAIL_2K`` or ``TAIL_MDAV1``: when the pair step stops and what the rest becomes.
    tally : (2,) int64, optional — progress counter (:mod:`~mabench.kernels.core.counter`).

    Returns
    -------
    (n,) int64 — labels 0.., two new ones per pair step.
    """
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    c = S.centroid
    m = n
    left = n
    g = np.int64(0)
    stop = 3 * k if tail == TAIL_3K else 2 * k
    m = compact(W, ids, alive, m, S.sums)
    while left >= stop:
        if tally is not None:
            tally[0], tally[1] = n - left, n
        m = centroid(W, ids, alive, m, left, S.sums, c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = argmax_alive(S.dist, alive, m)
        left -= group_around(W, ids, alive, m, s, k, labels, g, S)
        g += 1
    if left >= (2 * k if tail == TAIL_3K else k) and tail != TAIL_2K:
        m = centroid(W, ids, alive, m, left, S.sums, c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
    close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


@njit(cache=True, nogil=True)
def mdav_labels_tree(Z, k, tail, pair=None, tally=None):
    """:func:`mdav_labels` with the farthest and nearest records found by a k-d tree
    (kernels/spatial/treegroups.py): the same partition, in O(n log n)-ish time at low dimension.
    ``pair``: True to ask s's questions on a second thread while r's nearest are found
    (treegroups.far_and_near); None (not False) for one thread, so the two-thread code is not compiled.
    ``tally`` (kernels/core/counter.py): [records grouped, records], updated as groups form.

    Parameters
    ----------
    Z, k, tail, tally — as for :func:`mdav_labels`.
    pair : True or None — see above.

    Returns
    -------
    (n,) int64 — the labels of :func:`mdav_labels`, bit for bit.
    """
    n, d = Z.shape
    labels, ids, sums, c, p, q, top_d, top_i, near_s, pos, T, KS, KS_s = tree_start(Z, k)
    answer = np.empty(4, dtype=np.int64)
    slots = n
    slots = centroid_of_remaining(Z, ids, labels, slots, n, sums, c)
    c0 = c.copy()
    shell = shell_order(Z, labels, c0)
    head = np.int64(0)
    built = n
    left = n
    g = np.int64(0)
    stop = 3 * k if tail == TAIL_3K else 2 * k
    while left >= stop:
        T, KS, KS_s, built = start_iteration(Z, labels, pos, left, built, T, KS, KS_s, tally)[:4]
        slots, shell, head, rr = farthest_remaining(Z, ids, labels, slots, left, sums, c, c0, shell, head)
        r = pos[rr]
        load_position(T, r, p)
        if pair is not None:
            far_and_near(T, shell, head, c0, labels, pos, k, r, p, q, (top_d, top_i), near_s, KS, KS_s, answer)
            s, head = pos[answer[0]], answer[1]
            left -= take_group(Z, T, r, top_i, answer[3], labels, g, sums)
            g += 1
            if T.alive[s] and all_alive(T, near_s[1], answer[2], min(k - 1, left - 1)):
                left -= take_group(Z, T, s, near_s[1], answer[2], labels, g, sums)
                g += 1
                continue
        else:
            ss, head = shell_farthest(shell, head, c0, labels, p)  # before r's group leaves, as in the pass kernel
            s = pos[ss]
            left -= group_from_tree(Z, T, r, k, labels, g, sums, p, top_d, top_i, KS)
            g += 1
        if not T.alive[s]:  # only when every remaining record is equidistant from r
            s = pos[shell_farthest(shell, head, c0, labels, p)[0]]
        left -= group_from_tree(Z, T, s, k, labels, g, sums, p, top_d, top_i, KS)
        g += 1
    if left >= (2 * k if tail == TAIL_3K else k) and tail != TAIL_2K:
        slots = centroid_of_remaining(Z, ids, labels, slots, left, sums, c)
        r = pos[shell_farthest(shell, head, c0, labels, c)[0]]
        left -= group_from_tree(Z, T, r, k, labels, g, sums, p, top_d, top_i, KS)
        g += 1
    close_tree_tail(Z, labels, g, left, k)
    return labels


def mdav_partition(Z, k, tail, index="auto"):
    """The MDAV family's partition by the kernel ``index`` names (auto: kernels/spatial/index_choice.use_tree);
    both kernels give the same labels.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k : int — the minimum group size.
    tail : int — as for :func:`mdav_labels`.
    index : {"auto", "tree", "scan"}, default "auto" — which kernel answers.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    if use_tree(index, *Z.shape):
        return mdav_labels_tree(Z, k, tail, use_pair(*Z.shape), counter.GROUPED)
    return mdav_labels(Z, k, tail, counter.GROUPED)
