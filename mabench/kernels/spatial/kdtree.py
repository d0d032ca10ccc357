"""A static k-d tree over the records, with deletions: the alive record nearest to a group.

Greedy growth steps ask one question many times: among the records not yet
grouped, which has the smallest summed squared distance to the current members?
A full pass answers it in O(n·d); after n/k groups that is O(n²·d). The tree
answers it by visiting only the boxes that can still beat the best candidate:

    Σ_t ||x − m_t||²  =  s·||x − c||² + Σ_t ||m_t − c||²     (c = members' mean, s = members)

so s·(squared distance from c to a box) + Σ_t ||m_t − c||² bounds every record
in the box from below. Boxes whose records are all grouped are skipped via a
per-node alive count.

Exactness: each candidate's score is computed exactly as the full pass computes
it (per member, the squared differences summed in attribute order; the members'
sums added in member order), and ties go to the lowest record id. The bound only
decides which boxes are opened, with a slack far above rounding error (relative, plus an absolute
term for exact duplicates, whose score is 0),
so the answer is bit for bit the full pass's answer (tests/kernels/test_kdtree.py).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from mabench.kernels.core.prefetch import prefetch
from mabench.kernels.core.select import keep_smallest_ranked, select_by_key

LEAF = 64          # records per leaf (MDAV at 300,000 x 10: 16 -> 64 saved 20 %, 128 lost it again)
SLACK = 1e-9       # relative slack on the bounds (rounding error is ~1e-15 relative) ...
TINY = 1e-12       # ... plus an absolute one, scaled by the members' magnitude: a duplicate of every
                   # member scores exactly 0 while the centroid form, with a rounded mean, stays above 0


def tree_pays(from_size, n: int, d: int) -> bool:
    """Whether n records in d dimensions reach the size from which a tree search was measured faster
    than a full pass: ``from_size`` = ((max_d, min_n), ...) by increasing max_d; above the last max_d,
    never (the boxes stop pruning in many dimensions).

    Parameters
    ----------
    from_size : tuple of (int, int) — ((max_d, min_n), ...) by increasing max_d.
    n, d : int — records and attributes.

    Returns
    -------
        bool.
    """
    for max_d, min_n in from_size:
        if d <= max_d:
            return n >= min_n
    return False


KDTree = namedtuple("KDTree", "P rec leaf_of start end left right parent lo hi count alive PT norm")
KDTree.__doc__ = """A k-d tree over n records (:func:`kd_build`), nodes numbered from the root 0.

Per position i (records in leaf order): P (n, d) the records' rows (P[i] = Z[rec[i]]), rec (n,) the
record id, leaf_of (n,) the leaf holding it, alive (n,) bool, not yet grouped. Per node v: start,
end (nodes,) its position range, left, right (nodes,) its children (-1 at a leaf), parent (nodes,)
(-1 at the root), lo, hi (nodes, d) its bounding box, count (nodes,) its alive records. PT (n·d,)
float32: P leaf by leaf, column-major within a leaf (leaf v's column j starts at start[v]·d +
j·size(v)), from which kd_nearest_k filters a leaf's records side by side in vector instructions (a
grouped position's first coordinate there is NaN, so it never passes the filter); norm (1,) the
largest |P[i]|, for the filter's error bound."""


