"""Dissolve-and-reassign refinement: the second phase of DBA (Lin et al. 2010), used by DBA-2, MDAV-2 and TFRP-2.

Given a partition whose labels 0..G-1 are in creation order, the groups are
visited one by one (reverse creation order for DBA, or forward). For the
visited group G:

* each member of G, in record order, is tentatively sent to the *other* live
  group with the nearest centroid (centroids as they stand before G is
  touched; equal distances go to the lower label). With a size ``cap`` only
  groups whose size, counting the members of G already sent there, stays
  <= cap are eligible; if some member has no eligible group, G is kept;
* if the partition's SSE after all those moves is lower than before
  (by more than a relative 1e-12, so that exact ties and rounding noise never
  trigger a move), G is dissolved and the moves are made.

Afterwards the surviving groups are renumbered in label order and, with
``resplit``, every group of more than 2k-1 records is re-split by MDAV-1
(:func:`mdav_labels` with ``TAIL_MDAV1`` on the group's own records): the
group's first sub-group keeps its label, the others get new labels at the end.

Both steps can only lower the SSE: a group is dissolved only when that lowers
the SSE, and splitting a group never raises it (the between-sub-group term
is >= 0). Every group stays >= k (groups only grow, and MDAV-1 makes groups of
>= k). Cost per visited group: one centroid pass over the live groups per
member, O(n * G * d) in total, i.e. O(n^2 d / k) like MDAV.

The plugins of the three methods declare this stage once: :data:`RESPLIT` (the parameter),
:func:`reassign_stage` (the call their parameters make) and :func:`reassign_bound` (the group-size
bound that follows); each declares its own ``order`` (its own default and reading of the seeds).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mabench.kernels.core.distances import sqdist_to
from mabench.kernels.core.groups import follow_links
from mabench.kernels.core.readonly import as_read_only
from mabench.kernels.methods.mdav import TAIL_MDAV1, mdav_labels
from mabench.plugin import Param

NIL = -1


@njit(cache=True)
def _insert_sorted(head, nxt, g, i):
    """Insert record i into group g's member list, kept in increasing record order."""
    if head[g] == NIL or head[g] > i:
        nxt[i] = head[g]
        head[g] = i
        return
    p = head[g]
    while nxt[p] != NIL and nxt[p] < i:
        p = nxt[p]
    nxt[i] = nxt[p]
    nxt[p] = i


@njit(cache=True)
def _fresh_mean(Z, head, nxt, g, cnt, out):
    """Centroid of group g summed in record order (the same bits as a sum over the sorted members)."""
    d = Z.shape[1]
    for j in range(d):
        out[j] = 0.0
    i = head[g]
    while i != NIL:
        for j in range(d):
            out[j] += Z[i, j]
        i = nxt[i]
    for j in range(d):
        out[j] /= cnt


@njit(cache=True)
def _group_sse(Z, head, nxt, g, extra, n_extra, mean):
    """SSE of group g's members plus the records extra[:n_extra] (``mean``: scratch of size d)."""
    d = Z.shape[1]
    for j in range(d):
        mean[j] = 0.0
    c = 0
    i = head[g]
    while i != NIL:
        for j in range(d):
            mean[j] += Z[i, j]
        c += 1
        i = nxt[i]
    for t in range(n_extra):
        for j in range(d):
            mean[j] += Z[extra[t], j]
    c += n_extra
    if c == 0:
        return 0.0
    for j in range(d):
        mean[j] /= c
    s = 0.0
    i = head[g]
    while i != NIL:
        for j in range(d):
            u = Z[i, j] - mean[j]
            s += u * u
        i = nxt[i]
    for t in range(n_extra):
        for j in range(d):
            u = Z[extra[t], j] - mean[j]
            s += u * u
    return s


