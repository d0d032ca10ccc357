"""Plain NumPy / Python references for hm, mhm, mdst and muapprox (test oracles; slow is fine).

Written from the pseudocode in docs/algorithms/hm_mst.md, not from the kernels:
full distance matrices, Python lists and sets, breadth-first searches, recursion.
Only the arithmetic follows the kernels' order (distances accumulated attribute
by attribute, centroids summed in record order, group SSE as
Σ||x||² − ||Σx||²/m from running sums along the sequence), so that exact ties
on integer data resolve identically and partitions can be compared one to one.
"""

from __future__ import annotations

import itertools
from collections import deque

import numpy as np

from oracles.mdav_family import REFERENCE


def d2(Z, p):
    acc = np.zeros(len(Z))
    for j in range(Z.shape[1]):
        t = Z[:, j] - p[j]
        acc += t * t
    return acc


def dist_matrix(Z):
    return np.array([d2(Z, Z[i]) for i in range(len(Z))])


def centroid(Z, members):
    s = np.zeros(Z.shape[1])
    for i in sorted(members):
        s = s + Z[i]
    return s / len(members)


def sse(Z, labels):
    return sum(((Z[labels == g] - Z[labels == g].mean(axis=0)) ** 2).sum() for g in np.unique(labels))


# ---------------------------------------------------------------- HM
def hm_path(Z, order, k):
    """Shortest path over nodes 0..n, arcs a->b with k <= b-a <= 2k-1; smallest last group on ties."""
    n = len(order)
    X = Z[order]
    S1 = np.zeros((n + 1, Z.shape[1]))
    S2 = np.zeros(n + 1)
    for t in range(n):
        S1[t + 1] = S1[t] + X[t]
        q = 0.0
        for j in range(Z.shape[1]):
            q += X[t, j] * X[t, j]
        S2[t + 1] = S2[t] + q

    def weight(a, b):
        s = 0.0
        for j in range(Z.shape[1]):
            t = S1[b, j] - S1[a, j]
            s += t * t
        return max((S2[b] - S2[a]) - s / (b - a), 0.0)

    best = [0.0] + [np.inf] * n
    back = [-1] * (n + 1)
    for b in range(1, n + 1):
        for m in range(k, 2 * k):
            a = b - m
            if a >= 0 and best[a] < np.inf and best[a] + weight(a, b) < best[b]:
                best[b], back[b] = best[a] + weight(a, b), a
    labels = np.full(len(Z), -1)
    b, g = n, 0
    while b > 0:
        labels[order[back[b]:b]] = g
        b, g = back[b], g + 1
    return labels, best[n]


def brute_force_sse(x, k):
    """Minimum SSE over every partition of the values x into groups of >= k (tiny n only)."""
    n = len(x)
    best = np.inf

    def rec(i, groups):
        nonlocal best
        if i == n:
            if all(len(g) >= k for g in groups):
                best = min(best, sum(((x[g] - x[g].mean()) ** 2).sum() for g in map(np.array, groups)))
            return
        for g in groups:
            g.append(i)
            rec(i + 1, groups)
            g.pop()
        if len(groups) < n // k:
            groups.append([i])
            rec(i + 1, groups)
            groups.pop()

    rec(0, [])
    return best


def brute_force_contiguous_sse(x, k):
    """Minimum SSE over every cut of sorted x into contiguous groups of >= k (any size)."""
    s = np.sort(x)
    n = len(s)
    best = np.inf
    for r in range(n):
        for cuts in itertools.combinations(range(1, n), r):
            bounds = (0, *cuts, n)
            if all(b - a >= k for a, b in zip(bounds, bounds[1:])):
                best = min(best, sum(((s[a:b] - s[a:b].mean()) ** 2).sum() for a, b in zip(bounds, bounds[1:])))
    return best


# ---------------------------------------------------------------- MHM
def farthest_from_centroid(Z):
    dist = d2(Z, centroid(Z, range(len(Z))))
    return int(np.argmax(dist))


def npn(Z, start):
    seen = np.zeros(len(Z), bool)
    order = [start]
    seen[start] = True
    for _ in range(len(Z) - 1):
        dist = d2(Z, Z[order[-1]])
        dist[seen] = np.inf
        nxt = int(np.argmin(dist))
        order.append(nxt)
        seen[nxt] = True
    return np.array(order)


