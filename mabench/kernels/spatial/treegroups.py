"""The MDAV family's and CBFS's group steps answered by the k-d tree (kernels/spatial/kdtree.py).

The pass kernels (kernels/methods/mdav.py, kernels/methods/cbfs.py with ``index=scan``) find the farthest remaining
record and a seed's k−1 nearest by a full pass over the work buffer per question: O(n²·d) in all.
Here the same questions go to indexes over the remaining records (farthest from a point: the
shell order around a pivot, by the triangle inequality; k nearest to a point: a k-d tree, by branch
and bound), and the rest of the pass kernel's arithmetic is replayed exactly:

* candidate distances: the pass's operations in the pass's order (shell.shell_farthest, kdtree.kd_nearest_k);
* ties: lowest record id, as the pass's lowest slot (its buffer keeps record order);
* the running centroid: the column sums are recomputed in record order over the remaining records
  exactly when the pass kernel compacts its buffer (more than 1/8 of its slots dead, see
  buffer.centroid), and in between each grouped record is subtracted in the order the pass removes
  it (the seed, then its neighbours by (distance, id)); ``c = sums / left``.

So the partition is the pass kernel's, record for record (tests/kernels/test_mdav_tree.py).
A record is remaining iff ``labels[r] == UNASSIGNED``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mabench.kernels.core.buffer import UNASSIGNED, mean_of_sums, sums_due
from mabench.kernels.core.groups import assign_leftovers
from mabench.kernels.spatial.kdtree import kd_delete, kd_nearest_k, kd_remaining, kd_scratch
from mabench.kernels.spatial.shell import shell_farthest, shell_order

REBUILD = 0.75  # rebuild the tree over the remaining records once fewer than this share of it is left
SHELL_REBUILD = 0.9  # re-sort the shell order once fewer than this share of its slots are left: grouped
                     # slots in the band are read like live ones (MDAV 10 % faster than at 0.75, 300,000 x 10)
# In few dimensions the queries are cheap and the rebuilds are what costs (MDAV at 10^6 x 3, one thread, CPU:
# tree rebuilds 23 % and shell re-sorts most of the centroid step's 28 % at the shares above), so from
# LOW_D attributes down the tree and the shell order are rebuilt less often (docs/scaling.md).
LOW_D = 3
REBUILD_LOW_D = 0.5
SHELL_REBUILD_LOW_D = 0.75


@njit(cache=True)
def resum(Z, ids, labels, slots, sums):
    """Keep the remaining ids among ids[:slots] (order kept) and recompute their column sums in
    record order, as buffer.compact does on the work buffer; return how many remain.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    ids : (slots,) int64 — record ids (compacted in place).
    labels : (n,) int64 — -1 (UNASSIGNED) marks a remaining record.
    slots : int — how many entries of ``ids`` are in use.
    sums : (d,) float64 — filled: the remaining records' column sums.

    Returns
    -------
    int — how many ids remain.
    """
    d = Z.shape[1]
    for j in range(d):
        sums[j] = 0.0
    w = 0
    for t in range(slots):
        r = ids[t]
        if labels[r] == UNASSIGNED:
            ids[w] = r
            w += 1
            for j in range(d):
                sums[j] += Z[r, j]
    return w


@njit(cache=True)
def centroid_of_remaining(Z, ids, labels, slots, left, sums, c):
    """buffer.centroid on the records' own layout (its rule :func:`~mabench.kernels.core.buffer.sums_due`
    and its mean :func:`~mabench.kernels.core.buffer.mean_of_sums`), :func:`resum` in place of the
    buffer's compaction; returns the slot count.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    ids : (slots,) int64 — record ids, possibly some grouped (compacted here when recomputed).
    labels : (n,) int64 — -1 marks a remaining record.
    slots : int — entries of ``ids`` in use.
    left : int — records remaining.
    sums : (d,) float64 — running column sums of the remaining records (recomputed when due).
    c : (d,) float64 — filled: the centroid.

    Returns
    -------
    int — the slot count after a possible compaction.
    """
    if sums_due(slots, left):
        slots = resum(Z, ids, labels, slots, sums)
    mean_of_sums(sums, left, c)
    return slots


@njit(cache=True)
def forget_record(Z, r, sums):
    """Take record ``r`` out of the running column sums: ``buffer.forget`` on the records' own layout.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    r : int — the record leaving.
    sums : (d,) float64 — running column sums (updated).

    Returns
    -------
    None
    """
    for j in range(Z.shape[1]):
        sums[j] -= Z[r, j]


@njit(cache=True)
def take_group(Z, T, seed, found, cnt, labels, g, sums):
    """Label tree position ``seed`` and then found[:cnt] (its nearest, by (distance, id)) with ``g``,
    deleting each from the tree and subtracting it from ``sums`` in the pass kernel's order (seed
    first). Returns the group size.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    T : KDTree — the tree over the remaining records (positions deleted here).
    seed : int — the seed's tree position.
    found : (>= cnt,) int64 — tree positions of the other members.
    cnt : int — how many of ``found``.
    labels : (n,) int64 — updated: the members get ``g``.
    g : int — the group's label.
    sums : (d,) float64 — running column sums of the remaining records (updated).

    Returns
    -------
    int — ``cnt + 1``.
    """
    rec = T.rec
    kd_delete(T, seed)
    labels[rec[seed]] = g
    forget_record(Z, rec[seed], sums)
    for t in range(cnt):
        i = found[t]
        kd_delete(T, i)
        labels[rec[i]] = g
        forget_record(Z, rec[i], sums)
    return cnt + 1


@njit(cache=True)
def group_from_tree(Z, T, seed, k, labels, g, sums, p, top_d, top_i, KS):
    """Group tree position ``seed`` with its k−1 nearest remaining records (by (distance, id)),
    label them ``g``, delete them from the tree and subtract them from ``sums`` in the pass
    kernel's order (seed first). Returns the group size.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    T : KDTree — the tree over the remaining records.
    seed : int — the seed's tree position.
    k : int — the group size wanted.
    labels : (n,) int64 — updated.
    g : int — the group's label.
    sums : (d,) float64 — running column sums (updated).
    p : (d,) float64 — scratch: the seed's row.
    top_d, top_i : (k - 1,) float64, int64 — scratch for :func:`~mabench.kernels.spatial.kdtree.kd_nearest_k`.
    KS : tuple — :func:`~mabench.kernels.spatial.kdtree.kd_scratch` of T.

    Returns
    -------
    int — the group size (k, or fewer when fewer remain).
    """
    P = T.P
    for j in range(P.shape[1]):
        p[j] = P[seed, j]
    cnt = kd_nearest_k(T, p, k - 1, top_d, top_i, KS, seed)
    return take_group(Z, T, seed, top_i, cnt, labels, g, sums)


@njit(cache=True, parallel=True)
def far_and_near(T, shell, head, c0, labels, pos, k, r, p, q, near_r, near_s, KS_r, KS_s, answer):
    """MDAV's three questions after r, on two threads, while neither changes the tree or the labels:

    * thread 1: r's k−1 nearest remaining records (r excluded) into near_r;
    * thread 0: s, the remaining record farthest from p = r's row (r's group has not left yet, as in
      the pass kernel), then s's k−1 nearest (s excluded) into near_s. If all of these are still
      there after r's group has left, they are what a query after the removal returns (removing
      records never reorders the others); :func:`all_alive` tells.

    answer = [s's record id, new head, how many near_s holds, how many near_r holds]. Each thread
    writes only its own outputs, so the answers are the same for any number of threads.

    Parameters
    ----------
    T : KDTree — the tree over the remaining records.
    shell : Shell — the remaining records in shell order (:func:`shell_order`).
    head : int — the shell's first position possibly alive.
    c0 : (d,) float64 — the shell's pivot.
    labels : (n,) int64 — -1 marks a remaining record (read only).
    pos : (n,) int64 — each record's tree position.
    k : int — the group size.
    r : int — r's tree position.
    p, q : (d,) float64 — r's row (read); scratch for s's row.
    near_r, near_s : (2, k - 1) float64 / int64 pairs — filled: the nearest lists (squared distances, tree positions).
    KS_r, KS_s : tuple — one :func:`~mabench.kernels.spatial.kdtree.kd_scratch` per thread.
    answer : (4,) int64 — filled as said above.

    Returns
    -------
    None
    """
    for t in prange(2):
        if t == 0:
            ss, h = shell_farthest(shell, head, c0, labels, p)
            answer[0] = ss
            answer[1] = h
            s = pos[ss]
            load_position(T, s, q)
            answer[2] = kd_nearest_k(T, q, k - 1, near_s[0], near_s[1], KS_s, s)
        else:
            answer[3] = kd_nearest_k(T, p, k - 1, near_r[0], near_r[1], KS_r, r)


@njit(cache=True, parallel=True)
def nearest_of_two(T, want, a, b, pa, pb, near_a, near_b, KS_a, KS_b, counts):
    """The ``want`` nearest remaining records of tree positions a and b (each excluding itself), on two
    threads that only read the tree; counts = [how many near_a holds, how many near_b holds].

    Parameters
    ----------
    T : KDTree — the tree over the remaining records.
    want : int — how many nearest.
    a, b : int — two tree positions.
    pa, pb : (d,) float64 — their rows.
near_a, near_b : pairs of (want,) float64 / int64 — filled: the nearest lists (squared distances, tree positions; ties
        to the lower record id).
    KS_a, KS_b : tuple — one :func:`~mabench.kernels.spatial.kdtree.kd_scratch` per thread.
    counts : (2,) int64 — filled: how many each list holds.

    Returns
    -------
    None
    """
    for t in prange(2):
        if t == 0:
            counts[0] = kd_nearest_k(T, pa, want, near_a[0], near_a[1], KS_a, a)
        else:
            counts[1] = kd_nearest_k(T, pb, want, near_b[0], near_b[1], KS_b, b)


@njit(cache=True)
def all_alive(T, found, cnt, want):
    """Whether found[:cnt] are all still in the tree and are as many as wanted.

    Parameters
    ----------
    T : KDTree — the tree.
    found : (>= cnt,) int64 — tree positions.
    cnt : int — how many of ``found``.
    want : int — how many were wanted.

    Returns
    -------
    bool
    """
    if cnt < want:
        return False
    alive = T.alive
    for t in range(cnt):
        if not alive[found[t]]:
            return False
    return True


@njit(cache=True)
def tree_over_remaining(Z, labels, pos):
    """A k-d tree over the records still unassigned (label -1), and each record's tree position.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — -1 marks a remaining record.
    pos : (n,) int64 — filled: each remaining record's tree position (-1 for the others).

    Returns
    -------
    KDTree
    """
    return kd_remaining(Z, labels, np.int64(UNASSIGNED), pos)


@njit(cache=True)
def load_position(T, i, p):
    """Copy the row of tree position ``i`` into ``p``.

    Parameters
    ----------
    T : KDTree — the tree.
    i : int — a tree position.
    p : (d,) float64 — filled.

    Returns
    -------
    None
    """
    P = T.P
    for j in range(P.shape[1]):
        p[j] = P[i, j]


@njit(cache=True)
def label_remaining(labels, g):
    """Put every remaining record into group ``g``; return how many.

    Parameters
    ----------
    labels : (n,) int64 — updated: every -1 becomes ``g``.
    g : int — the label.

    Returns
    -------
    int — how many records were labelled.
    """
    cnt = 0
    for r in range(labels.size):
        if labels[r] == UNASSIGNED:
            labels[r] = g
            cnt += 1
    return cnt


@njit(cache=True)
def close_tree_tail(Z, labels, g, left, k):
    """The tree paths' last step (core.groups.close_tail's rule): k or more records left form group
    ``g``; fewer join their nearest groups. ``labels`` (n,) int64 is updated.

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — updated.
    g : int — the next label.
    left : int — records remaining.
    k : int — the minimum group size.

    Returns
    -------
    None
    """
    if left >= k:
        label_remaining(labels, g)
    elif left > 0:
        assign_leftovers(Z, labels, g)


@njit(cache=True)
def start_sums(Z, labels):
    """Ids of all records, their column sums in record order (buffer.compact's first call).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — -1 marks a remaining record (all, at the start).

    Returns
    -------
    ids : (n,) int64 — 0..n-1, the remaining ones first after :func:`resum`.
    sums : (d,) float64 — their column sums.
    """
    n, d = Z.shape
    ids = np.arange(n)
    sums = np.zeros(d)
    resum(Z, ids, labels, n, sums)
    return ids, sums


@njit(cache=True)
def fresh_tree(Z, labels, pos):
    """A k-d tree over the remaining records with scratch for two queries (one per thread).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — ``UNASSIGNED`` for the remaining records.
    pos : (n,) int64 — filled: each remaining record's position in the tree.

    Returns
    -------
    T : KDTree — :func:`tree_over_remaining`.
    KS, KS2 : tuple — :func:`~mabench.kernels.spatial.kdtree.kd_scratch` of T, twice.
    """
    T = tree_over_remaining(Z, labels, pos)
    return T, kd_scratch(T), kd_scratch(T)


@njit(cache=True)
def start_iteration(Z, labels, pos, left, built, T, KS, KS2, tally):
    """The top of a tree kernel's iteration (MDAV's and CBFS's): progress stored in ``tally``, and the
    tree rebuilt over the remaining records once fewer than ``REBUILD`` of the records it was built
    over remain (its boxes shrink around them; ``REBUILD_LOW_D`` at d <= ``LOW_D``).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — ``UNASSIGNED`` for the remaining records.
    pos : (n,) int64 — each record's tree position (refilled on a rebuild).
    left : int — how many records remain.
    built : int — how many records the tree was built over.
    T : KDTree, KS, KS2 : tuple — the tree and its query scratch for two threads (:func:`fresh_tree`).
    tally : (2,) int64 or None — [records grouped, records] (kernels/core/counter.py), updated.

    Returns
    -------
    T : KDTree, KS, KS2 : tuple — the tree and its scratch, new after a rebuild.
    built : int — ``left`` after a rebuild, else unchanged.
    rebuilt : bool — whether the tree was rebuilt (tree positions found before are stale).
    """
    if tally is not None:
        tally[0], tally[1] = labels.size - left, labels.size
    if left < (REBUILD_LOW_D if Z.shape[1] <= LOW_D else REBUILD) * built:
        T, KS, KS2 = fresh_tree(Z, labels, pos)
        return T, KS, KS2, left, True
    return T, KS, KS2, built, False


@njit(cache=True)
def farthest_remaining(Z, ids, labels, slots, left, sums, c, c0, shell, head):
    """The remaining record farthest from the centroid of the remaining records (MDAV's r, CBFS's
    seed), with the centroid brought up to date in ``c`` and the shell order re-sorted around it once
    fewer than ``SHELL_REBUILD`` of its slots remain (``SHELL_REBUILD_LOW_D`` at d <= ``LOW_D``).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    ids : (n,) int64, slots : int, sums : (d,) float64 — :func:`centroid_of_remaining`'s state.
    labels : (n,) int64 — ``UNASSIGNED`` for the remaining records.
    left : int — how many records remain.
    c : (d,) float64 — filled: the centroid of the remaining records.
    c0 : (d,) float64 — the shell order's pivot (updated when it is re-sorted).
    shell : Shell, head : int — the shell order and its first slot possibly alive.

    Returns
    -------
    slots : int, shell : Shell, head : int — the new state.
    r : int — the record id of the farthest remaining record (ties to the lowest id).
    """
    slots = centroid_of_remaining(Z, ids, labels, slots, left, sums, c)
    if left < (SHELL_REBUILD_LOW_D if Z.shape[1] <= LOW_D else SHELL_REBUILD) * shell.ids.size:
        c0[:] = c
        shell = shell_order(Z, labels, c0)
        head = np.int64(0)
    r, head = shell_farthest(shell, head, c0, labels, c)
    return slots, shell, head, r


@njit(cache=True)
def tree_start(Z, k):
    """What the tree paths of MDAV and CBFS start from: no record assigned, the ids and column sums in
    record order, scratch for a centroid, two points and two sets of k nearest, and a k-d tree over the
    records with query scratch for two threads.

    Parameters
    ----------
    Z : (n, d) float64, C-contiguous — the standardized records.
    k : int — the minimum group size.

    Returns
    -------
    labels : (n,) int64 — all ``UNASSIGNED``.
    ids : (n,) int64, sums : (d,) float64 — :func:`start_sums`.
    c, p, q : (d,) float64 — scratch: a centroid and two points.
    top_d : (k,) float64, top_i : (k,) int64 — scratch: the k nearest of one query.
    near2 : ((k,) float64, (k,) int64) — the same for the second thread's query.
    pos : (n,) int64 — each record's position in the tree.
    T : KDTree — the tree over every record; KS, KS2 : its query scratch, one per thread.
    """
    n, d = Z.shape
    labels = np.full(n, UNASSIGNED, dtype=np.int64)
    ids, sums = start_sums(Z, labels)
    top_d = np.empty(max(k, 1))
    top_i = np.empty(max(k, 1), dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    T, KS, KS2 = fresh_tree(Z, labels, pos)
    near2 = (np.empty(k), np.empty(k, dtype=np.int64))
    return labels, ids, sums, np.empty(d), np.empty(d), np.empty(d), top_d, top_i, near2, pos, T, KS, KS2
