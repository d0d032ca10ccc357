"""Selections over the alive slots of the work buffer that do not form a group by themselves.

(The argmin over alive slots these methods also use is ``distances.argmin_alive``.)

Used by the methods that grow a group record by record (P-S's greedy fill,
V-MDAV's extension, CV-MDAV's candidate test). Every tie goes to the lowest
slot, which is the lowest record id (the buffer keeps record order).
"""

from __future__ import annotations

from numba import njit

from mabench.kernels.core.buffer import forget


@njit(cache=True)
def nearest_slots(dist, alive, m, exclude, want, top_d, top_i):
    """The ``want`` alive slots (other than ``exclude``; -1 = none) with the smallest ``dist``,
    sorted ascending (ties keep the lower slot first) into ``top_d``/``top_i``; returns how many.

    Parameters
    ----------
    dist, alive, m : (n,) float64, (n,) bool, int; exclude : int (−1: none); want : int.
    top_d, top_i : (want,) float64, int64 — filled in ascending order.

    Returns
    -------
    int — how many were found.
    """
    cnt = 0
    if want <= 0:
        return 0
    for i in range(m):
        if not alive[i] or i == exclude:
            continue
        v = dist[i]
        if cnt == want and v >= top_d[cnt - 1]:
            continue
        pos = cnt if cnt < want else want - 1
        while pos > 0 and top_d[pos - 1] > v:
            top_d[pos] = top_d[pos - 1]
            top_i[pos] = top_i[pos - 1]
            pos -= 1
        top_d[pos] = v
        top_i[pos] = i
        if cnt < want:
            cnt += 1
    return cnt


@njit(cache=True)
def add_member(W, ids, alive, slot, labels, g, sums, gsum):
    """Move alive ``slot`` into group ``g``: flag it dead, label it, remove it from the running
    column sums of the remaining records and add it to the group's column sums ``gsum``.

    Parameters
    ----------
    W, ids, alive : (d, n) float64, (n,) int64, (n,) bool — the work buffer (:func:`~mabench.kernels.core.buffer.work_buffer`); slot : int; labels : (n,) int64; g : int.
    sums, gsum : (d,) float64 — the remaining records' and the group's column sums (updated).

    Returns
    -------
    None.
    """
    alive[slot] = False
    labels[ids[slot]] = g
    forget(W, slot, sums)
    for j in range(W.shape[0]):
        gsum[j] += W[j, slot]
