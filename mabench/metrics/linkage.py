"""Numba kernels for distance-based record linkage (DLD, RLD).

A microaggregated file publishes one point per *group* (its centroid), shared
by all the group's records, so "nearest and second-nearest original of each
masked record" is computed once per group centroid (g ≈ n/k queries, not n)
and then checked against the group's members. Nothing of size n×n is built:
each query streams over the original records keeping its best two.

Conventions (docs/metrics.md, "Linkage conventions"):

* distance = squared Euclidean (same order as Euclidean), summed column by
  column in column order starting from 0.0 — bit for bit what a plain loop
  ``s = 0.0; for j in cols: s += (z[i, j] - c[j]) ** 2`` gives;
* the nearest two are the two smallest (distance, record index) pairs: exact
  distance ties go to the lower record index ("strict ranks");
* ``ties=TIES_INDEX``: a record is linked iff it *is* one of those two;
  ``ties=TIES_INCLUSIVE``: a record is linked iff its distance is <= the
  second-smallest distance (fewer than two originals strictly closer).

Work is split into a fixed number of chunks that does not depend on the
thread count, and every result is an integer count, so the numbers are the
same for any ``NUMBA_NUM_THREADS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

TIES_INDEX = 0
TIES_INCLUSIVE = 1
_BLOCK = 128  # centroids per tile in nearest_two (tile of queries reused for each streamed record)


@njit(cache=True)
def _insert(s, i, b1d, b1i, b2d, b2i, q):
    """Offer (s, i) to query q's best two; records arrive in increasing index order."""
    if s < b1d[q]:
        b2d[q] = b1d[q]
        b2i[q] = b1i[q]
        b1d[q] = s
        b1i[q] = i
    elif s < b2d[q]:
        b2d[q] = s
        b2i[q] = i


@njit(cache=True, parallel=True)
def nearest_two(Z, C):
    """For each row of C (g, d): the two nearest rows of Z (n, d) and their squared distances.

    Returns (i1, d1, i2, d2); i2 = -1, d2 = inf when n == 1. Ties -> lower row index.
    Queries are processed in tiles of ``_BLOCK`` centroids; each streamed record's
    distances to the whole tile are computed in one vectorizable loop.
    """
    n, d = Z.shape
    g = C.shape[0]
    i1 = np.full(g, -1, dtype=np.int64)
    i2 = np.full(g, -1, dtype=np.int64)
    d1 = np.full(g, np.inf)
    d2 = np.full(g, np.inf)
    n_tiles = (g + _BLOCK - 1) // _BLOCK
    for t in prange(n_tiles):
        lo = t * _BLOCK
        m = min(g, lo + _BLOCK) - lo
        ct = np.empty((d, m))  # tile transposed: one contiguous row per column
        for q in range(m):
            for j in range(d):
                ct[j, q] = C[lo + q, j]
        b1d = np.full(m, np.inf)
        b2d = np.full(m, np.inf)
        b1i = np.full(m, -1, dtype=np.int64)
        b2i = np.full(m, -1, dtype=np.int64)
        s = np.empty(m)
        for i in range(n):
            for q in range(m):
                s[q] = 0.0
            for j in range(d):
                zij = Z[i, j]
                row = ct[j]
                for q in range(m):
                    u = zij - row[q]
                    s[q] += u * u
            for q in range(m):
                if s[q] < b2d[q]:
                    _insert(s[q], i, b1d, b1i, b2d, b2i, q)
        for q in range(m):
            i1[lo + q] = b1i[q]
            i2[lo + q] = b2i[q]
            d1[lo + q] = b1d[q]
            d2[lo + q] = b2d[q]
    return i1, d1, i2, d2


@njit(cache=True)
def _sqdist(Z, i, c):
    s = 0.0
    for j in range(Z.shape[1]):
        u = Z[i, j] - c[j]
        s += u * u
    return s


@njit(cache=True, parallel=True)
def linked_per_group(Z, C, starts, members, ties):
    """Linked records of each group: members of group q checked against C[q]'s nearest two.

    ``members[starts[q]:starts[q+1]]`` are the record indices of group q (any order).
    """
    i1, d1, i2, d2 = nearest_two(Z, C)
    g = C.shape[0]
    out = np.zeros(g, dtype=np.int64)
    for q in prange(g):
        cnt = 0
        for p in range(starts[q], starts[q + 1]):
            r = members[p]
            if ties == TIES_INDEX:
                if r == i1[q] or r == i2[q]:
                    cnt += 1
            else:
                if _sqdist(Z, r, C[q]) <= d2[q]:
                    cnt += 1
        out[q] = cnt
    return out


