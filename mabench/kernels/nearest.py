"""k nearest among the remaining records: the group-forming step of the fixed-size methods."""

from __future__ import annotations

from numba import njit

import numpy as np

from mabench.kernels.buffer import forget
from mabench.kernels.distances import distances_from, load_point
from mabench.kernels.kdtree import kd_delete, kd_nearest_to_group
from mabench.kernels.select import nearest_slots

@njit(cache=True)
def take_nearest(dist, alive, ids, m, seed, k, labels, label, top_d, top_i):
    """Group ``seed`` with its k-1 nearest alive slots (by ``dist``; ties -> lower id).

    The seed is always a member, even when duplicates of it tie at distance 0.
    Members are flagged dead and labelled. ``top_d``/``top_i`` are scratch of size >= k.
    """
    cnt = nearest_slots(dist, alive, m, seed, k - 1, top_d, top_i)
    alive[seed] = False
    labels[ids[seed]] = label
    for t in range(cnt):
        alive[top_i[t]] = False
        labels[ids[top_i[t]]] = label
    return cnt + 1


@njit(cache=True)
def label_rest(alive, ids, m, labels, label):
    """Put every alive slot into group ``label``; return how many."""
    cnt = 0
    for i in range(m):
        if alive[i]:
            alive[i] = False
            labels[ids[i]] = label
            cnt += 1
    return cnt


@njit(cache=True)
def group_around(W, ids, alive, m, seed, k, labels, g, S):
    """Group ``seed`` with its k-1 nearest alive records; return the group size."""
    load_point(W, seed, S[1])
    distances_from(W, alive, m, S[1], S)
    return _take(W, alive, ids, m, seed, k, labels, g, S)


@njit(cache=True)
def _take(W, alive, ids, m, seed, k, labels, g, S):
    """take_nearest on S's distances, then remove the members from the running sums (seed first)."""
    size = take_nearest(S[2], alive, ids, m, seed, k, labels, g, S[3], S[4])
    forget(W, seed, S[7])
    for t in range(size - 1):
        forget(W, S[4][t], S[7])
    return size


@njit(cache=True)
def farthest_group(W, ids, alive, m, c, k, labels, g, S):
    """Group r = the alive record farthest from ``c`` with its k-1 nearest.

    Returns (group size, s) where s is the slot farthest from r, taken before
    r's group is removed (MDAV's second seed; unused by one-group methods).
    """
    r = distances_from(W, alive, m, c, S)
    load_point(W, r, S[1])
    s = distances_from(W, alive, m, S[1], S)
    return _take(W, alive, ids, m, r, k, labels, g, S), s


@njit(cache=True)
def group_around_kd(W, ids, alive, m, seed, k, labels, g, S, T, pos, KS):
    """:func:`group_around` answered by the k-d tree ``T`` (kernels/kdtree.py) instead of a pass.

    The k-1 nearest are taken one at a time (nearest alive to the seed, then the next), which is
    the (distance, id) order of :func:`take_nearest`, with distances summed in the same order:
    the group and the order its members leave the running sums are the same bits. ``T`` must hold
    exactly the alive records; ``pos`` maps record id -> tree position. Returns the group size.
    """
    r = ids[seed]
    members = S[4]
    members[0] = pos[r]
    kd_delete(T, pos[r])
    alive[seed] = False
    labels[r] = g
    forget(W, seed, S[7])
    size = 1
    while size < k:
        i = kd_nearest_to_group(T, members, 1, KS)
        if i < 0:
            break
        kd_delete(T, i)
        slot = np.searchsorted(ids[:m], T[1][i])  # slots keep record order
        alive[slot] = False
        labels[ids[slot]] = g
        forget(W, slot, S[7])
        size += 1
    return size
