"""k nearest among the remaining records: the group-forming step of the fixed-size methods."""

from __future__ import annotations

from numba import njit


from mabench.kernels.core.buffer import forget
from mabench.kernels.core.distances import distances_from, load_point
from mabench.kernels.core.select import nearest_slots

@njit(cache=True)
def take_nearest(dist, alive, ids, m, seed, k, labels, label, top_d, top_i):
    """Group ``seed`` with its k-1 nearest alive slots (by ``dist``; ties -> lower id).

    The seed is always a member, even when duplicates of it tie at distance 0.
    Members are flagged dead and labelled. ``top_d``/``top_i`` are scratch of size >= k.

    Parameters
    ----------
    dist, alive, ids, m : distances to the seed and the work buffer's slots (alive updated).
    seed, k : int — the seed's slot, the group size; labels : (n,) int64, label : int — updated, the label.
    top_d, top_i : (k,) float64, int64 — scratch.

    Returns
    -------
    int — the group size.
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
    """Put every alive slot into group ``label``; return how many.

    Parameters
    ----------
    alive, ids, m : the work buffer's slots (updated); labels : (n,) int64 (updated); label : int.

    Returns
    -------
    int — how many slots were labelled.
    """
    cnt = 0
    for i in range(m):
        if alive[i]:
            alive[i] = False
            labels[ids[i]] = label
            cnt += 1
    return cnt


@njit(cache=True)
def group_around(W, ids, alive, m, seed, k, labels, g, S):
    """Group ``seed`` with its k-1 nearest alive records; return the group size.

    Parameters
    ----------
    W, ids, alive : (d, n) float64, (n,) int64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`), updated; m : int.
    seed, k, g : int — its slot, the group size, the label; labels : (n,) int64; S : Scratch.

    Returns
    -------
    int — the group size.
    """
    load_point(W, seed, S.point)
    distances_from(W, alive, m, S.point, S)
    return _take(W, alive, ids, m, seed, k, labels, g, S)


@njit(cache=True)
def _take(W, alive, ids, m, seed, k, labels, g, S):
    """take_nearest on S's distances, then remove the members from the running sums (seed first)."""
    size = take_nearest(S.dist, alive, ids, m, seed, k, labels, g, S.top_d, S.top_i)
    forget(W, seed, S.sums)
    for t in range(size - 1):
        forget(W, S.top_i[t], S.sums)
    return size


@njit(cache=True)
def farthest_group(W, ids, alive, m, c, k, labels, g, S):
    """Group r = the alive record farthest from ``c`` with its k-1 nearest.

    Returns (group size, s) where s is the slot farthest from r, taken before
    r's group is removed (MDAV's second seed; unused by one-group methods).

    Parameters
    ----------
    W, ids, alive : (d, n) float64, (n,) int64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`) (alive updated).
    m : int; c : (d,) float64 — the point r is farthest from; k, g : int; labels : (n,) int64; S : Scratch.

    Returns
    -------
    (int, int) — the group size and the slot s.
    """
    r = distances_from(W, alive, m, c, S)
    load_point(W, r, S.point)
    s = distances_from(W, alive, m, S.point, S)
    return _take(W, alive, ids, m, r, k, labels, g, S), s
