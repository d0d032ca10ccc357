"""The most distant pair of the remaining records (MD, DBFS), kept exact without an O(n³) scan.

Each record keeps a list of its ``TOP`` farthest partners (descending distance,
ties by ascending record id), taken among the records remaining when the list
was made. Records are only ever removed, so the first remaining entry of the
list is the record's farthest remaining partner; once every entry is gone the
list's last distance is still an upper bound, and the record is recomputed
only if that bound surfaces as the global maximum (lazy exact maximum: the
same answer as the naive scan, without recomputing every record whose
partner was grouped — on EIA a few extreme records are everybody's farthest
partner). Ties: the lowest record index of the pair wins, then its
lowest-index partner.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import UNASSIGNED, scratch, work_buffer
from mabench.kernels.core.distances import distances_from, load_point

TOP = 32  # partners kept per record


@njit(cache=True)
def _fill(W, alive, ids, m, slot, S, top_d, top_id, ptr, far_d, far_id, bound):
    """Recompute the TOP farthest remaining partners of the record in ``slot``."""
    rid = ids[slot]
    load_point(W, slot, S.point)
    distances_from(W, alive, m, S.point, S)
    dist = S.dist
    td = top_d[rid]
    ti = top_id[rid]
    cnt = 0
    for i in range(m):
        if not alive[i]:
            continue
        v = dist[i]
        if cnt == TOP and v <= td[cnt - 1]:
            continue  # not farther than the last kept (ties keep the earlier slot = lower id)
        pos = cnt if cnt < TOP else TOP - 1
        while pos > 0 and td[pos - 1] < v:
            td[pos] = td[pos - 1]
            ti[pos] = ti[pos - 1]
            pos -= 1
        td[pos] = v
        ti[pos] = ids[i]
        if cnt < TOP:
            cnt += 1
    for t in range(cnt, TOP):
        td[t] = -1.0
        ti[t] = -1
    ptr[rid] = 0
    far_d[rid] = td[0]  # itself (distance 0) when it is the only one left
    far_id[rid] = ti[0]
    bound[rid] = False


@njit(cache=True)
def far_refresh(W, alive, ids, m, slot, S, state):
    """Recompute the farthest remaining partners of the record in ``slot``.

    Parameters
    ----------
    W : (d, n) float64, alive : (n,) bool, ids : (n,) int64, m : int — the work buffer.
    slot : int — the record's slot.
    S : Scratch — the distance pass's scratch.
    state : tuple — :func:`far_partners` (updated).

    Returns
    -------
    None.
    """
    top_d, top_id, ptr, far_d, far_id, bound = state
    _fill(W, alive, ids, m, slot, S, top_d, top_id, ptr, far_d, far_id, bound)


@njit(cache=True)
def far_partners(W, alive, ids, m, S):
    """The pair-search state for the remaining records: (top_d, top_id, ptr, far_d, far_id, bound),
    indexed by record id.

    Parameters
    ----------
    W : (d, n) float64, alive : (n,) bool, ids : (n,) int64, m : int — the work buffer.
    S : Scratch — the distance pass's scratch.

    Returns
    -------
    top_d : (n, TOP) float64, top_id : (n, TOP) int64 — each record's farthest partners.
    ptr : (n,) int64, far_d : (n,) float64, far_id : (n,) int64, bound : (n,) bool — its current one.
    """
    n = ids.shape[0]
    top_d = np.empty((n, TOP))
    top_id = np.empty((n, TOP), dtype=np.int64)
    ptr = np.zeros(n, dtype=np.int64)
    far_d = np.empty(n)
    far_id = np.empty(n, dtype=np.int64)
    bound = np.zeros(n, dtype=np.bool_)
    for i in range(m):
        if alive[i]:
            _fill(W, alive, ids, m, i, S, top_d, top_id, ptr, far_d, far_id, bound)
    return top_d, top_id, ptr, far_d, far_id, bound


@njit(cache=True)
def pair_start(Z, k):
    """What a most-distant-pair method (MD, DBFS) starts from: the work buffer of every record, no
    record labelled, the scratch, the pair-search state and each record's slot.

    Parameters
    ----------
    Z : (n, d) float64, C-contiguous — the standardized records.
    k : int — the minimum group size (sizes the scratch).

    Returns
    -------
    W : (n, d) float64, ids : (n,) int64, alive : (n,) bool — :func:`~mabench.kernels.core.buffer.work_buffer`.
    labels : (n,) int64 — all ``UNASSIGNED``.
    S : Scratch — :func:`~mabench.kernels.core.buffer.scratch`.
    state : tuple — :func:`far_partners` of every record.
    slot_of : (n,) int64 — each record's slot in the work buffer (the identity).
    """
    n, d = Z.shape
    W, ids, alive = work_buffer(Z)
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    S = scratch(n, d, k)
    state = far_partners(W, alive, ids, n, S)
    return W, ids, alive, labels, S, state, np.arange(n)


@njit(cache=True)
def max_far_slot(far_d, alive, ids, m):
    """The alive slot whose record has the largest ``far_d`` (ties to the lowest slot).

    Parameters
    ----------
    far_d : (n,) float64 — a distance per record id (its farthest partner's, or a bound on it).
    alive : (n,) bool, ids : (n,) int64, m : int — the work buffer's slots.

    Returns
    -------
    int — the slot, or −1 when none is alive.
    """
    r = np.int64(-1)
    best_v = -1.0
    for i in range(m):
        if alive[i] and far_d[ids[i]] > best_v:
            best_v = far_d[ids[i]]
            r = i
    return r


@njit(cache=True)
def most_distant_pair(W, alive, ids, m, S, state, labels):
    """(slot of r, record id of s): the most distant remaining pair, r the record whose row holds it.

    Parameters
    ----------
    W : (d, n) float64, alive : (n,) bool, ids : (n,) int64, m : int — the work buffer.
    S : Scratch — the distance pass's scratch.
    state : tuple — :func:`far_partners` (updated).
    labels : (n,) int64 — ``UNASSIGNED`` for the remaining records.

    Returns
    -------
    (int, int) — the slot of r and the record id of s.
    """
    top_d, top_id, ptr, far_d, far_id, bound = state
    for i in range(m):  # move every list past the partners grouped since the last call
        if not alive[i]:
            continue
        rid = ids[i]
        if bound[rid] or labels[far_id[rid]] == UNASSIGNED:
            continue
        p = ptr[rid] + 1
        while p < TOP and top_id[rid, p] >= 0 and labels[top_id[rid, p]] != UNASSIGNED:
            p += 1
        if p < TOP and top_id[rid, p] >= 0:
            ptr[rid] = p
            far_d[rid] = top_d[rid, p]
            far_id[rid] = top_id[rid, p]
        else:  # list used up (it was full): its last distance bounds every remaining partner
            ptr[rid] = TOP
            far_d[rid] = top_d[rid, TOP - 1]
            bound[rid] = True
    while True:
        r = max_far_slot(far_d, alive, ids, m)
        if not bound[ids[r]]:
            return r, far_id[ids[r]]
        _fill(W, alive, ids, m, r, S, top_d, top_id, ptr, far_d, far_id, bound)
