"""Shared Numba kernels for the fixed-size (MDAV-family) heuristics.

The remaining records live in a *work buffer* ``W`` of shape (d, n): one row
per attribute, so each distance pass runs over contiguous memory and
vectorizes. Removed records are only flagged (``alive[pos] = False``); the next
centroid pass compacts the buffer in order while it sums, so

* positions stay in original record order, and every tie (equal distances,
  e.g. duplicate records in Tarragona) is broken towards the lowest original
  index, exactly like a stable sort over the input rows;
* the centroid is summed in original record order, bit for bit like
  ``Z[remaining].sum(axis=0) / m`` in NumPy;
* no loop allocates: scratch arrays are made once per call.

Distances are squared Euclidean on standardized data, accumulated column by
column in attribute order (argmin/argmax are those of the Euclidean distance).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from numba.np.ufunc.parallel import _launch_threads

# Start Numba's threading layer before any cached kernel is loaded. A cached
# kernel that calls a parallel one references the scheduler's symbols
# (allocate_sched, ...), which exist only once the layer is up; loading it
# first aborts with "LLVM ERROR: Symbol not found" (seen in a cold-cache run,
# tests/test_jit_cache.py replays it).
_launch_threads()

UNASSIGNED = -1
BLOCK = 2048  # records per distance block: the block's distances stay in L1 across attributes
PARALLEL_MIN = 4 * BLOCK  # below this many slots, thread start-up costs more than it saves


@njit(cache=True)
def work_buffer(Z):
    """Transposed copy of Z (n, d) -> W (d, n), with record ids and alive flags."""
    n, d = Z.shape
    W = np.empty((d, n))
    for i in range(n):
        for j in range(d):
            W[j, i] = Z[i, j]
    return W, np.arange(n), np.ones(n, dtype=np.bool_)


@njit(cache=True)
def _compact_column(row, alive, m):
    s = 0.0
    w = 0
    for i in range(m):
        if alive[i]:
            v = row[i]
            row[w] = v
            s += v
            w += 1
    return s


@njit(cache=True, parallel=True)
def _compact_columns_par(W, alive, m, sums):
    for j in prange(W.shape[0]):
        sums[j] = _compact_column(W[j], alive, m)


@njit(cache=True)
def compact(W, ids, alive, m, sums):
    """Squeeze out dead slots (order kept) and write the survivors' column sums; return their count.

    Each column is summed by one thread in record order, so the sums are the
    same bits whatever the thread count.
    """
    if m >= PARALLEL_MIN:
        _compact_columns_par(W, alive, m, sums)
    else:
        for j in range(W.shape[0]):
            sums[j] = _compact_column(W[j], alive, m)
    w = 0
    for i in range(m):
        if alive[i]:
            ids[w] = ids[i]
            alive[w] = True
            w += 1
    return w


@njit(cache=True)
def centroid(W, ids, alive, slots, left, sums, c):
    """Mean of the remaining records into ``c``; returns the (possibly compacted) slot count.

    The column sums are kept up to date by :func:`forget` (each removed record
    subtracted in removal order). Once more than 1/8 of the slots are dead the
    buffer is compacted and the sums are recomputed afresh in record order,
    which bounds the rounding drift and the distance passes' wasted work.
    """
    if (slots - left) * 8 > slots:
        slots = compact(W, ids, alive, slots, sums)
    for j in range(W.shape[0]):
        c[j] = sums[j] / left
    return slots


@njit(cache=True)
def forget(W, slot, sums):
    for j in range(W.shape[0]):
        sums[j] -= W[j, slot]


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
        _sqdist_block(W, b * BLOCK, min(m, (b + 1) * BLOCK), p, out, alive, best_v, best_i, b)


@njit(cache=True)
def sqdist(W, m, p, out, alive, best_v, best_i):
    """out[i] = ||W[:, i] - p||² for the first m slots; return the farthest alive slot.

    Ties go to the lowest slot (= lowest record id). ``best_v``/``best_i`` are
    per-block scratch (see :func:`scratch`); blocks are combined in order, so
    the answer does not depend on the thread count.
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
def load_point(W, pos, p):
    for j in range(W.shape[0]):
        p[j] = W[j, pos]


@njit(cache=True)
def argmax_alive(dist, alive, m):
    """Slot of the largest distance among alive slots; ties go to the lowest slot (= lowest id)."""
    best = -1
    best_v = -1.0
    for i in range(m):
        if alive[i] and dist[i] > best_v:
            best_v = dist[i]
            best = i
    return best


@njit(cache=True)
def take_nearest(dist, alive, ids, m, seed, k, labels, label, top_d, top_i):
    """Group ``seed`` with its k-1 nearest alive slots (by ``dist``; ties -> lower id).

    The seed is always a member, even when duplicates of it tie at distance 0.
    Members are flagged dead and labelled. ``top_d``/``top_i`` are scratch of size >= k.
    """
    need = k - 1
    cnt = 0
    for i in range(m if need > 0 else 0):
        if not alive[i] or i == seed:
            continue
        v = dist[i]
        if cnt == need and v >= top_d[cnt - 1]:
            continue  # not better than the current worst kept (ties keep the earlier slot)
        # insertion into the sorted prefix, after every equal value (stable)
        pos = cnt if cnt < need else need - 1
        while pos > 0 and top_d[pos - 1] > v:
            top_d[pos] = top_d[pos - 1]
            top_i[pos] = top_i[pos - 1]
            pos -= 1
        top_d[pos] = v
        top_i[pos] = i
        if cnt < need:
            cnt += 1
    alive[seed] = False
    labels[ids[seed]] = label
    for t in range(cnt):
        alive[top_i[t]] = False
        labels[ids[top_i[t]]] = label
    return cnt + 1


