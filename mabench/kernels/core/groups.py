"""Group-level quantities of a labelled partition: centroids, sizes, SSE, leftovers to the nearest group."""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import UNASSIGNED
from mabench.kernels.core.distances import sqdist_to
from mabench.kernels.core.nearest import label_rest

@njit(cache=True)
def group_means(Z, labels, n_groups):
    """Centroids (n_groups, d) and sizes of the labelled records (label -1 is skipped).

    Parameters
    ----------
    Z : (n, d) float64; labels : (n,) int64 in 0..n_groups−1 or −1; n_groups : int.

    Returns
    -------
    means (n_groups, d) float64 and sizes (n_groups,) int64.
    """
    n, d = Z.shape
    sums = np.zeros((n_groups, d))
    sizes = np.zeros(n_groups, dtype=np.int64)
    for i in range(n):
        g = labels[i]
        if g >= 0:
            sizes[g] += 1
            for j in range(d):
                sums[g, j] += Z[i, j]
    for g in range(n_groups):
        if sizes[g] > 0:
            for j in range(d):
                sums[g, j] /= sizes[g]
    return sums, sizes


@njit(cache=True)
def assign_leftovers(Z, labels, n_groups):
    """Give every unlabelled record the label of the group with the nearest centroid.

    Centroids are frozen before any leftover is added (the sequential update
    gave identical results on every published cell; frozen is order-free).
    Ties go to the lower group label.

    Parameters
    ----------
    Z : (n, d) float64; labels : (n,) int64 — every −1 gets a group; n_groups : int.

    Returns
    -------
    None.
    """
    n = Z.shape[0]
    means, _ = group_means(Z, labels, n_groups)
    for i in range(n):
        if labels[i] != UNASSIGNED:
            continue
        best = -1
        best_v = np.inf
        for g in range(n_groups):
            s = sqdist_to(Z, i, means, g)
            if s < best_v:
                best_v = s
                best = g
        labels[i] = best


@njit(cache=True)
def close_tail(Z, alive, ids, m, labels, g, left, k):
    """The common last step: k or more records left form one group; fewer join their nearest groups.

    Parameters
    ----------
    Z : (n, d) float64; alive, ids, m : the work buffer's slots.
    labels : (n,) int64 — updated; g : int — next label; left, k : int — records left, minimum size.

    Returns
    -------
    None.
    """
    if left >= k:
        label_rest(alive, ids, m, labels, g)
    elif left > 0:
        assign_leftovers(Z, labels, g)


@njit(cache=True)
def sse(Z, labels, n_groups):
    """Within-group sum of squares: Σ_g Σ_{i∈g} ||z_i − mean_g||².

    Parameters
    ----------
    Z : (n, d) float64; labels : (n,) int64 in 0..n_groups−1; n_groups : int.

    Returns
    -------
    float — Σ of squared distances to the group means.
    """
    means, _ = group_means(Z, labels, n_groups)
    return total_sse(Z, labels, means)


@njit(cache=True)
def total_sse(Z, labels, means):
    """SSE of a partition whose centroids are given: the squared distance of every record to its
    group's row of ``means``, added record by record in attribute order.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — each record's group, 0..c-1.
    means : (c, d) float64 — the groups' centroids.

    Returns
    -------
    float — the sum of squared distances to the group centroids.
    """
    n, d = Z.shape
    total = 0.0
    for i in range(n):
        g = labels[i]
        for j in range(d):
            t = Z[i, j] - means[g, j]
            total += t * t
    return total


@njit(cache=True)
def sst(Z):
    """Total sum of squares: the SSE of the one-group partition, summed by :func:`sse` in the same
    order, so the whole data set as one group gives IL = 100 exactly and no partition exceeds it.

    Parameters
    ----------
    Z : (n, d) float64 — the records.

    Returns
    -------
    float.
    """
    return sse(Z, np.zeros(Z.shape[0], dtype=np.int64), np.int64(1))


@njit(cache=True)
def follow_links(start, stop, link, out):
    """The chain of a linked list: out[0], out[1], ... := start, link[start], link[link[start]], ...
    up to (without) ``stop``.

    Parameters
    ----------
    start, stop : int — the first entry and the entry (or end marker) that ends the chain.
    link : (n,) int64 — each entry's successor; out : (n,) int64 — filled from 0.

    Returns
    -------
    int — the chain's length.
    """
    m = 0
    i = start
    while i != stop:
        out[m] = i
        m += 1
        i = link[i]
    return m


@njit(cache=True)
def exchange_members(members, group, pos, x, y):
    """Exchange records x and y between their groups in a member table: each takes the other's place.

    Parameters
    ----------
    members : (g, s) int64 — each group's records in its slots; group, pos : (n,) int64 — each record's
        group and its slot there (updated).
    x, y : int — records of two different groups.

    Returns
    -------
    None — the table is changed in place.
    """
    gx = group[x]
    gy = group[y]
    px = pos[x]
    py = pos[y]
    members[gx, px] = y
    members[gy, py] = x
    group[x] = gy
    group[y] = gx
    pos[x] = py
    pos[y] = px
