"""EMAD — Enhancing Micro-Aggregation with Dependence (Oommen & Fayyoumi 2008).

Source: 001_26cfb99743cbb1f3.txt Ch. 6 §6.2 (Algorithm 13, Conjecture 1,
Eq. 6.5–6.7 and 6.11), §6.3 (experiment sets) and Tables 6.4–6.8.
Pseudocode, choices and evidence: docs/algorithms/emad.md.

    1. discretize every variable into equal-width bins of ``width`` (original units)
    2. weight every pair of variables: EMIM (mutual information), χ² (φ²) or,
       assuming normality, −½·log(1 − ρ²)
    3. maximum spanning tree of the complete graph (Kruskal)
    4. rank the variables by tree degree; the first ``c`` are used —
       when several share the degree at the cut-off, every choice is a possibility
    5. MDAV on the selected standardized columns; IL over ALL columns

``mode=select`` (default) is Algorithm 13; ``mode=exhaustive`` runs the MAT on
every one of the C(d, c) column subsets (Table 6.4) and returns the subset of
minimum IL; ``mode=given`` runs it on ``subset=`` (1-based positions joined
with +, e.g. 4+7+10) — a printed row of a specific subset.

Choices where the thesis is silent (each a parameter, default = the reading
closest to the printed numbers):
* bins: floor((x − min)/width) per variable (anchored at the minimum);
  ``width=0`` means 10 equal-width bins over each variable's range;
* plug-in (relative-frequency) probabilities, no smoothing, natural log,
  0·log 0 = 0; χ² summed over the observed categories;
* Kruskal with edges by decreasing weight, ties to the lower (i, j);
* degree ranking ties: all possibilities are evaluated; ``pick=min`` returns
  the one of lowest IL (the thesis compares that one), ``pick=first`` the one
  with the lowest variable indices;
* ``mat`` — the MDAV of Ch. 6 (k is not stated; k = 3 is used for the tables):
  ``cbfs_fixed`` (default; one group per step around the record farthest from
  the fixed global centroid, the last k..2k−1 form a group: mean |Δ| 0.04 IL
  points over 19 printed three-variable rows), ``cbfs`` (the Ch. 4 MDAV,
  centroid of the remaining records: 0.16) or ``mdav`` (MDAV-generic: 0.25).

Run record: ``tree`` (the maximum spanning tree's edges, 1-based ``i-j`` with
i < j, ';'-separated), ``ranking`` (variable:degree, best first), ``subsets`` (every
tied possibility, ';'-separated), ``il_subsets`` (their IL), ``chosen``; in
exhaustive mode ``n_subsets``, ``il_min``, ``il_max``, ``il_avg``, ``argmin``,
``argmax``.
"""

from __future__ import annotations

import itertools

import numpy as np

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, read_only, tiny_run, tree_memory
from mabench.errors import UserError

MATS = ("cbfs_fixed", "cbfs", "mdav")


# ------------------------------------------------------------------ dependence weights
def discretize(X: np.ndarray, width: float) -> np.ndarray:
    """Bin codes floor((x − min)/width) per column; width 0 = 10 equal-width bins per column."""
    lo = X.min(axis=0)
    if width > 0:
        w = np.full(X.shape[1], float(width))
    else:
        w = (X.max(axis=0) - lo) / 10.0
        w[w == 0] = 1.0
    codes = np.floor((X - lo) / w).astype(np.int64)
    if width <= 0:
        codes = np.minimum(codes, 9)  # the maximum closes the last bin
    return codes


def _joint(a: np.ndarray, b: np.ndarray):
    """Joint and marginal relative frequencies over the observed categories (a, b: category
    indices 0..max as :func:`category_index` gives them)."""
    na, nb = int(a.max()) + 1, int(b.max()) + 1
    table = np.bincount(a * nb + b, minlength=na * nb).reshape(na, nb).astype(np.float64)
    p = table / a.size
    return p, p.sum(axis=1), p.sum(axis=0)


def category_index(codes: np.ndarray) -> np.ndarray:
    """Each column's bin codes as indices of its observed categories (0 = the smallest code)."""
    return np.stack([np.unique(col, return_inverse=True)[1].ravel() for col in codes.T], axis=1)


def emim(a, b) -> float:
    """Expected mutual information Σ P(a,b) log(P(a,b) / (P(a) P(b))) (natural log, 0 log 0 = 0); a, b:
    category indices (:func:`category_index`)."""
    p, pa, pb = _joint(a, b)
    i, j = np.nonzero(p)
    return float((p[i, j] * np.log(p[i, j] / (pa[i] * pb[j]))).sum())


