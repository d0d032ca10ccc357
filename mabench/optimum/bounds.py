"""Certified lower bounds on the optimal IL of a data set at k (``mabench bound``).

Four bounds (proofs in docs/bounds.md), each valid for every partition whose groups have at least k
records, whatever their upper size: ``pair`` (:func:`mabench.kernels.lowerbound.bounds.pair_bound`), ``cover``
(the degree-cover LP, :func:`cover_bound`), ``lp`` (the set-partitioning LP by column generation
with subset-row cuts, :func:`lp_bound`, for groups of k..2k−1 records) and ``tail`` (``lp``, raised
by an integer program over the groups of the costliest records, :func:`tail_bound`). IL units as everywhere in
the harness: z-scores of the selected columns, IL = 100·SSE/SST. ``store`` writes
registry/best_known/bounds.csv for the twelve registry cells, so the report and the best-known table
read the bound from a file a command produced.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io
from mabench.errors import UserError

MAX_N = 20000  # the bound is O(n²·d) time, O(n) memory per row; refuse larger inputs up front
METHODS = ("pair", "cover", "lp", "tail")
COVER_CANDIDATES = 30  # each record's nearest records: the cover LP's first edges
COVER_ADD = 200_000  # priced-out pairs added to the cover LP per round, at most
COVER_CUTS = 5_000  # most violated triangle cuts added per round (20,000 made each LP 100x slower)
COLUMNS = ["dataset", "k", "sse_bound", "il_bound", "method", "command"]


def _z(spec: str, seed: int):
    from mabench import data
    from mabench.data.standardize import zscore

    ds = data.load(spec, seed)
    # a file is named as `run` names it (its base name, ./tarragona for a file named like a catalog set)
    name = ds.spec if data.looks_like_path(spec) else spec
    return np.ascontiguousarray(zscore(ds.values, ds.columns), dtype=np.float64), name


def compute(spec: str, ks, seed: int = 0, Z=None, method: str = "pair", budget: float = 120.0,
            start=None) -> list[dict]:
    """One record per k: ``k, n, sse_bound, il_bound, sst, method`` (and, for ``lp``, the LP
    value of the last restricted master, the seconds spent and the column-generation counters).

    ``start``: optional callable k -> labels (a feasible partition whose groups seed the LP; for
    ``tail`` also the incumbent that caps how far the integer program looks)."""
    from mabench.kernels.lowerbound import bounds as KB

    if method not in METHODS:
        raise UserError(f"bound: --method {method!r} must be one of {', '.join(METHODS)}")
    if Z is None:
        Z, spec = _z(spec, seed)
    n = Z.shape[0]
    if n > MAX_N:
        raise UserError(f"bound: {spec!r} has {n} records; the bound handles at most {MAX_N} (O(n²) work)")
    for k in ks:
        if k > n or n < 2:
            raise UserError(f"bound: k={k} exceeds the {n} records of {spec!r}; give k ≤ {n}")
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    width = max(max(ks) - 1, 1)
    near, ids = KB.nearest_sq(Z, min(n - 1, max(width, COVER_CANDIDATES)) if method == "cover" else width)
    out = []
    for k in ks:
        extra = {}
        if method == "pair":
            sse = float(KB.pair_bound(near, k))
        else:
            if method == "cover":
                res = cover_bound(Z, k, ids, budget=budget)
            else:
                labels = start(k) if start is not None else None
                res = lp_bound(Z, k, start_labels=labels, budget=budget, pair=float(KB.pair_bound(near, k)))
                point = res.pop("point")
                if method == "tail" and point is not None:
                    res = {**res, **tail_bound(Z, k, point, res["sse_bound"], _incumbent(Z, labels), time_limit=budget)}
            sse = res.pop("sse_bound")
            extra = {**res, "budget": float(budget)}
        out.append({"dataset": spec, "k": int(k), "n": int(n), "sse_bound": sse,
                    "il_bound": 100.0 * sse / sst if sst > 0 else 0.0, "sst": sst, "method": method, **extra})
    return out


def load(root=None) -> pd.DataFrame:
    from mabench.optimum.best_known import default_dir

    path = Path(root or default_dir()) / "bounds.csv"
    if not path.exists():
        raise UserError(f"{path} does not exist; write it with `mabench bound tarragona -k 3,4,5,10 --store` (and census, eia)")
    frame = pd.read_csv(path, keep_default_na=False)
    # several methods may bound a cell: every one is valid, so the largest is the bound
    frame = frame.sort_values("il_bound", ascending=False, kind="mergesort").drop_duplicates(["dataset", "k"])
    return frame.sort_values(["dataset", "k"], kind="mergesort").reset_index(drop=True)


def store(records: list[dict], root=None) -> Path:
    """Merge ``records`` into bounds.csv (one row per data set, k and method; a new bound replaces the
    row of its method only when it is larger; :func:`load` keeps the largest per cell)."""
    from mabench.optimum.best_known import default_dir

    path = Path(root or default_dir()) / "bounds.csv"
    old = pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame(columns=COLUMNS)
    new = pd.DataFrame([{"dataset": r["dataset"], "k": r["k"], "sse_bound": r["sse_bound"], "il_bound": r["il_bound"],
                         "method": r["method"],
                         "command": f"mabench bound {r['dataset']} -k {r['k']}"
                                    + (f" --method {r['method']} --budget {r['budget']:g}" if r["method"] != "pair" else "")
                                    + " --store"} for r in records])
    if len(old):  # every stored bound is valid: a weaker new bound of the same method leaves the row alone
        prev = {(d, int(k), m): float(b) for d, k, m, b in zip(old["dataset"], old["k"], old["method"], old["il_bound"])}
        new = new[[not prev.get((d, int(k), m), -np.inf) > float(b)
                   for d, k, m, b in zip(new["dataset"], new["k"], new["method"], new["il_bound"])]]
    keys = set(zip(new["dataset"], new["k"].astype(int), new["method"]))
    keep = old[[(d, int(k), m) not in keys for d, k, m in zip(old["dataset"], old["k"], old["method"])]] if len(old) else old
    frame = pd.concat([keep, new], ignore_index=True).sort_values(["dataset", "k", "method"])
    with io.atomic_path(path) as tmp:
        frame[COLUMNS].to_csv(tmp, index=False)  # full repr: a rounded-up bound would not be a bound
    return path


def registry_start(spec: str, root=None):
    """k -> the best-known partition of a registry data set (None when the cell has none)."""
    from mabench.optimum import best_known as BK

    root = Path(root or BK.default_dir())

    def get(k):
        try:
            index = BK.load_index(root)
        except UserError:
            return None
        mask = (index["dataset"] == spec) & (index["k"].astype(int) == int(k))
        if not mask.any():
            return None
        from mabench import data

        n = data.load(spec, 0).values.shape[0]
        return BK.read_partition(root / index.loc[mask, "file"].iloc[0], n)

    return get


def cover_bound(Z, k: int, ids, budget: float = 120.0, rounds: int = 10_000, triangles: bool = True) -> dict:
    """The degree-cover LP bound with triangle cuts (kernels/lowerbound/bounds.py; proof in docs/bounds.md).

    Each round solves the LP (HiGHS interior point) over the candidate pairs — at first each record
    with its nearest (``ids``, as from kernels.bounds.nearest_sq) — and the triangle cuts found so
    far, certifies a bound from its multipliers over all n(n−1)/2 pairs (:func:`_cover_certificate`),
    then adds the pairs that price out and the COVER_CUTS most violated triangles never added
    before; slack cuts whose multiplier is 0 leave. It stops when nothing is added, after ``rounds``,
    or once ``budget`` seconds have passed (the round running then finishes). Returns the largest certified value
    (``sse_bound``) with the last LP value (``lp``), its pairs (``edges``), cuts (``cuts``),
    ``rounds`` and ``seconds``."""
    import time

    from scipy.optimize import linprog

    from mabench.kernels.lowerbound import bounds as KB

    n = Z.shape[0]
    if k < 2:
        return {"sse_bound": 0.0, "lp": 0.0, "edges": 0, "cuts": 0, "rounds": 0, "seconds": 0.0}  # singletons
    if ids.shape[1] < k - 1:
        raise ValueError(f"cover_bound needs each record's k-1 = {k - 1} nearest at least, not {ids.shape[1]}")
    began = time.perf_counter()
    edges = _pair_set(np.column_stack([np.repeat(np.arange(n), ids.shape[1]), ids.ravel()]))
    cuts = np.empty((0, 3), dtype=np.int64)  # (i, j, l): y_jl ≥ y_ij + y_il − 1
    known: set = set()  # every cut ever added: none comes back, so the loop ends
    best, lp, done = 0.0, 0.0, 0
    for done in range(1, rounds + 1):
        if len(cuts):  # every pair a cut names is a column
            edges = _pair_set(np.concatenate([edges, cuts[:, [1, 2]], cuts[:, [0, 1]], cuts[:, [0, 2]]]))
        cost = KB.pair_sq(Z, edges) / k
        A, b, sides = _cover_rows(n, k, edges, cuts)
        res = linprog(cost, A_ub=A, b_ub=b, bounds=(0, 1), method="highs-ipm")
        if res.status != 0:
            raise RuntimeError(f"cover LP: HiGHS stopped with status {res.status}: {res.message}")
        lp = float(res.fun)
        mult = np.maximum(-res.ineqlin.marginals, 0.0)
        u, pi = np.ascontiguousarray(mult[:n]), mult[n:]
        bound, priced = _cover_certificate(Z, k, edges, cost, u, pi, sides)
        best = max(best, bound)
        grown = _pair_set(np.concatenate([edges, priced]))
        new = np.empty((0, 3), dtype=np.int64)
        if triangles:
            viol, ti, tj, tl = KB.violated_triangles(np.int64(n), edges, np.ascontiguousarray(res.x), 1e-6)
            fresh = np.array([t not in known for t in zip(ti.tolist(), tj.tolist(), tl.tolist())], dtype=bool)
            top = np.flatnonzero(fresh)[np.argsort(-viol[fresh], kind="stable")][:COVER_CUTS]
            new = np.column_stack([ti, tj, tl])[top]  # a cut already in the LP is violated only within its tolerance
        if (len(grown) == len(edges) and not len(new)) or time.perf_counter() - began > budget:
            break
        known.update(map(tuple, new.tolist()))
        keep = (pi > 0) | (res.ineqlin.residual[n:] <= 1e-9)  # slack cuts with multiplier 0 leave
        cuts = np.concatenate([cuts[keep], new])
        edges = grown
    return {"sse_bound": best, "lp": lp, "edges": int(len(edges)), "cuts": int(len(cuts)), "rounds": done,
            "seconds": round(time.perf_counter() - began, 3)}


def _pair_set(pairs) -> np.ndarray:
    """Distinct pairs (a < b), sorted."""
    return np.unique(np.sort(np.asarray(pairs, dtype=np.int64), axis=1), axis=0)


def _cover_rows(n: int, k: int, edges, cuts):
    """The cover LP's rows as A·y ≤ b: −(degree of i) ≤ −(k−1), then y_ij + y_il − y_jl ≤ 1 per cut;
    with each cut's (closing, side, side) column indices."""
    from scipy import sparse

    m, c = len(edges), len(cuts)
    keys = edges[:, 0] * n + edges[:, 1]  # ascending: edges are sorted pairs

    def column(x, y):
        return np.searchsorted(keys, np.minimum(x, y) * n + np.maximum(x, y))

    sides = tuple(column(cuts[:, p], cuts[:, q]) for p, q in ((1, 2), (0, 1), (0, 2)))
    rows = np.concatenate([edges[:, 0], edges[:, 1]] + [n + np.arange(c)] * 3)
    cols = np.concatenate([np.arange(m), np.arange(m), *sides])
    vals = np.concatenate([-np.ones(2 * m), -np.ones(c), np.ones(2 * c)])
    A = sparse.csr_matrix((vals, (rows, cols)), shape=(n + c, m))
    return A, np.concatenate([np.full(n, -(k - 1.0)), np.ones(c)]), sides