@njit(cache=True)
def label_rest(alive, ids, m, labels, label):
    """Put every alive slot into group ``label``; return how many."""
    cnt = 0
    for i in range(m):
        if alive[i]:
            alive[i] = False
            labels[ids[i]] = label
            cnt += 1
    return cnt


@njit(cache=True)
def group_means(Z, labels, n_groups):
    """Centroids (n_groups, d) and sizes of the labelled records (label -1 is skipped)."""
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
    """
    n, d = Z.shape
    means, _ = group_means(Z, labels, n_groups)
    for i in range(n):
        if labels[i] != UNASSIGNED:
            continue
        best = -1
        best_v = np.inf
        for g in range(n_groups):
            s = 0.0
            for j in range(d):
                t = Z[i, j] - means[g, j]
                s += t * t
            if s < best_v:
                best_v = s
                best = g
        labels[i] = best


@njit(cache=True)
def close_tail(Z, alive, ids, m, labels, g, left, k):
    """The common last step: k or more records left form one group; fewer join their nearest groups."""
    if left >= k:
        label_rest(alive, ids, m, labels, g)
    elif left > 0:
        assign_leftovers(Z, labels, g)


@njit(cache=True)
def sse(Z, labels, n_groups):
    """Within-group sum of squares: Σ_g Σ_{i∈g} ||z_i − mean_g||²."""
    means, _ = group_means(Z, labels, n_groups)
    n, d = Z.shape
    total = 0.0
    for i in range(n):
        g = labels[i]
        for j in range(d):
            t = Z[i, j] - means[g, j]
            total += t * t
    return total


# --------------------------------------------------------------------------- MDAV family

TAIL_3K = 0  # MDAV-generic: pairs while >= 3k left; 2k..3k-1 -> one group + the rest
TAIL_2K = 1  # MDAV as worded in P-S / CV-MDAV / ICSM Alg. 1: pairs while >= 2k; k..2k-1 -> one group
TAIL_MDAV1 = 2  # MDAV-1 (Lin et al.): pairs while >= 2k; k..2k-1 -> NN_k of the farthest, rest to nearest


@njit(cache=True)
def scratch(n, d, k):
    """Scratch for one call: (centroid, point, distances, top-k values, top-k slots, block maxima,
    block argmaxima, running column sums)."""
    nb = (n + BLOCK - 1) // BLOCK
    kk = max(k, 1)
    return (np.empty(d), np.empty(d), np.empty(n), np.empty(kk), np.empty(kk, dtype=np.int64),
            np.empty(nb), np.empty(nb, dtype=np.int64), np.zeros(d))


@njit(cache=True)
def distances_from(W, alive, m, p, S):
    """Distances of the first m slots to p (into S's buffer); return the farthest alive slot."""
    return sqdist(W, m, p, S[2], alive, S[5], S[6])


@njit(cache=True)
def group_around(W, ids, alive, m, seed, k, labels, g, S):
    """Group ``seed`` with its k-1 nearest alive records; return the group size."""
    load_point(W, seed, S[1])
    distances_from(W, alive, m, S[1], S)
    return _take(W, alive, ids, m, seed, k, labels, g, S)


@njit(cache=True)
def _take(W, alive, ids, m, seed, k, labels, g, S):
    """take_nearest on S's distances, then remove the members from the running sums (seed first)."""
    size = take_nearest(S[2], alive, ids, m, seed, k, labels, g, S[3], S[4])
    forget(W, seed, S[7])
    for t in range(size - 1):
        forget(W, S[4][t], S[7])
    return size


@njit(cache=True)
def farthest_group(W, ids, alive, m, c, k, labels, g, S):
    """Group r = the alive record farthest from ``c`` with its k-1 nearest.

    Returns (group size, s) where s is the slot farthest from r, taken before
    r's group is removed (MDAV's second seed; unused by one-group methods).
    """
    r = distances_from(W, alive, m, c, S)
    load_point(W, r, S[1])
    s = distances_from(W, alive, m, S[1], S)
    return _take(W, alive, ids, m, r, k, labels, g, S), s


@njit(cache=True)
def mdav_labels(Z, k, tail):
    """Two groups per iteration: around r (farthest from the centroid) and s (farthest from r)."""
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    c = S[0]
    m = n
    left = n
    g = 0
    stop = 3 * k if tail == TAIL_3K else 2 * k
    m = compact(W, ids, alive, m, S[7])
    while left >= stop:
        m = centroid(W, ids, alive, m, left, S[7], c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
        if not alive[s]:  # only when every remaining record is equidistant from r
            s = argmax_alive(S[2], alive, m)
        left -= group_around(W, ids, alive, m, s, k, labels, g, S)
        g += 1
    if left >= (2 * k if tail == TAIL_3K else k) and tail != TAIL_2K:
        m = centroid(W, ids, alive, m, left, S[7], c)
        taken, s = farthest_group(W, ids, alive, m, c, k, labels, g, S)
        left -= taken
        g += 1
    close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels
