"""A proof that no exchange of a record y (in group v) with a member of group u can be made.

OMMA's migrations (:mod:`~.swap`) evaluate, for a record y of v, the change Δ of SSE_u + SSE_v for
every member x of u (:func:`~.swap.best_swap`, O(k·d)) and make the best exchange only when it does
not increase the SSE (Δ within EPS of 0 or below). Almost every pair of the similarity list joins two
groups far apart, whose every exchange makes the SSE grow; this module proves that from per-group
quantities in O(d), so the caller can skip best_swap (same decision, made without it).

With D = S_u − S_v (member sums), N = ||D||, c_g = S_g / k, δ = z_y − z_x and w = δ + D/2,

    Δ = −(2/k)·[D·δ + ||δ||²] = (2/k)·[N²/4 − ||w||²],                                   (1)

and w = (z_y − c_v) − (z_x − c_u) + (½ − 1/k)·D. Let ``offset[y]`` = ||z_y − c_v|| and
``radius[u]`` = max over the members x of u of ||z_x − c_u||. Two upper bounds of ||w|| for every x
of u give N/2 − m with

    stage 1, :func:`far_apart` (scalars):  m = N/k − offset[y] − radius[u]
    stage 2, :func:`no_gain` (z_y, O(d)):  m = N/2 − ||z_y − c_v + (½ − 1/k)·D|| − radius[u]  (≥ stage 1's m).

When m > 0, (1) gives Δ ≥ (2/k)·m·(N − m) (||w|| ≤ N/2 − m and 0 < m ≤ N/2), and ||δ|| ≤ N
(||δ|| = ||w − D/2||). best_swap computes Δ in floating point with an error of at most
(2/k)·γ·(N·||δ|| + ||δ||²) ≤ (4/k)·γ·N², γ = γ_{d+6} (d-term dot products, then three roundings;
Higham's γ_n = nu/(1 − nu), u = 2⁻⁵³). So every computed Δ is > 2·EPS when

    2·m·(N − m) − 4·γ·N² > 2·k·EPS.                                                        (2)

Then best_swap's answer is rejected by Case 2 (the pair is deleted), and in Case 3 neither direction
is taken whatever the other direction's Δ is (2·EPS: the "ties favour the first" test compares the two
within EPS). (2) is evaluated with lower bounds of m and N and an upper bound of N: every norm above is
computed from a d-vector whose coordinates are sums of at most four terms of size at most k·A
(A = the largest ||z||), so its rounding error is below 2·(d + 6)·u·√d·(k + 2)·A; ``slack`` =
10⁻¹²·(d + 6)·√d·(k + 2)·A is more than four thousand times that, taken off m once for each of its three
norms and off (on) N. It costs nothing in practice: on the default workflow's data m is of order 0.1..1
while the slack is below 10⁻⁷.

Only the sums change the bound's inputs: ``offset`` and ``radius`` are recomputed for the two groups of
every exchange (:func:`refresh_group`) and for all groups when the sums are (:func:`group_radii`).
"""

from __future__ import annotations

import math

from numba import njit

from mabench.kernels.methods.swap import EPS

SLACK = 1e-12  # times (d + 6)·√d·(k + 2)·A: the allowance for the rounding of the bound's norms (see above)
GAMMA = 2.3e-16  # per term: 2·u, twice the unit roundoff, for best_swap's rounding error γ_{d+6}


@njit(cache=True)
def refresh_group(Z, members, sums, g, offset, radius):
    """offset[x] = ||z_x − S_g/k|| for the members x of group g, and radius[g] = their largest.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64 — the groups' records.
    sums : (h, d) float64 — member sums.
    g : int — the group.
    offset : (n,) float64 — updated for g's members.
    radius : (h,) float64 — radius[g] updated.

    Returns
    -------
    None
    """
    k = members.shape[1]
    d = Z.shape[1]
    far = 0.0
    for s in range(k):
        x = members[g, s]
        acc = 0.0
        for t in range(d):
            u = Z[x, t] - sums[g, t] / k
            acc += u * u
        r = math.sqrt(acc)
        offset[x] = r
        if r > far:
            far = r
    radius[g] = far


