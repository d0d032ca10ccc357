"""μ-Approx — forest-based approximation to optimal multivariate microaggregation
(Domingo-Ferrer, Sebé & Solanas 2008).

Source: 004_d1273daa16c98592.txt §IV ("first builds a forest and then decomposes
the trees in the forest such that all trees have sizes between k and
max(2k-1, 3k-5). Finally, for any tree with size greater than (2k-1), find the
node in the tree that is furthest from the centroid of the tree. Form a
cluster with this node and its (k-1) nearest records in the tree and form
another cluster with the remaining records in the tree") and Tables I-III
(row μ-Approx); 001_26cfb99743cbb1f3.txt Ch. 2 (the forest's edges join a record
to one of its k-1 nearest neighbours); 003_58f0e37d459aa4df.txt Table 3 (O(n²)).
Pseudocode and every choice: docs/algorithms/hm_mst.md §4.

1. Forest: records are visited in index order; a record not yet in a tree
   starts one and the tree grows Prim-like, always by the shortest edge from
   the tree to a record outside it, until it has k records, or until that
   edge reaches a finished tree, which it then joins. (Every tree below k
   records adds its shortest outgoing edge; this is one fixed schedule of that
   rule. O(n²·d) time, O(n) memory.) ``forest=rounds`` is the other schedule the
   rule allows: all trees below k records add their shortest outgoing edge at once,
   round after round (Borůvka-like). The seeds fix neither ([OPEN]); ``grow`` is the
   default (hm_mst.md §4 gives both readings' numbers).
2. Decomposition, each tree rooted at its lowest-indexed record, while it has
   more than B = max(2k-1, 3k-3) records: take the first vertex v in post-order
   whose subtree has >= k records (all its child subtrees have < k). If the
   rest of the tree keeps >= k records, cut v's subtree off. Otherwise bundle
   v's child subtrees, in index order, into groups of >= k (each < 2k-1); v,
   the unbundled children and the rest stay together, and if they are fewer
   than k they take the last bundle back. Each piece then has k..B records.
   The seeds state the bound max(2k-1, 3k-5) but not the procedure; this
   procedure guarantees B (documented in hm_mst.md §4).
3. A piece with more than 2k-1 records: u = its record farthest from its
   centroid; u with its k-1 nearest records of the piece form one group, the
   remaining k..2k-3 records another. Every other piece is a group.

Group sizes: k..2k-1 after step 3 (a piece has at most 3k-3 records).
Ties: lowest record index throughout.
"""

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import transposed
from mabench.kernels.core.distances import farthest_from_mean
from mabench.plugin import Algorithm, Param


@njit(cache=True)
def _dist_all(W, i, out):
    d, n = W.shape
    for t in range(n):
        out[t] = 0.0
    for j in range(d):
        row = W[j]
        p = row[i]
        for t in range(n):
            x = row[t] - p
            out[t] += x * x


@njit(cache=True)
def forest(Z, k):
    """Step 1: edges (ea[e], eb[e]) of a forest whose trees all have >= k records."""
    n, d = Z.shape
    W = transposed(Z)
    tree = np.full(n, -1, dtype=np.int64)
    in_t = np.zeros(n, dtype=np.bool_)
    key = np.empty(n)
    src = np.empty(n, dtype=np.int64)
    dist = np.empty(n)
    members = np.empty(max(k, 1), dtype=np.int64)
    ea = np.empty(n, dtype=np.int64)
    eb = np.empty(n, dtype=np.int64)
    ne = 0
    n_trees = 0
    for u in range(n):
        if tree[u] >= 0:
            continue
        members[0] = u
        cnt = 1
        in_t[u] = True
        _dist_all(W, u, key)
        for i in range(n):
            src[i] = u
        joined = -1
        while cnt < k:
            v = np.int64(-1)
            best = np.inf
            for i in range(n):
                if not in_t[i] and key[i] < best:
                    best = key[i]
                    v = i
            ea[ne] = src[v]
            eb[ne] = v
            ne += 1
            if tree[v] >= 0:
                joined = tree[v]
                break
            members[cnt] = v
            cnt += 1
            in_t[v] = True
            _dist_all(W, v, dist)
            for i in range(n):
                if dist[i] < key[i]:
                    key[i] = dist[i]
                    src[i] = v
        label = joined if joined >= 0 else n_trees
        if joined < 0:
            n_trees += 1
        for t in range(cnt):
            tree[members[t]] = label
            in_t[members[t]] = False
    return ea[:ne], eb[:ne], tree, n_trees


