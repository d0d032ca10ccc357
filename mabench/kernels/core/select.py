"""Selections over the alive slots of the work buffer that do not form a group by themselves, and the
one insertion step every "k smallest so far" list in the kernels uses.

(The argmin over alive slots these methods also use is ``distances.argmin_alive``.)

:func:`select_by_key` is the one quickselect: the k-d tree's split (record ids keyed by one column)
and MCD's h-th smallest distance (positions keyed by the distances) both use it.

:func:`keep_smallest` and :func:`keep_smallest_ranked` keep a list of the ``want`` smallest values
offered so far, ascending, in place. The first is for candidates offered in increasing index order
(a tie keeps the earlier one, so the lowest index wins); the second for candidates offered in any
order, a tie going to the lower rank (the k-d tree visits records in tree order and ranks them by
record id). Both compare and move values only, so a caller's result is bit for bit the same as with
the loop written out. They are inlined into the caller (``inline="always"``): as calls, the array
arguments' reference counting per candidate made DBA-1's neighbour lists 4-5x slower.

Used by the methods that grow a group record by record (P-S's greedy fill,
V-MDAV's extension, CV-MDAV's candidate test). Every tie goes to the lowest
slot, which is the lowest record id (the buffer keeps record order).
"""

from __future__ import annotations

from numba import njit

from mabench.kernels.core.buffer import forget


@njit(cache=True, inline="always")
def _key_at(key, idx, rows, i):
    """The key of place i: key[idx[i]], or key[i] when the rows (of which key is a column) move along."""
    if rows is None:
        return key[idx[i]]
    return key[i]


@njit(cache=True, inline="always")
def _swap(idx, rows, i, j):
    """Swap places i and j of idx (and of rows, when given)."""
    t = idx[i]
    idx[i] = idx[j]
    idx[j] = t
    if rows is not None:
        for q in range(rows.shape[1]):
            u = rows[i, q]
            rows[i, q] = rows[j, q]
            rows[j, q] = u


