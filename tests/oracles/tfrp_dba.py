"""Plain NumPy reference implementations of TFRP-1/2, DBA-1/2, MDAV-2 and DBFS.

Written from the pseudocode in docs/algorithms/tfrp_dba.md (boolean masks, full
rescans, SSE recomputed from scratch), independently of the Numba kernels'
bookkeeping, as a test oracle. Distances are accumulated attribute by attribute
(like the kernels), so equal distances tie identically: ties go to the lowest
record index, equal centroid distances to the lowest group label.
"""

from __future__ import annotations

import numpy as np

from oracles.mdav_family import _dist, _farthest, _group, _leftovers, _mean, mdav


def _sse(X):
    if len(X) == 0:
        return 0.0
    return float(((X - X.mean(axis=0)) ** 2).sum())


def _relabel(labels):
    """Labels renumbered 0.. in order of first appearance of each old label value (sorted old labels)."""
    _, inv = np.unique(labels, return_inverse=True)
    return inv


# ---------------------------------------------------------------- TFRP-1
def tfrp1(Z, k, ref="scalar"):
    n, d = Z.shape
    if ref == "scalar":
        g1, g2 = np.full(d, Z.min()), np.full(d, Z.max())
    else:
        g1, g2 = Z.min(axis=0), Z.max(axis=0)
    d1, d2 = _dist(Z, g1), _dist(Z, g2)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    g = 0
    while mask.sum() >= k:
        _group(Z, mask, labels, _farthest(d1, mask), k, g)
        g += 1
        if mask.sum() < k:
            break
        _group(Z, mask, labels, _farthest(d2, mask), k, g)
        g += 1
    if mask.any():
        _leftovers(Z, labels)
    return labels


# ---------------------------------------------------------------- DBA-1
def _knn_sum(Z, i, cand, k):
    """Sum of the Euclidean distances from record i to its k-1 nearest among ``cand`` (i excluded)."""
    di = _dist(Z, Z[i])
    others = cand[cand != i]
    order = others[np.argsort(di[others], kind="stable")][: k - 1]
    total = 0.0
    for j in order:  # nearest first, one by one
        total += float(np.sqrt(di[j]))
    return total


def dba1(Z, k, density="remaining"):
    """Highest k-density first (density = 1 / sum of distances to the k-1 nearest; ties -> lowest index)."""
    n = len(Z)
    everyone = np.arange(n)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    if density == "once":
        spread = np.array([_knn_sum(Z, i, everyone, k) for i in range(n)])
    g = 0
    while mask.sum() >= k:
        alive = np.flatnonzero(mask)
        if density == "remaining":
            spread = np.full(n, np.inf)
            spread[alive] = [_knn_sum(Z, i, alive, k) for i in alive]
        s = np.where(mask, spread, np.inf)
        x = int(np.argmin(s))  # highest density = smallest spread; first minimum = lowest index
        _group(Z, mask, labels, x, k, g)
        g += 1
    if mask.any():
        _leftovers(Z, labels)
    return labels


# ---------------------------------------------------------------- refinement (DBA's second phase)
def refine(Z, labels, k, cap=0, resplit=True, reverse=True):
    """Dissolve-and-reassign, groups visited in reverse label (= creation) order (or forward).

    For group G: each member, in record order, is tentatively sent to the nearest
    (by centroid, as it stands before G is touched) other group whose size, counting
    the members of G already sent there, stays <= cap (cap 0 = no limit). If every
    member found a target and the partition's SSE (recomputed from scratch) drops,
    G is dissolved. Then every group larger than 2k-1 is re-split by MDAV-1.
    """
    labels = np.array(labels, dtype=np.int64).copy()
    n_groups = labels.max() + 1
    live = np.ones(n_groups, bool)
    for g in (range(n_groups - 1, -1, -1) if reverse else range(n_groups)):
        members = np.flatnonzero(labels == g)
        others = [h for h in range(n_groups) if live[h] and h != g]
        if not others:
            continue
        means = {h: _mean(Z, labels == h) for h in others}
        size = {h: int((labels == h).sum()) for h in others}
        trial = labels.copy()
        ok = True
        for i in members:
            best, best_v = -1, np.inf
            for h in others:
                if cap and size[h] + 1 > cap:
                    continue
                v = _dist(means[h][None, :], Z[i])[0]
                if v < best_v:
                    best_v, best = v, h
            if best < 0:
                ok = False
                break
            trial[i] = best
            size[best] += 1
        if not ok:
            continue
        touched = set(trial[members].tolist())
        before = _sse(Z[members]) + sum(_sse(Z[labels == h]) for h in touched)
        after = sum(_sse(Z[trial == h]) for h in touched)
        if after - before < -1e-12 * max(1.0, before):
            labels = trial
            live[g] = False
    labels = _relabel(labels)
    if resplit:
        out = labels.copy()
        nxt = labels.max() + 1
        for g in range(labels.max() + 1):
            members = np.flatnonzero(labels == g)
            if len(members) > 2 * k - 1:
                sub = mdav(np.ascontiguousarray(Z[members]), k, "mdav1")
                for h in range(1, sub.max() + 1):
                    out[members[sub == h]] = nxt
                    nxt += 1
        labels = out
    return labels


def mdav2(Z, k, order="forward", resplit=True):
    return refine(Z, mdav(Z, k, "mdav1"), k, resplit=resplit, reverse=order == "reverse")


def dba2(Z, k, density="remaining", order="reverse", resplit=True):
    return refine(Z, dba1(Z, k, density), k, resplit=resplit, reverse=order == "reverse")


def tfrp2(Z, k, ref="scalar", order="forward", cap="4k-1", resplit=True):
    return refine(Z, tfrp1(Z, k, ref), k, cap=4 * k - 1 if cap == "4k-1" else 0, resplit=resplit,
                  reverse=order == "reverse")


# ---------------------------------------------------------------- DBFS
def dbfs(Z, k, step="pair"):
    """step=pair: MD's pair step while >= 2k remain, then every leftover to its nearest group.
    step=single: one group (around r of the most distant pair (r, s), r = lower index) while >= k remain."""
    if step == "pair":
        n = len(Z)
        mask = np.ones(n, bool)
        labels = np.full(n, -1)
        g = 0
        while mask.sum() >= 2 * k:
            r, s = _far_pair(Z, mask)
            _group(Z, mask, labels, r, k, g)
            g += 1
            if not mask[s]:
                s = _farthest(_dist(Z, Z[r]), mask)
            _group(Z, mask, labels, s, k, g)
            g += 1
        if g == 0:
            labels[:] = 0
        elif mask.any():
            _leftovers(Z, labels)
        return labels
    n = len(Z)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    g = 0
    while mask.sum() >= k:
        r, _ = _far_pair(Z, mask)
        _group(Z, mask, labels, r, k, g)
        g += 1
    if mask.any():
        _leftovers(Z, labels)
    return labels


def _far_pair(Z, mask):
    best, r, s = -1.0, -1, -1
    for i in np.flatnonzero(mask):
        di = _dist(Z, Z[i])
        j = _farthest(di, mask)
        if di[j] > best:
            best, r, s = di[j], i, j
    return r, s