def _cover_certificate(Z, k: int, edges, cost, u, pi, sides):
    """Weak duality for multipliers u ≥ 0 (degrees) and π ≥ 0 (cuts), whatever their source:
    SSE ≥ (k−1)·Σu − Σπ − Σ_{all pairs} max(0, u_a + u_b + π(as closing pair) − π(as side pair) − d²/k)
    (docs/bounds.md). Pairs outside ``edges`` are in no cut; :func:`kernels.bounds.cover_pricing`
    sums their terms (it sums every pair's plain term; the columns' plain terms come off again).
    Returns (the bound stepped down by :func:`_safe`, up to COVER_ADD pairs that price out)."""
    from mabench.kernels.lowerbound import bounds as KB

    closing, side1, side2 = sides
    plain = u[edges[:, 0]] + u[edges[:, 1]] - cost
    reduced = plain.copy()
    np.add.at(reduced, closing, pi)
    np.add.at(reduced, side1, -pi)
    np.add.at(reduced, side2, -pi)
    everywhere, priced, _ = KB.cover_pricing(Z, u, np.int64(k), np.int64(COVER_ADD))
    outside = everywhere - float(np.maximum(plain, 0.0).sum())
    penalty = float(np.maximum(reduced, 0.0).sum()) + max(outside, 0.0)
    dual = (k - 1) * float(u.sum()) - float(pi.sum())
    return _safe(dual - penalty, abs(dual) + penalty + float(pi.sum()) + everywhere), priced


