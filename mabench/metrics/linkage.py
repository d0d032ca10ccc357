"""Numba kernels for distance-based record linkage (DLD, RLD).

A microaggregated file publishes one point per *group* (its centroid), shared
by all the group's records, so "nearest and second-nearest original of each
masked record" is computed once per group point (g ≈ n/k queries, not n) and
then checked against the group's members. Nothing of size n×n is built: each
query streams over the original records keeping its best two; memory is
O(n·d + g) for DLD and O(n·S + 2^S) per worker for RLD.

Conventions (docs/metrics.md, "Linkage conventions"):

* distance = squared Euclidean (same order as Euclidean), summed column by
  column in column order starting from 0.0 — bit for bit what a plain loop
  ``s = 0.0; for j in cols: s += (z[i, j] - c[j]) ** 2`` gives;
* the nearest two are the two smallest (distance, record index) pairs: exact
  distance ties go to the lower record index ("strict ranks");
* ``ties=TIES_INDEX``: a record is linked iff it *is* one of those two;
  ``ties=TIES_INCLUSIVE``: a record is linked iff its distance is <= the
  second-smallest distance (fewer than two originals strictly closer).

Work is cut into tiles / chunks whose boundaries do not depend on the thread
count, each result is written to its own slot, and every metric is an integer
count: the numbers are identical for any ``NUMBA_NUM_THREADS``, and for the
serial driver used on small problems (where starting threads costs more than
the work).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from mabench.kernels.core.buffer import transposed
from mabench.kernels.spatial.kdtree import tree_pays

TIES_INDEX = 0
TIES_INCLUSIVE = 1
_BLOCK = 128  # group points per tile in nearest_two (the tile is reused for each streamed record)
_CHUNK = 64  # records per chunk of the top-2 scan (64 vectorizes best here; 16/32 do not)
PARALLEL_MIN_WORK = 20_000_000  # distance terms (queries × records × columns) below which one thread is used


# --------------------------------------------------------------------------- nearest two (DLD, re-run RLD)


@njit(cache=True)
def _tile(Z, C, lo, hi, i1, d1, i2, d2):
    """Nearest two rows of Z for the group points C[lo:hi], vectorized across the tile."""
    n, d = Z.shape
    m = hi - lo
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
            x = s[q]
            if x < b2d[q]:  # records arrive in increasing index: an equal distance never displaces
                if x < b1d[q]:
                    b2d[q] = b1d[q]
                    b2i[q] = b1i[q]
                    b1d[q] = x
                    b1i[q] = i
                else:
                    b2d[q] = x
                    b2i[q] = i
    for q in range(m):
        i1[lo + q] = b1i[q]
        i2[lo + q] = b2i[q]
        d1[lo + q] = b1d[q]
        d2[lo + q] = b2d[q]


@njit(cache=True, parallel=True)
def _nearest_two_parallel(Z, C, i1, d1, i2, d2):
    g = C.shape[0]
    for t in prange((g + _BLOCK - 1) // _BLOCK):
        _tile(Z, C, t * _BLOCK, min(g, (t + 1) * _BLOCK), i1, d1, i2, d2)


@njit(cache=True)
def _nearest_two_serial(Z, C, i1, d1, i2, d2):
    g = C.shape[0]
    for t in range((g + _BLOCK - 1) // _BLOCK):
        _tile(Z, C, t * _BLOCK, min(g, (t + 1) * _BLOCK), i1, d1, i2, d2)


def parallel_for(work: int) -> bool:
    """Whether a pass of ``work`` distance terms runs on the threads (the parallel driver) or on one.
    With one thread the parallel driver would only add its set-up, and compiling it (about a second
    each) would be wasted."""
    return work >= PARALLEL_MIN_WORK and numba.get_num_threads() > 1


def nearest_two(Z: np.ndarray, C: np.ndarray, parallel: bool | None = None):
    """For each row of C (g, d): the two nearest rows of Z (n, d) and their squared distances.

    Returns (i1, d1, i2, d2); i2 = -1, d2 = inf when n == 1. Ties -> lower row index. ``parallel``:
    the driver (default: :func:`parallel_for` the work; both give the same answer).
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    g = C.shape[0]
    i1 = np.full(g, -1, dtype=np.int64)
    i2 = np.full(g, -1, dtype=np.int64)
    d1 = np.full(g, np.inf)
    d2 = np.full(g, np.inf)
    if parallel is None:
        parallel = parallel_for(g * Z.shape[0] * Z.shape[1])
    (_nearest_two_parallel if parallel else _nearest_two_serial)(Z, C, i1, d1, i2, d2)
    return i1, d1, i2, d2


