"""Ward merging under a minimum group size (the k-Ward family's kernel).

Groups are given in a fixed order as (sum vector, size); merging G_i and G_j
costs Ward's SSE increase n_i n_j / (n_i + n_j) · ||mean_i − mean_j||².
Merges never join two groups that both already have >= k records and stop as
soon as every group has >= k records (Domingo-Ferrer & Mateo-Sanz's k-Ward,
001_26cfb99743cbb1f3.txt Ch. 3 Algorithm 2; docs/algorithms/kward.md).

* :func:`ward_merge` — the candidate pairs are all admissible pairs (kW).
  The pair with the smallest increase is merged; ties go to the first pair in
  row-major upper-triangle order (lowest i, then lowest j). The merged group
  keeps slot i. Each row keeps its best partner to the right, so a step costs
  O(m) plus the rows that pointed at the merged pair (the thesis's full scan
  costs O(m²) per step); the result is the same as the full scan.
* :func:`ward_merge_diagonal` — only "diagonal" candidates (kWD, Algorithm 3):
  a group with < k records pairs with its right neighbour, a group with >= k
  records with the first group to its right that has < k records. The
  candidates sit in a binary heap keyed by (increase, slot), so a step costs
  O(log m) plus the candidates it invalidates.
* :func:`kward_sorted` — univariate k-Ward on sorted values: the first k and
  the last k values are seed groups, every other value a singleton; groups of
  2k or more records are processed again (recursively).

Sums are kept instead of means so that integer data merge exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import lowest_alive
from mabench.kernels.core.groups import follow_links


@njit(cache=True)
def ward_increase(S, sizes, i, j):
    """SSE increase of merging groups i and j (rows of the sum matrix S).

    Parameters
    ----------
    S : (m, d) float64 — the groups' column sums.
    sizes : (m,) int64 — their sizes.
    i, j : int — two groups.

    Returns
    -------
    float — the SSE increase.
    """
    ni = float(sizes[i])
    nj = float(sizes[j])
    s = 0.0
    for t in range(S.shape[1]):
        diff = S[i, t] / ni - S[j, t] / nj
        s += diff * diff
    return ni * nj / (ni + nj) * s


@njit(cache=True)
def _row_best(S, sizes, alive, k, i, m, best_v, best_j):
    big_i = sizes[i] >= k
    bv = np.inf
    bj = -1
    for j in range(i + 1, m):
        if alive[j] and not (big_i and sizes[j] >= k):
            v = ward_increase(S, sizes, i, j)
            if v < bv:
                bv = v
                bj = j
    best_v[i] = bv
    best_j[i] = bj


@njit(cache=True)
def _roots(parent):
    """Final group label (0, 1, ... in order of the surviving slots) of every initial slot."""
    m = parent.size
    label_of_root = np.full(m, -1, dtype=np.int64)
    g = np.int64(0)
    for i in range(m):
        if parent[i] == i:
            label_of_root[i] = g
            g += 1
    out = np.empty(m, dtype=np.int64)
    for i in range(m):
        r = i
        while parent[r] != r:
            r = parent[r]
        out[i] = label_of_root[r]
    return out


@njit(cache=True)
def _merge_start(S0, sizes0, k):
    """A merge's working state: m groups, copies of their sums (m, d) and sizes (m,), all alive, each
    its own root, and how many are smaller than k."""
    m = sizes0.size
    sizes = sizes0.copy()
    small = 0
    for i in range(m):
        if sizes[i] < k:
            small += 1
    return m, S0.copy(), sizes, np.ones(m, dtype=np.bool_), np.arange(m), small


@njit(cache=True)
def _merge_pair(S, sizes, alive, parent, i, j, k, small):
    """Group j joins group i (sums, size, root); returns the new count of groups smaller than k."""
    small -= (sizes[i] < k) + (sizes[j] < k)
    for t in range(S.shape[1]):
        S[i, t] += S[j, t]
    sizes[i] += sizes[j]
    small += sizes[i] < k
    alive[j] = False
    parent[j] = i
    return small


@njit(cache=True)
def ward_merge(S0, sizes0, k):
    """kW merging of the initial groups (sums S0 (m, d), sizes0 (m,)); returns each slot's final group.

    Parameters
    ----------
    S0 : (m, d) float64 — the initial groups' column sums.
    sizes0 : (m,) int64 — their sizes.
    k : int — the minimum group size.

    Returns
    -------
    (m,) int64 — each initial group's final group.
    """
    m, S, sizes, alive, parent, small = _merge_start(S0, sizes0, k)
    best_v = np.full(m, np.inf)
    best_j = np.full(m, -1, dtype=np.int64)
    for i in range(m):
        _row_best(S, sizes, alive, k, i, m, best_v, best_j)
    while small > 0:
        i = lowest_alive(best_v, alive, m)
        if i < 0:
            break
        j = best_j[i]
        small = _merge_pair(S, sizes, alive, parent, i, j, k, small)
        best_v[j] = np.inf
        _row_best(S, sizes, alive, k, i, m, best_v, best_j)
        big_i = sizes[i] >= k
        for r in range(j):  # rows right of j only look further right: unaffected
            if not alive[r] or r == i:
                continue
            if best_j[r] == i or best_j[r] == j:
                _row_best(S, sizes, alive, k, r, m, best_v, best_j)
            elif r < i and not (big_i and sizes[r] >= k):
                v = ward_increase(S, sizes, r, i)
                if v < best_v[r] or (v == best_v[r] and i < best_j[r]):
                    best_v[r] = v
                    best_j[r] = i
    return _roots(parent)


# ------------------------------------------------------------------ kWD (diagonal candidates)
@njit(cache=True)
def _heap_set(hv, hi, hs, pos, v, i, s):
    """Heap entry ``pos`` := (value v, slot i, stamp s)."""
    hv[pos] = v
    hi[pos] = i
    hs[pos] = s


@njit(cache=True)
def _heap_before(va, ia, vb, ib):
    """The heap's order: (va, ia) comes before (vb, ib) — smaller value, equal values to the lower slot."""
    return va < vb or (va == vb and ia < ib)