def chi2(a, b) -> float:
    """Σ over observed categories of (P(a,b) − P(a)P(b))² / (P(a)P(b)); a, b: category indices."""
    p, pa, pb = _joint(a, b)
    e = np.outer(pa, pb)
    return float(((p - e) ** 2 / e).sum())


def weight_matrix(X: np.ndarray, weights: str, width: float) -> np.ndarray:
    d = X.shape[1]
    W = np.zeros((d, d))
    if weights == "normal":
        rho = np.corrcoef(X, rowvar=False)
        with np.errstate(divide="ignore"):
            W = -0.5 * np.log(1.0 - np.minimum(rho**2, 1.0))
        np.fill_diagonal(W, 0.0)
        return W
    codes = category_index(discretize(X, width))
    f = emim if weights == "emim" else chi2
    for i in range(d):
        for j in range(i + 1, d):
            W[i, j] = W[j, i] = f(codes[:, i], codes[:, j])
    return W


def maximum_spanning_tree(W: np.ndarray) -> list[tuple[int, int]]:
    """Kruskal on decreasing weight (ties: lower (i, j) first)."""
    d = W.shape[0]
    edges = sorted(((-W[i, j], i, j) for i in range(d) for j in range(i + 1, d)))
    parent = list(range(d))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    tree = []
    for _, i, j in edges:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[ri] = rj
            tree.append((i, j))
    return tree


def degree_ranking(tree, d: int) -> list[tuple[int, int]]:
    """(variable, degree) by decreasing degree, ties by variable index."""
    deg = np.zeros(d, dtype=np.int64)
    for i, j in tree:
        deg[i] += 1
        deg[j] += 1
    return sorted(((v, int(deg[v])) for v in range(d)), key=lambda t: (-t[1], t[0]))


def candidate_subsets(ranking, c: int) -> list[tuple[int, ...]]:
    """The top-c variables; every choice among those tied at the cut-off degree."""
    if c >= len(ranking):
        return [tuple(v for v, _ in ranking)]
    cut = ranking[c - 1][1]
    sure = [v for v, deg in ranking if deg > cut]
    tied = [v for v, deg in ranking if deg == cut]
    return [tuple(sure) + extra for extra in itertools.combinations(tied, c - len(sure))]


# ------------------------------------------------------------------ the MAT on selected columns
def mat_labels(Z: np.ndarray, cols, k: int, mat: str, index: str = "auto") -> np.ndarray:
    # column order must not matter; read-only as the run's data, so the MAT's kernels are compiled once
    Zs = read_only(np.ascontiguousarray(Z[:, sorted(cols)]))
    if mat == "mdav":
        return K.mdav_partition(Zs, k, K.TAIL_3K, index)
    if mat == "cbfs_fixed":
        return K.cbfs_fixed_labels(Zs, k, index)
    return K.cbfs_labels(Zs, k, True, False, index)


def total_ss(Z: np.ndarray) -> float:
    """SST of every (standardized) column: the denominator of :func:`il_all`, once per run."""
    return float(((Z - Z.mean(axis=0)) ** 2).sum())


def il_all(Z: np.ndarray, labels: np.ndarray, sst: float) -> float:
    """100·SSE/SST over every (standardized) column (``sst``: :func:`total_ss` of Z)."""
    return 100.0 * K.sse(Z, labels, int(labels.max()) + 1) / sst


def _names(cols) -> str:
    return "+".join(str(c + 1) for c in cols)


def _parse_subset(text: str, d: int) -> tuple[int, ...]:
    try:
        cols = tuple(int(t) - 1 for t in str(text).split("+") if t.strip())
    except ValueError:
        cols = ()
    if not cols or min(cols) < 0 or max(cols) >= d or len(set(cols)) != len(cols):
        raise UserError(f"emad: subset={text!r} must list distinct 1-based column positions joined with +, "
                        f"between 1 and {d} (e.g. subset=4+7+10)")
    return cols