@njit(cache=True)
def kd_build(Z, ids):
    """The :class:`KDTree` over the rows ``ids`` of Z (n, d) (record ids, ascending), every record alive.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    ids : (m,) int64 — the record ids to hold, ascending.

    Returns
    -------
        KDTree — over the m records, every one alive.
    """
    n = ids.size
    d = Z.shape[1]
    cap = 4 * (n // LEAF + 1) + 1  # every split leaves >= LEAF/2 records per side
    rec = ids.copy()
    P = np.empty((n, d))  # the rows, moved with rec by the split (contiguous reads), in leaf order at the end
    for i in range(n):
        for j in range(d):
            P[i, j] = Z[rec[i], j]
    start = np.empty(cap, dtype=np.int64)
    end = np.empty(cap, dtype=np.int64)
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    parent = np.full(cap, -1, dtype=np.int64)
    lo = np.empty((cap, d))
    hi = np.empty((cap, d))
    count = np.zeros(cap, dtype=np.int64)
    leaf_of = np.empty(n, dtype=np.int64)
    stack = np.empty(cap, dtype=np.int64)
    start[0] = 0
    end[0] = n
    nodes = 1
    stack[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        s = start[v]
        e = end[v]
        count[v] = e - s
        for j in range(d):
            lo[v, j] = np.inf
            hi[v, j] = -np.inf
        for i in range(s, e):
            for j in range(d):
                x = P[i, j]
                if x < lo[v, j]:
                    lo[v, j] = x
                if x > hi[v, j]:
                    hi[v, j] = x
        split = np.int64(0)
        for j in range(1, d):
            if hi[v, j] - lo[v, j] > hi[v, split] - lo[v, split]:
                split = j
        if e - s <= LEAF or hi[v, split] <= lo[v, split]:
            for i in range(s, e):
                leaf_of[i] = v
            continue
        mid = (s + e) // 2
        select_by_key(P[:, split], rec, s, e, mid, P)  # any split is correct: boxes are measured from the records in them
        for child, cs, ce in ((nodes, s, mid), (nodes + 1, mid, e)):
            start[child] = cs
            end[child] = ce
            parent[child] = v
            stack[sp] = child
            sp += 1
        left[v] = nodes
        right[v] = nodes + 1
        nodes += 2
    PT = np.empty(n * d, dtype=np.float32)
    norm = 0.0
    for i in range(n):
        v = leaf_of[i]
        m = end[v] - start[v]
        sq = 0.0
        for j in range(d):
            x = P[i, j]
            PT[start[v] * d + j * m + i - start[v]] = x
            sq += x * x
        norm = max(norm, sq)
    return KDTree(P, rec, leaf_of, start[:nodes], end[:nodes], left[:nodes], right[:nodes], parent[:nodes],
                  lo[:nodes], hi[:nodes], count[:nodes], np.ones(n, dtype=np.bool_), PT, np.array([np.sqrt(norm)]))


@njit(cache=True)
def kd_remaining(Z, labels, unassigned, pos):
    """A tree over the records whose label is still ``unassigned``; fills pos[r] (record -> position).

    Greedy methods group from the outside in, so rebuilding over what is left (e.g. whenever a
    quarter has gone) keeps the boxes tight around the remaining records.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — a label per record.
    unassigned : int — the label of the records to hold.
    pos : (n,) int64 — filled: the tree position of each record held.

    Returns
    -------
        KDTree.
    """
    T = kd_build(Z, np.flatnonzero(labels == unassigned))
    rec = T.rec
    for i in range(rec.size):
        pos[rec[i]] = i
    return T


@njit(cache=True)
def kd_scratch(T):
    """Scratch for the queries: (centroid, DFS stack, stack bounds, one leaf's single-precision
    distances, the query point in single precision).

    Parameters
    ----------
    T : KDTree — the tree queried.

    Returns
    -------
        tuple — (centroid (d,) float64, stack (depth,) int64, bounds (depth,) float64, leaf distances (leaf,) float32, point (d,) float32).
    """
    start, end, left = T.start, T.end, T.left
    nodes = start.size
    widest = 1
    for v in range(nodes):
        if left[v] < 0:
            widest = max(widest, end[v] - start[v])  # a leaf of duplicates can exceed LEAF
    return (np.empty(T.P.shape[1]), np.empty(nodes, dtype=np.int64), np.empty(nodes), np.empty(widest, dtype=np.float32),
            np.empty(T.P.shape[1], dtype=np.float32))


@njit(cache=True)
def kd_delete(T, i):
    """Mark position i grouped and update the alive counts up to the root.

    Parameters
    ----------
    T : KDTree — updated.
    i : int — an alive tree position.

    Returns
    -------
    None.
    """
    P, start, leaf_of, parent, count, alive, PT = T.P, T.start, T.leaf_of, T.parent, T.count, T.alive, T.PT
    alive[i] = False
    v = leaf_of[i]
    PT[start[v] * P.shape[1] + i - start[v]] = np.nan
    while v >= 0:
        count[v] -= 1
        v = parent[v]


@njit(cache=True, inline="always")
def _push_children(count, stack, bounds, sp, a, ba, b, bb):
    """Push children ``a`` and ``b`` (with their distance bounds ``ba``, ``bb``) of a visited node onto a
    depth-first query's stack, those with alive records only, the nearer last so that it is popped
    first (a tie: ``a``, the left child); returns the new stack size.

    Parameters
    ----------
    count : (nodes,) int64 — alive records under each node.
    stack : (depth,) int64, bounds : (depth,) float64 — the stack of nodes and their bounds.
    sp : int — the stack size before.
    a, b : int — the left and the right child; ba, bb : float — their bounds.

    Returns
    -------
    int — the stack size after.
    """
    if ba <= bb:
        first, fb, second, sb = a, ba, b, bb
    else:
        first, fb, second, sb = b, bb, a, ba
    if count[second] > 0:
        stack[sp] = second
        bounds[sp] = sb
        sp += 1
    if count[first] > 0:
        stack[sp] = first
        bounds[sp] = fb
        sp += 1
    return sp


@njit(cache=True)
def kd_nearest_to_group(T, members, s, KS):
    """Alive position of the smallest Σ_t ||P[i] − P[members[t]]||² (t < s; positions), ties to the
    lowest record id; -1 if nothing is alive. ``KS`` is :func:`kd_scratch` of T.

    A leaf is first read in single precision (its ``PT`` columns, side by side in vector
    instructions): the distance of each record to the members' centroid c, which can only let
    through more records than the double-precision test after it (:func:`single_margin`). A record
    that passes both is scored exactly, as the full pass scores it.

    Parameters
    ----------
    T : KDTree.
    members : (k,) int64 — tree positions of the group.
    s : int — how many of them count.
    KS : tuple — :func:`kd_scratch` of T.

    Returns
    -------
    int — the tree position, or −1.
    """
    P, rec, start, end, left, right, lo, hi, count, alive, PT = T.P, T.rec, T.start, T.end, T.left, T.right, T.lo, T.hi, T.count, T.alive, T.PT
    c, stack, bounds, dist, c32 = KS
    d = P.shape[1]
    for j in range(d):
        acc = 0.0
        for t in range(s):
            acc += P[members[t], j]
        c[j] = acc / s
    spread = 0.0
    for t in range(s):
        for j in range(d):
            u = P[members[t], j] - c[j]
            spread += u * u
    cc = 0.0
    for j in range(d):
        cc += c[j] * c[j]
        c32[j] = c[j]
    tol = TINY * (spread + s * (1.0 + cc))
    err, rel, filt = single_margin(T.norm[0], np.sqrt(cc), d)
    thr = np.inf  # single-precision distances to c above thr cannot win
    best = np.inf
    best_i = -1
    best_r = -1
    sp = 0
    if count[0] > 0:
        stack[0] = 0
        bounds[0] = s * box_gap(lo, hi, np.int64(0), c) + spread
        sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if count[v] == 0 or bounds[sp] * (1.0 - SLACK) - tol > best:
            continue
        a = left[v]
        if a < 0:
            s0 = start[v]
            m = end[v] - s0
            _leaf_distances(PT, s0, m, d, c32, dist)
            if thr < np.inf and not _any_within(dist, m, thr):
                continue
            for t in range(m):
                i = s0 + t
                if not alive[i] or dist[t] > thr:
                    continue
                if s > 1:  # the centroid form in double (d operations); exact score only if it can win
                    near = 0.0
                    for j in range(d):
                        u = P[i, j] - c[j]
                        near += u * u
                    if (s * near + spread) * (1.0 - SLACK) - tol > best:
                        continue
                score = 0.0
                for q in range(s):
                    w = members[q]
                    dq = 0.0
                    for j in range(d):
                        u = P[i, j] - P[w, j]
                        dq += u * u
                    score += dq
                if score < best or (score == best and rec[i] < best_r):
                    best = score
                    best_i = i
                    best_r = rec[i]
                    if filt:  # a record wins only if s·|x − c|² + spread <= best (with the slack above)
                        near_max = max(((best + tol) / (1.0 - SLACK) - spread) / s, 0.0) * (1.0 + SLACK)
                        root = np.sqrt(near_max) + err
                        thr = root * root * rel
            continue
        b = right[v]
        ba = s * box_gap(lo, hi, a, c) + spread
        bb = s * box_gap(lo, hi, b, c) + spread
        sp = _push_children(count, stack, bounds, sp, a, ba, b, bb)
    return best_i


# A point query for the MDAV family and CBFS (kernels/spatial/treegroups.py): the k nearest alive records
# to a point. A candidate's squared distance is computed as
# the distance pass computes it (kernels/core/distances.py: 0.0, then (x_j − p_j)² added in attribute
# order), so the answer is the pass's answer bit for bit; ties go to the lowest record id.
#
# The box bound below is computed from the box's faces with the same operations; rounding is
# monotone, so it already bounds every computed candidate distance in the box from below. The slack is a
# second guard: a box is skipped only when it misses the current answer by more than SLACK
# (relative) plus TINY × (|p|² + 1) (absolute), never on an equal value.


@njit(cache=True, inline="always")
def box_gap(lo, hi, v, p):
    """Lower bound on the squared distance from p to any record of box v (a ball around the box
    centre was measured too: 3 % fewer records read in 10 dimensions, not worth its square root).
    Branch-free: at most one of lo − p and p − hi is positive.

    Parameters
    ----------
    lo, hi : (nodes, d) float64 — the boxes' corners.
    v : int — a node.
    p : (d,) float64 — the point.

    Returns
    -------
    float — the bound.
    """
    b = 0.0
    for j in range(p.size):
        t = max(lo[v, j] - p[j], p[j] - hi[v, j], 0.0)
        b += t * t
    return b


@njit(cache=True)
def _point_tol(p):
    pp = 0.0
    for j in range(p.size):
        pp += p[j] * p[j]
    return TINY * (pp + 1.0)


# kd_nearest_k reads the leaves in single precision and computes the double-precision distance (the
# pass's bits) only where the single-precision one says the record could enter the answer. For a
# record x and the point p, with u = x − p, ũ its single-precision counterpart (x and p rounded, then
# subtracted) and d̃ the single-precision sum of ũ's squares over d attributes:
#   |ũ − u| <= F32_ERR·(|x| + |p|)            (three roundings of 2^-24 each, relative to |x_j| + |p_j|),
#   d̃ / rel <= |ũ|² <= d̃·rel, rel = 1 + (d + 2)·2^-23   (the sum's d + 1 roundings, with room),
# so sqrt(d̃ / rel) − err <= |u| <= sqrt(d̃·rel) + err, err = F32_ERR·(|x| + |p|) + F32_TINY.
F32_ERR = 2.0 ** -22   # bound on the rounding of the difference vector, relative to |x| + |p|
F32_TINY = 1e-18       # room for single precision's subnormal range, in distance units
F32_MAX = 1e18         # from this norm on the squares could overflow single precision: no filter


@njit(cache=True)
def single_margin(norm, pn, d):
    """(err, rel, usable) of the bound above for records of norm <= ``norm`` and a point of norm
    ``pn`` in d attributes: the distance lies within [sqrt(d̃ / rel) − err, sqrt(d̃·rel) + err].
    usable is False where single precision could overflow: then every record is computed in double.

    Parameters
    ----------
    norm : float — the largest record norm.
    pn : float — the point's norm.
    d : int — attributes.

    Returns
    -------
    (float, float, bool) — err, rel, usable.
    """
    return F32_ERR * (norm + pn) + F32_TINY, 1.0 + (d + 2) * 2.0 ** -23, norm < F32_MAX and pn < F32_MAX


@njit(cache=True, inline="always")
def _any_within(dist, m, thr):
    # counted without a branch (vector instructions) rather than stopping at the first: the leaf is small
    wins = 0
    for t in range(m):
        wins += dist[t] <= thr
    return wins > 0


@njit(cache=True, inline="always")
def _leaf_distances(PT, s0, m, d, p32, dist):
    """Single-precision squared distances from p32 to the m records of the leaf starting at position
    s0, into dist[:m] (a grouped record's is NaN), each added in attribute order from 0.0.

    Parameters
    ----------
    PT : (n·d,) float32 — :class:`KDTree`'s leaf-by-leaf, column-major copy of the records.
    s0, m : int — the leaf's first position and its size.
    d : int — attributes.
    p32 : (d,) float32 — the point.
    dist : (≥ m,) float32 — filled.

    Returns
    -------
    None.
    """
    for t in range(m):
        dist[t] = 0.0
    # Unsigned indices need no negative-index fix-up, so the loop vectorizes without a column view (a
    # view is a new array object per column, with its reference counting).
    for j in range(d):
        pj = p32[j]
        base = np.uint64(s0 * d + j * m)
        for t in range(np.uint64(m)):
            u = PT[base + t] - pj
            dist[t] += u * u


@njit(cache=True, inline="always")
def _prefetch_leaf(PT, start, end, left, v, d):
    """Ask for node v's single-precision rows (when v is a leaf) to be loaded while the query works on
    the node popped before it (MDAV at 10^6 x 10, one thread: 0.90-1.00x the time, docs/scaling.md).

    Parameters
    ----------
    PT : (n·d,) float32 — :class:`KDTree`'s leaf-by-leaf copy of the records.
    start, end, left : (nodes,) int64 — the tree's position ranges and left children (-1 at a leaf).
    v : int — a node.
    d : int — attributes.

    Returns
    -------
    None.
    """
    if left[v] >= 0:
        return
    a = start[v] * d
    b = end[v] * d
    for o in range(a, b, 16):  # 16 floats: one 64-byte cache line
        prefetch(PT, o)
    prefetch(PT, b - 1)


@njit(cache=True)
def kd_nearest_k(T, p, want, top_d, top_i, KS, skip=-1):
    """The ``want`` alive positions nearest to the point p, sorted by (squared distance, record id)
    into ``top_d``/``top_i``; returns how many (fewer only when fewer are alive). Position ``skip``
    counts as grouped: two threads can query the tree at once while neither changes it.

    Parameters
    ----------
    T : KDTree.
    p : (d,) float64 — the point.
    want : int — how many.
    top_d : (want,) float64, top_i : (want,) int64 — filled: squared distances and tree positions, ascending.
    KS : tuple — :func:`kd_scratch` of T.
    skip : int — a position that counts as grouped (−1: none).

    Returns
    -------
    int — how many were found.
    """
    P, rec, start, end, left, right, lo, hi, count, alive, PT = T.P, T.rec, T.start, T.end, T.left, T.right, T.lo, T.hi, T.count, T.alive, T.PT
    _, stack, bounds, dist, p32 = KS
    d = P.shape[1]
    if want <= 0:
        return 0
    tol = _point_tol(p)
    pn = 0.0
    for j in range(d):
        p32[j] = p[j]
        pn += p[j] * p[j]
    err, rel, filt = single_margin(T.norm[0], np.sqrt(pn), d)
    thr = np.inf  # single-precision distances above thr cannot enter
    cnt = 0
    sp = 0
    if count[0] > 0:
        stack[0] = 0
        bounds[0] = box_gap(lo, hi, np.int64(0), p)
        sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if count[v] == 0 or (cnt == want and bounds[sp] * (1.0 - SLACK) - tol > top_d[cnt - 1]):
            continue
        a = left[v]
        if a < 0:
            s0 = start[v]
            m = end[v] - s0
            _leaf_distances(PT, s0, m, d, p32, dist)
            if cnt == want and not _any_within(dist, m, thr):
                continue
            for t in range(m):
                i = s0 + t
                if not alive[i] or i == skip or dist[t] > thr:
                    continue
                x = 0.0
                for j in range(d):
                    u = P[i, j] - p[j]
                    x += u * u
                cnt = keep_smallest_ranked(top_d, top_i, cnt, want, x, i, rec)
                if cnt == want and filt:  # the same thr again when x was not kept
                    b = np.sqrt(top_d[cnt - 1] * (1.0 + SLACK) + tol) + err
                    thr = b * b * rel
            continue
        b = right[v]
        ba = box_gap(lo, hi, a, p)
        bb = box_gap(lo, hi, b, p)
        sp = _push_children(count, stack, bounds, sp, a, ba, b, bb)
        _prefetch_leaf(PT, start, end, left, a, d)
        _prefetch_leaf(PT, start, end, left, b, d)
    return cnt
