"""Grow a group by maximal interaction (IAMAT, the associative growth step).

IAMAT's association of two records is a = exp(−||x_i − x_j||² / α) and the
interaction of a candidate p with the current group G is the product
Π_{i∈G} a_ip = exp(−Σ_{i∈G} ||x_i − x_p||² / α). exp is increasing, so the
candidate of largest interaction is the candidate of smallest *summed* squared
distance to the members, whatever α > 0 is; this kernel keeps that sum per
remaining record (``acc``) and adds one distance pass per new member. The
second member (most associated with the first) is the special case |G| = 1.
"""

from __future__ import annotations

from numba import njit

from .buffer import forget
from .distances import distances_from, load_point


@njit(cache=True)
def argmin_alive(vals, alive, m):
    """Slot of the smallest value among alive slots; ties go to the lowest slot (= lowest id)."""
    best = -1
    best_v = 0.0
    for i in range(m):
        if alive[i] and (best < 0 or vals[i] < best_v):
            best_v = vals[i]
            best = i
    return best


@njit(cache=True)
def interaction_group(W, ids, alive, m, first, k, labels, g, S, acc):
    """Group ``first`` with k−1 records added one at a time, each the alive record of smallest
    summed squared distance to the members so far; return the group size.

    Members are flagged dead, labelled ``g`` and removed from the running column sums S[7].
    ``acc`` is scratch of length >= m.
    """
    alive[first] = False
    labels[ids[first]] = g
    forget(W, first, S[7])
    size = 1
    cur = first
    for i in range(m):
        acc[i] = 0.0
    while size < k:
        load_point(W, cur, S[1])
        distances_from(W, alive, m, S[1], S)
        dist = S[2]
        for i in range(m):
            acc[i] += dist[i]
        nxt = argmin_alive(acc, alive, m)
        if nxt < 0:
            break
        alive[nxt] = False
        labels[ids[nxt]] = g
        forget(W, nxt, S[7])
        size += 1
        cur = nxt
    return size
