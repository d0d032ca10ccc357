"""Simulated sets Sim_1, Sim_2, Sim_3 of the Fayyoumi thesis, Ch. 6 (EMAD), reconstructed.

Source: seed ``001_26cfb99743cbb1f3.txt``, §6.3.1 (the data sets, Eq. 6.8-6.10,
Table 6.1) and §6.3.2 (experiment sets). Choices and evidence:
docs/algorithms/emad.md#simulated-sets-sim_1-sim_3.

The thesis draws every variable from a 10-outcome multinomial whose outcomes
are the intervals [1, 100], [101, 200], ..., [901, 1000]; the variables are
linked by a dependence tree: the root's interval has random probabilities, every
other variable's interval is drawn from a random 10 x 10 table of
P(child interval | parent interval), and the value is "a random number" in the
drawn interval. Sizes (Table 6.1): Sim_1 8 x 5,000, Sim_2 16 x 10,000,
Sim_3 22 x 20,000.

    model:   root p ~ Dirichlet(alpha * 1_10); for every child v (in index order):
             row l of P_v = P(v in I_j | parent(v) in I_l) ~ Dirichlet(alpha * 1_10)
    records: U ~ U[0,1)^(n x d); intervals by inverse CDF, root first, then each child
             given its parent's interval (breadth-first from variable 1);
             value = 100 * (interval) + 1 + uniform integer in 0..99

**This is a reconstruction; the thesis's Sim numbers (Tables 6.4-6.8) cannot be
matched.** The thesis's trees (its Fig. 6.4) and probability tables were images
that are lost, and no seeds are given. What is filled in (each documented in
docs/algorithms/emad.md):

1. ``tree=thesis`` (the default): a fixed tree per set, built so that its degree
   ranking gives the thesis's EMAD candidate sets at width 100 (Tables 6.5-6.7:
   {1,3,4}/{1,3,6} tied for Sim_1 and Sim_2, {1,3,5}/{1,3,18} for Sim_3, and the
   single four-variable set of Table 6.6). The edges are in ``THESIS_TREES``
   and in each generator's notes. ``tree=random``: a uniformly random labelled
   tree from a Pruefer sequence drawn from the rng. ``tree=1-2+1-3+...``: any
   tree given by its edges (1-based, joined with +).
2. Random probability vectors: Dirichlet(alpha) with alpha = 1, the uniform
   distribution on the probability simplex (normalised uniforms are not uniform
   on the simplex). ``alpha`` is a parameter.
3. Value inside an interval: a uniform integer (the example domain 1..1000 is
   integer).
4. Conditioning direction: P(child | parent). The thesis's Eq. 6.10 conditions
   the other way round while saying the child depends on the parent.
5. The tree is rooted at variable 1.

Draw order (it fixes the random stream): the Pruefer sequence (tree=random
only), the root vector, the 10 x 10 tables of the children in index order,
the (n, d) uniforms of the intervals, the (n, d) integer offsets. Only the
``rng`` passed in is used: equal seeds give byte-identical data.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from mabench.plugin import MAX_COLUMNS, MAX_RECORDS, Generator, Param
from mabench.errors import UserError

SOURCE = "001_26cfb99743cbb1f3.txt (Fayyoumi 2008 thesis), §6.3.1 Sim_1-Sim_3 and Table 6.1"
DOCS = "docs/algorithms/emad.md"
BINS = 10          # intervals per variable
BIN_WIDTH = 100    # [1, 100], [101, 200], ..., [901, 1000]
MAX_CELLS = 200_000_000

# Reconstructed trees (1-based edges, parent first; rooted at 1). Degrees, highest first:
#   Sim_1: 1 (3), 3 (3), 4 and 6 (2), the rest 1           -> c=3: {1,3,4} / {1,3,6}; c=4: {1,3,4,6}
#   Sim_2: 1 (5), 3 (4), 4 and 6 (3), 7/10/12 (2), rest 1  -> the same candidate sets
#   Sim_3: 1 (6), 3 (5), 5 and 18 (4), 2/4/8/11/19 (2)     -> c=3: {1,3,5} / {1,3,18}; c=4: {1,3,5,18}
THESIS_TREES = {
    8: ((1, 2), (1, 3), (1, 4), (3, 5), (3, 6), (4, 7), (6, 8)),
    16: ((1, 2), (1, 3), (1, 4), (1, 5), (1, 7), (3, 6), (3, 8), (3, 9), (4, 10), (4, 11),
         (6, 12), (6, 13), (7, 14), (10, 15), (12, 16)),
    22: ((1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7), (3, 8), (3, 9), (3, 10), (3, 18),
         (5, 11), (5, 12), (5, 13), (18, 19), (18, 20), (18, 21), (2, 14), (4, 15), (8, 16),
         (11, 17), (19, 22)),
}


def edges_text(edges) -> str:
    """``1-2+1-3+...`` (1-based), the form ``tree=`` accepts."""
    return "+".join(f"{a}-{b}" for a, b in edges)


def _check(owner: str, n: int, d: int, alpha: float) -> None:
    for name, value in (("n", n), ("d", d)):
        if value < 1:
            raise UserError(f"data set {owner}: parameter {name} must be at least 1, got {value}")
    if n * d > MAX_CELLS:
        raise UserError(f"data set {owner}: n*d = {n * d} values is too large (limit {MAX_CELLS})")
    if not (np.isfinite(alpha) and alpha > 0):
        raise UserError(f"data set {owner}: alpha must be a positive number (Dirichlet concentration), got {alpha}")


def pruefer_sequence(rng: np.random.Generator, d: int) -> list[int]:
    """The Pruefer sequence of a uniformly random labelled tree on 0..d-1: d-2 draws from [0, d)."""
    return [int(v) for v in rng.integers(0, d, size=d - 2)] if d > 2 else []


def pruefer_tree(rng: np.random.Generator, d: int) -> list[tuple[int, int]]:
    """A uniformly random labelled tree on 0..d-1 (:func:`pruefer_sequence` decoded), as undirected edges."""
    if d < 2:
        return []
    seq = pruefer_sequence(rng, d)
    degree = [1] * d
    for v in seq:
        degree[v] += 1
    # The smallest current leaf from a heap: O(d log d), the same tree as a scan for the minimum.
    leaves = [u for u in range(d) if degree[u] == 1]
    heapq.heapify(leaves)
    edges = []
    for v in seq:
        leaf = heapq.heappop(leaves)
        edges.append((leaf, v))
        degree[v] -= 1
        if degree[v] == 1:
            heapq.heappush(leaves, v)
    u, w = heapq.heappop(leaves), heapq.heappop(leaves)
    edges.append((u, w))
    return edges


def _parse_edges(owner: str, text: str, d: int) -> list[tuple[int, int]]:
    edges = []
    for item in str(text).split("+"):
        parts = item.strip().split("-")
        try:
            a, b = (int(p) for p in parts)
        except ValueError:
            raise UserError(f"data set {owner}: tree={text!r} must be thesis, random or edges like 1-2+1-3 "
                            f"(1-based variables joined with +); {item!r} is not an edge") from None
        if not (1 <= a <= d and 1 <= b <= d) or a == b:
            raise UserError(f"data set {owner}: tree edge {item!r} must join two different variables in 1..{d}")
        edges.append((a - 1, b - 1))
    return edges


def _orient(owner: str, edges, d: int) -> tuple[np.ndarray, list[int]]:
    """Parent of every variable (root 0 has -1) and the breadth-first order from the root."""
    if len(edges) != d - 1:
        raise UserError(f"data set {owner}: a tree on {d} variables has {d - 1} edges, got {len(edges)}")
    nbrs = [[] for _ in range(d)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    parent = np.full(d, -2, dtype=np.int64)
    parent[0] = -1
    order, queue = [], deque([0])
    while queue:
        v = queue.popleft()
        order.append(v)
        for u in sorted(nbrs[v]):
            if parent[u] == -2:
                parent[u] = v
                queue.append(u)
    if len(order) != d:
        raise UserError(f"data set {owner}: the edges do not connect all {d} variables (not a tree)")
    return parent, order


def draw_model(rng: np.random.Generator, d: int, tree: str, alpha: float = 1.0, owner: str = "dtree") -> dict:
    """The dependence tree and its probabilities (the first draws of the stream).

    Returns ``parent`` (int array, root -1), ``order`` (breadth-first), ``edges`` (1-based
    (parent, child) pairs), ``root_p`` (10,) and ``cpt`` (d, 10, 10): ``cpt[v, l, j]`` =
    P(v in I_j | parent(v) in I_l) (the root's table is unused and zero).
    """
    if tree == "thesis":
        if d not in THESIS_TREES:
            raise UserError(f"data set {owner}: tree=thesis exists for d = 8, 16, 22 (Sim_1-3); "
                            f"use tree=random or an edge list for d = {d}")
        edges = [(a - 1, b - 1) for a, b in THESIS_TREES[d]]
    elif tree == "random":
        edges = pruefer_tree(rng, d)
    else:
        edges = _parse_edges(owner, tree, d)
    parent, order = _orient(owner, edges, d)
    ones = np.full(BINS, float(alpha))
    root_p = rng.dirichlet(ones)
    cpt = np.zeros((d, BINS, BINS))
    for v in range(1, d):
        cpt[v] = rng.dirichlet(ones, size=BINS)
    return {"parent": parent, "order": order, "root_p": root_p, "cpt": cpt,
            "edges": [(int(parent[v]) + 1, v + 1) for v in order[1:]]}


def _inverse_cdf(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Category j of each row: the first j with u < cumsum(p)[j] (p: (m, 10) rows or one (10,) vector)."""
    cdf = np.cumsum(p, axis=-1)
    cdf[..., -1] = 1.0  # rounding must not leave a gap above the last category
    return (u[:, None] >= np.broadcast_to(cdf, (u.size, BINS))).sum(axis=1)


def sample(rng: np.random.Generator, model: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(values (n, d) integers in 1..1000 as float64, intervals (n, d) in 0..9)."""
    d = len(model["parent"])
    u = rng.random((n, d))
    intervals = np.zeros((n, d), dtype=np.int64)
    for v in model["order"]:
        if model["parent"][v] < 0:
            intervals[:, v] = _inverse_cdf(model["root_p"], u[:, v])
        else:
            intervals[:, v] = _inverse_cdf(model["cpt"][v][intervals[:, model["parent"][v]]], u[:, v])
    offsets = rng.integers(0, BIN_WIDTH, size=(n, d))
    return (BIN_WIDTH * intervals + 1 + offsets).astype(np.float64), intervals


def draw(rng: np.random.Generator, n: int, d: int, tree: str, alpha: float = 1.0, owner: str = "dtree"):
    """(values, model): the model first, then the records, from the one ``rng``."""
    _check(owner, n, d, alpha)
    model = draw_model(rng, d, tree, alpha, owner)
    values, _ = sample(rng, model, n)
    return values, model


def _columns(d: int) -> list[str]:
    return [f"V{j + 1}" for j in range(d)]


def _preset(name: str, d: int):
    def generate(rng, n: int, tree: str, alpha: float):
        values, _ = draw(rng, n, d, tree, alpha, owner=name)
        return values, _columns(d)
    return generate


def dtree(rng, n: int, d: int, tree: str, alpha: float):
    values, _ = draw(rng, n, d, tree, alpha, owner="dtree")
    return values, _columns(d)


_CHOICES = ("Reconstruction: the thesis's trees (Fig. 6.4), probability tables and seeds are lost, so its "
            "Sim numbers cannot be matched. Choices: probability vectors Dirichlet(alpha = 1), "
            "P(child | parent), root = variable 1, value = uniform integer inside the interval; "
            f"{DOCS}.")


def _tree_param(default: str) -> Param:
    return Param(default, "thesis (reconstructed tree of the set) | random (Pruefer code from the rng) | "
                          "edges like 1-2+1-3 (1-based, rooted at 1)")


GENERATORS = [
    Generator(
        name=f"fayyoumi_sim{i}",
        title=f"Sim_{i} (Fayyoumi thesis Ch. 6): dependence-tree multinomial, {d} x {n:,}, values 1..1000",
        citation=SOURCE + f" (Sim_{i}; Tables 6.4-6.8)",
        generate=_preset(f"fayyoumi_sim{i}", d),
        params={"n": Param(n, f"number of records (thesis: {n:,})", min=1, max=MAX_RECORDS),
                "tree": _tree_param("thesis"),
                "alpha": Param(1.0, "Dirichlet concentration of every probability vector (1 = uniform on the simplex)", min=0.0, above=True)},
        notes=(f"d = {d}. tree=thesis edges (parent-child, 1-based): {edges_text(THESIS_TREES[d])}. " + _CHOICES),
    )
    for i, d, n in ((1, 8, 5000), (2, 16, 10000), (3, 22, 20000))
] + [
    Generator(
        name="dtree",
        title="Dependence-tree multinomial (the Sim_1-3 recipe of thesis Ch. 6) with any d and tree",
        citation=SOURCE,
        generate=dtree,
        params={"n": Param(5000, "number of records", min=1, max=MAX_RECORDS),
                "d": Param(8, "number of variables", min=1, max=MAX_COLUMNS),
                "tree": Param("random", "random (Pruefer code from the rng) | thesis (d = 8, 16, 22) | "
                                        "edges like 1-2+1-3 (1-based, rooted at 1)"),
                "alpha": Param(1.0, "Dirichlet concentration of every probability vector", min=0.0, above=True)},
        notes=_CHOICES,
    ),
]
