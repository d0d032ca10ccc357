"""ICSM's improvement steps (003_58f0e37d459aa4df.txt §4.1–4.2, Algorithms 3–5).

* :func:`simple_heuristic` — 1-opt / 2-opt: every improving exchange and migration (graph H's
  two-edge cycles), a pool of the ``pool_n`` best (or first found), applied group-disjointly.
* :func:`~.icsm_tour.tour` — the partition as a path: groups visited by nearest-point-next (NPN).
* :func:`~.icsm_tour.tour2assignment` — cyclic Hansen–Mukherjee: optimal groups of [k, kmax] consecutive
  records on the closed tour, with incremental window SSE (slide and grow updates).
* :func:`complex_heuristic` — n-opt: groups ranked by centroid distance to the lowest-Score
  group, shortest paths in the ranked DAG of H, the most negative closing cycle applied.

Edge costs and the group state come from :mod:`.localsearch`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.improve.localsearch import EPS, apply_move, apply_swap, r1, r2, r3, sqdist_to, swap_cost  # noqa: F401

INF = np.inf


# ------------------------------------------------------------------ SimpleHeuristic
@njit(cache=True)
def _pool_insert(pool_v, pool_a, pool_b, count, cap, v, a, b, keep_best):
    """Insert a candidate (gain v, records/groups a, b) into the pool; returns the new count."""
    if count < cap:
        pool_v[count] = v
        pool_a[count] = a
        pool_b[count] = b
        return count + 1
    if not keep_best:
        return count
    worst = 0
    for i in range(1, cap):
        if pool_v[i] > pool_v[worst]:
            worst = i
    if v < pool_v[worst]:
        pool_v[worst] = v
        pool_a[worst] = a
        pool_b[worst] = b
    return count


@njit(cache=True)
def simple_heuristic(Z, k, kmax, labels, sizes, means, members, pos, pool_n, keep_best):
    """One call of SimpleHeuristic. Returns (changes applied, SSE change).

    Candidates: every exchange of two records of different groups with negative cost
    r1(x,q,y)+r1(y,p,x), every migration of x into G_q with negative cost r2(x,q)+r3(x,p)
    (size guards: |G_p| > k, |G_q| < kmax). ``pool_b >= 0`` marks an exchange with record b,
    ``pool_b = -1 - q`` a migration into group q. Scan order: records by index, partners after.

    Seed: 003_58f0e37d459aa4df.txt §4.1 (Algorithm 3).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k, kmax : int — the group size limits.
