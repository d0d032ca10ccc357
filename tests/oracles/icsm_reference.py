"""ICSM's ComplexHeuristic as it was before its sources were relaxed together (issue 39): one
shortest-path pass per source, each computing its own record dot products. The reference the kernel of
mabench.kernels.improve.icsm must match bit for bit (the same cycle applied, the same SSE change).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.improve.icsm import EPS, INF, _apply_cycle, _edge, group_scores_fast, r3


@njit(cache=True)
def complex_heuristic(Z, k, kmax, labels, sizes, means, members, pos, score_all):
    """One call of ComplexHeuristic. Returns (records moved, SSE change).

    Sources: the records of G_s and its cluster node, G_s = argmin Score (or, with
    ``score_all``, every group in Score order until one yields a cycle). Groups are ranked by
    centroid distance to ḡ_s (ties: lower label); only edges from a lower to a higher rank are
    kept, so no path visits a group twice. The most negative closed cycle is applied.

    Record → record weights are evaluated as (2 − 2f_q) u·v − 2 u·ḡ_q + f_q ‖u‖² + b_v with
    b_v = −2‖v‖² + 2 v·ḡ_q + f_q ‖v‖² (= r1(u, q, v) expanded; f_q = (|G_q| − 1)/|G_q|).
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
    dist = np.empty(N)
    pred = np.empty(N, dtype=np.int64)
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
        for si in range(sizes[gs] + 1):
            src = members[gs, si] if si < sizes[gs] else n + gs
            dist[:] = INF
            pred[:] = -1
            dist[src] = 0.0
            for r in range(c):
                g = order[r]
                for ui in range(sizes[g] + 1):
                    u = members[g, ui] if ui < sizes[g] else n + g
                    du = dist[u]
                    if du == INF:
                        continue
                    for rr in range(r + 1, c):
                        h = order[rr]
                        sh = sizes[h]
                        if u < n:
                            base = du - 2.0 * UG[u, h] + f[h] * sq[u]
                            coef = 2.0 - 2.0 * f[h]
                            for vi in range(sh):
                                v = members[h, vi]
                                dot = 0.0
                                for j in range(d):
                                    dot += Z[u, j] * Z[v, j]
                                w = base + coef * dot + b[v]
                                if w < dist[v]:
                                    dist[v] = w
                                    pred[v] = u
                            if sh < kmax:
                                w = du + sh * (sq[u] - 2.0 * UG[u, h] + gnorm[h]) / (sh + 1)
                                if w < dist[n + h]:
                                    dist[n + h] = w
                                    pred[n + h] = u
                        else:
                            for vi in range(sh):
                                v = members[h, vi]
                                w = du + r3v[v]
                                if w < dist[v]:
                                    dist[v] = w
                                    pred[v] = u
            for v in range(N):
                if v == src or dist[v] == INF:
                    continue
                if (v < n and labels[v] == gs) or v == n + gs:
                    continue
                w = _edge(Z, v, src, n, labels, sizes, means, k, kmax)
                if w == INF:
                    continue
                tot = dist[v] + w
                if tot < best:
                    best = tot
                    L = 0
                    u = v
                    while u != -1:
                        cyc[L] = u
                        L += 1
                        u = pred[u]
                    best_len = L
        if best_len > 0:
            nodes = cyc[:best_len][::-1].copy()
            _apply_cycle(Z, nodes, n, labels, sizes, means, members, pos)
            return best_len, best
    return 0, 0.0
