"""The similarity list of OMMA-type methods: every record pair closer than a threshold.

The list is stored compactly in CSR form instead of as an n×n distance matrix:
``ptr`` (n+1, int64) gives, for record i, the slice of ``partner`` (int32) that
holds the j > i with D(i, j) <= theta, in increasing j. Walking i = 0..n-1 and
each slice in order is the row-major i < j order of the pair list. A pair is
deleted in place by overwriting its partner with -1 (4 bytes per pair in all).

Distances are Euclidean; each row's distances are computed over the transposed
data (d, n) so the inner loop runs over contiguous memory. The three passes
(range, count, fill) each cost O(n² d / 2); nothing of size n² but ``partner``
is ever allocated.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _row_sqdist(W, i, buf):
    """buf[j] = ||x_i - x_j||² for j > i (W is the (d, n) transposed data).

    The loops run over views starting at index 0 (a ``range(i + 1, n)`` loop keeps
    a wrap-around branch and does not vectorize, see kernels.distances).
    """
    d, n = W.shape
    o = buf[i + 1:]
    size = n - i - 1
    for j in range(size):
        o[j] = 0.0
    for t in range(d):
        row = W[t, i + 1:]
        p = W[t, i]
        for j in range(size):
            u = row[j] - p
            o[j] += u * u


@njit(cache=True)
def distance_range(W):
    """(min, max) of the Euclidean distance over all pairs i < j (0, 0 when n < 2).

    Parameters
    ----------
    W : (d, n) float64 — the records, column per record.

    Returns
    -------
    (float, float) — the smallest and the largest pairwise distance.
    """
    n = W.shape[1]
    buf = np.empty(n)
    lo = np.inf
    hi = 0.0
    for i in range(n - 1):
        _row_sqdist(W, i, buf)
        for j in range(i + 1, n):
            v = buf[j]
            if v < lo:
                lo = v
            if v > hi:
                hi = v
    if n < 2:
        lo = 0.0
    return math.sqrt(lo), math.sqrt(hi)


@njit(cache=True)
def count_close_pairs(W, theta):
    """ptr (n+1,) of the CSR list of pairs i < j with distance <= theta.

    Parameters
    ----------
    W : (d, n) float64 — the records, column per record.
    theta : float — the distance threshold.

    Returns
    -------
(n + 1,) int64 — record i's partners j > i will stand at ``partner[ptr[i]:ptr[i + 1]]`` (:func:`fill_close_pairs`).
    """
    n = W.shape[1]
    buf = np.empty(n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(n - 1):
        _row_sqdist(W, i, buf)
        c = 0
        for j in range(i + 1, n):
            if math.sqrt(buf[j]) <= theta:
                c += 1
        ptr[i + 1] = c
    for i in range(n):
        ptr[i + 1] += ptr[i]
    return ptr


@njit(cache=True)
def fill_close_pairs(W, theta, ptr):
    """The partner array of the CSR list counted by :func:`count_close_pairs`.

    Parameters
    ----------
    W : (d, n) float64 — the records, column per record.
    theta : float — the distance threshold (as counted).
    ptr : (n + 1,) int64 — :func:`count_close_pairs`'s offsets.

    Returns
    -------
    (ptr[n],) int32 — each record's partners j > i, ascending.
    """
    n = W.shape[1]
    buf = np.empty(n)
    partner = np.empty(ptr[n], dtype=np.int32)
    for i in range(n - 1):
        _row_sqdist(W, i, buf)
        w = ptr[i]
        for j in range(i + 1, n):
            if math.sqrt(buf[j]) <= theta:
                partner[w] = j
                w += 1
    return partner