def _safe(value: float, scale: float) -> float:
    """A floating-point sum is exact to ~1e-13 relative here; step down by 1e-10 of the scale."""
    return value - 1e-10 * scale - 1e-12


def lagrangian(Z, u, k: int, P, node_limit: int, emax: int, maxcols: int = 1, cuts=None):
    """L(u) = Σu − Σpen + n·ρ, ρ = kernels.colgen.certified_price's proven lower bound on min_S r(S)/|S|
    (stepped down by :func:`_safe`): a lower bound on the LP, hence on the optimal SSE, for ANY u and
    any penalties pen ≥ 0 on the subset-row cuts. ``cuts``: (cut_ptr, cut_ids, pen) from
    kernels.colgen.cut_index, or None. Returns (L, the certified_price tuple)."""
    from mabench.kernels.lowerbound import colgen as CG

    n = Z.shape[0]
    u = np.ascontiguousarray(u, dtype=np.float64)
    cut_ptr, cut_ids, pen = cuts if cuts is not None else (*CG.cut_index(np.zeros((0, 3)), n), np.zeros(0))
    pen = np.ascontiguousarray(np.maximum(pen, 0.0), dtype=np.float64)  # a cut's dual is ≤ 0
    out = CG.certified_price(Z, u, k, 2 * k - 1, P, node_limit, emax, maxcols, cut_ptr, cut_ids, pen)
    rho = float(out[0])
    value = float(u.sum()) - float(pen.sum()) + n * rho
    return _safe(value, float(np.abs(u).sum()) + float(pen.sum()) + n * abs(rho)), out


