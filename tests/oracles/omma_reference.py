"""OMMA's learning cycles as they were before pairs were decided by the exchange bound (issue 39): every
Case 2 and Case 3 pair evaluates its exchanges with best_swap. The reference the plugin's ``learn`` must
match bit for bit (the same partition, the same deleted pairs, the same SSE per cycle).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.kernels.methods import swap


@njit(cache=True)
def learn(Z, members, grp, pos, ptr, partner, M, strict, max_cycles):
    """Learning cycles until the IL stops decreasing; returns (converge cycle, SSE per cycle, SST)."""
    n, d = Z.shape
    h, k = members.shape
    sums = np.empty((h, d))
    buf = np.empty(d + k)
    eps = swap.EPS
    depth = np.full(n, M - 1, dtype=np.int64)  # 0 = most internal, M-1 = boundary
    bound = M - 1
    sst = 0.0
    for t in range(d):
        mu = 0.0
        for i in range(n):
            mu += Z[i, t]
        mu /= max(n, 1)
        for i in range(n):
            u = Z[i, t] - mu
            sst += u * u
    tol = 1e-10 * sst
    history = np.empty(max_cycles + 1)
    old = np.inf
    cycle = 0
    while cycle < max_cycles:
        cycle += 1
        K.member_sums(Z, members, sums)  # fresh sums each cycle: no drift
        for i in range(n):
            for t in range(ptr[i], ptr[i + 1]):
                j = np.int64(partner[t])  # the pair list is int32; kernels take int64
                if j < 0:
                    continue
                gi = grp[i]
                gj = grp[j]
                if gi == gj:  # reward (Algorithm 7)
                    if depth[i] > 0:
                        depth[i] -= 1
                    if depth[j] > 0:
                        depth[j] -= 1
                elif depth[i] < bound and depth[j] < bound:  # Case 1 (Algorithm 8)
                    depth[i] += 1
                    depth[j] += 1
                elif depth[i] < bound or depth[j] < bound:  # Case 2 (Algorithm 9)
                    a = i if depth[i] < bound else j  # unbound, in u
                    b = j if a == i else i  # at the boundary, in v
                    u = grp[a]
                    v = grp[b]
                    dl, x = K.best_swap(Z, members, sums, u, v, b, a, buf)
                    if x >= 0 and (dl < -eps or (dl <= eps and not strict)):
                        K.apply_swap(Z, members, grp, pos, sums, x, b)
                        depth[x] = bound
                        depth[b] = bound
                    else:
                        partner[t] = -1  # delete the tuple from L
                else:  # Case 3 (Algorithm 10): both at the boundary
                    d1, x1 = K.best_swap(Z, members, sums, gi, gj, j, i, buf)  # R_j into R_i's group
                    d2, x2 = K.best_swap(Z, members, sums, gj, gi, i, j, buf)  # R_i into R_j's group
                    if d1 <= d2 + eps:
                        if x1 >= 0 and (d1 < -eps or (d1 <= eps and not strict)):
                            K.apply_swap(Z, members, grp, pos, sums, x1, j)
                            depth[x1] = bound
                            depth[j] = bound
                    elif x2 >= 0 and (d2 < -eps or (d2 <= eps and not strict)):
                        K.apply_swap(Z, members, grp, pos, sums, x2, i)
                        depth[x2] = bound
                        depth[i] = bound
        new = K.members_sse(Z, members)
        history[cycle - 1] = new
        if new >= old - tol:
            break
        old = new
    return cycle, history[:cycle].copy(), sst

