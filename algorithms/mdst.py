"""M-d — minimum-spanning-tree partitioning with a diameter-based split (Laszlo & Mukherjee 2005).

Source: 004_d1273daa16c98592.txt §I (Laszlo and Mukherjee "extended the standard
minimum spanning tree partitioning algorithm for microaggregation") and
Tables I-II (row M-d); 003_58f0e37d459aa4df.txt §2 (the MST method: "iteratively
removes edges in a decreasing order of their associated weights unless this
removal results in a component with less than k nodes") and Table 3 (M-d,
data oriented, O(n²)). Pseudocode and every choice: docs/algorithms/hm_mst.md §3.

1. Minimum spanning tree of the complete Euclidean graph (Prim's algorithm from
   record 0, O(n²·d) time, O(n) memory: ``mabench.kernels.spatial.mst``).
2. Visit the tree edges once, longest first; remove an edge when both sides of
   it, in the current forest, keep at least k records. Every tree of the
   resulting forest has >= k records.
3. Every tree with 2k or more records is split by a fixed-size method
   (``split``): ``d`` (default, the "-d" of M-d) = diameter-based: while at least
   k records remain, take the most distant pair of the remaining records and
   group its lower-indexed end with its k-1 nearest; ``c`` = centroid-based
   (the ``cbfs`` plugin with its defaults). Fewer than k leftovers join the
   group with the nearest centroid (inside the tree).

Group sizes: trees kept whole have k..2k-1 records; a split tree gives groups of
k plus at most k-1 leftovers, so every group has at most 2k-1 records.

Choices where the sources are silent: Prim starts at record 0 and on equal
keys takes the lowest index; equal-length edges are visited by increasing
index of their child end (child = the end Prim added later); the D step's ties
go to the lowest index (as in ``md``).
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, read_only, tree_memory


@njit(cache=True)
def cut_tree(order, parent, weight, k):
    """Remove MST edges longest first when both sides keep >= k records; return the tree of each record."""
    n = order.size
    root = order[0]
    size = np.ones(n, dtype=np.int64)  # records below each vertex in the current forest
    for t in range(n - 1, 0, -1):
        v = order[t]
        size[parent[v]] += size[v]
    children = np.empty(n - 1, dtype=np.int64)
    w = np.empty(n - 1)
    c = 0
    for v in range(n):
        if v != root:
            children[c] = v
            w[c] = -weight[v]
            c += 1
    by_length = np.argsort(w, kind="mergesort")  # longest first, equal lengths by child index
    cut = np.zeros(n, dtype=np.bool_)
    for e in by_length:
        v = children[e]
        if size[v] < k:
            continue
        top = parent[v]  # the root of v's current tree holds the tree's size
        while not cut[top] and parent[top] >= 0:
            top = parent[top]
        if size[top] - size[v] < k:
            continue
        cut[v] = True
        x = parent[v]
        while True:
            size[x] -= size[v]
            if cut[x] or parent[x] < 0:
                break
            x = parent[x]
    tree = np.empty(n, dtype=np.int64)
    n_trees = 0
    for t in range(n):
        v = order[t]
        if t == 0 or cut[v]:
            tree[v] = n_trees
            n_trees += 1
        else:
            tree[v] = tree[parent[v]]
    return tree, n_trees


@njit(cache=True)
def _refresh(W, alive, ids, m, slot, S, far_d, far_id):
    """Farthest remaining partner of the record in ``slot`` (as in the md plugin)."""
    K.load_point(W, slot, S.point)
    best = K.distances_from(W, alive, m, S.point, S)
    far_d[ids[slot]] = S.dist[best]
    far_id[ids[slot]] = ids[best]


@njit(cache=True)
def diameter_fixed_size(Z, k):
    """D: while >= k records remain, group the lower end of the most distant pair with its k-1 nearest.

    The most distant pair is kept exact lazily: each record stores its farthest
    remaining partner; removals only lower true maxima, so a stale value is an
    upper bound and only a maximum whose partner is gone is recomputed.
    """
    n, d = Z.shape
    W, ids, alive = K.work_buffer(Z)
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    S = K.scratch(n, d, k)
    far_d = np.empty(n)
    far_id = np.empty(n, dtype=np.int64)
    for i in range(n):
        _refresh(W, alive, ids, n, i, S, far_d, far_id)
    m = n
    left = n
    g = np.int64(0)
    while left >= k:
        while True:
            r = K.max_far_slot(far_d, alive, ids, m)
            if labels[far_id[ids[r]]] == K.UNASSIGNED:
                break
            _refresh(W, alive, ids, m, r, S, far_d, far_id)
        left -= K.group_around(W, ids, alive, m, r, k, labels, g, S)
        g += 1
        m = K.compact(W, ids, alive, m, S.sums)
    K.close_tail(Z, alive, ids, m, labels, g, left, k)
    return labels


def run(Z, k, params, rng):
    n = Z.shape[0]
    order, parent, weight = K.prim_mst(Z, 0)
    tree, n_trees = cut_tree(order, parent, weight, k)
    labels = tree.copy()
    sizes = np.bincount(tree, minlength=n_trees)
    big = np.flatnonzero(sizes >= 2 * k)
    if big.size == 0:
        return labels
    members_of = np.split(np.argsort(tree, kind="stable"), np.cumsum(sizes)[:-1])
    next_label = n_trees
    for t in big:
        members = members_of[t]
        sub = read_only(np.ascontiguousarray(Z[members]))  # the run's data's type: shared kernels compiled once
        if params["split"] == "d":
            part = diameter_fixed_size(sub, k)
        else:
            part = K.cbfs_labels(sub, k, False, False, params["index"])  # the cbfs plugin's defaults
        labels[members] = np.where(part == 0, t, next_label + part - 1)
        next_label += int(part.max())
    assert next_label <= n
    return labels


_warm_index = K.tree_warm_up(run)


def warm_up(n, d, k, params):
    """Compile what M-c's sub-trees will use: ``index=auto`` picks the kernel by each sub-tree's size, so
    the one n records would take (a sub-tree may hold nearly all of them) and, below that, the pass."""
    _warm_index(n, d, k, params)
    if params["split"] == "c" and params["index"] == "auto" and K.use_tree("auto", n, d):
        _warm_index(2 * k, d, k, params)


ALGORITHM = Algorithm(
    name="mdst",
    time="O(n²·d) (Prim's MST of the complete graph, keys in O(n))",
    memory_bytes=tree_memory,
    title="M-d (MST partitioning, large trees split by the diameter-based fixed-size method)",
    citation="004_d1273daa16c98592.txt §I and Tables I-II (M-d); 003_58f0e37d459aa4df.txt §2, Table 3; "
    "docs/algorithms/hm_mst.md §3",
    run=run,
    warm_up=warm_up,
    params={"split": Param("d", "fixed-size method for trees of >= 2k records: d = diameter-based (M-d), "
                           "c = centroid-based (M-c)", ("d", "c")),
            "index": K.index_param("split=c: ")},
    deterministic=True,
)
