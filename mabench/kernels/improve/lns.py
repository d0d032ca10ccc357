"""Large-neighbourhood search: re-partition a small region of records optimally.

:func:`region_optimum` is the exact sub-solver. For R ≤ ``RMAX`` records it solves the
set-partitioning problem over all 2^R subsets by dynamic programming on bit masks:

    f(∅) = 0,   f(M) = min over S ⊆ M with low(M) ∈ S and k ≤ |S| ≤ kmax of  f(M \\ S) + SSE(S),

where low(M) is M's lowest record (every partition of M has exactly one group holding it, so
fixing it loses nothing and counts each partition once). SSE(S) = Σ‖x‖² − ‖Σx‖²/|S| is computed
on coordinates centred at the region's mean (less cancellation). Work is Σ_M 2^{|M|−1} = (3^R − 1)/2
sub-mask steps; R = 16 is ~2·10^7 steps. Ties keep the first sub-mask enumerated (deterministic).

Why DP and not an integer program: a region of ≤ 16 records has at most 2^15 feasible groups per
lowest record; the DP visits each (mask, sub-mask) pair once with no solver overhead, and it is exact
by construction (checked against brute-force enumeration in tests/kernels/test_lns.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import sqdist_rows
from mabench.kernels.core.readonly import as_read_only

SCANS = 8  # pick_region: groups picked by scanning before it sorts them all
RMAX = 16  # largest region the DP accepts: 2^16 masks × d sums in scratch


def scratch(d: int, rmax: int = RMAX):
    """Work arrays for :func:`region_optimum` on regions of up to ``rmax`` records.

    Parameters
    ----------
    d : int — attributes.
    rmax : int, default RMAX — the largest region.

    Returns
    -------
    tuple — ``(sums, sqsum, best, choice)`` of shapes (2**rmax, d), (2**rmax,), (2**rmax,), (2**rmax,).
    """
    size = 1 << rmax
    return (np.empty((size, d)), np.empty(size), np.empty(size), np.empty(size, dtype=np.int64))


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def region_optimum(Zr, k, kmax, sums, sqsum, best, choice, out):
    """Optimal partition of the R records of ``Zr`` into groups of k..kmax records.

    Writes group ids 0.. into ``out[:R]`` and returns (SSE, groups); SSE = inf if R < k
    (no feasible partition).

    Exact by a dynamic program over the subsets of the region (O(3^R)).

    Parameters
    ----------
    Zr : (R, d) float64 — the region's records (R <= rmax of the scratch).
    k, kmax : int — the group size limits.
    sums, sqsum, best, choice : arrays — :func:`scratch`.
    out : (>= R,) int64 — filled: group ids.

    Returns
    -------
    (float, int) — SSE and the number of groups.
    """
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


@njit(cache=True)
def _take_group(g, members, sizes, region, r, region_groups, ng):
    """Append group ``g``'s members to ``region`` from slot ``r`` and name it at ``region_groups[ng]``;
    returns the region's new length."""
    for m in range(sizes[g]):
        region[r] = members[g, m]
        r += 1
    region_groups[ng] = g
    return r


@njit(cache=True)
def pick_region(Z, labels, sizes, means, members, seed_group, rmax, order_g, order_d, region, region_groups):
    """The seed group plus its nearest groups by centroid while the records fit in ``rmax``.

    Fills ``region`` with record ids and ``region_groups`` with group ids; returns (records, groups).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels, sizes, means, members : arrays — the group state.
    seed_group : int — the group the region grows from.
    rmax : int — the largest region.
    order_g, order_d : (c,) int64, (c,) float64 — scratch.
    region : (>= rmax,) int64 — filled: record ids.
    region_groups : (c,) int64 — filled: group ids.

    Returns
    -------
    (int, int) — records and groups in the region.
    """
    c = means.shape[0]
    sqdist_rows(as_read_only(means), seed_group, order_d)
    for g in range(c):
        order_g[g] = g
    # Groups in order of (distance, group id), as a stable sort would give them; a region takes a few
    # groups, so they are picked by repeated scans (no sort of all c), and a walk that has not ended after
    # SCANS picks finishes on the sorted order.
    r = np.int64(0)
    ng = np.int64(0)
    prev_d = -1.0
    prev_g = -1
    for t in range(min(c, SCANS)):
        g = np.int64(-1)
        bd = np.inf
        for h in range(c):
            dh = order_d[h]
            if dh < prev_d or (dh == prev_d and h <= prev_g):
                continue  # taken already
            if g < 0 or dh < bd:
                g = h
                bd = dh
        prev_d = bd
        prev_g = g
        if r + sizes[g] > rmax:
            if ng >= 2:
                return r, ng
            continue
        r = _take_group(g, members, sizes, region, r, region_groups, ng)
        ng += 1
    if c <= SCANS:
        return r, ng
    r = np.int64(0)
    ng = np.int64(0)
    idx = np.argsort(order_d, kind="mergesort")
    for t in range(c):
        g = idx[t]
        if r + sizes[g] > rmax:
            if ng >= 2:
                break
            continue
        r = _take_group(g, members, sizes, region, r, region_groups, ng)
        ng += 1
    return r, ng