@njit(cache=True)
def forest_rounds(Z, k):
    """Step 1, ``forest=rounds``: in each round every tree below k records picks its shortest edge
    to a record outside it (ties: lowest own record, then lowest other record); the picks are then
    added in order of the trees' lowest records, skipping any whose ends are already joined."""
    n, d = Z.shape
    W = transposed(Z)
    comp = np.arange(n)  # tree label = its lowest record
    size = np.ones(n, dtype=np.int64)
    dist = np.empty(n)
    best_d = np.empty(n)
    best_a = np.empty(n, dtype=np.int64)
    best_b = np.empty(n, dtype=np.int64)
    ea = np.empty(n, dtype=np.int64)
    eb = np.empty(n, dtype=np.int64)
    ne = 0
    while True:
        best_d[:] = np.inf
        best_a[:] = -1
        small = False
        for a in range(n):
            c = comp[a]
            if size[c] >= k:
                continue
            small = True
            _dist_all(W, a, dist)
            for b in range(n):
                if comp[b] != c and dist[b] < best_d[c]:
                    best_d[c] = dist[b]
                    best_a[c] = a
                    best_b[c] = b
        if not small:
            break
        for c in range(n):
            if best_a[c] < 0:
                continue
            ca = comp[best_a[c]]
            cb = comp[best_b[c]]
            if ca == cb:
                continue
            keep, gone = min(ca, cb), max(ca, cb)
            for i in range(n):
                if comp[i] == gone:
                    comp[i] = keep
            size[keep] += size[gone]
            ea[ne] = best_a[c]
            eb[ne] = best_b[c]
            ne += 1
    tree = np.empty(n, dtype=np.int64)
    label = np.full(n, -1, dtype=np.int64)
    n_trees = 0
    for i in range(n):
        if label[comp[i]] < 0:
            label[comp[i]] = n_trees
            n_trees += 1
        tree[i] = label[comp[i]]
    return ea[:ne], eb[:ne], tree, n_trees


@njit(cache=True)
def _post_order(start, adj_ptr, adj, piece, post, par, sub, it):
    """Post-order of the piece containing ``start`` (rooted there); children by increasing index."""
    pid = piece[start]
    top = 0
    cnt = 0
    stack = it  # reuse: stack of vertices; it[] holds iteration pointers via par/sub scratch
    stack[0] = start
    par[start] = -1
    sub[start] = adj_ptr[start]  # next neighbour to look at (overwritten by the size when done)
    while top >= 0:
        x = stack[top]
        p = sub[x]
        advanced = False
        while p < adj_ptr[x + 1]:
            y = adj[p]
            p += 1
            if y != par[x] and piece[y] == pid:
                sub[x] = p
                par[y] = x
                sub[y] = adj_ptr[y]
                top += 1
                stack[top] = y
                advanced = True
                break
        if not advanced:
            post[cnt] = x
            cnt += 1
            top -= 1
    for t in range(cnt):  # subtree sizes
        sub[post[t]] = 1
    for t in range(cnt):
        x = post[t]
        if par[x] >= 0:
            sub[par[x]] += sub[x]
    return cnt


