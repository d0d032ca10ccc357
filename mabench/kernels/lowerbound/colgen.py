"""Column generation for the set-partitioning LP bound of microaggregation (docs/bounds.md, method `lp`).

Columns are groups S with k ≤ |S| ≤ kmax; c_S = SSE(S); reduced cost r(S) = c_S − u(S) for duals u.

* :func:`greedy_price` — heuristic pricing: from every record (and from it with each of its first
  nearest records forced in), grow a group over its nearest records adding the record that lowers the
  reduced cost most; returns the groups with r(S) < 0.
* :func:`certified_price` — a PROVEN lower bound ρ ≤ min(0, min_S r(S)/|S|) over ALL feasible groups
  (branch and bound, every group enumerated once by its lowest-index member, nodes pruned or cut
  with the bound proved in docs/bounds.md), and the negative-reduced-cost groups it met. With it,
  L(u) = Σ_i u_i + n·ρ is a lower bound on the LP optimum and hence on the optimal SSE.
  With subset-row cuts (:func:`cut_index`), whose duals enter r(S) as penalties, the same search
  bounds the cut LP.
* :func:`groups_below` — every group holding one of a set of records whose reduced cost above the
  certified floor is below a threshold (the same search with a fixed limit): the columns of the
  tail bound's integer program.

Everything is deterministic (fixed orders, no randomness).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from mabench.kernels.lowerbound.bounds import nearest_sq
from mabench.kernels.core.distances import sq_between


@njit(cache=True)
def nearest_prefix(Z, t):
    """(n, t+1) array P with P[r, q] = s_r(q) = sum of r's q smallest squared distances to other records,
    and (n, t) ids of those records (ascending distance, ties by lowest index): running sums of
    :func:`mabench.kernels.lowerbound.bounds.nearest_sq`.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    t : int — how many nearest (< n).

    Returns
    -------
    P : (n, t + 1) float64
    ids : (n, t) int64
    """
    near, ids = nearest_sq(Z, t)
    n = near.shape[0]
    P = np.zeros((n, t + 1))
    for i in range(n):
        acc = 0.0
        for q in range(t):
            acc += near[i, q]
            P[i, q + 1] = acc
    return P, ids


@njit(cache=True)
def group_sse(Z, members, m):
    """SSE of one group, two-pass per attribute (the mean first, then the squared deviations).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (>= m,) int64 — the group's records.
    m : int — its size.

    Returns
    -------
    float — the group's SSE.
    """
    d = Z.shape[1]
    sse = 0.0
    for c in range(d):
        mean = 0.0
        for a in range(m):
            mean += Z[members[a], c]
        mean /= m
        for a in range(m):
            v = Z[members[a], c] - mean
            sse += v * v
    return sse


@njit(cache=True)
def _joined_cost(Z, j, ssum, sq, m, uT, u):
    """r(T ∪ {j}) for a set T of m − 1 records given by its coordinate sums ``ssum``, its sum of squared
    norms ``sq`` and its dual total ``uT``: SSE = Σ‖x‖² − ‖Σx‖²/m, minus the duals."""
    xx = 0.0
    ss = 0.0
    for c in range(Z.shape[1]):
        xx += Z[j, c] * Z[j, c]
        v = ssum[c] + Z[j, c]
        ss += v * v
    return sq + xx - ss / m - uT - u[j]


@njit(cache=True)
def greedy_price(Z, u, nbr, k, kmax, starts=1):
    """For each record i and each s < starts: T = {i} (plus i's s-th nearest record when s > 0); add,
    up to kmax−|T| times, the neighbour (row nbr[i]) giving the lowest r(T ∪ {c}); keep the size in
    k..kmax with the lowest r(T)/|T| if negative. Returns (members (n·starts, kmax) padded −1,
    sizes, r); size 0 = no column.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    u : (n,) float64 — the dual values.
    nbr : (n, L) int64 — each record's nearest others.
    k, kmax : int — the group size limits.
    starts : int, default 1 — starts per record.

    Returns
    -------
    members : (n·starts, kmax) int64
    sizes : (n·starts,) int64
    r : (n·starts,) float64
    """
    n, d = Z.shape
    L = nbr.shape[1]
    out = -np.ones((n * starts, kmax), dtype=np.int64)
    sizes = np.zeros(n * starts, dtype=np.int64)
    red = np.zeros(n * starts)
    members = np.empty(kmax, dtype=np.int64)
    used = np.zeros(L, dtype=np.bool_)
    ssum = np.empty(d)
    for i in range(n):
        for s0 in range(min(starts, L + 1)):
            slot = i * starts + s0
            for q in range(L):
                used[q] = False
            members[0] = i
            sq = 0.0
            for c in range(d):
                ssum[c] = Z[i, c]
                sq += Z[i, c] * Z[i, c]
            uT = u[i]
            best = 0.0
            bsize = 0
            for t in range(1, kmax):
                bq = -1
                bval = np.inf
                if t == 1 and s0 > 0:
                    bq = s0 - 1
                    bval = _joined_cost(Z, nbr[i, bq], ssum, sq, t + 1, uT, u)
                else:
                    for q in range(L):
                        if used[q]:
                            continue
                        r = _joined_cost(Z, nbr[i, q], ssum, sq, t + 1, uT, u)
                        if r < bval:
                            bval = r
                            bq = q
                if bq < 0:
                    break
                used[bq] = True
                j = nbr[i, bq]
                members[t] = j
                for c in range(d):
                    sq += Z[j, c] * Z[j, c]
                    ssum[c] += Z[j, c]
                uT += u[j]
                if t + 1 >= k and bval / (t + 1) < best:
                    best = bval / (t + 1)
                    bsize = t + 1
            if bsize > 0 and best < -1e-12:
                sizes[slot] = bsize
                red[slot] = best * bsize
                for a in range(bsize):
                    out[slot, a] = members[a]
    return out, sizes, red


@njit(cache=True)
def _smallest_sum(vals, lo, hi, cnt, buf):
    """Sum of the cnt smallest of vals[lo:hi] (inf if fewer than cnt); buf is scratch of length ≥ cnt."""
    if hi - lo < cnt:
        return np.inf
    if cnt == 0:
        return 0.0
    filled = 0
    for a in range(lo, hi):
        v = vals[a]
        if filled < cnt:
            p = filled
            filled += 1
        elif v < buf[cnt - 1]:
            p = cnt - 1
        else:
            continue
        while p > 0 and buf[p - 1] > v:
            buf[p] = buf[p - 1]
            p -= 1
        buf[p] = v
    s = 0.0
    for a in range(cnt):
        s += buf[a]
    return s


def cut_index(cuts, n):
    """Subset-row cuts (an (m, 3) array of records) by record, for :func:`certified_price`:
    (cut_ptr, cut_ids) with record i's cuts at cut_ids[cut_ptr[i]:cut_ptr[i+1]], in cut order.

    Parameters
    ----------
    cuts : (m, 3) array_like of int — the cuts' records.
    n : int — records.

    Returns
    -------
    cut_ptr : (n + 1,) int64
    cut_ids : (3m,) int64

    Examples
    --------
    >>> ptr, ids = cut_index([[0, 1, 2], [1, 2, 3]], 4)
    >>> ptr.tolist(), ids.tolist()
    ([0, 1, 3, 5, 6], [0, 0, 1, 0, 1, 1])
    """
    cuts = np.asarray(cuts, dtype=np.int64).reshape(-1, 3)
    records = cuts.ravel()
    order = np.argsort(records, kind="stable")
    cut_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(records, minlength=n), out=cut_ptr[1:])
    return cut_ptr, np.ascontiguousarray(np.repeat(np.arange(len(cuts)), 3)[order])


@njit(cache=True)
def _count_hits(hits, cut_ptr, cut_ids, record, step):
    """Record joins (step 1) or leaves (step −1) the node's fixed members: its cuts' member counts."""
    for q in range(cut_ptr[record], cut_ptr[record + 1]):
        hits[cut_ids[q]] += step


@njit(cache=True)
def _new_penalty(hits, cut_ptr, cut_ids, pen, record):
    """The penalties a record adds on joining: those of its cuts that hold exactly one fixed member."""
    s = 0.0
    for q in range(cut_ptr[record], cut_ptr[record + 1]):
        if hits[cut_ids[q]] == 1:
            s += pen[cut_ids[q]]
    return s


Scratch = namedtuple("Scratch", "row g gb buf E ge dm Dl gl PT UT PEN nxt mem leaf hits")
Scratch.__doc__ = """Working arrays of one (anchor, size) search: distances from the anchor (row), candidate
scores (g, a copy gb for partitioning, ge and gl for the kept and the node's candidates), candidate ids
(E) and their pairwise distances (dm), per depth the distance sums to the fixed members (Dl), the pair
sums (PT), dual sums (UT) and penalties (PEN) of the fixed members, the next candidate (nxt), the chosen
candidates (mem), the best group's members (leaf) and, per cut, how many fixed members it holds (hits)."""


@njit(cache=True)
def _scratch(n, kmax, emax, ncuts):
    return Scratch(np.empty(n), np.empty(n), np.empty(n), np.empty(kmax + 1), np.empty(emax, dtype=np.int64),
                   np.empty(emax), np.empty((emax, emax)), np.empty((kmax + 1, emax)), np.empty(emax),
                   np.empty(kmax + 1), np.empty(kmax + 1), np.zeros(kmax + 1), np.empty(kmax + 1, dtype=np.int64),
                   np.empty(kmax + 1, dtype=np.int64), np.empty(kmax, dtype=np.int64), np.zeros(ncuts, dtype=np.int64))


@njit(cache=True)
def _anchor_distances(Z, i, cand, cnt, row):
    """row[j] = squared distance from record i to each candidate j."""
    for a in range(cnt):
        row[cand[a]] = sq_between(Z, i, cand[a])


@njit(cache=True)
def _root(Z, u, P, i, m, cand, cnt, limit, emax, W):
    """Root of the (anchor i, size m) search over the candidates cand[:cnt] (W.row holds their
    distances to i): the root bound LB = Σ of the m−1 smallest g_c − u_i and, when LB < limit, the
    candidates that can still join a group below limit (a candidate c is dropped when LB with c
    forced in is ≥ limit), sorted by g, in W.E[:e] with their distances in W.dm and W.Dl[1].
    Returns (LB, e); e = −1 when LB ≥ limit, e > emax (and nothing filled) when too many remain."""
    row, g, gb, E, ge, dm, Dl = W.row, W.g, W.gb, W.E, W.ge, W.dm, W.Dl
    for a in range(cnt):
        j = cand[a]
        g[a] = (row[j] + 0.5 * P[j, m - 2]) / m - u[j]
    for a in range(cnt):
        gb[a] = g[a]
    part = np.partition(gb[:cnt], m - 2)
    sigma = 0.0
    for a in range(m - 1):
        sigma += part[a]
    gkth = part[m - 2]
    root = sigma - u[i]
    if root >= limit:
        return root, -1
    tau = limit + u[i] - sigma + gkth
    e = 0
    for a in range(cnt):
        if g[a] < tau or g[a] <= gkth:
            e += 1
    if e > emax:
        return root, e
    e = 0
    for a in range(cnt):
        if g[a] < tau or g[a] <= gkth:
            ge[e] = g[a]
            E[e] = cand[a]
            e += 1
    order = np.argsort(ge[:e], kind="mergesort")
    tmp = E[:e].copy()
    for a in range(e):
        E[a] = tmp[order[a]]
    for a in range(e):
        Dl[1, a] = row[E[a]]
        dm[a, a] = 0.0
        for b in range(a + 1, e):
            dm[a, b] = dm[b, a] = sq_between(Z, E[a], E[b])
    return root, e


@njit(cache=True)
def _branch(u, P, i, m, e, W, cut_ptr, cut_ids, pen, best, limit, node_limit, out, sizes, red, count, cap, shift):
    """Depth-first branch and bound over the groups {i} ∪ (m − 1 of W.E[:e]) after :func:`_root`.

    A node (fixed members T, the candidates after the last one chosen) is bounded by
    LB = P(T)/m − u(T) + penalties met + Σ of the m−|T| smallest g_c (docs/bounds.md) and pruned when
    LB ≥ limit. Two uses:

    * pricing (``limit`` NaN): nodes are pruned at best·m, best = the lowest r(S)/m met so far (or the
      value it came with); the group with the lowest r(S) is left in W.leaf; nodes past node_limit
      are not explored, and the lowest of their LB/m is returned as ``cut``;
    * enumeration: limit is fixed, and every group with r(S) < limit is written to out/sizes/red
      (red = r(S) − shift) from row count[0] on; the search stops past ``cap`` groups or node_limit
      nodes.

    Returns (best, lowest r(S) met (0 when none below 0), its size (0: none), cut (inf: none),
    nodes not explored, stopped early)."""
    follow = np.isnan(limit)
    if follow:
        limit = best * m
    W.PT[1] = 0.0
    W.UT[1] = u[i]
    W.PEN[1] = 0.0
    _count_hits(W.hits, cut_ptr, cut_ids, i, 1)
    W.nxt[1] = 0
    t = 1
    nodes = 0
    lbest = 0.0
    lsize = 0
    cut = np.inf
    ncut = 0
    stopped = False
    E, Dl, gl, dm, mem = W.E, W.Dl, W.gl, W.dm, W.mem
    while t >= 1:
        jj = W.nxt[t]
        if jj > e - (m - t):
            t -= 1
            if t >= 1:
                _count_hits(W.hits, cut_ptr, cut_ids, E[mem[t]], -1)
            continue
        W.nxt[t] = jj + 1
        npt = W.PT[t] + Dl[t, jj]
        nut = W.UT[t] + u[E[jj]]
        npen = W.PEN[t] + _new_penalty(W.hits, cut_ptr, cut_ids, pen, E[jj])
        if t + 1 == m:
            r = npt / m - nut + npen
            if follow:
                if r / m < best:
                    best = r / m
                    limit = best * m
                if r < lbest:
                    lbest = r
                    mem[t] = jj
                    W.leaf[0] = i
                    for a in range(1, m):
                        W.leaf[a] = E[mem[a]]
                    lsize = m
            elif r < limit:
                if count[0] >= cap:
                    stopped = True
                    break
                q = count[0]
                if q < out.shape[0]:
                    out[q, 0] = i
                    for a in range(1, t):
                        out[q, a] = E[mem[a]]
                    out[q, t] = E[jj]
                    sizes[q] = m
                    red[q] = r - shift
                count[0] = q + 1
            continue
        nodes += 1
        rest = m - t - 1
        for b in range(jj + 1, e):
            Dl[t + 1, b] = Dl[t, b] + dm[jj, b]
            gl[b] = (Dl[t + 1, b] + 0.5 * P[E[b], rest - 1]) / m - u[E[b]]
        lb = npt / m - nut + npen + _smallest_sum(gl, jj + 1, e, rest, W.buf)
        if lb >= limit:
            continue
        if nodes > node_limit:
            stopped = True
            if not follow:
                break
            ncut += 1
            if lb / m < cut:
                cut = lb / m
            continue
        mem[t] = jj
        _count_hits(W.hits, cut_ptr, cut_ids, E[jj], 1)
        t += 1
        W.PT[t] = npt
        W.UT[t] = nut
        W.PEN[t] = npen
        W.nxt[t] = jj + 1
    while t > 1:  # a stop leaves members fixed
        t -= 1
        _count_hits(W.hits, cut_ptr, cut_ids, E[mem[t]], -1)
    _count_hits(W.hits, cut_ptr, cut_ids, i, -1)
    return best, lbest, lsize, cut, ncut, stopped


@njit(cache=True)
def certified_price(Z, u, k, kmax, P, node_limit, emax, maxcols, cut_ptr, cut_ids, pen):
    """Lower bound ρ ≤ min(0, min over all groups S (k ≤ |S| ≤ kmax) of r(S)/|S|).

    P = nearest_prefix(Z, ≥ kmax−2)[0]. For every anchor i (the lowest-index member) and size m,
    a depth-first branch and bound over candidates r > i (:func:`_root`, :func:`_branch`); a node
    (T, remaining candidates C) is bounded by  LB = P(T)/m − u(T) + Σ of the m−|T| smallest g_c,
    g_c = (Σ_{τ∈T} d²_τc + s_c(m−|T|−1)/2)/m − u_c  over c ∈ C (proof in docs/bounds.md);
    P(T) = Σ of squared distances over pairs of T, and m·SSE(S) = Σ over pairs of S of d².
    Nodes with LB/m ≥ the best value found so far (≤ 0) are pruned; after node_limit nodes per
    (anchor, size), or when more than emax candidates survive the root test, the remaining nodes
    contribute their LB/m instead of being explored. Returns (ρ, members (maxcols, kmax) padded −1,
    sizes, r, number of columns, number of cut nodes).

    Subset-row cuts (three records each, indexed by :func:`cut_index`): record i's cuts are
    cut_ids[cut_ptr[i]:cut_ptr[i+1]], and a group meeting a cut in two or more records pays its
    penalty pen ≥ 0 (minus the cut's dual), so r(S) = c_S − u(S) + Σ of those penalties. A node adds
    the penalties its fixed members already incur; the others are ≥ 0, so LB stays a lower bound.
    No cuts: cut_ptr all zeros, cut_ids and pen empty.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    u : (n,) float64 — the dual values.
    k, kmax : int — the group size limits.
    P : (n, >= kmax - 1) float64 — :func:`nearest_prefix`'s sums.
    node_limit, emax, maxcols : int — the search's limits.
    cut_ptr, cut_ids : arrays — :func:`cut_index`.
    pen : (m,) float64 — the cuts' dual values.

    Returns
    -------
    tuple — as above.
    """
    n = Z.shape[0]
    best = 0.0
    cutmin = 0.0
    ncut = 0
    cols = -np.ones((maxcols, kmax), dtype=np.int64)
    csize = np.zeros(maxcols, dtype=np.int64)
    cred = np.zeros(maxcols)
    ncols = 0
    W = _scratch(n, kmax, emax, pen.shape[0])
    cand = np.arange(n)
    none = np.zeros(1, dtype=np.int64)
    for i in range(n - k + 1):
        cnt = n - i - 1
        _anchor_distances(Z, i, cand[i + 1:], cnt, W.row)
        for m in range(k, kmax + 1):
            if m - 1 > cnt:
                break
            root, e = _root(Z, u, P, i, m, cand[i + 1:], cnt, best * m, emax, W)
            if e < 0:
                continue
            if e > emax:
                ncut += 1
                if root / m < cutmin:
                    cutmin = root / m
                continue
            best, lbest, lsize, cut, cut_nodes, _ = _branch(u, P, i, m, e, W, cut_ptr, cut_ids, pen, best, np.nan,
                                                            node_limit, cols, csize, cred, none, 0, 0.0)
            ncut += cut_nodes
            if cut < cutmin:
                cutmin = cut
            if lsize > 0 and lbest < -1e-12 and ncols < maxcols:
                for a in range(lsize):
                    cols[ncols, a] = W.leaf[a]
                csize[ncols] = lsize
                cred[ncols] = lbest
                ncols += 1
    rho = best if best < cutmin else cutmin
    return rho, cols, csize, cred, ncols, ncut


@njit(cache=True)
def groups_below(Z, u, k, kmax, P, cut_ptr, cut_ids, pen, rho, delta, anchors, cap, emax, node_limit, maxcols):
    """Every group S (k ≤ |S| ≤ kmax) that holds an accepted anchor and whose reduced cost above the
    certified floor, r'(S) = r(S) − |S|·ρ, is below ``delta`` (r as in :func:`certified_price`).

    The anchors are taken in the given order; each one enumerates (:func:`_root`, :func:`_branch`
    with the fixed limit delta + m·ρ) the groups it holds whose other members are not anchors
    accepted before it, so every group holding an accepted anchor is met exactly once, by the first
    accepted anchor it holds. An anchor with more than ``cap`` such groups, more than ``emax``
    candidates at a root or more than ``node_limit`` nodes in a search is not accepted: its groups
    are dropped and it stays a candidate of the anchors after it. Returns (accepted (one flag per
    anchor), members (maxcols, kmax) padded −1, sizes, r', number of groups).

    Parameters
    ----------
    Z, u, k, kmax, P, cut_ptr, cut_ids, pen — as for :func:`certified_price`.
    rho : float — the certified floor.
    delta : float — the threshold on r'(S).
    anchors : (a,) int64 — the anchors, in order.
    cap, emax, node_limit, maxcols : int — the limits.

    Returns
    -------
    tuple — as above.
    """
    n = Z.shape[0]
    out = -np.ones((maxcols, kmax), dtype=np.int64)
    sizes = np.zeros(maxcols, dtype=np.int64)
    red = np.zeros(maxcols)
    count = np.zeros(1, dtype=np.int64)
    accepted = np.zeros(anchors.shape[0], dtype=np.bool_)
    taken = np.zeros(n, dtype=np.bool_)
    cand = np.empty(n, dtype=np.int64)
    W = _scratch(n, kmax, emax, pen.shape[0])
    for ai in range(anchors.shape[0]):
        i = anchors[ai]
        cnt = 0
        for j in range(n):
            if not taken[j] and j != i:
                cand[cnt] = j
                cnt += 1
        _anchor_distances(Z, i, cand, cnt, W.row)
        start = count[0]
        stop = min(start + cap, maxcols)
        ok = True
        for m in range(k, kmax + 1):
            if m - 1 > cnt:
                break
            limit = delta + m * rho
            root, e = _root(Z, u, P, i, m, cand, cnt, limit, emax, W)
            if e < 0:
                continue
            if e > emax:
                ok = False
                break
            stopped = _branch(u, P, i, m, e, W, cut_ptr, cut_ids, pen, 0.0, limit, node_limit, out, sizes, red, count,
                              stop, m * rho)[5]
            if stopped:
                ok = False
                break
        if ok:
            accepted[ai] = True
            taken[i] = True
        else:
            for q in range(start, min(count[0], maxcols)):
                sizes[q] = 0
                red[q] = 0.0
                for a in range(kmax):
                    out[q, a] = -1
            count[0] = start
    return accepted, out, sizes, red, count[0]
