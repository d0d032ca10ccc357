"""The LNS sub-solvers as they were before their enumeration was narrowed (issue 39): the reference the
faster kernels of mabench.kernels.improve.lns must match bit for bit (same SSE bits, same groups, same
labels). Plain Python (the same floating-point operations in the same order as the kernels had); use
regions of at most ~10 records.
"""

from __future__ import annotations

import numpy as np


def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


def region_optimum(Zr, k, kmax, sums, sqsum, best, choice, out):
    """Optimal partition of the R records of ``Zr`` into groups of k..kmax records.

    Writes group ids 0.. into ``out[:R]`` and returns (SSE, groups); SSE = inf if R < k
    (no feasible partition)."""
    R, d = Zr.shape
    full = (1 << R) - 1
    centre = np.zeros(d)  # d floats once per region, not per mask
    for i in range(R):
        for j in range(d):
            centre[j] += Zr[i, j]
    for j in range(d):
        centre[j] /= R
    for j in range(d):
        sums[0, j] = 0.0
    sqsum[0] = 0.0
    best[0] = 0.0
    for mask in range(1, full + 1):
        low = mask & (-mask)
        i = 0
        while (1 << i) != low:
            i += 1
        prev = mask ^ low
        s2 = sqsum[prev]
        for j in range(d):
            v = Zr[i, j] - centre[j]
            sums[mask, j] = sums[prev, j] + v
            s2 += v * v
        sqsum[mask] = s2
    # Each subset's SSE once, in place of its Σ‖x‖² (no longer needed): the DP below meets a subset
    # up to 2^(R-|S|) times. inf marks a size outside k..kmax.
    for S in range(1, full + 1):
        c = _popcount(S)
        if c >= k and c <= kmax:
            n2 = 0.0
            for j in range(d):
                n2 += sums[S, j] * sums[S, j]
            cost = sqsum[S] - n2 / c
            if cost < 0.0:
                cost = 0.0
            sqsum[S] = cost
        else:
            sqsum[S] = np.inf
    for mask in range(1, full + 1):
        low = mask & (-mask)
        rest = mask ^ low
        fbest = np.inf
        cbest = 0
        sub = rest
        while True:
            S = sub | low
            cost = sqsum[S]
            if cost < np.inf:
                other = mask ^ S
                if best[other] < np.inf:
                    val = best[other] + cost
                    if val < fbest:
                        fbest = val
                        cbest = S
            if sub == 0:
                break
            sub = (sub - 1) & rest
        best[mask] = fbest
        choice[mask] = cbest
    if best[full] == np.inf:
        return np.inf, 0
    mask = full
    g = np.int64(0)
    while mask:
        S = choice[mask]
        for i in range(R):
            if (S >> i) & 1:
                out[i] = g
        g += 1
        mask ^= S
    return best[full], g


def pick_region(Z, labels, sizes, means, members, seed_group, rmax, order_g, order_d, region, region_groups):
    """The seed group plus its nearest groups by centroid while the records fit in ``rmax``.

    Fills ``region`` with record ids and ``region_groups`` with group ids; returns (records, groups)."""
    c, d = means.shape
    for g in range(c):
        s = 0.0
        for j in range(d):
            t = means[g, j] - means[seed_group, j]
            s += t * t
        order_d[g] = s
        order_g[g] = g
    idx = np.argsort(order_d, kind="mergesort")
    r = 0
    ng = 0
    for t in range(c):
        g = idx[t]
        if r + sizes[g] > rmax:
            if ng >= 2:
                break
            continue
        for m in range(sizes[g]):
            region[r] = members[g, m]
            r += 1
        region_groups[ng] = g
        ng += 1
    return r, ng


def pair_optimum(Zr, k, kmax, idx, out):
    """Optimal partition of R < 3k records (one or two groups of k..kmax records) by enumerating every
    group S that holds record 0: S = {0} ∪ (combination of the others), S and its complement feasible.

    Writes group ids into ``out[:R]``; returns (SSE, groups), SSE = inf when none is feasible.
    Ties keep the first S in lexicographic order."""
    R, d = Zr.shape
    tot = np.zeros(d)
    totsq = 0.0
    for i in range(R):
        for j in range(d):
            tot[j] += Zr[i, j]
            totsq += Zr[i, j] * Zr[i, j]
    best = np.inf
    groups = 0
    if k <= R <= kmax:  # one group
        n2 = 0.0
        for j in range(d):
            n2 += tot[j] * tot[j]
        best = totsq - n2 / R
        groups = 1
        for i in range(R):
            out[i] = 0
    s = np.zeros(d)
    best_r = -1
    keep = np.empty(R, dtype=np.int64)
    for size in range(k, kmax + 1):
        rest = R - size
        if rest < k or rest > kmax:
            continue
        r = size - 1  # companions of record 0 among records 1..R-1
        for t in range(r):
            idx[t] = 1 + t
        while True:
            for j in range(d):
                s[j] = Zr[0, j]
            sq = 0.0
            for j in range(d):
                sq += Zr[0, j] * Zr[0, j]
            for t in range(r):
                for j in range(d):
                    v = Zr[idx[t], j]
                    s[j] += v
                    sq += v * v
            a2 = 0.0
            b2 = 0.0
            for j in range(d):
                a2 += s[j] * s[j]
                b = tot[j] - s[j]
                b2 += b * b
            cost = (sq - a2 / size) + ((totsq - sq) - b2 / rest)
            if cost < best:
                best = cost
                best_r = r
                for t in range(r):
                    keep[t] = idx[t]
            t = r - 1
            while t >= 0 and idx[t] == R - r + t:
                t -= 1
            if t < 0:
                break
            idx[t] += 1
            for u in range(t + 1, r):
                idx[u] = idx[u - 1] + 1
    if best_r >= 0:
        groups = 2
        for i in range(R):
            out[i] = 1
        out[0] = 0
        for t in range(best_r):
            out[keep[t]] = 0
    return best, groups