@njit(cache=True)
def _count_linked(Z, C, starts, members, ties, i1, i2, d2):
    g = C.shape[0]
    out = np.zeros(g, dtype=np.int64)
    for q in range(g):
        cnt = 0
        for p in range(starts[q], starts[q + 1]):
            r = members[p]
            if ties == TIES_INDEX:
                if r == i1[q] or r == i2[q]:
                    cnt += 1
            else:
                s = 0.0
                for j in range(Z.shape[1]):  # same summation as in _tile: bit-identical distance
                    u = Z[r, j] - C[q, j]
                    s += u * u
                if s <= d2[q]:
                    cnt += 1
        out[q] = cnt
    return out


SEARCHES = ("auto", "tree", "scan")
# The smallest n at which the tree answered DLD faster than the pass, by dimension (see use_tree).
TREE_FROM = ((8, 5_000), (10, 10_000), (12, 50_000))


def use_tree(g: int, n: int, d: int, search: str = "auto") -> bool:
    """``scan``: the streaming pass (g·n·d, vectorized); ``tree``: mabench.kernels.spatial.knn_tree; ``auto``: the
    tree only where it was measured faster. Both give the same answer bit for bit.

    Measured on compact partitions (groups of 3 in leaf order, standard normal, one thread, CPU seconds;
    docs/metrics.md), scan / tree: d = 8: n = 5,000 0.011 / 0.008; d = 10: n = 5,000
    0.012 / 0.015, n = 10,000 0.046 / 0.039, n = 100,000 4.7 / 0.75; d = 12: n = 20,000 0.23 / 0.24,
    n = 50,000 1.34 / 0.87-0.94; d = 14: n = 50,000 1.44 / 1.95 (in many dimensions the boxes stop
    pruning; d = 30, n = 50,000: scan 2.16, tree 22.0)."""
    if search == "auto":
        return tree_pays(TREE_FROM, n, d)
    return search == "tree"


def linked_per_group(Z, C, starts, members, ties, search: str = "auto"):
    """Linked records of each group: members of group q checked against C[q]'s nearest two.

    ``members[starts[q]:starts[q+1]]`` are the record indices of group q (any order).
    """
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    if use_tree(C.shape[0], Z.shape[0], Z.shape[1], search):
        from mabench.kernels.spatial.knn_tree import linked_per_group_tree

        return linked_per_group_tree(Z, C, starts, members, ties)
    i1, _, i2, d2 = nearest_two(Z, C)
    return _count_linked(Z, C, starts, members, ties, i1, i2, d2)


# --------------------------------------------------------------------------- all key-variable subsets (RLD)


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


@njit(cache=True)
def _subsets_chunk(ZT, C, starts, members, ties, lo, hi, out):
    """Add to out[mask] the linked records of groups lo..hi-1 for every column subset ``mask``.

    The subsets are visited depth first (a subset's children add a higher
    column), so each subset's distance vector is its parent's plus one column
    of squared differences: exactly the column-ordered sum, at one addition
    per record and subset.
    """
    S, n = ZT.shape
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
            out[child] += cnt
            if j + 1 < S:
                depth += 1
                smask[depth] = child
                snext[depth] = j + 1