@njit(cache=True)
def _sift_up(hv, hi, hs, pos, v, i, s):
    """Put (v, i, stamp s) into the hole at ``pos``, moving it up past the entries it comes before."""
    while pos > 0:
        parent = (pos - 1) // 2
        if _heap_before(hv[parent], hi[parent], v, i):
            break
        _heap_set(hv, hi, hs, pos, hv[parent], hi[parent], hs[parent])
        pos = parent
    _heap_set(hv, hi, hs, pos, v, i, s)


@njit(cache=True)
def _heap_push(hv, hi, hs, size, v, i, s):
    """Push (v, i, stamp s) onto the min-heap ordered by (v, i); returns the new size (the caller grows full arrays)."""
    _sift_up(hv, hi, hs, size, v, i, s)
    return size + 1


@njit(cache=True)
def _heap_pop(hv, hi, hs, size):
    """Remove the top of the heap; returns the new size.

    The hole left at the top moves down to a leaf, each time filled by its smaller child; the last
    entry then goes into it by :func:`_sift_up` (as Python's heapq: fewer comparisons than sifting
    the last entry down, and one sift for push and pop). The layout can differ from a sift-down's; the
    top, the least (v, i), which is all kWD reads, cannot."""
    size -= 1
    pos = np.int64(0)
    c = 1
    while c < size:
        if c + 1 < size and _heap_before(hv[c + 1], hi[c + 1], hv[c], hi[c]):
            c += 1
        _heap_set(hv, hi, hs, pos, hv[c], hi[c], hs[c])
        pos = c
        c = 2 * pos + 1
    _sift_up(hv, hi, hs, pos, hv[size], hi[size], hs[size])
    return size


