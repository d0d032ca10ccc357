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

Everything is deterministic (fixed orders, no randomness).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.bounds import nearest_sq


@njit(cache=True)
def nearest_prefix(Z, t):
    """(n, t+1) array P with P[r, q] = s_r(q) = sum of r's q smallest squared distances to other records,
    and (n, t) ids of those records (ascending distance, ties by lowest index): running sums of
    :func:`mabench.kernels.bounds.nearest_sq`."""
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
    sizes, r); size 0 = no column."""
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
    (cut_ptr, cut_ids) with record i's cuts at cut_ids[cut_ptr[i]:cut_ptr[i+1]], in cut order."""
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


@njit(cache=True)
def certified_price(Z, u, k, kmax, P, node_limit, emax, maxcols, cut_ptr, cut_ids, pen):
    """Lower bound ρ ≤ min(0, min over all groups S (k ≤ |S| ≤ kmax) of r(S)/|S|).

    P = nearest_prefix(Z, ≥ kmax−2)[0]. For every anchor i (the lowest-index member) and size m,
    a depth-first branch and bound over candidates r > i; a node (T, remaining candidates C) is
    bounded by  LB = P(T)/m − u(T) + Σ of the m−|T| smallest g_c,
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
    No cuts: cut_ptr all zeros, cut_ids and pen empty."""
    n, d = Z.shape
    best = 0.0
    cutmin = 0.0
    ncut = 0
    cols = -np.ones((maxcols, kmax), dtype=np.int64)
    csize = np.zeros(maxcols, dtype=np.int64)
    cred = np.zeros(maxcols)
    ncols = 0
    row = np.empty(n)
    g = np.empty(n)
    gb = np.empty(n)
    buf = np.empty(kmax + 1)
    E = np.empty(emax, dtype=np.int64)
    ge = np.empty(emax)
    dm = np.empty((emax, emax))
    Dl = np.empty((kmax + 1, emax))
    gl = np.empty(emax)
    PT = np.empty(kmax + 1)
    UT = np.empty(kmax + 1)
    nxt = np.empty(kmax + 1, dtype=np.int64)
    mem = np.empty(kmax + 1, dtype=np.int64)
    leaf = np.empty(kmax, dtype=np.int64)
    PEN = np.zeros(kmax + 1)
    hits = np.zeros(pen.shape[0], dtype=np.int64)  # members of the current T in each cut
    for i in range(n - k + 1):
        cnt = n - i - 1
        for j in range(i + 1, n):
            s = 0.0
            for c in range(d):
                v = Z[i, c] - Z[j, c]
                s += v * v
            row[j] = s
        for m in range(k, kmax + 1):
            if m - 1 > cnt:
                break
            for j in range(i + 1, n):
                g[j - i - 1] = (row[j] + 0.5 * P[j, m - 2]) / m - u[j]
            for a in range(cnt):
                gb[a] = g[a]
            part = np.partition(gb[:cnt], m - 2)
            sigma = 0.0
            for a in range(m - 1):
                sigma += part[a]
            gkth = part[m - 2]
            root = sigma - u[i]
            if root >= best * m:
                continue
            tau = best * m + u[i] - sigma + gkth
            e = 0
            for a in range(cnt):
                if g[a] < tau or g[a] <= gkth:
                    e += 1
            if e > emax:
                ncut += 1
                if root / m < cutmin:
                    cutmin = root / m
                continue
            e = 0
            for a in range(cnt):
                if g[a] < tau or g[a] <= gkth:
                    ge[e] = g[a]
                    E[e] = i + 1 + a
                    e += 1
            order = np.argsort(ge[:e], kind="mergesort")
            tmp = E[:e].copy()
            for a in range(e):
                E[a] = tmp[order[a]]
            for a in range(e):
                Dl[1, a] = row[E[a]]
                dm[a, a] = 0.0
                for b in range(a + 1, e):
                    s = 0.0
                    for c in range(d):
                        v = Z[E[a], c] - Z[E[b], c]
                        s += v * v
                    dm[a, b] = s
                    dm[b, a] = s
            PT[1] = 0.0
            UT[1] = u[i]
            PEN[1] = 0.0
            _count_hits(hits, cut_ptr, cut_ids, i, 1)
            nxt[1] = 0
            t = 1
            nodes = 0
            lbest = 0.0
            lsize = 0
            while t >= 1:
                jj = nxt[t]
                if jj > e - (m - t):
                    t -= 1
                    if t >= 1:
                        _count_hits(hits, cut_ptr, cut_ids, E[mem[t]], -1)
                    continue
                nxt[t] = jj + 1
                npt = PT[t] + Dl[t, jj]
                nut = UT[t] + u[E[jj]]
                npen = PEN[t] + _new_penalty(hits, cut_ptr, cut_ids, pen, E[jj])
                if t + 1 == m:
                    r = npt / m - nut + npen
                    if r / m < best:
                        best = r / m
                    if r < lbest:
                        lbest = r
                        mem[t] = jj
                        leaf[0] = i
                        for a in range(1, m):
                            leaf[a] = E[mem[a]]
                        lsize = m
                    continue
                nodes += 1
                rest = m - t - 1
                for b in range(jj + 1, e):
                    Dl[t + 1, b] = Dl[t, b] + dm[jj, b]
                    gl[b] = (Dl[t + 1, b] + 0.5 * P[E[b], rest - 1]) / m - u[E[b]]
                lb = npt / m - nut + npen + _smallest_sum(gl, jj + 1, e, rest, buf)
                if lb >= best * m:
                    continue
                if nodes > node_limit:
                    ncut += 1
                    if lb / m < cutmin:
                        cutmin = lb / m
                    continue
                mem[t] = jj
                _count_hits(hits, cut_ptr, cut_ids, E[jj], 1)
                t += 1
                PT[t] = npt
                UT[t] = nut
                PEN[t] = npen
                nxt[t] = jj + 1
            _count_hits(hits, cut_ptr, cut_ids, i, -1)
            if lsize > 0 and lbest < -1e-12 and ncols < maxcols:
                for a in range(lsize):
                    cols[ncols, a] = leaf[a]
                csize[ncols] = lsize
                cred[ncols] = lbest
                ncols += 1
    rho = best if best < cutmin else cutmin
    return rho, cols, csize, cred, ncols, ncut
