"""Distance passes over the work buffer: distances to a point, farthest / nearest alive slot.

Distances are squared Euclidean on standardized data, accumulated column by
column in attribute order (argmin/argmax are those of the Euclidean distance).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mabench.kernels.core.buffer import BLOCK, PARALLEL_MIN, UNASSIGNED

@njit(cache=True)
def _sqdist_block(W, lo, hi, p, out, alive, best_v, best_i, b):
    """Distances of slots lo..hi-1 to p, then the block's farthest alive slot.

    The loops run over block-local views from index 0: with ``range(lo, hi)``
    Numba cannot rule out negative indices, keeps a wrap-around branch per
    element and the loop no longer vectorizes (4x slower, measured).
    """
    o = out[lo:hi]
    a = alive[lo:hi]
    size = hi - lo
    for i in range(size):
        o[i] = 0.0
    for j in range(W.shape[0]):
        row = W[j, lo:hi]
        pj = p[j]
        for i in range(size):
            t = row[i] - pj
            o[i] += t * t
    bi = argmax_alive(o, a, size)
    best_v[b] = o[bi] if bi >= 0 else -1.0
    best_i[b] = bi + lo if bi >= 0 else -1


@njit(cache=True, parallel=True)
def _sqdist_par(W, m, p, out, alive, best_v, best_i, nb):
    for b in prange(nb):
        _sqdist_block(W, b * BLOCK, min(m, (b + 1) * BLOCK), p, out, alive, best_v, best_i, np.int64(b))


@njit(cache=True)
def sqdist(W, m, p, out, alive, best_v, best_i):
    """out[i] = ||W[:, i] - p||² for the first m slots; return the farthest alive slot.

    Ties go to the lowest slot (= lowest record id). ``best_v``/``best_i`` are
    per-block scratch (see :func:`scratch`); blocks are combined in order, so
    the answer does not depend on the thread count.

    Parameters
    ----------
    W, m, p : (d, n) float64 work buffer, the slots in use, the (d,) point.
    out : (n,) float64 — filled; alive : (n,) bool; best_v, best_i : (blocks,) per-block scratch.

    Returns
    -------
    int — the farthest alive slot (−1 when none is alive).
    """
    nb = (m + BLOCK - 1) // BLOCK
    if m >= PARALLEL_MIN:
        _sqdist_par(W, m, p, out, alive, best_v, best_i, nb)
    else:
        for b in range(nb):
            _sqdist_block(W, b * BLOCK, min(m, (b + 1) * BLOCK), p, out, alive, best_v, best_i, b)
    best = -1
    bv = -1.0
    for b in range(nb):
        if best_i[b] >= 0 and best_v[b] > bv:
            bv = best_v[b]
            best = best_i[b]
    return best


@njit(cache=True)
def sqdist_serial(W, m, p, dist):
    """dist[i] = ||W[:, i] − p||² for the first m slots, on one thread, in the distance pass's
    arithmetic (0.0, then (w_j − p_j)² added in attribute order).

    Parameters
    ----------
    W, m : the work buffer (d, n) float64 and the slots in use.
    p : (d,) float64 — the point.
    dist : (n,) float64 — filled: its first m entries.

    Returns
    -------
    None
    """
    for i in range(m):
        dist[i] = 0.0
    for j in range(W.shape[0]):
        row = W[j, :m]
        pj = p[j]
        for i in range(m):
            t = row[i] - pj
            dist[i] += t * t


@njit(cache=True)
def sq_between(Z, i, j):
    """Squared distance of rows i and j of Z (n, d): the differences squared and added in attribute
    order, as every distance pass adds them.

    Parameters
    ----------
    Z : (n, d) float64; i, j : int — two rows.

    Returns
    -------
    float.
    """
    s = 0.0
    for c in range(Z.shape[1]):
        v = Z[i, c] - Z[j, c]
        s += v * v
    return s


@njit(cache=True)
def sqdist_rows(Z, y, out):
    """out[i] = squared distance of row i of Z to row y, for every row, the differences squared and
    added in attribute order.

    Parameters
    ----------
    Z : (n, d) float64 — the rows (records, or group centroids); y : int — one of them.
    out : (n,) float64 — filled.

    Returns
    -------
    None
    """
    n, d = Z.shape
    for i in range(n):
        s = 0.0
        for j in range(d):
            t = Z[i, j] - Z[y, j]
            s += t * t
        out[i] = s


@njit(cache=True)
def rows_mean(Z, rows, c):
    """c := the mean of the rows ``rows`` of Z, summed in the order given, then divided by their count.

    Parameters
    ----------
    Z : (n, d) float64; rows : (m,) int64 — m >= 1 row ids; c : (d,) float64 — filled.

    Returns
    -------
    None
    """
    for j in range(Z.shape[1]):
        c[j] = 0.0
    for i in rows:
        for j in range(Z.shape[1]):
            c[j] += Z[i, j]
    for j in range(Z.shape[1]):
        c[j] /= rows.size


@njit(cache=True)
def farthest_from_mean(Z, rows, c):
    """The row of ``rows`` farthest from their mean (:func:`rows_mean`, left in ``c``); ties go to
    the first in ``rows``.

    Parameters
    ----------
    Z : (n, d) float64; rows : (m,) int64 — m >= 1 row ids; c : (d,) float64 — scratch, left holding the mean.

    Returns
    -------
    int — that row's id.
    """
    rows_mean(Z, rows, c)
    best = rows[0]
    best_v = -1.0
    for i in rows:
        s = 0.0
        for j in range(Z.shape[1]):
            t = Z[i, j] - c[j]
            s += t * t
        if s > best_v:
            best_v = s
            best = i
    return best


@njit(cache=True)
def sqdist_to(Z, x, means, g):
    """Squared distance of record ``x`` to row ``g`` of ``means`` (a group's centroid), the differences
    squared and added in attribute order.

    Parameters
    ----------
    Z, x : (n, d) float64, int — the records and one of them.
    means, g : (c, d) float64, int — the centroids and one of them.

    Returns
    -------
    float — ``sum_j (Z[x, j] - means[g, j])**2``.
    """
    d = Z.shape[1]
    s = 0.0
    for j in range(d):
        t = Z[x, j] - means[g, j]
        s += t * t
    return s


@njit(cache=True)
def load_point(W, pos, p):
    """p := the values of slot ``pos`` of the work buffer W (d, n).

    Parameters
    ----------
    W : (d, n) float64 — the work buffer.
    pos : int — the slot.
    p : (d,) float64 — filled with the slot's values.

    Returns
    -------
    None
    """
    for j in range(W.shape[0]):
        p[j] = W[j, pos]


@njit(cache=True)
def argmax_alive(dist, alive, m):
    """Slot of the largest distance among alive slots; ties go to the lowest slot (= lowest id).

    Parameters
    ----------
    dist, alive, m : (n,) float64 distances, (n,) bool, the slots in use.

    Returns
    -------
    int — the slot (−1 when none is alive).
    """
    best = -1
    best_v = -1.0
    for i in range(m):
        if alive[i] and dist[i] > best_v:
            best_v = dist[i]
            best = i
    return best


@njit(cache=True)
def argmin_alive(vals, alive, m):
    """Slot of the smallest value among alive slots; ties go to the lowest slot (= lowest id).

    Parameters
    ----------
    vals, alive, m : a (n,) value per slot, which slots remain, how many slots.

    Returns
    -------
    int — that slot, or −1.
    """
    best = -1
    best_v = 0.0
    for i in range(m):
        if alive[i] and (best < 0 or vals[i] < best_v):
            best_v = vals[i]
            best = i
    return best


@njit(cache=True)
def lowest_alive(vals, alive, m):
    """Slot of the smallest finite value among alive slots; ties go to the lowest slot. Unlike
    :func:`argmin_alive`, a slot whose value is ``inf`` (nothing to offer) is never picked.

    Parameters
    ----------
    vals, alive, m : a (n,) float64 value per slot, which slots remain, how many slots.

    Returns
    -------
    int — that slot, or −1 when no alive slot has a finite value.
    """
    best = np.int64(-1)
    best_v = np.inf
    for i in range(m):
        if alive[i] and vals[i] < best_v:
            best_v = vals[i]
            best = i
    return best


@njit(cache=True)
def distances_from(W, alive, m, p, S):
    """Distances of the first m slots to p (into S's buffer); return the farthest alive slot.

    Parameters
    ----------
    W, alive : (d, n) float64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`); m : int — slots in use.
    p : (d,) float64 — the point; S : Scratch — its ``dist`` is filled.

    Returns
    -------
    int — the farthest alive slot.
    """
    return sqdist(W, m, p, S.dist, alive, S.block_v, S.block_i)


@njit(cache=True)
def farthest_first(W, alive, m, c, S):
    """Slots 0..m-1 by decreasing distance to ``c``, ties to the lowest slot: the seed order of a
    method whose centre never moves. Call it on the uncompacted buffer, where slot = record id.

    Parameters
    ----------
    W, alive, m : the uncompacted work buffer; c : (d,) float64 — the centre; S : Scratch.

    Returns
    -------
    (m,) int64 — slots by decreasing distance.
    """
    distances_from(W, alive, m, c, S)
    return np.argsort(-S.dist[:m], kind="mergesort")


@njit(cache=True)
def next_unassigned(order, labels, i):
    """The first position >= i of ``order`` whose record is still unassigned.

    Parameters
    ----------
    order : (n,) int64 record ids; labels : (n,) int64; i : int — where to start.

    Returns
    -------
    int — a position of ``order``.
    """
    while labels[order[i]] != UNASSIGNED:
        i += 1
    return i