@njit(cache=True, parallel=True)
def _subsets_parallel(ZT, C, starts, members, ties, per_chunk, size):
    g = C.shape[0]
    for ch in prange(per_chunk.shape[0]):
        _subsets_chunk(ZT, C, starts, members, ties, ch * size, min(g, (ch + 1) * size), per_chunk[ch])


@njit(cache=True)
def _subsets_serial(ZT, C, starts, members, ties, per_chunk, size):
    g = C.shape[0]
    for ch in range(per_chunk.shape[0]):
        _subsets_chunk(ZT, C, starts, members, ties, ch * size, min(g, (ch + 1) * size), per_chunk[ch])


def subset_linked_counts(Z, C, starts, members, ties, n_chunks=64, parallel: bool | None = None):
    """Linked-record counts for every non-empty subset of the columns of Z, all at once.

    Z (n, S) holds the key variables (column order = summation order), C (g, S)
    the groups' masked points on them. Returns counts (2^S,) int64;
    counts[mask] = linked records when the intruder knows the columns in
    ``mask`` (bit b = column b of Z; counts[0] = 0). ``parallel``: the driver (default:
    :func:`parallel_for` the work).
    """
    Z = np.asarray(Z, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    n, S = Z.shape
    g = C.shape[0]
    n_chunks = max(1, min(g, n_chunks))
    size = (g + n_chunks - 1) // n_chunks
    n_chunks = (g + size - 1) // size
    per_chunk = np.zeros((n_chunks, 1 << S), dtype=np.int64)
    ZT = transposed(Z)
    if parallel is None:
        parallel = parallel_for(g * n * (1 << S))
    (_subsets_parallel if parallel else _subsets_serial)(ZT, C, starts, members, ties, per_chunk, size)
    return per_chunk.sum(axis=0)


def warm(n: int, d: int, k: int, search: str = "auto", subsets: bool = False) -> None:
    """Compile (or load from Numba's cache) the kernels that dld (and, with ``subsets``, rld's subset
    counts) will run on n records of d columns partitioned at group size k, by running them on a tiny
    problem, so that a cell's metric time never includes compiling. Groups of k..2k−1 records give
    n/(2k−1)..n/k group points; every driver that range can select is compiled. rld's key-variable
    count is read from the data later, so both of its drivers are (the parallel one only with
    more than one thread)."""
    from mabench.kernels import group_means

    rng = np.random.default_rng(0)
    m = 4
    Z = np.ascontiguousarray(rng.standard_normal((2 * m, d)))
    labels = np.repeat(np.arange(m), 2)
    C, _ = group_means(Z, labels, m)  # the group points, as the metrics compute them
    starts, members = group_members(labels, m)
    tree = use_tree(0, n, d, search)
    if tree:
        from mabench.kernels.spatial.knn_tree import linked_per_group_tree

        linked_per_group_tree(Z, C, starts, members, TIES_INDEX)
    if not tree or subsets:
        groups = (max(1, n // k), max(1, n // max(1, 2 * k - 1)))
        for parallel in sorted({parallel_for(g * n * d) for g in groups}):
            i1, _, i2, d2 = nearest_two(Z, C, parallel)
        _count_linked(Z, C, starts, members, TIES_INDEX, i1, i2, d2)
    if subsets:
        keys = np.ascontiguousarray(Z[:, :min(2, d)])  # rld passes its key columns as a contiguous copy
        for parallel in sorted({False, numba.get_num_threads() > 1}):
            subset_linked_counts(keys, C[:, :keys.shape[1]], starts, members, TIES_INDEX, parallel=parallel)


def group_members(labels: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR layout of a partition: members[starts[q]:starts[q+1]] = records of group q."""
    members = np.argsort(labels, kind="stable").astype(np.int64)
    sizes = np.bincount(labels, minlength=n_groups)
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    return starts, members