def groups_as_sequence(Z, labels, how):
    g = labels.max() + 1
    members = [sorted(np.flatnonzero(labels == h)) for h in range(g)]
    if how == "creation":
        seq = list(range(g))
    elif how == "ends":
        front = list(range(0, g, 2))
        back = list(range(1, g, 2))
        seq = front + back[::-1]
        members = [m[::-1] if h % 2 else m for h, m in enumerate(members)]
    else:  # chain: NPN over the group centroids, from the group of the farthest-from-centroid record
        means = np.array([centroid(Z, m) for m in members])
        seq = list(npn(means, labels[farthest_from_centroid(Z)]))
    return np.array([i for h in seq for i in members[h]])


def mhm(Z, k, order="npn", start="opposite", sequence="ends"):
    if order == "npn":
        first = farthest_from_centroid(Z)
        if start == "opposite":
            first = int(np.argmax(d2(Z, Z[first])))
        seq = npn(Z, first)
    else:
        key = {"mdav": ("mdav", "tail=3k"), "md": ("md", ""), "cbfs": ("cbfs", "centroid=remaining,tail=nearest")}
        seq = groups_as_sequence(Z, np.asarray(REFERENCE[key[order]](Z, k)), sequence)
    return hm_path(Z, seq, k)[0]


# ---------------------------------------------------------------- M-d
def prim(Z):
    """Prim from record 0 on the full matrix; ties: lowest index; equal keys keep the earlier parent."""
    n = len(Z)
    D = dist_matrix(Z)
    key = np.full(n, np.inf)
    parent = np.full(n, -1)
    done = np.zeros(n, bool)
    key[0] = 0.0
    for _ in range(n):
        v = int(np.argmin(np.where(done, np.inf, key)))
        done[v] = True
        for i in range(n):
            if not done[i] and D[v, i] < key[i]:
                key[i], parent[i] = D[v, i], v
    return parent, key


def components(n, edges):
    adj = {i: set() for i in range(n)}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    comp = np.full(n, -1)
    c = 0
    for s in range(n):
        if comp[s] < 0:
            comp[s] = c
            q = deque([s])
            while q:
                x = q.popleft()
                for y in adj[x]:
                    if comp[y] < 0:
                        comp[y] = c
                        q.append(y)
            c += 1
    return comp


def diameter_split(Z, k):
    """D: lower end of the most distant remaining pair + its k-1 nearest, while >= k remain; leftovers nearest."""
    n = len(Z)
    D = dist_matrix(Z)
    mask = np.ones(n, bool)
    labels = np.full(n, -1)
    g = 0
    while mask.sum() >= k:
        idx = np.flatnonzero(mask)
        sub = D[np.ix_(idx, idx)]
        r = int(idx[np.flatnonzero(sub.max(axis=1) == sub.max())[0]])
        others = [i for i in idx if i != r]
        near = sorted(others, key=lambda i: (D[r, i], i))[: k - 1]
        labels[[r, *near]] = g
        mask[[r, *near]] = False
        g += 1
    means = [centroid(Z, np.flatnonzero(labels == h)) for h in range(g)]
    for i in np.flatnonzero(mask):
        labels[i] = int(np.argmin([d2(means[h][None, :], Z[i])[0] for h in range(g)]))
    return labels


def mdst(Z, k, split="d"):
    n = len(Z)
    parent, key = prim(Z)
    edges = {(v, int(parent[v])) for v in range(n) if parent[v] >= 0}
    for v, p in sorted(edges, key=lambda e: (-key[e[0]], e[0])):
        comp = components(n, edges - {(v, p)})
        if (comp == comp[v]).sum() >= k and (comp == comp[p]).sum() >= k:
            edges.discard((v, p))
    comp = components(n, edges)
    labels = comp.copy()
    nxt = comp.max() + 1
    for c in range(comp.max() + 1):
        members = np.flatnonzero(comp == c)
        if len(members) >= 2 * k:
            sub = Z[members]
            part = diameter_split(sub, k) if split == "d" else np.asarray(
                REFERENCE[("cbfs", "centroid=remaining,tail=nearest")](sub, k))
            for h in range(1, part.max() + 1):
                labels[members[part == h]] = nxt
                nxt += 1
    return labels


