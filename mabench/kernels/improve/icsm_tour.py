"""ICSM's Tour and Tour2Assignment (003_58f0e37d459aa4df.txt §4.2, Algorithm 4): the partition as a
closed path through the records (groups visited nearest-point-next), and the path cut optimally into
groups of [k, kmax] consecutive records (cyclic Hansen–Mukherjee, incremental window SSE by slide
and grow updates). :mod:`.icsm` runs them between its other steps."""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import sq_between
from mabench.kernels.spatial.mst import farthest_from_centroid

INF = np.inf


# ------------------------------------------------------------------ Tour
@njit(cache=True)
def tour(Z, labels, sizes, members):
    """Records ordered group by group (§4.2): start with the group of the record farthest from
    the global centroid; inside a group, nearest-point-next from its first record; the next
    group is the one holding the unvisited record nearest to the last record of the path, and
    that record comes first. Ties go to the lowest record index.

    Seed: 003_58f0e37d459aa4df.txt §4.2 (Algorithm 5, Tour).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — each record's group.
    sizes : (c,) int64 — group sizes.
    members : (c, cap) int64 — each group's records.

    Returns
    -------
    (n,) int64 — the records in tour order.
    """
    n = Z.shape[0]
    far = farthest_from_centroid(Z)
    path = np.empty(n, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    m = 0
    first = far
    while True:
        g = labels[first]
        # nearest-point-next inside group g, starting from `first`
        cur = first
        path[m] = cur
        m += 1
        visited[cur] = True
        for _ in range(sizes[g] - 1):
            best = -1
            best_v = INF
            for s in range(sizes[g]):
                y = members[g, s]
                if visited[y]:
                    continue
                v = sq_between(Z, cur, y)
                if v < best_v or (v == best_v and y < best):
                    best_v = v
                    best = y
            cur = best
            path[m] = cur
            m += 1
            visited[cur] = True
        if m >= n:
            break
        best = -1
        best_v = INF
        for y in range(n):
            if visited[y]:
                continue
            v = sq_between(Z, cur, y)
            if v < best_v:
                best_v = v
                best = y
        first = best
    return path


# ------------------------------------------------------------------ Tour2Assignment
@njit(cache=True)
def slide_update(sse_old, c, a, b, k):
    """Window of k records slides: a leaves, b enters. Updates the centroid c in place and
    returns the new SSE: ΔSSE = Σ_l Δ_l ((1 − k) Δ_l + 2k (b_l − c_new,l)) / k, Δ = b − a.

    Parameters
    ----------
    sse_old : float — the window's SSE.
    c : (d,) float64 — the window's centroid (updated).
    a, b : (d,) float64 — the record leaving and the record entering.
    k : int — the window size.

    Returns
    -------
    float — the new SSE.
    """
    d = c.shape[0]
    s = 0.0
    for j in range(d):
        delta = b[j] - a[j]
        c[j] += delta / k
        s += delta * ((1 - k) * delta + 2 * k * (b[j] - c[j])) / k
    return sse_old + s


@njit(cache=True)
def grow_update(sse_old, c, x, m):
    """A group of m records gains x: SSE += m/(m+1) ‖c − x‖², then c += (x − c)/(m+1).

    Parameters
    ----------
    sse_old : float — the group's SSE.
    c : (d,) float64 — its centroid (updated).
    x : (d,) float64 — the record joining.
    m : int — the group's size before.

    Returns
    -------
    float — the group's SSE once x has joined (``c`` is then its centroid).
    """
    d = c.shape[0]
    s = 0.0
    for j in range(d):
        t = x[j] - c[j]
        s += t * t
    for j in range(d):
        c[j] += (x[j] - c[j]) / (m + 1)
    return sse_old + m * s / (m + 1)


@njit(cache=True)
def window_costs(Zp, k, kmax):
    """W[i, L − k] = SSE of the L records Zp[i .. i+L−1] of the closed tour, L = k..kmax.

    The size-k windows slide along the tour; larger windows grow from them.

    Parameters
    ----------
    Zp : (m, d) float64 — the records in tour order; positions wrap around (the tour is closed).
    k, kmax : int — the group size limits.

    Returns
    -------
    (m, kmax - k + 1) float64
    """
    m, d = Zp.shape
    nl = kmax - k + 1
    W = np.empty((m, nl))
    c = np.zeros(d)
    s = 0.0
    for t in range(k):
        s = grow_update(s, c, Zp[t], t)
    cg = np.empty(d)
    for i in range(m):
        if i > 0:
            s = slide_update(s, c, Zp[i - 1], Zp[(i + k - 1) % m], k)
        W[i, 0] = s
        g = s
        cg[:] = c
        for L in range(k + 1, kmax + 1):
            g = grow_update(g, cg, Zp[(i + L - 1) % m], L - 1)
            W[i, L - k] = g
    return W


@njit(cache=True)
def tour2assignment(Z, path, k, kmax):
    """Optimal partition of the closed tour into runs of k..kmax consecutive records.

    For each start offset s in 0..kmax−1, a shortest path over positions s → s+m of the
    DAG whose edge (i → i+L) costs the SSE of the run of L records from position i; the best
    start wins (ties: the lowest s). Returns labels (groups numbered along the tour) and SSE.
    With m < 2k the whole data set is one group.

    Seed: 003_58f0e37d459aa4df.txt §4.2 (Algorithm 5, Tour2Assignment).

    Parameters
    ----------
    Z : (m, d) float64 — the records.
    path : (m,) int64 — the tour (:func:`tour`).
    k, kmax : int — the group size limits.

    Returns
    -------
    labels : (m,) int64
    sse : float
    """
    m, d = Z.shape
    labels = np.empty(m, dtype=np.int64)
    if m < 2 * k:
        labels[:] = 0
        return labels, 0.0
    Zp = np.empty((m, d))
    for i in range(m):
        Zp[i] = Z[path[i]]
    W = window_costs(Zp, k, kmax)
    nl = kmax - k + 1
    best_total = INF
    best_s = -1
    dist = np.empty(m + 1)
    pred = np.empty(m + 1, dtype=np.int64)
    best_pred = np.empty(m + 1, dtype=np.int64)
    for s in range(min(kmax, m)):
        dist[:] = INF
        dist[0] = 0.0
        for i in range(m):
            di = dist[i]
            if di == INF:
                continue
            for t in range(nl):
                j = i + k + t
                if j > m:
                    break
                v = di + W[(s + i) % m, t]
                if v < dist[j]:
                    dist[j] = v
                    pred[j] = i
        if dist[m] < best_total - 1e-12:
            best_total = dist[m]
            best_s = s
            best_pred[:] = pred
    g = np.int64(0)
    j = m
    while j > 0:
        i = best_pred[j]
        for t in range(i, j):
            labels[path[(best_s + t) % m]] = g
        g += 1
        j = i
    return labels, best_total