def subset_row_cuts(keys, x, known: set, limit: int) -> list[tuple]:
    """The ``limit`` most violated subset-row cuts on three records at the master's solution x.

    For records T = {a, b, c}, at most one group of a partition holds two or more of them, so
    Σ_{S : |S ∩ T| ≥ 2} x_S ≤ 1 is valid (Jepsen, Petersen, Spoorendonk & Pisinger 2008). Its left side is
    w_ab + w_ac + w_bc − 2·w_abc, with w the x-weight of the groups holding those records; only triples
    with two pairs sharing a fractional group can exceed 1. Sorted by violation, then records;
    triples in ``known`` are skipped."""
    frac = np.flatnonzero((x > 1e-9) & (x < 1 - 1e-9))
    pair: dict = {}
    near: dict = {}
    triple_w: dict = {}
    for j in frac:
        S = keys[j]
        for a, b in itertools.combinations(S, 2):
            pair[(a, b)] = pair.get((a, b), 0.0) + x[j]
            near.setdefault(a, set()).add(b)
            near.setdefault(b, set()).add(a)
        for T in itertools.combinations(S, 3):
            triple_w[T] = triple_w.get(T, 0.0) + x[j]
    seen = set()
    found = []
    for centre in sorted(near):
        for y, z in itertools.combinations(sorted(near[centre]), 2):
            T = tuple(sorted((centre, y, z)))
            if T in seen or T in known:
                continue
            seen.add(T)
            a, b, c = T
            lhs = pair.get((a, b), 0.0) + pair.get((a, c), 0.0) + pair.get((b, c), 0.0) - 2.0 * triple_w.get(T, 0.0)
            if lhs > 1.0 + 1e-6:
                found.append((-lhs, T))
    found.sort()
    return [T for _, T in found[:limit]]


