"""Fixed-size groups under one-for-one record swaps (OMMA's migrations).

A partition into h groups of exactly k records is held as ``members`` (h, k)
record ids, ``grp``/``pos`` (group and slot of each record) and ``sums`` (h, d)
column sums of each group. With every group of size k,

    SSE_g = Σ_{x∈g} ||z_x||² − ||S_g||² / k,

so exchanging x ∈ u for y ∈ v (δ = z_y − z_x) changes SSE_u + SSE_v by

    Δ = −(2/k) · [ (S_u − S_v)·δ + ||δ||² ],

an O(d) evaluation. Δ is exactly 0 when x and y are identical records.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.groups import exchange_members


@njit(cache=True)
def fixed_groups(order, k):
    """members/grp/pos for groups of k consecutive entries of ``order`` (len(order) = h·k).

    Parameters
    ----------
    order : (h·k,) int64 — record ids.
    k : int — the group size.

    Returns
    -------
    members : (h, k) int64
    grp : (n,) int64 — each record's group (-1: none).
    pos : (n,) int64 — each record's slot in its group.
    """
    n = order.size
    h = n // k
    members = np.empty((h, k), dtype=np.int64)
    grp = np.full(n if n > 0 else 1, -1, dtype=np.int64)
    pos = np.zeros(n if n > 0 else 1, dtype=np.int64)
    for t in range(h * k):
        g = t // k
        members[g, t % k] = order[t]
    index_groups(members, grp, pos)
    return members, grp, pos


@njit(cache=True)
def index_groups(members, grp, pos):
    """Fill each member's group and slot from ``members``.

    Parameters
    ----------
    members : (h, k) int64 — the groups' records.
    grp, pos : (n,) int64 — filled for every member.

    Returns
    -------
    None
    """
    h, k = members.shape
    for g in range(h):
        for s in range(k):
            grp[members[g, s]] = g
            pos[members[g, s]] = s


@njit(cache=True)
def member_sums(Z, members, sums):
    """sums[g] = Σ of the z-scores of group g's members (summed in slot order).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64 — the groups' records.
    sums : (h, d) float64 — filled.

    Returns
    -------
    None
    """
    h, k = members.shape
    d = Z.shape[1]
    for g in range(h):
        for t in range(d):
            sums[g, t] = 0.0
        for s in range(k):
            x = members[g, s]
            for t in range(d):
                sums[g, t] += Z[x, t]


@njit(cache=True)
def members_sse(Z, members):
    """Σ_g Σ_{x∈g} ||z_x − mean_g||² (two-pass, for the per-cycle IL).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64 — the groups' records.

    Returns
    -------
    float
    """
    h, k = members.shape
    d = Z.shape[1]
    total = 0.0
    for g in range(h):
        for t in range(d):
            m = 0.0
            for s in range(k):
                m += Z[members[g, s], t]
            m /= k
            for s in range(k):
                u = Z[members[g, s], t] - m
                total += u * u
    return total


@njit(cache=True)
def swap_delta(Z, sums, u, v, x, y, k):
    """Change of SSE_u + SSE_v when x (in u) and y (in v) exchange groups.

    Seed: 001_26cfb99743cbb1f3.txt Ch. 5 §5.3.2 (Eqs. 5.13-5.17).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    sums : (h, d) float64 — each group's member sums.
    u, v : int — x's and y's groups.
    x, y : int — the records.
    k : int — the group size.

    Returns
    -------
    float
    """
    d = Z.shape[1]
    a = 0.0
    b = 0.0
    for t in range(d):
        delta = Z[y, t] - Z[x, t]
        a += (sums[u, t] - sums[v, t]) * delta
        b += delta * delta
    return -2.0 * (a + b) / k


EPS = 1e-9  # SSE changes within this of each other (or of 0) count as equal: rounding, not data


@njit(cache=True)
def best_swap(Z, members, sums, u, v, y, exclude, buf):
    """The member x of u (x != exclude) whose exchange with y (in v) gives the smallest Δ.

    Returns (Δ, x). Among the candidates whose Δ is within EPS of the smallest,
    the lowest record id wins; (inf, -1) when u has no candidate. ``buf`` is
    scratch of length >= max(d, k). Same arithmetic as :func:`swap_delta`.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64 — the groups' records.
    sums : (h, d) float64 — member sums.
    u, v : int — the two groups.
    y : int — the record of v.
    exclude : int — a record of u not to consider (-1: none).
    buf : (>= max(d, k),) float64 — scratch.

    Returns
    -------
    (float, int)
    """
    k = members.shape[1]
    d = Z.shape[1]
    diff = buf[:d]
    for t in range(d):
        diff[t] = sums[u, t] - sums[v, t]
    zy = Z[y]
    best = np.inf
    for s in range(k):
        x = members[u, s]
        if x == exclude:
            continue
        zx = Z[x]
        a = 0.0
        b = 0.0
        for t in range(d):
            delta = zy[t] - zx[t]
            a += diff[t] * delta
            b += delta * delta
        dl = -2.0 * (a + b) / k
        buf[d + s] = dl
        if dl < best:
            best = dl
    best_x = -1
    best_v = np.inf
    for s in range(k):
        x = members[u, s]
        if x == exclude:
            continue
        dl = buf[d + s]
        if dl <= best + EPS and (best_x < 0 or x < best_x):
            best_x = x
            best_v = dl
    return best_v, best_x


@njit(cache=True)
def apply_swap(Z, members, grp, pos, sums, x, y):
    """Exchange the groups of x and y, updating members, grp, pos and the sums.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64
    grp, pos : (n,) int64
    sums : (h, d) float64 — updated.
    x, y : int — records of two different groups.

    Returns
    -------
    None
    """
    u = grp[x]
    v = grp[y]
    exchange_members(members, grp, pos, x, y)
    for t in range(Z.shape[1]):
        delta = Z[y, t] - Z[x, t]
        sums[u, t] += delta
        sums[v, t] -= delta