_CHUNK = 64  # records per chunk of the top-2 scan (64 vectorizes best here; 16/32 do not)


@njit(cache=True, inline="always")
def _offer(x, i, b1d, b1i, b2d, b2i):
    """(x, i) against the best two so far; indices arrive in increasing order (ties keep the earlier)."""
    if x < b2d:
        if x < b1d:
            return x, i, b1d, b1i
        return b1d, b1i, x, i
    return b1d, b1i, b2d, b2i


@njit(cache=True)
def _top2_scan(v, n):
    """Two smallest (value, index) pairs of v[:n], ties -> lower index (strict ranks).

    Full chunks are first tested in one vectorized count ("anything below the
    current second best?"); only chunks that hold a candidate are scanned.
    """
    b1d = np.inf
    b2d = np.inf
    b1i = -1
    b2i = -1
    full = n - n % _CHUNK
    i0 = 0
    while i0 < full:
        hit = 0
        for i in range(i0, i0 + _CHUNK):
            hit += v[i] < b2d
        if hit > 0:
            for i in range(i0, i0 + _CHUNK):
                b1d, b1i, b2d, b2i = _offer(v[i], i, b1d, b1i, b2d, b2i)
        i0 += _CHUNK
    for i in range(full, n):
        b1d, b1i, b2d, b2i = _offer(v[i], i, b1d, b1i, b2d, b2i)
    return b1i, b2i, b2d


@njit(cache=True, parallel=True)
def subset_linked_counts(Z, C, starts, members, ties, n_chunks):
    """Linked-record counts for every non-empty subset of the columns of Z, all at once.

    Z (n, S) holds the key variables (column order = summation order), C (g, S)
    the groups' masked points on them. For each group the subsets are visited
    depth first (a subset's children add a higher column), so each subset's
    distance vector is its parent's plus one column of squared differences:
    exactly the column-ordered sum, at one addition per record and subset.
    Returns counts (2^S,) int64; counts[mask] = linked records when the intruder
    knows the columns in ``mask`` (bit b = column b of Z; counts[0] = 0).
    """
    n, S = Z.shape
    g = C.shape[0]
    M = 1 << S
    ZT = np.ascontiguousarray(Z.T)
    per_chunk = np.zeros((n_chunks, M), dtype=np.int64)
    size = (g + n_chunks - 1) // n_chunks
    for ch in prange(n_chunks):
        lo = ch * size
        hi = min(g, lo + size)
        T = np.empty((S, n))
        vec = np.zeros((S + 1, n))  # vec[0] stays 0.0: the empty subset
        smask = np.zeros(S + 1, dtype=np.int64)
        snext = np.zeros(S + 1, dtype=np.int64)
        for q in range(lo, hi):
            for j in range(S):
                cj = C[q, j]
                zr = ZT[j]
                tr = T[j]
                for i in range(n):
                    u = zr[i] - cj
                    tr[i] = u * u
            depth = 0
            smask[0] = 0
            snext[0] = 0
            while depth >= 0:
                j = snext[depth]
                if j >= S:
                    depth -= 1
                    continue
                snext[depth] = j + 1
                child = smask[depth] | (1 << j)
                parent = vec[depth]
                v = vec[depth + 1]
                tj = T[j]
                for i in range(n):
                    v[i] = parent[i] + tj[i]
                b1i, b2i, b2d = _top2_scan(v, n)
                cnt = 0
                for p in range(starts[q], starts[q + 1]):
                    r = members[p]
                    if ties == TIES_INDEX:
                        if r == b1i or r == b2i:
                            cnt += 1
                    elif v[r] <= b2d:
                        cnt += 1
                per_chunk[ch, child] += cnt
                if j + 1 < S:
                    depth += 1
                    smask[depth] = child
                    snext[depth] = j + 1
    counts = np.zeros(M, dtype=np.int64)
    for ch in range(n_chunks):
        for mask in range(M):
            counts[mask] += per_chunk[ch, mask]
    return counts


def group_members(labels: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR layout of a partition: members[starts[q]:starts[q+1]] = records of group q."""
    members = np.argsort(labels, kind="stable").astype(np.int64)
    sizes = np.bincount(labels, minlength=n_groups)
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return starts, members