@njit(cache=True)
def select_by_key(key, idx, lo, hi, kth, rows=None):
    """Reorder idx[lo:hi] so that the keys key[idx[i]] before ``kth`` are <= and after it >= its key:
    Hoare's selection with a median-of-three pivot (equal keys are split evenly, so tied data stay
    linear). Which of several equal keys lands at ``kth`` depends only on the keys' order in
    ``idx``, so a caller that needs a tie rule applies it to the key value found there.

    With ``rows`` the records' rows move with ``idx`` (rows[i] belongs to idx[i]) and ``key`` is one
    of their columns, read in place (key[i]): the reads are contiguous instead of a gather per key
    (the k-d tree's build at 10^6 x 3 and x 10, one thread: half the time, docs/scaling.md). The
    swaps are the same, so ``idx`` ends in the same order either way.

    Parameters
    ----------
    key : (n,) float64 — the keys (any stride; e.g. one column of the records, or of ``rows``).
    idx : (>= hi,) int64 — indices into ``key`` (without ``rows``); idx[lo:hi] is reordered in place.
    lo, hi : int — the range (lo <= kth < hi).
    kth : int — the place to fill with its order statistic.
    rows : (>= hi, d) float64, optional — rows reordered with idx; ``key`` must then be a column of it.

    Returns
    -------
    None.

    Examples
    --------
    >>> import numpy as np
    >>> key, idx = np.array([5.0, 1.0, 3.0, 1.0]), np.arange(4)
    >>> select_by_key(key, idx, 0, 4, 2)
    >>> float(key[idx[2]])
    3.0
    """
    left = lo
    right = hi - 1
    while right > left:
        a = _key_at(key, idx, rows, left)
        b = _key_at(key, idx, rows, (left + right) // 2)
        c = _key_at(key, idx, rows, right)
        pivot = max(min(a, b), min(max(a, b), c))
        i = left
        j = right
        while i <= j:
            while _key_at(key, idx, rows, i) < pivot:
                i += 1
            while _key_at(key, idx, rows, j) > pivot:
                j -= 1
            if i <= j:
                _swap(idx, rows, i, j)
                i += 1
                j -= 1
        if kth <= j:
            right = j
        elif kth >= i:
            left = i
        else:
            break


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
        cnt = keep_smallest(top_d, top_i, cnt, want, dist[i], i)
    return cnt


@njit(cache=True, inline="always")
def keep_smallest(top_d, top_i, cnt, want, v, i):
    """Offer candidate ``i`` with value ``v`` to the ascending list of the ``want`` smallest values
    offered so far; returns the list's new length.

    Candidates must be offered in increasing order of ``i``: a value equal to one already kept goes
    after it (and is dropped when the list is full), so every tie goes to the lowest index.

    Parameters
    ----------
    top_d : (>= want,) float64 — the kept values, ascending, in ``top_d[:cnt]`` (updated in place).
    top_i : (>= want,) int64 — the kept candidates, in the order of ``top_d`` (updated in place).
    cnt : int — how many are kept before the call (0 <= cnt <= want).
    want : int — the list's capacity (>= 1).
    v : float — the candidate's value.
    i : int — the candidate's index.

    Returns
    -------
    int — how many are kept after the call: ``min(cnt + 1, want)``.

    Examples
    --------
    >>> import numpy as np
    >>> top_d, top_i, cnt = np.empty(2), np.empty(2, dtype=np.int64), 0
    >>> for i, v in enumerate([3.0, 1.0, 1.0, 2.0]):
    ...     cnt = keep_smallest(top_d, top_i, cnt, 2, v, i)
    >>> cnt, top_d.tolist(), top_i.tolist()
    (2, [1.0, 1.0], [1, 2])
    """
    if cnt == want and v >= top_d[cnt - 1]:
        return cnt
    end = cnt if cnt < want else want - 1
    pos = end
    while pos > 0 and top_d[pos - 1] > v:
        pos -= 1
    return _put(top_d, top_i, cnt, want, pos, end, v, i)


@njit(cache=True, inline="always")
def keep_smallest_ranked(top_d, top_i, cnt, want, v, i, rank):
    """Offer candidate ``i`` with value ``v`` to the ascending list of the ``want`` smallest
    (value, ``rank[i]``) pairs offered so far, in any order of ``i``; returns the list's new length.

    A tie in value goes to the lower ``rank``; ranks must be distinct.

    Parameters
    ----------
    top_d, top_i, cnt, want, v — as for :func:`keep_smallest`.
    i : int — the candidate's index into ``rank`` (stored in ``top_i``).
    rank : (n,) int64 — each candidate's tie rank (the k-d tree: the record id of a tree position).

    Returns
    -------
    int — the new length, as :func:`keep_smallest` returns it.

    Examples
    --------
    >>> import numpy as np
    >>> top_d, top_i, cnt = np.empty(2), np.empty(2, dtype=np.int64), 0
    >>> rank = np.array([3, 0, 2, 1])
    >>> for i, v in enumerate([1.0, 2.0, 1.0, 1.0]):
    ...     cnt = keep_smallest_ranked(top_d, top_i, cnt, 2, v, i, rank)
    >>> cnt, top_i.tolist()
    (2, [3, 2])
    """
    r = rank[i]
    if cnt == want and (v > top_d[cnt - 1] or (v == top_d[cnt - 1] and r > rank[top_i[cnt - 1]])):
        return cnt
    end = cnt if cnt < want else want - 1
    pos = end
    while pos > 0 and (top_d[pos - 1] > v or (top_d[pos - 1] == v and rank[top_i[pos - 1]] > r)):
        pos -= 1
    return _put(top_d, top_i, cnt, want, pos, end, v, i)


@njit(cache=True, inline="always")
def _put(top_d, top_i, cnt, want, pos, end, v, i):
    """Shift entries pos..end-1 one place up (the last kept one falls off a full list), write the
    candidate at pos; returns the new length."""
    for t in range(end, pos, -1):
        top_d[t] = top_d[t - 1]
        top_i[t] = top_i[t - 1]
    top_d[pos] = v
    top_i[pos] = i
    return cnt + 1 if cnt < want else cnt


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
