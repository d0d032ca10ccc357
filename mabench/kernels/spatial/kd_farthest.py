"""The alive record farthest from a point, by branch and bound on the k-d tree (kernels/spatial/kdtree.py).

The answer is the distance pass's (kernels/core/distances.py) and the shell scan's
(kernels/spatial/shell.py): the largest squared distance computed as they compute it (0.0, then
(x_j − p_j)² added in attribute order), ties to the lowest record id.

Each node is bounded from above by its box's farthest corner, (max(hi_j − p_j, p_j − lo_j))² added in
the same order. Rounding is monotone, so for every record x in the box each computed |x_j − p_j| is at
most the computed corner term, and so the computed bound is at least every computed distance in the box:
a node whose bound is below the best distance found cannot hold the answer, and one whose bound equals it
is still opened (a record there could tie with a lower id).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")
def box_reach(lo, hi, v, p):
    """Upper bound on the squared distance from p to any record of box v: its farthest corner.

    Parameters
    ----------
    lo, hi : (nodes, d) float64 — the boxes' corners.
    v : int — a node.
    p : (d,) float64 — the point.

    Returns
    -------
    float — the bound.
    """
    b = 0.0
    for j in range(p.size):
        t = max(hi[v, j] - p[j], p[j] - lo[v, j])
        b += t * t
    return b


@njit(cache=True)
def kd_farthest(T, p, KS, skip=-1):
    """Tree position of the alive record farthest from p (ties to the lowest record id), −1 when none
    is alive. Position ``skip`` counts as grouped; the tree is only read.

    Depth-first, the child with the larger bound first, so that a large distance is found early.

    Parameters
    ----------
    T : KDTree — the tree (kernels/spatial/kdtree.py).
    p : (d,) float64 — the point.
    KS : tuple — :func:`~mabench.kernels.spatial.kdtree.kd_scratch` of T (its stack and bounds are used).
    skip : int, default -1 — a position that counts as grouped (−1: none).

    Returns
    -------
    int — the tree position, or −1.
    """
    P, rec, start, end, left, right, lo, hi, count, alive = (T.P, T.rec, T.start, T.end, T.left, T.right, T.lo,
                                                              T.hi, T.count, T.alive)
    _, stack, bounds, _, _ = KS
    d = P.shape[1]
    best = -1.0
    best_i = -1
    best_r = -1
    sp = 0
    if count[0] > 0:
        stack[0] = 0
        bounds[0] = box_reach(lo, hi, 0, p)
        sp = 1
    while sp > 0:
        sp -= 1
        v = stack[sp]
        if count[v] == 0 or bounds[sp] < best:
            continue
        a = left[v]
        if a < 0:
            for i in range(start[v], end[v]):
                if not alive[i] or i == skip:
                    continue
                x = 0.0
                for j in range(d):
                    u = P[i, j] - p[j]
                    x += u * u
                if x > best or (x == best and rec[i] < best_r):
                    best = x
                    best_i = i
                    best_r = rec[i]
            continue
        b = right[v]
        ba = box_reach(lo, hi, a, p)
        bb = box_reach(lo, hi, b, p)
        if ba >= bb:  # the larger bound is pushed last, so it is popped first
            first, fb, second, sb = a, ba, b, bb
        else:
            first, fb, second, sb = b, bb, a, ba
        if count[second] > 0 and sb >= best:
            stack[sp] = second
            bounds[sp] = sb
            sp += 1
        if count[first] > 0 and fb >= best:
            stack[sp] = first
            bounds[sp] = fb
            sp += 1
    return best_i