@njit(cache=True)
def group_radii(Z, members, sums, offset, radius):
    """:func:`refresh_group` for every group.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    members : (h, k) int64 — the groups' records.
    sums : (h, d) float64 — member sums.
    offset : (n,) float64 — filled for every member.
    radius : (h,) float64 — filled.

    Returns
    -------
    None
    """
    for g in range(members.shape[0]):
        refresh_group(Z, members, sums, g, offset, radius)


@njit(cache=True)
def bound_slack(Z, k):
    """The absolute allowance for rounding in :func:`no_gain`'s norms: 10⁻¹²·(d + 6)·√d·(k + 2)·max ||z||.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    k : int — the group size.

    Returns
    -------
    float
    """
    n, d = Z.shape
    top = 0.0
    for i in range(n):
        acc = 0.0
        for t in range(d):
            acc += Z[i, t] * Z[i, t]
        if acc > top:
            top = acc
    return SLACK * (d + 6) * math.sqrt(d) * (k + 2) * math.sqrt(top)


@njit(cache=True)
def sum_gap(sums, u, v):
    """N = ||S_u − S_v||, the distance between two groups' member sums.

    Parameters
    ----------
    sums : (h, d) float64 — member sums.
    u, v : int — the groups.

    Returns
    -------
    float
    """
    acc = 0.0
    for t in range(sums.shape[1]):
        w = sums[u, t] - sums[v, t]
        acc += w * w
    return math.sqrt(acc)


@njit(cache=True)
def _clears(m, gap, slack, k, d):
    """Inequality (2) with m and N lowered (and N raised in the error term) by the slack."""
    if m <= 0.0:
        return False
    lo = gap - slack
    hi = gap + slack
    gam = GAMMA * (d + 6)
    return 2.0 * m * (lo - m) * (1.0 - 1e-12) > 4.0 * gam * hi * hi + 2.0 * k * EPS


@njit(cache=True)
def far_apart(gap, offset_y, radius_u, k, d, slack):
    """Stage 1: True when the groups' distance alone proves every computed Δ > 2·EPS (inequality (2)).

    Scalars only, so that the caller's loop pays no array-argument overhead for the common case.

    Parameters
    ----------
    gap : float — :func:`sum_gap` (sums, u, v).
    offset_y : float — ``offset[y]``, y's distance from its group's centroid.
    radius_u : float — ``radius[u]``, the largest offset in the receiving group u.
    k : int — the group size.
    d : int — the number of variables.
    slack : float — :func:`bound_slack` of the records and k.

    Returns
    -------
    bool
    """
    return _clears(gap / k - offset_y - radius_u - 3.0 * slack, gap, slack, k, d)


@njit(cache=True, inline="always")
def no_gain(Z, sums, radius, k, u, v, y, gap, slack):
    """Stage 2: True when every exchange of y (in v) with a member of u provably has a computed Δ > 2·EPS.

    Uses the exact distance of z_y from the centre of the ball that bounds ``w`` (module docstring);
    call it when :func:`far_apart` cannot decide. False means "not proven": the caller evaluates the
    exchanges. Inlined into the caller (an array-argument call costs about as much as the test).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    sums : (h, d) float64 — member sums.
    radius : (h,) float64 — each group's largest offset.
    k : int — the group size.
    u, v : int — the group that would receive y, and y's group.
    y : int — the record of v.
    gap : float — :func:`sum_gap` (sums, u, v).
    slack : float — :func:`bound_slack` of the records and k.

    Returns
    -------
    bool
    """
    d = Z.shape[1]
    f = 0.5 - 1.0 / k
    acc = 0.0
    for t in range(d):
        w = Z[y, t] - sums[v, t] / k + f * (sums[u, t] - sums[v, t])
        acc += w * w
    return _clears(0.5 * gap - math.sqrt(acc) - radius[u] - 3.0 * slack, gap, slack, k, d)