@njit(cache=True)
def decompose(n, ea, eb, tree, n_trees, k):
    """Step 2: split every tree of more than max(2k-1, 3k-3) records; return the piece of each record."""
    bound = max(2 * k - 1, 3 * k - 3)
    deg = np.zeros(n + 1, dtype=np.int64)
    for e in range(ea.size):
        deg[ea[e] + 1] += 1
        deg[eb[e] + 1] += 1
    adj_ptr = np.cumsum(deg)
    fill = adj_ptr[:-1].copy()
    adj = np.empty(2 * ea.size, dtype=np.int64)
    for e in range(ea.size):
        adj[fill[ea[e]]] = eb[e]
        fill[ea[e]] += 1
        adj[fill[eb[e]]] = ea[e]
        fill[eb[e]] += 1
    for x in range(n):
        adj[adj_ptr[x]:adj_ptr[x + 1]] = np.sort(adj[adj_ptr[x]:adj_ptr[x + 1]])
    piece = tree.copy()
    n_pieces = n_trees
    work = np.empty(n, dtype=np.int64)  # roots of the pieces still to examine
    top = 0
    seen = np.zeros(n_trees, dtype=np.bool_)
    for x in range(n):  # each tree rooted at its lowest-indexed record
        if not seen[tree[x]]:
            seen[tree[x]] = True
            work[top] = x
            top += 1
    post = np.empty(n, dtype=np.int64)
    pos = np.empty(n, dtype=np.int64)
    par = np.empty(n, dtype=np.int64)
    sub = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    kids = np.empty(n, dtype=np.int64)
    while top > 0:
        top -= 1
        root = work[top]
        total = _post_order(root, adj_ptr, adj, piece, post, par, sub, stack)
        if total <= bound:
            continue
        for t in range(total):
            pos[post[t]] = t
        v = -1
        for t in range(total):
            if sub[post[t]] >= k:
                v = post[t]
                break
        if total - sub[v] >= k:  # cut v's subtree off
            for t in range(pos[v] - sub[v] + 1, pos[v] + 1):
                piece[post[t]] = n_pieces
            n_pieces += 1
            work[top] = v
            work[top + 1] = root
            top += 2
            continue
        nk = 0  # v's children by increasing index
        for p in range(adj_ptr[v], adj_ptr[v + 1]):
            y = adj[p]
            if y != par[v] and piece[y] == piece[v]:
                kids[nk] = y
                nk += 1
        own = piece[v]
        acc = 0
        first = 0  # first child of the open bundle
        last_a = -1  # children range of the last committed bundle
        last_b = -1
        last_id = -1
        committed = 0
        for c in range(nk):
            acc += sub[kids[c]]
            if acc >= k:
                for cc in range(first, c + 1):
                    y = kids[cc]
                    for t in range(pos[y] - sub[y] + 1, pos[y] + 1):
                        piece[post[t]] = n_pieces
                last_a, last_b, last_id = first, c, n_pieces
                n_pieces += 1
                committed += acc
                acc = 0
                first = c + 1
        if total - committed < k and last_id >= 0:  # the rest takes the last bundle back
            for cc in range(last_a, last_b + 1):
                y = kids[cc]
                for t in range(pos[y] - sub[y] + 1, pos[y] + 1):
                    piece[post[t]] = own
        work[top] = root
        top += 1
    return piece, n_pieces


@njit(cache=True)
def split_large(Z, piece, n_pieces, k):
    """Step 3: a piece of more than 2k-1 records -> NN_k of its record farthest from its centroid + the rest."""
    n, d = Z.shape
    labels = piece.copy()
    sizes = np.zeros(n_pieces, dtype=np.int64)
    for i in range(n):
        sizes[piece[i]] += 1
    start = np.zeros(n_pieces + 1, dtype=np.int64)
    for p in range(n_pieces):
        start[p + 1] = start[p] + sizes[p]
    fill = start[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for i in range(n):  # members of each piece in record order
        members[fill[piece[i]]] = i
        fill[piece[i]] += 1
    c = np.empty(d)
    next_label = n_pieces
    for p in range(n_pieces):
        m = sizes[p]
        if m <= 2 * k - 1:
            continue
        mem = members[start[p]:start[p + 1]]
        u = farthest_from_mean(Z, mem, c)
        dist = np.empty(m)
        for a in range(m):
            s = 0.0
            for j in range(d):
                t = Z[mem[a], j] - Z[u, j]
                s += t * t
            dist[a] = -1.0 if mem[a] == u else s  # u first, then by distance, ties by index
        near = np.argsort(dist, kind="mergesort")[:k]
        for a in near:
            labels[mem[a]] = next_label
        next_label += 1
    return labels


def run(Z, k, params, rng):
    n = Z.shape[0]
    ea, eb, tree, n_trees = (forest if params["forest"] == "grow" else forest_rounds)(Z, k)
    piece, n_pieces = decompose(n, ea, eb, tree, n_trees, k)
    labels = split_large(Z, piece, n_pieces, k)
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)  # a bundle taken back leaves its id unused


ALGORITHM = Algorithm(
    name="muapprox",
    time="O(n²·d) (k-1 nearest neighbours of every record by passes)",
    title="μ-Approx (forest of >= k-record trees, decomposed, large trees split)",
    citation="004_d1273daa16c98592.txt §IV (μ-Approx) and Tables I-III; 001_26cfb99743cbb1f3.txt Ch. 2; "
    "003_58f0e37d459aa4df.txt Table 3; docs/algorithms/hm_mst.md §4",
    run=run,
    params={"forest": Param("grow", "step 1 schedule: grow = one tree at a time, Prim-like, until k records; "
                            "rounds = every small tree adds its shortest outgoing edge each round (Boruvka)",
                            ("grow", "rounds"))},
    deterministic=True,
)