@njit(cache=True)
def ward_merge_diagonal(S0, sizes0, k):
    """kWD merging: candidates only on the 'diagonal' of the ordered groups; returns each slot's final group.

    Parameters
    ----------
    S0, sizes0, k — as for :func:`ward_merge`, with the initial groups in value order.

    Returns
    -------
    (m,) int64 — as for :func:`ward_merge`.
    """
    m, S, sizes, alive, parent, small = _merge_start(S0, sizes0, k)
    nxt = np.arange(1, m + 1)
    nxt[m - 1] = -1
    prv = np.arange(-1, m - 1)
    cand_j = np.full(m, -1, dtype=np.int64)
    stamp = np.zeros(m, dtype=np.int64)
    cap = 4 * m + 16
    hv = np.empty(cap)
    hi = np.empty(cap, dtype=np.int64)
    hs = np.empty(cap, dtype=np.int64)
    hsize = np.int64(0)
    todo = np.empty(m + 1, dtype=np.int64)
    for step in range(2 * m + 2):
        # (re)compute the candidates listed in todo[:nt]; step 0 = all slots
        if step == 0:  # right to left, so that a big group can reuse its right neighbour's target
            nt = m
            for i in range(m):
                todo[i] = m - 1 - i
        for q in range(nt):
            i = todo[q]
            j = nxt[i]
            if sizes[i] >= k and j != -1 and sizes[j] >= k:
                j = cand_j[j]  # a big right neighbour's first small group to the right (up to date)
            stamp[i] += 1
            cand_j[i] = j
            if j != -1:
                if hsize == hv.size:
                    hv = np.concatenate((hv, np.empty(hv.size)))
                    hi = np.concatenate((hi, np.empty(hi.size, dtype=np.int64)))
                    hs = np.concatenate((hs, np.empty(hs.size, dtype=np.int64)))
                hsize = _heap_push(hv, hi, hs, hsize, ward_increase(S, sizes, i, j), i, stamp[i])
        if small == 0:
            break
        i = -1
        while hsize > 0:
            top = hi[0]
            fresh = alive[top] and hs[0] == stamp[top]
            if fresh:
                i = top
                break
            hsize = _heap_pop(hv, hi, hs, hsize)
        if i < 0:
            break
        j = cand_j[i]
        # big groups jumped over (their first small group to the right was j), right to left
        nt = follow_links(prv[j], i, prv, todo)
        small = _merge_pair(S, sizes, alive, parent, i, j, k, small)
        nxt[prv[j]] = nxt[j]  # unlink j (the merged group keeps slot i)
        if nxt[j] != -1:
            prv[nxt[j]] = prv[j]
        todo[nt] = i
        nt += 1
        p = prv[i]
        while p != -1:  # left neighbours whose candidate was i, or j through a run of big groups
            todo[nt] = p
            nt += 1
            if sizes[p] < k:
                break
            p = prv[p]
    return _roots(parent)


# ------------------------------------------------------------------ univariate driver
@njit(cache=True)
def _seed_groups(x, k):
    """Initial groups of sorted 1-D values: the first k, singletons, the last k (sums (m, 1), sizes)."""
    n = x.size
    m = n - 2 * k + 2
    S = np.empty((m, 1))
    sizes = np.ones(m, dtype=np.int64)
    first = 0.0
    last = 0.0
    for t in range(k):
        first += x[t]
        last += x[n - k + t]
    S[0, 0] = first
    sizes[0] = k
    for t in range(k, n - k):
        S[t - k + 1, 0] = x[t]
    S[m - 1, 0] = last
    sizes[m - 1] = k
    return S, sizes


def _slot_of_positions(n, k):
    slot = np.empty(n, dtype=np.int64)
    slot[:k] = 0
    slot[k:n - k] = np.arange(1, n - 2 * k + 1)
    slot[n - k:] = n - 2 * k + 1
    return slot