# ---------------------------------------------------------------- μ-Approx
def mu_forest(Z, k):
    n = len(Z)
    D = dist_matrix(Z)
    tree = np.full(n, -1)
    edges = []
    n_trees = 0
    for u in range(n):
        if tree[u] >= 0:
            continue
        T = [u]
        joined = -1
        while len(T) < k:
            best = (np.inf, -1, -1)  # (distance, outside record, its nearest tree member = earliest added)
            for x in range(n):
                if x in T:
                    continue
                dists = [D[t, x] for t in T]
                dmin = min(dists)
                if dmin < best[0]:
                    best = (dmin, x, T[dists.index(dmin)])
            _, x, t = best
            edges.append((t, x))
            if tree[x] >= 0:
                joined = tree[x]
                break
            T.append(x)
        label = joined if joined >= 0 else n_trees
        n_trees += joined < 0
        tree[T] = label
    return edges, tree


def mu_forest_rounds(Z, k):
    """Every tree below k records picks its shortest outgoing edge; picks added per round, in tree order."""
    n = len(Z)
    D = dist_matrix(Z)
    trees = [{i} for i in range(n)]  # tree of each record (shared set objects)
    edges = []
    while any(len(trees[i]) < k for i in range(n)):
        picks = {}
        for a in range(n):  # lowest own record, then lowest other record, on equal lengths
            T = trees[a]
            if len(T) >= k:
                continue
            key = min(T)
            for b in range(n):
                if b not in T and (key not in picks or D[a, b] < picks[key][0]):
                    picks[key] = (D[a, b], a, b)
        for key in sorted(picks):
            _, a, b = picks[key]
            if trees[a] is trees[b]:
                continue
            merged = trees[a] | trees[b]
            for i in merged:
                trees[i] = merged
            edges.append((a, b))
    tree = np.full(n, -1)
    t = 0
    for i in range(n):
        if tree[i] < 0:
            tree[sorted(trees[i])] = t
            t += 1
    return edges, tree


def mu_decompose(n, edges, tree, k):
    bound = max(2 * k - 1, 3 * k - 3)
    adj = {i: [] for i in range(n)}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    for i in adj:
        adj[i].sort()
    pieces = []  # final vertex sets
    work = [(min(np.flatnonzero(tree == t)), set(np.flatnonzero(tree == t).tolist())) for t in range(tree.max() + 1)]
    while work:
        root, S = work.pop()
        if len(S) <= bound:
            pieces.append(S)
            continue
        parent, post, size = {root: -1}, [], {}

        def visit(x):
            size[x] = 1
            for y in adj[x]:
                if y in S and y != parent[x]:
                    parent[y] = x
                    visit(y)
                    size[x] += size[y]
            post.append(x)

        visit(root)

        def subtree(x):
            out = {x}
            for y in adj[x]:
                if y in S and y != parent[x]:
                    out |= subtree(y)
            return out

        v = next(x for x in post if size[x] >= k)
        if len(S) - size[v] >= k:
            T = subtree(v)
            work += [(v, T), (root, S - T)]
            continue
        kids = [y for y in adj[v] if y in S and y != parent[v]]
        bundles, acc, cur = [], 0, []
        for y in kids:
            cur.append(y)
            acc += size[y]
            if acc >= k:
                bundles.append(set().union(*(subtree(c) for c in cur)))
                acc, cur = 0, []
        rest = S - set().union(*bundles) if bundles else S
        if len(rest) < k and bundles:
            rest |= bundles.pop()
        pieces += bundles
        work.append((root, rest))
    return pieces


def muapprox(Z, k, forest="grow"):
    n = len(Z)
    edges, tree = (mu_forest if forest == "grow" else mu_forest_rounds)(Z, k)
    pieces = mu_decompose(n, edges, tree, k)
    labels = np.full(n, -1)
    g = 0
    for S in pieces:
        members = sorted(S)
        if len(members) > 2 * k - 1:
            c = centroid(Z, members)
            u = members[int(np.argmax(d2(Z[members], c)))]
            near = sorted((i for i in members if i != u), key=lambda i: (d2(Z[i:i + 1], Z[u])[0], i))[: k - 1]
            first = {u, *near}
            labels[sorted(first)] = g
            labels[[i for i in members if i not in first]] = g + 1
            g += 2
        else:
            labels[members] = g
            g += 1
    return labels, pieces