def run(Z, k, params, rng, raw=None):
    n, d = Z.shape
    c = int(params["c"])
    mode = params["mode"]
    if mode == "given":
        cols = _parse_subset(params["subset"], d)
        labels = mat_labels(Z, cols, k, params["mat"], params["index"])
        return labels, {"chosen": _names(cols)}
    if not 1 <= c <= d:
        raise UserError(f"emad: c={c} variables cannot be selected from {d} columns; choose 1 <= c <= {d}")
    sst = total_ss(Z)
    if mode == "exhaustive":
        best = worst = None
        ils = []
        for cols in itertools.combinations(range(d), c):
            labels = mat_labels(Z, cols, k, params["mat"], params["index"])
            v = il_all(Z, labels, sst)
            ils.append(v)
            if best is None or v < best[0]:
                best = (v, cols, labels)
            if worst is None or v > worst[0]:
                worst = (v, cols)
        return best[2], {"n_subsets": len(ils), "il_min": best[0], "il_max": worst[0],
                         "il_avg": float(np.mean(ils)), "argmin": _names(best[1]), "argmax": _names(worst[1])}
    weights = params["weights"]
    X = Z if raw is None else raw
    if weights != "normal" and raw is None and params["width"] > 0:
        raise UserError("emad: width= is in the data's original units, which this caller does not pass; "
                        "use width=0 (10 bins per variable) or weights=normal")
    tree = maximum_spanning_tree(weight_matrix(np.asarray(X, dtype=np.float64), weights, params["width"]))
    ranking = degree_ranking(tree, d)
    subsets = candidate_subsets(ranking, c)
    results = []
    for cols in subsets:
        labels = mat_labels(Z, cols, k, params["mat"], params["index"])
        results.append((il_all(Z, labels, sst), cols, labels))
    chosen = min(results, key=lambda t: t[0]) if params["pick"] == "min" else results[0]
    info = {"tree": ";".join(f"{i + 1}-{j + 1}" for i, j in sorted(tree)),
            "ranking": ",".join(f"{v + 1}:{deg}" for v, deg in ranking),
            "subsets": ";".join(_names(cols) for cols in subsets),
            "il_subsets": ";".join(f"{v:.4f}" for v, _, _ in results),
            "n_possibilities": len(subsets),
            "chosen": _names(chosen[1])}
    return chosen[2], info


def _mat_width(d, params):
    """The columns each MAT run sees: the subset's (mode=given), else c (at most d: a warm-up's data may
    have fewer columns than c)."""
    return len(_parse_subset(params["subset"], d)) if params["mode"] == "given" else min(int(params["c"]), d)


_warm_mat = K.tree_warm_up(run, width=_mat_width)


def warm_up(n, d, k, params):
    """Compile what a run's MAT calls: ``index=auto`` picks its kernel by n and the subsets' width, not by
    the data's d (:func:`_mat_width`), and CBFS-fixed's ``auto`` first tries a grid in few columns
    (``K.takes_grid``; falling back to that kernel when the grid is crowded), so that one is warmed up as
    the run calls it too."""
    params = {**params, "c": min(int(params["c"]), d)}
    _warm_mat(n, d, k, params)
    if params["mat"] == "cbfs_fixed" and K.takes_grid(params["index"], n, _mat_width(d, params), k):
        tiny_run(ALGORITHM, d, k, params)


ALGORITHM = Algorithm(
    name="emad",
    time="O(n·d²) tables + one MAT run (O(n²·d/k)) per possibility",
    memory_bytes=tree_memory,
    title="EMAD (dependence-tree variable selection, then MDAV)",
    citation="001_26cfb99743cbb1f3.txt Ch. 6 §6.2-6.3 (Algorithm 13); docs/algorithms/emad.md",
    run=run,
    warm_up=warm_up,
    params={
        "mode": Param("select", "select (Algorithm 13) | exhaustive (all C(d, c) subsets) | given (subset=)",
                      ("select", "exhaustive", "given")),
        "weights": Param("emim", "edge weights: emim | chi2 | normal (-1/2 log(1 - rho^2))",
                         ("emim", "chi2", "normal")),
        "width": Param(0.0, "bin width in the data's units (0 = 10 equal-width bins per variable)", min=0.0),
        "c": Param(3, "number of variables used by the MAT", min=1, max=10_000),
        "pick": Param("min", "among tied possibilities: min (lowest IL) | first (lowest indices)", ("min", "first")),
        "mat": Param("cbfs_fixed", "the MDAV run on the selected columns: cbfs_fixed | cbfs | mdav", MATS),
        "index": K.index_param(),
        "subset": Param("none", "mode=given: 1-based column positions joined with + (e.g. 4+7+10)"),
    },
    deterministic=True,
    uses_raw=True,
)