PAIR_RMAX = 22  # two-group regions for large k: C(21, 10) ≈ 3.5·10^5 splits at most


def region_limit(k: int) -> int:
    """The largest region the exact sub-solver takes at this k: the DP's RMAX while a region holds at
    least two groups of k, else the two-group enumeration's PAIR_RMAX.

    Parameters
    ----------
    k : int — the minimum group size.

    Returns
    -------
    int — RMAX or PAIR_RMAX.
    """
    return RMAX if 2 * k <= RMAX else PAIR_RMAX


def default_region(k: int) -> int:
    """The default region size: four groups' worth at k ≤ 4, three above, capped by the DP; the pair
    limit at large k.

    Parameters
    ----------
    k : int — the minimum group size.

    Returns
    -------
    int — records per region.

    Examples
    --------
    >>> default_region(3) == min(RMAX, 12)
    True
    """
    top = region_limit(k)
    return min(RMAX, 4 * k if k <= 4 else 3 * k) if top == RMAX else top


@njit(cache=True)
def pair_optimum(Zr, k, kmax, idx, out):
    """Optimal partition of R < 3k records (one or two groups of k..kmax records) by enumerating every
    group S that holds record 0: S = {0} ∪ (combination of the others), S and its complement feasible.

    Writes group ids into ``out[:R]``; returns (SSE, groups), SSE = inf when none is feasible.
    Ties keep the first S in lexicographic order.

    Parameters
    ----------
    Zr : (R, d) float64 — the region's records (R < 3k).
    k, kmax : int — the group size limits.
    idx : (R,) int64 — scratch.
    out : (>= R,) int64 — filled: group ids.

    Returns
    -------
    (float, int) — SSE and the number of groups.
    """
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
    # ps[t], psq[t]: Σx and Σ‖x‖² of record 0 and the companions idx[:t], added in that order (the order
    # of a sum over the whole group, so every cost has the same bits); an advance recomputes only the
    # prefixes from the first index it changed.
    ps = np.empty((R, d))
    psq = np.empty(R)
    q = 0.0
    for j in range(d):
        ps[0, j] = Zr[0, j]
        q += Zr[0, j] * Zr[0, j]
    psq[0] = q
    best_r = -1
    keep = np.empty(R, dtype=np.int64)
    for size in range(k, kmax + 1):
        rest = R - size
        if rest < k or rest > kmax:
            continue
        r = size - 1  # companions of record 0 among records 1..R-1
        for t in range(r):
            idx[t] = 1 + t
        changed = 0
        while True:
            for t in range(changed, r):
                q = psq[t]
                for j in range(d):
                    v = Zr[idx[t], j]
                    ps[t + 1, j] = ps[t, j] + v
                    q += v * v
                psq[t + 1] = q
            sq = psq[r]
            a2 = 0.0
            b2 = 0.0
            for j in range(d):
                a2 += ps[r, j] * ps[r, j]
                b = tot[j] - ps[r, j]
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
            changed = t
    if best_r >= 0:
        groups = 2
        for i in range(R):
            out[i] = 1
        out[0] = 0
        for t in range(best_r):
            out[keep[t]] = 0
    return best, groups