def split_until_small(n: int, k: int, owners) -> np.ndarray:
    """The k-Ward family's recursion: positions 0..n−1 are split by ``owners`` and every group of 2k or
    more is split again on its own, until all groups are smaller than 2k.

    Parameters
    ----------
    n : int — the number of positions.
    k : int — the minimum group size.
owners : callable, (m,) int64 positions -> (m,) int64 — each position's group among them (0, 1, ...), — called on sets
        of at least 2k positions, in ascending order.

    Returns
    -------
    (n,) int64 — a group label per position (0, 1, ...): a set of fewer than 2k positions is one group;
    the groups of one split that are kept take consecutive labels in their order; the sets split
    again are taken last first.
    """
    labels = np.full(n, -1, dtype=np.int64)
    g = 0
    stack = [np.arange(n)]
    while stack:
        idx = stack.pop()
        if idx.size < 2 * k:
            labels[idx] = g
            g += 1
            continue
        owner = owners(idx)
        again = np.bincount(owner) >= 2 * k  # processed again on their own
        keep = ~again[owner]
        labels[idx[keep]] = g + (np.cumsum(~again) - 1)[owner[keep]]  # label offsets of the groups kept
        g += int((~again).sum())
        stack += [idx[owner == grp] for grp in np.flatnonzero(again)]  # ascending positions
    return labels


def kward_sorted(x, k: int, diagonal: bool = False) -> np.ndarray:
    """Univariate k-Ward (kW, or kWD with ``diagonal``) on ascending values ``x``.

    Returns a group label per position of ``x`` (0, 1, ...). Fewer than 2k
    values form one group; every final group of 2k or more values is
    processed again on its own (sorted) values (ascending positions = ascending values).

    Parameters
    ----------
    x : (n,) float64 — ascending values.
    k : int — the minimum group size.
    diagonal : bool — kWD's candidates.

    Returns
    -------
    (n,) int64 — a group label per position.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    merge = ward_merge_diagonal if diagonal else ward_merge

    def owners(idx):
        S, sizes = _seed_groups(x[idx], k)
        return merge(S, sizes, k)[_slot_of_positions(idx.size, k)]

    return split_until_small(x.size, k, owners)


# ------------------------------------------------------------------ recursive k-Ward (kWR / kWDR)
def _sst(x) -> float:
    return float(((x - x.mean()) ** 2).sum()) if x.size else 0.0


def kwr_sorted(x, k: int, theta: float | None, diagonal: bool = False):
    """Recursive k-Ward on ascending values ``x`` (J = 2, equal-count halves).

    A set of at least 2·J·k = 4k values is cut into two contiguous halves of
    equal count (the first half takes the odd value) and r = (SST(half 1) +
    SST(half 2)) / SST(set) is computed. With a fixed threshold (``theta`` a
    number) the set is handed to k-Ward whole when θ > r and split otherwise.
    With the dynamic threshold (``theta=None``) the root always splits and
    every child compares its parent's r with its own (θ = r_parent). Smaller
    sets (and constant sets, r = 0) go to k-Ward (kWD with ``diagonal``).

    Returns (labels per position, number of splits, structure) where the
    structure writes ``(`` + children + ``)`` for a split and ``()`` for a leaf.

    Parameters
    ----------
    x : (n,) float64 — ascending values.
    k : int — the minimum group size.
    theta : float or None — a fixed threshold θ, or None (as described above).
    diagonal : bool — kWD inside.

    Returns
    -------
    labels : (n,) int64 — a group label per position.
    splits : int — the number of splits.
    structure : str — the splits' structure.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    labels = np.full(x.size, -1, dtype=np.int64)
    g = 0
    splits = 0
    out = []
    # explicit stack of (lo, hi, threshold or None for "always split", close-marker)
    stack = [(0, x.size, -np.inf if theta is None else float(theta), False)]
    while stack:
        lo, hi, thr, close = stack.pop()
        if close:
            out.append(")")
            continue
        n = hi - lo
        if n >= 4 * k:
            mid = lo + (n + 1) // 2
            total = _sst(x[lo:hi])
            r = (_sst(x[lo:mid]) + _sst(x[mid:hi])) / total if total > 0 else 0.0
            if total > 0 and not thr > r:
                splits += 1
                child = r if theta is None else thr
                out.append("(")
                stack.append((0, 0, 0.0, True))
                stack.append((mid, hi, child, False))
                stack.append((lo, mid, child, False))
                continue
        leaf = kward_sorted(x[lo:hi], k, diagonal)
        labels[lo:hi] = g + leaf
        g += int(leaf.max()) + 1
        out.append("()")
    return labels, splits, "".join(out)
