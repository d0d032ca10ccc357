"""Local search over a partition: the group state, exact move/swap costs and a move/swap descent.

The state of a partition with ``c`` groups is

* ``labels`` (n,) — group of each record, 0..c-1;
* ``sizes`` (c,) and ``means`` (c, d) — group sizes and centroids;
* ``members`` (c, cap) and ``pos`` (n,) — the records of each group (first ``sizes[g]`` slots)
  and each record's slot, so a move or swap costs O(d).

Cost formulas (x in G_p, y in G_q, p != q; every one is the exact SSE change, checked
against brute force in tests/methods/test_icsm.py):

* ``r1(x, q, y)`` — SSE change of G_q when y is replaced by x (size fixed):
  Σ_l δ_l (2 (y_l − ḡ_q,l) + δ_l (|G_q| − 1)/|G_q|), δ = x − y.
  An exchange of x and y changes SSE by r1(x, q, y) + r1(y, p, x).
* ``r2(x, q)`` — SSE increase of G_q when x joins it: |G_q| ‖ḡ_q − x‖² / (|G_q| + 1).
* ``r3(x, p)`` — SSE change of G_p when x leaves it: −|G_p| ‖ḡ_p − x‖² / (|G_p| − 1).
  A migration of x from G_p to G_q changes SSE by r2(x, q) + r3(x, p).

Moves keep every group within [k, kmax]: a record may leave G_p only if |G_p| > k and join
G_q only if |G_q| < kmax.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import sqdist_to
from mabench.kernels.core.groups import exchange_members, total_sse  # noqa: F401  (total_sse: part of the group state's API)
from mabench.kernels.core.select import keep_smallest

EPS = 1e-10  # an improvement must lower SSE by more than this (rounding noise is ~1e-13)


@njit(cache=True)
def group_state(Z, labels, cap):
    """Sizes, centroids, member lists and slots of a partition with labels 0..c-1.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — 0..c-1.
    cap : int — the member lists' capacity (>= the largest group size reachable, kmax).

    Returns
    -------
    sizes : (c,) int64
    means : (c, d) float64
    members : (c, cap) int64 — padded with -1.
    pos : (n,) int64
    """
    n, d = Z.shape
    c = 0
    for i in range(n):
        if labels[i] + 1 > c:
            c = labels[i] + 1
    sizes = np.zeros(c, dtype=np.int64)
    means = np.zeros((c, d))
    members = np.full((c, cap), -1, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = labels[i]
        members[g, sizes[g]] = i
        pos[i] = sizes[g]
        sizes[g] += 1
        for j in range(d):
            means[g, j] += Z[i, j]
    for g in range(c):
        for j in range(d):
            means[g, j] /= sizes[g]
    return sizes, means, members, pos


@njit(cache=True)
def r1(Z, x, q, y, sizes, means):
    """SSE change of G_q when its record y is replaced by x.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x, y : int — the record entering and the record leaving G_q.
    q : int — the group.
    sizes, means : (c,) int64, (c, d) float64 — the group state.

    Returns
    -------
    float
    """
    d = Z.shape[1]
    f = (sizes[q] - 1) / sizes[q]
    s = 0.0
    for j in range(d):
        delta = Z[x, j] - Z[y, j]
        s += delta * (2.0 * (Z[y, j] - means[q, j]) + delta * f)
    return s


@njit(cache=True)
def r2(Z, x, q, sizes, means):
    """SSE increase of G_q when x joins it.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x : int — the record joining.
    q : int — the group.
    sizes, means : (c,) int64, (c, d) float64 — the group state.

    Returns
    -------
    float
    """
    s = sizes[q]
    return s * sqdist_to(Z, x, means, q) / (s + 1)


@njit(cache=True)
def r3(Z, x, p, sizes, means):
    """SSE change (a decrease) of G_p when its record x leaves it.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x : int — the record leaving.
    p : int — its group (size >= 2).
    sizes, means : (c,) int64, (c, d) float64 — the group state.

    Returns
    -------
    float
    """
    s = sizes[p]
    return -s * sqdist_to(Z, x, means, p) / (s - 1)


@njit(cache=True)
def swap_cost(Z, x, y, labels, sizes, means):
    """Exact SSE change of exchanging x and y (different groups).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x, y : int — records of two different groups.
    labels, sizes, means : arrays — the group state.

    Returns
    -------
    float
    """
    p = labels[x]
    q = labels[y]
    d = Z.shape[1]
    fp = (sizes[p] - 1) / sizes[p]
    fq = (sizes[q] - 1) / sizes[q]
    s = 0.0
    for j in range(d):
        delta = Z[x, j] - Z[y, j]
        s += delta * (2.0 * (Z[y, j] - means[q, j]) + delta * fq) - delta * (2.0 * (Z[x, j] - means[p, j]) - delta * fp)
    return s


@njit(cache=True)
def apply_move(Z, x, q, labels, sizes, means, members, pos):
    """Move record x into group q (centroids updated in O(d)).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x : int — the record.
    q : int — its new group.
    labels, sizes, means, members, pos : arrays — the group state (updated).

    Returns
    -------
    None
    """
    d = Z.shape[1]
    p = labels[x]
    sp = sizes[p]
    sq = sizes[q]
    for j in range(d):
        v = Z[x, j]
        means[p, j] = (means[p, j] * sp - v) / (sp - 1) if sp > 1 else 0.0
        means[q, j] = (means[q, j] * sq + v) / (sq + 1)
    last = members[p, sp - 1]
    members[p, pos[x]] = last
    pos[last] = pos[x]
    members[p, sp - 1] = -1
    members[q, sq] = x
    pos[x] = sq
    sizes[p] = sp - 1
    sizes[q] = sq + 1
    labels[x] = q


@njit(cache=True)
def apply_swap(Z, x, y, labels, sizes, means, members, pos):
    """Exchange records x and y between their groups.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x, y : int — records of two different groups.
    labels, sizes, means, members, pos : the group state, updated.

    Returns
    -------
    None — the state is changed in place.
    """
    d = Z.shape[1]
    p = labels[x]
    q = labels[y]
    sp = sizes[p]
    sq = sizes[q]
    for j in range(d):
        delta = Z[x, j] - Z[y, j]
        means[p, j] -= delta / sp
        means[q, j] += delta / sq
    exchange_members(members, labels, pos, x, y)


@njit(cache=True)
def nearest_groups(Z, x, means, exclude, L, out_g, out_d):
    """The L groups with the nearest centroids to record x (excluding one group); returns how many.

    Ties go to the lower group label.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x : int — the record.
    means : (c, d) float64 — the centroids.
    exclude : int — a group left out (-1: none).
    L : int — how many (>= 1).
    out_g, out_d : (>= L,) int64, float64 — filled: groups and squared distances, ascending.

    Returns
    -------
    int — how many were found.
    """
    c = means.shape[0]
    m = 0
    for g in range(c):
        if g == exclude:
            continue
        m = keep_smallest(out_d, out_g, m, L, sqdist_to(Z, x, means, g), g)
    return m


@njit(cache=True)
def best_change(Z, x, k, kmax, L, labels, sizes, means, members, cand_g, cand_d):
    """Best move or swap of x into one of its L nearest groups: (delta, kind, target).

    kind 0 = none, 1 = move x into group ``target``, 2 = swap x with record ``target``.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    x : int — the record.
    k, kmax : int — the group size limits.
    L : int — how many nearest groups.
    labels, sizes, means, members : arrays — the group state.
    cand_g, cand_d : (>= L,) int64, float64 — scratch.

    Returns
    -------
    (float, int, int)
    """
    p = labels[x]
    m = nearest_groups(Z, x, means, p, L, cand_g, cand_d)
    best = -EPS
    kind = 0
    target = -1
    can_leave = sizes[p] > k
    out = 0.0
    if can_leave:
        out = r3(Z, x, p, sizes, means)
    for t in range(m):
        q = cand_g[t]
        sq = sizes[q]
        if can_leave and sq < kmax:
            v = out + sq * cand_d[t] / (sq + 1)
            if v < best:
                best = v
                kind = 1
                target = q
        for s in range(sq):
            y = members[q, s]
            v = swap_cost(Z, x, y, labels, sizes, means)
            if v < best:
                best = v
                kind = 2
                target = y
    return best, kind, target


@njit(cache=True)
def _push(queue, inq, head, tail, n, x):
    if not inq[x]:
        inq[x] = True
        queue[tail % n] = x
        tail += 1
    return tail


@njit(cache=True)
def _push_group(queue, inq, head, tail, n, g, sizes, members):
    for s in range(sizes[g]):
        tail = _push(queue, inq, head, tail, n, members[g, s])
    return tail


@njit(cache=True)
def move_swap_descent(Z, k, kmax, L, labels, sizes, means, members, pos, start, n_start, max_changes):
    """First-improvement descent over moves and swaps into each record's L nearest groups.

    Records are examined from a work queue that starts with ``start[:n_start]``; after each
    applied change, the records of both groups and of their L nearest groups are queued again.
    Stops when the queue is empty (a local optimum of the neighbourhood for every queued
    record) or after ``max_changes`` changes (0 = no limit). Returns (changes, SSE change).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k, kmax : int — the group size limits.
    L : int — how many nearest groups.
    labels, sizes, means, members, pos : arrays — the group state (updated).
    start : (>= n_start,) int64 — the records queued first.
    n_start : int — how many of ``start``.
    max_changes : int — 0 = no limit.

    Returns
    -------
    (int, float)
    """
    n = Z.shape[0]
    queue = np.empty(n, dtype=np.int64)
    inq = np.zeros(n, dtype=np.bool_)
    head = np.int64(0)
    tail = np.int64(0)
    for i in range(n_start):
        tail = _push(queue, inq, head, tail, n, start[i])
    cand_g = np.empty(L + 1, dtype=np.int64)
    cand_d = np.empty(L + 1)
    near_g = np.empty(L + 1, dtype=np.int64)
    near_d = np.empty(L + 1)
    changes = 0
    total = 0.0
    while head < tail:
        x = queue[head % n]
        head += 1
        inq[x] = False
        delta, kind, target = best_change(Z, x, k, kmax, L, labels, sizes, means, members, cand_g, cand_d)
        if kind == 0:
            continue
        p = labels[x]
        if kind == 1:
            q = target
            apply_move(Z, x, q, labels, sizes, means, members, pos)
        else:
            q = labels[target]
            apply_swap(Z, x, target, labels, sizes, means, members, pos)
        total += delta
        changes += 1
        for g in (p, q):
            tail = _push_group(queue, inq, head, tail, n, g, sizes, members)
            m = nearest_groups(Z, members[g, 0], means, g, L, near_g, near_d)
            for t in range(m):
                tail = _push_group(queue, inq, head, tail, n, near_g[t], sizes, members)
        if max_changes > 0 and changes >= max_changes:
            break
    return changes, total


@njit(cache=True)
def perturb(Z, labels, sizes, means, members, pos, n_records, L, picks, partners):
    """Exchange each of ``n_records`` chosen records with a record of one of its L nearest groups.

    ``picks[i]`` is the record, ``partners[i]`` a uniform number in [0, 1) that chooses the
    group (uniform among the L nearest) and the record in it. Swaps keep every group size, so
    the partition stays valid. Returns the touched records (both sides of each swap).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels, sizes, means, members, pos : arrays — the group state (updated).
    n_records : int — how many exchanges.
    L : int — how many nearest groups.
    picks : (n_records,) int64 — the records.
    partners : (n_records,) float64 — uniform numbers in [0, 1).

    Returns
    -------
    (<= 2·n_records,) int64 — the touched records.
    """
    cand_g = np.empty(L + 1, dtype=np.int64)
    cand_d = np.empty(L + 1)
    touched = np.empty(2 * n_records, dtype=np.int64)
    t = 0
    for i in range(n_records):
        x = picks[i]
        m = nearest_groups(Z, x, means, labels[x], L, cand_g, cand_d)
        if m == 0:
            continue
        u = partners[i] * m
        q = cand_g[min(int(u), m - 1)]
        frac = u - int(u)
        y = members[q, min(int(frac * sizes[q]), sizes[q] - 1)]
        apply_swap(Z, x, y, labels, sizes, means, members, pos)
        touched[t] = x
        touched[t + 1] = y
        t += 2
    return touched[:t]


@njit(cache=True)
def dissolve(Z, g, kmax, labels, sizes, means, members, pos):
    """Move every record of group g into the group with the nearest centroid that has room
    (size < kmax), one by one; the emptied group is left with size 0 (the caller relabels).
    Returns the moved records, or an empty array (and no change) if some record finds no room.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    g : int — the group dissolved.
    kmax : int — the largest group size.
    labels, sizes, means, members, pos : arrays — the group state (updated).

    Returns
    -------
    (<= m,) int64 — the records moved (m = the group's size).
    """
    c = sizes.shape[0]
    m = sizes[g]
    moved = members[g, :m].copy()
    room = 0
    for q in range(c):
        if q != g and sizes[q] < kmax:
            room += kmax - sizes[q]
    if room < m:
        return moved[:0]
    for t in range(m):
        x = moved[t]
        best = -1
        best_v = np.inf
        for q in range(c):
            if q == g or sizes[q] >= kmax or sizes[q] == 0:
                continue
            v = sqdist_to(Z, x, means, q)
            if v < best_v:
                best_v = v
                best = q
        if best < 0:
            return moved[:t]
        apply_move(Z, x, best, labels, sizes, means, members, pos)
    return moved