@njit(cache=True)
def dissolve_reassign(Z, labels, k, cap, reverse, resplit):
    """The refined partition (new label array, labels 0.. consecutive); ``labels`` is not modified.

    ``cap`` = 0: no size limit on receiving groups; ``reverse``: visit groups in
    reverse label order; ``resplit``: re-split groups larger than 2k-1 by MDAV-1.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — a partition, labels 0..G-1.
    k : int — the minimum group size.
    cap : int — the largest size a receiving group may reach (0: none).
    reverse, resplit : bool — as above.

    Returns
    -------
    (n,) int64 — the refined labels.
    """
    n, d = Z.shape
    G = 0
    for i in range(n):
        if labels[i] + 1 > G:
            G = labels[i] + 1
    head = np.full(G, NIL, dtype=np.int64)
    nxt = np.full(n, NIL, dtype=np.int64)
    cnt = np.zeros(G, dtype=np.int64)
    for i in range(n - 1, -1, -1):  # prepend in reverse -> lists in record order
        g = labels[i]
        nxt[i] = head[g]
        head[g] = i
        cnt[g] += 1
    means = np.zeros((G, d))
    for g in range(G):
        if cnt[g] > 0:
            _fresh_mean(Z, head, nxt, g, cnt[g], means[g])
    live = cnt > 0
    n_live = 0
    for g in range(G):
        if live[g]:
            n_live += 1
    incoming = np.zeros(G, dtype=np.int64)  # members of the visited group sent to each target
    members = np.empty(n, dtype=np.int64)
    target = np.empty(n, dtype=np.int64)
    tally = np.zeros(2, dtype=np.int64)  # the sub-MDAV's progress count (unused): one mdav_labels signature
    touched = np.empty(n, dtype=np.int64)
    extra = np.empty(n, dtype=np.int64)
    mean = np.empty(d)
    for step in range(G):
        g = G - 1 - step if reverse else step
        if not live[g] or n_live < 2:
            continue
        m = follow_links(head[g], np.int64(NIL), nxt, members)
        n_touched = 0
        ok = True
        for t in range(m):
            x = members[t]
            best = NIL
            best_v = np.inf
            for h in range(G):
                if h == g or not live[h]:
                    continue
                if cap > 0 and cnt[h] + incoming[h] + 1 > cap:
                    continue
                s = sqdist_to(Z, x, means, h)  # (a - b)² is bit for bit (b - a)²
                if s < best_v:
                    best_v = s
                    best = h
            if best == NIL:
                ok = False
                break
            target[t] = best
            if incoming[best] == 0:
                touched[n_touched] = best
                n_touched += 1
            incoming[best] += 1
        if ok:
            before = _group_sse(Z, head, nxt, g, extra, np.int64(0), mean)
            after = 0.0
            for a in range(n_touched):
                h = touched[a]
                before += _group_sse(Z, head, nxt, h, extra, np.int64(0), mean)
                e = np.int64(0)
                for t in range(m):
                    if target[t] == h:
                        extra[e] = members[t]
                        e += 1
                after += _group_sse(Z, head, nxt, h, extra, e, mean)
            if after - before < -1e-12 * max(1.0, before):
                for t in range(m):
                    _insert_sorted(head, nxt, target[t], members[t])
                    cnt[target[t]] += 1
                head[g] = NIL
                cnt[g] = 0
                live[g] = False
                n_live -= 1
                for a in range(n_touched):
                    h = touched[a]
                    _fresh_mean(Z, head, nxt, h, cnt[h], means[h])
        for a in range(n_touched):
            incoming[touched[a]] = 0
    # renumber the surviving groups in label order; re-split the large ones
    out = np.empty(n, dtype=np.int64)
    new = 0
    for g in range(G):
        if live[g]:
            i = head[g]
            while i != NIL:
                out[i] = new
                i = nxt[i]
            new += 1
    if not resplit:
        return out
    nxt_label = new
    new = 0
    for g in range(G):
        if not live[g]:
            continue
        new += 1
        size = cnt[g]
        if size <= 2 * k - 1:
            continue
        sub_z = np.empty((size, d))
        t = 0
        i = head[g]
        while i != NIL:
            members[t] = i
            for j in range(d):
                sub_z[t, j] = Z[i, j]
            t += 1
            i = nxt[i]
        sub = mdav_labels(as_read_only(sub_z), k, np.int64(TAIL_MDAV1), tally)
        n_sub = 0
        for t in range(size):
            if sub[t] + 1 > n_sub:
                n_sub = sub[t] + 1
            if sub[t] > 0:
                out[members[t]] = nxt_label + sub[t] - 1
        nxt_label += n_sub - 1
    return out


# ------------------------------------------------------------------ the stage as plugins declare it
RESPLIT = Param(True, "re-split groups larger than 2k-1 by MDAV-1 at the end")


def _cap(k: int, params: dict) -> int:
    """The receiving groups' size cap: 4k-1 where the plugin declares ``cap=4k-1`` (TFRP-2), else none (0)."""
    return 4 * k - 1 if params.get("cap") == "4k-1" else 0


def reassign_stage(Z, labels, k, params: dict):
    """:func:`dissolve_reassign` on a first stage's partition, with a plugin's ``order``, ``resplit``
    and (TFRP-2 only) ``cap`` parameters.

    Parameters
    ----------
    Z : (n, d) float64 — the records; labels : (n,) int64 — the first stage's partition, labels 0..G-1.
    k : int — the minimum group size; params : dict — the plugin's parameters.

    Returns
    -------
    (n,) int64 — the refined labels.
    """
    return dissolve_reassign(Z, labels, k, _cap(k, params), params["order"] == "reverse", params["resplit"])


def reassign_bound(k: int, params: dict) -> int | None:
    """The largest group :func:`reassign_stage` leaves (``max_group_size`` of mabench.plugin.Algorithm):
    2k-1 after the re-split, else the cap's 4k-1, else none.

    Parameters
    ----------
    k : int — the minimum group size; params : dict — the plugin's parameters.

    Returns
    -------
    int or None
    """
    if params["resplit"]:
        return 2 * k - 1
    return _cap(k, params) or None