def _master(keys, costs, cuts, n: int):
    """The restricted master: min Σ c_S x_S, each record covered once, each subset-row cut's groups
    (those holding two or more of its three records) at most once, x ≥ 0 (scipy linprog, HiGHS)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    indptr = np.zeros(len(keys) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(x) for x in keys])
    A = sp.csc_matrix((np.ones(indptr[-1]), np.fromiter((i for x in keys for i in x), dtype=np.int64, count=indptr[-1]),
                       indptr), shape=(n, len(keys)))
    rows = {}
    if cuts:
        T = sp.csr_matrix((np.ones(3 * len(cuts)), np.asarray(cuts).ravel(), np.arange(0, 3 * len(cuts) + 1, 3)),
                          shape=(len(cuts), n))
        rows = {"A_ub": ((T @ A) >= 2).astype(np.float64), "b_ub": np.ones(len(cuts))}
    res = linprog(np.asarray(costs), A_eq=A, b_eq=np.ones(n), bounds=(0, None), method="highs", **rows)
    if res.status != 0:
        raise RuntimeError(f"bound: restricted master failed: {res.message}")
    return res


def lp_bound(Z, k: int, start_labels=None, budget: float = 120.0, pair: float = 0.0, neighbours: int | None = None,
             node_limit: int | None = None, emax: int | None = None, max_iter: int = 10000, alphas=(0.7, 0.4),
             final_alphas=(0.3, 0.5, 0.6, 0.8, 0.9), starts: int = 6, subset_rows: int = 2000) -> dict:
    """Certified lower bound on the optimal SSE (groups of k..2k−1 records) from column generation on
    the set-partitioning LP (Aloise, Hansen, Rocha & Santi 2014); proof in docs/bounds.md.

    Restricted master: scipy linprog (HiGHS). Pricing: greedy (heuristic) until it finds nothing,
    then the certified branch and bound of kernels/lowerbound/colgen.py, which both adds columns and gives
    L(u) = Σu + n·ρ, ρ ≤ min_S r(S)/|S| proven. Once the certified search adds no column, up to
    ``subset_rows`` violated subset-row cuts on three records (:func:`subset_row_cuts`) join
    the master and the loop goes on; their duals enter the pricing as penalties (0 turns the cuts
    off). Stabilization: L is concave in (u, penalties), so at every certified pass it is also
    evaluated at α·(u, pen) + (1−α)·centre for the ``alphas`` (centre = the point with the best L so
    far, first λ = the pair bound's feasible dual), and at the end for ``final_alphas``; the largest
    value is returned. Deterministic. ``budget`` seconds bound the loop (the certified passes may
    overrun it; the final smoothing gets up to budget/2 more)."""
    import time

    from mabench import kernels as K
    from mabench.kernels.lowerbound import colgen as CG

    t0 = time.perf_counter()
    if node_limit is None:  # exact pricing is cheap up to k = 5; beyond, cut (validly) to bound the time
        node_limit = 100000 if k <= 5 else 300
    if emax is None:  # a root's candidates cost emax² memory (128 MB at 4,096); at k = 10 the node limit cuts anyway
        emax = 4096 if k <= 5 else 1024
    Z = np.ascontiguousarray(Z, dtype=np.float64)
    n = Z.shape[0]
    kmax = 2 * k - 1
    if n < k:
        raise UserError(f"bound: k={k} exceeds the {n} records")
    L = min(n - 1, neighbours or max(3 * k, 12))
    P, ids = CG.nearest_prefix(Z, max(L, kmax - 1))
    lam = np.ascontiguousarray(P[:, k - 1] / (2.0 * k))
    if start_labels is None:
        start_labels = K.mdav_labels(Z, k, K.TAIL_2K) if n >= 2 * k else np.zeros(n, dtype=np.int64)
    cols: dict = {}

    def add(members):
        key = tuple(sorted(int(x) for x in members))
        if key not in cols and k <= len(key) <= kmax:
            cols[key] = float(CG.group_sse(Z, np.asarray(key, dtype=np.int64), len(key)))
            return 1
        return 0

    labels = np.asarray(start_labels, dtype=np.int64)
    for g in np.unique(labels):
        add(np.flatnonzero(labels == g))
    if n >= k:
        for i in range(n):
            add([i, *ids[i, : k - 1].tolist()])
    cuts: list[tuple] = []  # subset-row cuts, three records each
    index = CG.cut_index(np.zeros((0, 3)), n)

    def point(u, pen):
        return u, np.concatenate([pen, np.zeros(len(cuts) - len(pen))])

    def certify(u, pen, maxcols):
        return lagrangian(Z, u, k, P, node_limit, emax, maxcols, (*index, pen))

    def keep(value, how, u, pen, rho):  # a larger certified L: the new bound, centre and dual point
        nonlocal best, best_how, centre, best_point
        if value > best:
            best, best_how, centre = value, how, (u.copy(), pen.copy())
            best_point = (centre[0], centre[1], index, float(rho))

    def penalized(members, pen):  # a greedy column's reduced cost lacks the cuts' penalties
        hit = np.bincount(index[1][np.concatenate([np.arange(index[0][i], index[0][i + 1]) for i in members])],
                          minlength=len(cuts))
        return float(pen[hit >= 2].sum())

    best = max(pair, 0.0)
    best_how = "pair"
    best_point = None  # (u, pen, cut index, ρ) of the best certified L
    spent = {"master": 0.0, "greedy": 0.0, "certified": 0.0}
    centre = (lam.copy(), np.zeros(0))  # the point with the best certified L so far (λ: the pair bound's dual)
    lp_value = float("nan")
    iters = certified = 0
    u, pen = lam, np.zeros(0)
    ncut = 0
    converged = False
    while iters < max_iter:
        iters += 1
        keys = list(cols)
        t1 = time.perf_counter()
        res = _master(keys, [cols[x] for x in keys], cuts, n)
        spent["master"] += time.perf_counter() - t1
        lp_value = float(res.fun)
        u = np.ascontiguousarray(res.eqlin.marginals, dtype=np.float64)
        pen = np.maximum(-np.asarray(res.ineqlin.marginals, dtype=np.float64), 0.0) if cuts else np.zeros(0)
        out_of_time = time.perf_counter() - t0 > budget
        added = 0
        if not out_of_time:
            t1 = time.perf_counter()
            mem, sizes, red = CG.greedy_price(Z, u, ids[:, :L].copy(), k, kmax, starts)
            spent["greedy"] += time.perf_counter() - t1
            for i in np.flatnonzero(sizes):
                members = mem[i, : sizes[i]]
                if not cuts or red[i] + penalized(members, pen) < -1e-12:
                    added += add(members)
        if added:
            continue
        if out_of_time and k > 5:  # at the master's unconverged duals the search would mostly cut: go to smoothing
            break
        certified += 1
        t1 = time.perf_counter()
        value, (rho, cm, cs, _, nc, ncut) = certify(u, pen, 4 * n)
        keep(value, "duals", u, pen, rho)
        for a in range(nc):
            added += add(cm[a, : cs[a]])
        if not out_of_time:  # stabilization: L is concave; try points between the best one and (u, pen)
            for alpha in alphas:
                cu, cp = point(*centre)
                v, w = np.ascontiguousarray(alpha * u + (1.0 - alpha) * cu), alpha * pen + (1.0 - alpha) * cp
                value, (vrho, cm, cs, _, nc, _) = certify(v, w, n)
                for a in range(nc):
                    added += add(cm[a, : cs[a]])
                keep(value, f"smoothed alpha={alpha:g}", v, w, vrho)
        spent["certified"] += time.perf_counter() - t1
        if added and not out_of_time:
            continue
        if not added and subset_rows > 0 and not out_of_time:
            new = subset_row_cuts(keys, res.x, set(cuts), subset_rows)
            if new:
                cuts += new
                index = CG.cut_index(np.asarray(cuts), n)
                continue
        converged = added == 0 and ncut == 0
        break
    final_deadline = max(1.5 * budget, time.perf_counter() - t0 + 0.5 * budget)
    u, pen = point(u, pen)  # cuts added just before max_iter have no dual yet: 0
    for alpha in final_alphas:
        if time.perf_counter() - t0 > final_deadline:
            break
        cu, cp = point(*centre)
        v, w = np.ascontiguousarray(alpha * u + (1.0 - alpha) * cu), alpha * pen + (1.0 - alpha) * cp
        value, (vrho, *_) = certify(v, w, 1)
        keep(value, f"final alpha={alpha:g}", v, w, vrho)
    return {"sse_bound": float(best), "point": best_point, "lp_value": lp_value, "columns": len(cols), "cuts": len(cuts),
            "iterations": iters, "certified_passes": certified, "cut_nodes": int(ncut), "converged": bool(converged),
            "from": best_how, "seconds": round(time.perf_counter() - t0, 3),
            **{f"seconds_{a}": round(b, 3) for a, b in spent.items()}}


TAIL_ANCHORS = 400  # records (the largest duals first) offered to the tail program
TAIL_CAP = 10_000  # groups per anchor, at most; an anchor with more is left out of the tail
TAIL_START = 0.0025  # first delta, as a share of the LP bound; doubled while the program reaches it
TAIL_COLUMNS = 2_000_000


def _incumbent(Z, labels):
    """SSE of a partition (None without one)."""
    from mabench import kernels as K

    if labels is None:
        return None
    _, dense = np.unique(np.asarray(labels), return_inverse=True)
    return float(K.sse(Z, np.ascontiguousarray(dense, dtype=np.int64), int(dense.max()) + 1))


def tail_bound(Z, k: int, point, lagrangian_value: float, incumbent: float | None = None, anchors: int = TAIL_ANCHORS,
               cap: int = TAIL_CAP, time_limit: float = 120.0, start: float = TAIL_START) -> dict:
    """Raise a certified Lagrangian bound L(u, pen) by an integer program over the tail (docs/bounds.md,
    method ``tail``).

    For every partition P into groups of k..2k−1 records, SSE(P) ≥ L + Σ_{S∈P} r'(S), where
    r'(S) = r(S) − |S|·ρ ≥ 0 is a group's reduced cost above the certified floor ρ. Take a set T of
    records (the tail: the anchors :func:`mabench.kernels.lowerbound.colgen.groups_below` accepts, largest
    duals first) and every group that holds one of them with r'(S) < delta. Either P uses a group
    holding a tail record with r' ≥ delta, or its groups holding tail records are among those: then
    they cover every tail record once and no other record twice. So Σ_{S∈P} r'(S) ≥ min(delta, IP),
    IP = the least Σ r' of such a packing (scipy milp, HiGHS; its dual bound, less 10⁻⁶ per row for
    the solver's tolerances). delta starts at ``start``·L and doubles while the IP reaches it (up to
    the incumbent's SSE − L). Returns sse_bound and the tail's counters."""
    import time

    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    from mabench.kernels.lowerbound import colgen as CG

    t0 = time.perf_counter()
    u, pen, (cut_ptr, cut_ids), rho = point
    n = Z.shape[0]
    P, _ = CG.nearest_prefix(Z, 2 * k - 1)
    order = np.ascontiguousarray(np.argsort(-np.asarray(u), kind="stable")[:anchors])
    top = None if incumbent is None else incumbent - lagrangian_value
    delta = start * max(lagrangian_value, 1e-12)
    if top is not None:
        delta = min(delta, top)
    best, info = lagrangian_value, {"tail_records": 0, "tail_groups": 0, "tail_delta": 0.0, "tail_ip": None}
    while delta > 0:
        accepted, members, sizes, red, count = CG.groups_below(
            Z, np.ascontiguousarray(u, dtype=np.float64), k, 2 * k - 1, P, cut_ptr, cut_ids,
            np.ascontiguousarray(pen, dtype=np.float64), rho, delta, order, cap, 4096, 10**7, TAIL_COLUMNS)
        tail = order[accepted]
        if len(tail) == 0:
            break
        rows = members[:count][members[:count] >= 0]
        A = sp.csr_matrix((np.ones(len(rows)), (rows, np.repeat(np.arange(count), sizes[:count]))), shape=(n, count))
        used = np.flatnonzero(np.asarray(A.sum(axis=1)).ravel() > 0)
        in_tail = np.zeros(n, dtype=bool)
        in_tail[tail] = True
        if in_tail[used].sum() != len(tail):  # a tail record with no group below delta
            ip = np.inf
        else:
            res = milp(red[:count], constraints=LinearConstraint(A[used], in_tail[used].astype(float), 1.0),
                       integrality=np.ones(count), bounds=Bounds(0, 1),
                       options={"time_limit": max(1.0, time_limit - (time.perf_counter() - t0)), "mip_rel_gap": 0.0})
            dual = getattr(res, "mip_dual_bound", None)
            if res.status == 2:  # no packing covers the tail: every partition pays delta there
                ip = np.inf
            else:
                if dual is None or not np.isfinite(dual):
                    dual = res.fun if res.status == 0 else 0.0
                ip = max(0.0, float(dual) - 1e-6 * len(used))
        gain = min(ip, delta)
        if lagrangian_value + gain >= best:
            best = lagrangian_value + gain
            info = {"tail_records": int(len(tail)), "tail_groups": int(count), "tail_delta": float(delta),
                    "tail_ip": None if not np.isfinite(ip) else float(ip)}
        if ip < delta or (top is not None and delta >= top) or time.perf_counter() - t0 > time_limit:
            break
        delta = 2 * delta if top is None else min(2 * delta, top)
    return {"sse_bound": float(best), **info, "seconds_tail": round(time.perf_counter() - t0, 3)}