labels, sizes, means, members, pos : arrays — the group state
        (:func:`~mabench.kernels.improve.localsearch.group_state`), updated.
    pool_n : int — the pool's size.
    keep_best : bool — keep the ``pool_n`` best candidates (else the first found).

    Returns
    -------
    (int, float) — changes applied and the SSE change.
    """
    n, d = Z.shape
    c = sizes.shape[0]
    pool_v = np.empty(pool_n)
    pool_a = np.empty(pool_n, dtype=np.int64)
    pool_b = np.empty(pool_n, dtype=np.int64)
    count = np.int64(0)
    # ‖x − ḡ_p‖ of every record: an exchange can only gain if ‖x − y‖ < (e_x + e_y) · 3/2
    # (cost ≥ a‖δ‖² − 2‖δ‖(e_x + e_y) with a ≥ 4/3), a cheap exact filter.
    e = np.empty(n)
    for i in range(n):
        e[i] = np.sqrt(sqdist_to(Z, i, means, labels[i]))
    for x in range(n):
        p = labels[x]
        full = count >= pool_n and not keep_best
        if full:
            break
        for y in range(x + 1, n):
            q = labels[y]
            if q == p:
                continue
            dd = 0.0
            for j in range(d):
                t = Z[x, j] - Z[y, j]
                dd += t * t
            bound = 1.5 * (e[x] + e[y])
            if dd >= bound * bound:
                continue
            v = swap_cost(Z, x, y, labels, sizes, means)
            if v < -EPS:
                count = _pool_insert(pool_v, pool_a, pool_b, count, pool_n, v, x, y, keep_best)
        if sizes[p] > k:
            out = r3(Z, x, p, sizes, means)
            for q in range(c):
                if q == p or sizes[q] >= kmax:
                    continue
                v = out + r2(Z, x, q, sizes, means)
                if v < -EPS:
                    count = _pool_insert(pool_v, pool_a, pool_b, count, pool_n, v, x, -1 - q, keep_best)
    if count == 0:
        return 0, 0.0
    order = np.argsort(pool_v[:count], kind="mergesort")
    touched = np.zeros(c, dtype=np.bool_)
    applied = 0
    total = 0.0
    for t in range(count):
        i = order[t]
        x = pool_a[i]
        b = pool_b[i]
        p = labels[x]
        q = labels[b] if b >= 0 else -1 - b
        if touched[p] or touched[q]:
            continue
        touched[p] = True
        touched[q] = True
        if b >= 0:
            apply_swap(Z, x, b, labels, sizes, means, members, pos)
        else:
            apply_move(Z, x, q, labels, sizes, means, members, pos)
        total += pool_v[i]
        applied += 1
    return applied, total


# ------------------------------------------------------------------ ComplexHeuristic
@njit(cache=True)
def group_scores(Z, labels, sizes, means):
    """Score(G_p) = Σ_{x∈G_p, y∉G_p} r1(x, G_q, y) − Σ_{x∈G_p, y∉G_p} r1(y, G_p, x) (Eq. 7).

    Seed: 003_58f0e37d459aa4df.txt §4.1 (Eq. 7). O(n²·d): the reference for :func:`group_scores_fast`.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64
    sizes : (c,) int64
    means : (c, d) float64 — the group state.

    Returns
    -------
    (c,) float64 — each group's score.
    """
    n = Z.shape[0]
    c = sizes.shape[0]
    score = np.zeros(c)
    for x in range(n):
        p = labels[x]
        for y in range(n):
            q = labels[y]
            if q == p:
                continue
            score[p] += r1(Z, x, q, y, sizes, means)
            score[p] -= r1(Z, y, p, x, sizes, means)
    return score


@njit(cache=True)
def _edge(Z, u, v, n, labels, sizes, means, k, kmax):
    """Weight of H's edge u → v (records 0..n−1, cluster nodes n + g); the head's group change."""
    if u < n:
        if v < n:
            if labels[u] == labels[v]:
                return INF
            return r1(Z, u, labels[v], v, sizes, means)
        q = v - n
        if q == labels[u] or sizes[q] >= kmax:
            return INF
        return r2(Z, u, q, sizes, means)
    if v >= n:
        return INF
    p = labels[v]
    if p == u - n or sizes[p] <= k:
        return INF
    return r3(Z, v, p, sizes, means)


@njit(cache=True)
def group_scores_fast(Z, labels, sizes, means):
    """:func:`group_scores` in O((n + c) d) from group moments (same value up to rounding).

    With f_q = (|G_q| − 1)/|G_q| and sums over y outside G_p:
    Σ_y r1(x, G_q, y) = −2 (SSE − SSE_p) + ‖x‖² Σ f_q − 2 x·Σ f_q y + Σ f_q ‖y‖²  (Σ_{y∈G_q} (y − ḡ_q) = 0);
    Σ_y r1(y, G_p, x) = 2 (Y − m x)·(x − ḡ_p) + f_p (Σ ‖y‖² − 2 x·Y + m ‖x‖²), Y = Σ y, m = n − |G_p|.

    Parameters
    ----------
    Z, labels, sizes, means — as for :func:`group_scores`.

    Returns
    -------
    (c,) float64 — Score(G_p) for every group p.
    """
    n, d = Z.shape
    c = sizes.shape[0]
    f = np.empty(c)
    for g in range(c):
        f[g] = (sizes[g] - 1) / sizes[g]
    sq = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += Z[i, j] * Z[i, j]
        sq[i] = s
    gsse = np.zeros(c)
    gY = np.zeros((c, d))
    gyy = np.zeros(c)
    for i in range(n):
        g = labels[i]
        gyy[g] += sq[i]
        for j in range(d):
            t = Z[i, j] - means[g, j]
            gsse[g] += t * t
            gY[g, j] += Z[i, j]
    SSE = gsse.sum()
    F = 0.0
    FY = np.zeros(d)
    FYY = 0.0
    Y = np.zeros(d)
    YY = 0.0
    for g in range(c):
        F += f[g] * sizes[g]
        FYY += f[g] * gyy[g]
        YY += gyy[g]
        for j in range(d):
            FY[j] += f[g] * gY[g, j]
            Y[j] += gY[g, j]
    score = np.zeros(c)
    for x in range(n):
        p = labels[x]
        Fo = F - f[p] * sizes[p]
        FYYo = FYY - f[p] * gyy[p]
        YYo = YY - gyy[p]
        m = n - sizes[p]
        s1 = -2.0 * (SSE - gsse[p]) + sq[x] * Fo + FYYo
        s2 = f[p] * (YYo + m * sq[x])
        for j in range(d):
            fyo = FY[j] - f[p] * gY[p, j]
            yo = Y[j] - gY[p, j]
            s1 -= 2.0 * Z[x, j] * fyo
            s2 += 2.0 * (yo - m * Z[x, j]) * (Z[x, j] - means[p, j]) - 2.0 * f[p] * Z[x, j] * yo
        score[p] += s1 - s2
    return score


@njit(cache=True)
def complex_heuristic(Z, k, kmax, labels, sizes, means, members, pos, score_all):
    """One call of ComplexHeuristic. Returns (records moved, SSE change).

    Sources: the records of G_s and its cluster node, G_s = argmin Score (or, with
    ``score_all``, every group in Score order until one yields a cycle). Groups are ranked by
    centroid distance to ḡ_s (ties: lower label); only edges from a lower to a higher rank are
    kept, so no path visits a group twice. The most negative closed cycle is applied.

    Record → record weights are evaluated as (2 − 2f_q) u·v − 2 u·ḡ_q + f_q ‖u‖² + b_v with
    b_v = −2‖v‖² + 2 v·ḡ_q + f_q ‖v‖² (= r1(u, q, v) expanded; f_q = (|G_q| − 1)/|G_q|).

    Seed: 003_58f0e37d459aa4df.txt §4.1 (Algorithm 4).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k, kmax : int — the group size limits.
    labels, sizes, means, members, pos : arrays — the group state, updated.
    score_all : bool — try every group in Score order (else only the lowest).

    Returns
    -------
    (int, float) — records moved and the SSE change.
    """
    n, d = Z.shape
    c = sizes.shape[0]
    N = n + c
    score = group_scores_fast(Z, labels, sizes, means)
    if score_all:
        sources = np.argsort(score, kind="mergesort")
    else:
        sources = np.empty(1, dtype=np.int64)
        sources[0] = np.argmin(score)
    f = np.empty(c)
    gnorm = np.empty(c)
    for g in range(c):
        f[g] = (sizes[g] - 1) / sizes[g]
        s = 0.0
        for j in range(d):
            s += means[g, j] * means[g, j]
        gnorm[g] = s
    sq = np.empty(n)
    b = np.empty(n)
    r3v = np.empty(n)
    for v in range(n):
        q = labels[v]
        s = 0.0
        t = 0.0
        for j in range(d):
            s += Z[v, j] * Z[v, j]
            t += Z[v, j] * means[q, j]
        sq[v] = s
        b[v] = -2.0 * s + 2.0 * t + f[q] * s
        r3v[v] = INF if sizes[q] <= k else r3(Z, v, q, sizes, means)
    UG = np.empty((n, c))  # u·ḡ_q
    for u in range(n):
        for q in range(c):
            t = 0.0
            for j in range(d):
                t += Z[u, j] * means[q, j]
            UG[u, q] = t
    # Every source's shortest-path pass at once: the passes share the DAG walk and each record pair's
    # dot product (computed once, not once per source); a source's distances are updated in the same
    # order with the same operations as in a pass of its own.
    S = members.shape[1] + 1  # a group's records and its cluster node
    dist = np.empty((N, S))  # dist[v, s]: the sources of one node side by side
    pred = np.empty((N, S), dtype=np.int64)
    gd = np.empty(c)
    cyc = np.empty(c + 1, dtype=np.int64)
    for gs_i in range(sources.shape[0]):
        gs = sources[gs_i]
        for g in range(c):
            gd[g] = 0.0
            for j in range(d):
                t = means[g, j] - means[gs, j]
                gd[g] += t * t
        gd[gs] = -1.0
        order = np.argsort(gd, kind="mergesort")
        best = -EPS
        best_len = 0
        ns = sizes[gs] + 1
        dist[:, :ns] = INF
        pred[:, :ns] = -1
        for si in range(ns):
            dist[members[gs, si] if si < sizes[gs] else n + gs, si] = 0.0
        for r in range(c):
            g = order[r]
            for ui in range(sizes[g] + 1):
                u = members[g, ui] if ui < sizes[g] else n + g
                reached = False
                for si in range(ns):
                    if dist[u, si] != INF:
                        reached = True
                if not reached:
                    continue
                for rr in range(r + 1, c):
                    h = order[rr]
                    sh = sizes[h]
                    if u < n:
                        coef = 2.0 - 2.0 * f[h]
                        for vi in range(sh):
                            v = members[h, vi]
                            dot = 0.0
                            for j in range(d):
                                dot += Z[u, j] * Z[v, j]
                            cd = coef * dot
                            for si in range(ns):
                                du = dist[u, si]
                                if du == INF:
                                    continue
                                w = du - 2.0 * UG[u, h] + f[h] * sq[u] + cd + b[v]
                                if w < dist[v, si]:
                                    dist[v, si] = w
                                    pred[v, si] = u
                        if sh < kmax:
                            for si in range(ns):
                                du = dist[u, si]
                                if du == INF:
                                    continue
                                w = du + sh * (sq[u] - 2.0 * UG[u, h] + gnorm[h]) / (sh + 1)
                                if w < dist[n + h, si]:
                                    dist[n + h, si] = w
                                    pred[n + h, si] = u
                    else:
                        for vi in range(sh):
                            v = members[h, vi]
                            for si in range(ns):
                                du = dist[u, si]
                                if du == INF:
                                    continue
                                w = du + r3v[v]
                                if w < dist[v, si]:
                                    dist[v, si] = w
                                    pred[v, si] = u
        for si in range(ns):
            src = members[gs, si] if si < sizes[gs] else n + gs
            for v in range(N):
                if v == src or dist[v, si] == INF:
                    continue
                if (v < n and labels[v] == gs) or v == n + gs:
                    continue
                w = _edge(Z, v, src, n, labels, sizes, means, k, kmax)
                if w == INF:
                    continue
                tot = dist[v, si] + w
                if tot < best:
                    best = tot
                    L = 0
                    u = v
                    while u != -1:
                        cyc[L] = u
                        L += 1
                        u = pred[u, si]
                    best_len = L
        if best_len > 0:
            nodes = cyc[:best_len][::-1].copy()
            _apply_cycle(Z, nodes, n, labels, sizes, means, members, pos)
            return best_len, best
    return 0, 0.0


@njit(cache=True)
def _apply_cycle(Z, nodes, n, labels, sizes, means, members, pos):
    """Apply the cycle nodes[0] → nodes[1] → … → nodes[-1] → nodes[0]: every record moves into
    the group of its successor (a record successor: its group; a cluster node: that group)."""
    L = nodes.shape[0]
    target = np.empty(L, dtype=np.int64)
    for i in range(L):
        v = nodes[(i + 1) % L]
        target[i] = labels[v] if v < n else v - n
    for i in range(L):
        u = nodes[i]
        if u < n:
            apply_move(Z, u, target[i], labels, sizes, means, members, pos)  # transient sizes: cap > kmax
