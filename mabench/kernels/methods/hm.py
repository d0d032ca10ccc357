"""Hansen–Mukherjee (HM): the optimal partition of a sequence into contiguous groups of k..2k-1 records.

Given records in a fixed order o_0, o_1, ..., o_{L-1}, the HM graph has nodes
0..L and an arc a -> b for every k <= b-a <= 2k-1, standing for the group
{o_a, ..., o_{b-1}} with weight its SSE. A shortest path lo -> hi is the best
partition of o_lo..o_{hi-1} into contiguous groups. On one-column data sorted
by value this is the exact optimum (Hansen & Mukherjee 2003, cited in
004_d1273daa16c98592.txt §IV "MHM"); over any multivariate ordering it is the
MHM step.

Cost: prefix sums of the records and of their squared norms along the order
(``prefix_sums``, O(L·d)) give each arc's SSE in O(d):
SSE(a, b) = (P2[b] - P2[a]) - ||P1[b] - P1[a]||² / (b - a); the dynamic
program visits at most k arcs per node, so a path costs O(L·k·d) time and
O(L·d) memory. With integer-valued data every prefix sum is exact, so groups
holding the same multiset of values get bit-identical weights and exact ties
stay exact.

Tie rule: among predecessors of equal cost, the *smallest* last group wins
(arcs are scanned by group size k, k+1, ..., 2k-1 and only a strictly
smaller cost replaces the current best).

Reuse for a cyclic tour (ICSM's Tour2Assignment): pass ``order`` = the tour
followed by its first 2k-1 records again, compute ``prefix_sums`` once, then
call ``shortest_path(P1, P2, s, s + n, k, cost, pred)`` for s = 0..2k-2 and
keep the cheapest; ``path_labels`` maps positions back through ``order``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import UNASSIGNED
from mabench.kernels.core.groups import group_means
from mabench.kernels.core.readonly import as_read_only
from mabench.kernels.spatial.mst import farthest_from_centroid, npn_order


@njit(cache=True)
def prefix_sums(Z, order):
    """P1[t] = Σ_{u<t} Z[order[u]] (shape (L+1, d)) and P2[t] = Σ_{u<t} ||Z[order[u]]||² (shape (L+1,)).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    order : (L,) int64 — a sequence of record ids.

    Returns
    -------
    P1 : (L + 1, d) float64
    P2 : (L + 1,) float64
    """
    L = order.size
    d = Z.shape[1]
    P1 = np.zeros((L + 1, d))
    P2 = np.zeros(L + 1)
    for t in range(L):
        i = order[t]
        s2 = 0.0
        for j in range(d):
            v = Z[i, j]
            P1[t + 1, j] = P1[t, j] + v
            s2 += v * v
        P2[t + 1] = P2[t] + s2
    return P1, P2


@njit(cache=True)
def segment_sse(P1, P2, a, b):
    """SSE of the group of sequence positions a..b-1 (clamped at 0 against rounding).

    Parameters
    ----------
    P1, P2 : (L + 1, d), (L + 1,) float64 — :func:`prefix_sums` of the sequence.
    a, b : int — the segment's first position and one past its last (b > a).

    Returns
    -------
    float — ``(P2[b] - P2[a]) - |P1[b] - P1[a]|² / (b - a)``, at least 0.
    """
    m = b - a
    s = 0.0
    for j in range(P1.shape[1]):
        t = P1[b, j] - P1[a, j]
        s += t * t
    v = (P2[b] - P2[a]) - s / m
    return v if v > 0.0 else 0.0


@njit(cache=True)
def shortest_path(P1, P2, lo, hi, k, cost, pred):
    """Shortest path lo -> hi in the HM graph; returns its cost (inf if hi - lo < k).

    ``cost`` and ``pred`` (float64 / int64, length >= hi + 1) are caller-owned
    scratch; on return pred[b] is the start of the last group of the best
    path to node b. Group sizes are k..2k-1 (k = 1: singletons).

    Seed: 004_d1273daa16c98592.txt §IV (HM, ref. [11]): the graph whose arcs are the groups of k..2k-1
    consecutive records, weighted by their SSE. Ties keep the shortest group (the first ``m`` tried).

    Parameters
    ----------
    P1, P2 : (L + 1, d), (L + 1,) float64 — :func:`prefix_sums` of the sequence.
    lo, hi : int — the first and the last node.
    k : int — the minimum group size.
    cost : (>= hi + 1,) float64 — scratch: the best cost to each node.
    pred : (>= hi + 1,) int64 — filled: the start of the best path's last group to each node.

    Returns
    -------
    float — the cost of the best path (inf when none).
    """
    cost[lo] = 0.0
    pred[lo] = -1
    kmax = 2 * k - 1
    for b in range(lo + 1, hi + 1):
        best = np.inf
        arg = -1
        for m in range(k, kmax + 1):
            a = b - m
            if a < lo:
                break
            ca = cost[a]
            if ca == np.inf:
                continue
            c = ca + segment_sse(P1, P2, a, b)
            if c < best:
                best = c
                arg = a
        cost[b] = best
        pred[b] = arg
    return cost[hi]


@njit(cache=True)
def path_labels(order, lo, hi, pred, labels, first_label):
    """Label the records of the best path lo -> hi, groups numbered along the order from ``first_label``.

    Positions map to records through ``order`` (a position >= n of an extended
    cyclic order names the same record as its copy). Returns the number of groups.

    Parameters
    ----------
    order : (L,) int64 — position -> record id (modulo n for an extended cyclic order).
    lo, hi : int — the path's ends.
    pred : (>= hi + 1,) int64 — :func:`shortest_path`'s predecessors.
    labels : (n,) int64 — updated: the records on the path get their groups.
    first_label : int — the first group's label.

    Returns
    -------
    int — the number of groups.
    """
    n_groups = 0
    b = hi
    while b > lo:
        b = pred[b]
        n_groups += 1
    g = first_label + n_groups - 1
    b = hi
    while b > lo:
        a = pred[b]
        for t in range(a, b):
            labels[order[t]] = g
        g -= 1
        b = a
    return n_groups


@njit(cache=True)
def hm_labels(Z, order, k):
    """Optimal contiguous partition of ``order`` (a permutation of the records); returns (labels, SSE).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    order : (n,) int64 — a permutation of the records.
    k : int — the minimum group size.

    Returns
    -------
    labels : (n,) int64 — each record's group, numbered along ``order``.
    sse : float — the partition's SSE by prefix sums.
    """
    n = order.size
    P1, P2 = prefix_sums(Z, order)
    cost = np.empty(n + 1)
    pred = np.empty(n + 1, dtype=np.int64)
    total = shortest_path(P1, P2, np.int64(0), n, k, cost, pred)
    labels = np.full(Z.shape[0], UNASSIGNED, dtype=np.int64)
    path_labels(order, np.int64(0), n, pred, labels, np.int64(0))
    return labels, total


SEQ_CREATION = 0
SEQ_ENDS = 1
SEQ_CHAIN = 2


@njit(cache=True)
def sequence_of_groups(Z, labels, n_groups, how):
    """Turn a partition into a record order: its groups one after the other, members in record order.

    ``how`` fixes the order of the groups:

    * ``SEQ_CREATION``: label order (0, 1, 2, ...), the order a fixed-size method made them;
    * ``SEQ_ENDS``: even labels from the front, odd labels from the back (0, 2, 4, ..., 5, 3, 1),
      so the two groups of each MD/MDAV pair step land at opposite ends; the back groups
      are mirrored (members in descending record order), so the whole sequence reads
      as front half + reversed back half;
    * ``SEQ_CHAIN``: start with the group holding the record farthest from the centroid of all
      records, then repeatedly the unvisited group whose centroid is nearest to the last group's
      (nearest point next over the group centroids).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — each record's group, 0..n_groups-1.
    n_groups : int — how many groups.
    how : int — ``SEQ_CREATION``, ``SEQ_ENDS`` or ``SEQ_CHAIN``.

    Returns
    -------
    (n,) int64 — the records in sequence order.
    """
    n = labels.size
    rank = np.empty(n_groups, dtype=np.int64)  # position of each group in the sequence
    if how == SEQ_ENDS:
        pos = 0
        for g in range(0, n_groups, 2):
            rank[g] = pos
            pos += 1
        last = n_groups - 1 if n_groups % 2 == 0 else n_groups - 2
        for g in range(last, 0, -2):
            rank[g] = pos
            pos += 1
    elif how == SEQ_CHAIN:
        means, _ = group_means(Z, labels, n_groups)
        g_order = npn_order(as_read_only(means), labels[farthest_from_centroid(Z)])
        for r in range(n_groups):
            rank[g_order[r]] = r
    else:
        for g in range(n_groups):
            rank[g] = g
    sizes = np.zeros(n_groups, dtype=np.int64)
    for i in range(n):
        sizes[rank[labels[i]]] += 1
    fill = np.zeros(n_groups, dtype=np.int64)
    for r in range(1, n_groups):
        fill[r] = fill[r - 1] + sizes[r - 1]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        r = rank[labels[i]]
        order[fill[r]] = i
        fill[r] += 1
    if how == SEQ_ENDS:  # back groups mirrored: members in descending record order
        for g in range(1, n_groups, 2):
            a = fill[rank[g]] - sizes[rank[g]]
            b = fill[rank[g]] - 1
            while a < b:
                t = order[a]
                order[a] = order[b]
                order[b] = t
                a += 1
                b -= 1
    return order
