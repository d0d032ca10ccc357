"""The LP (set-partitioning) bound: column generation reaches the full-enumeration LP on tiny instances,
the certified pricing bound is below every group's reduced cost, and every bound is ≤ the optimum."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from oracles.partition_bruteforce import group_sse, optimum
from support import ROOT, assert_user_error, safety_net

from mabench.kernels.lowerbound import colgen as CG
from mabench.optimum import bounds as B

# The seconds a bound may search where a test asserts that it converges: a net against a hang, never
# the verdict (these instances converge in well under a second on an idle machine).
NET = safety_net(30)


def NO_CUTS(n):
    return (*CG.cut_index(np.zeros((0, 3)), n), np.zeros(0))


def groups(n, k):
    return [S for m in range(k, min(2 * k - 1, n) + 1) for S in itertools.combinations(range(n), m)]


def full_lp(Z, k, subset_rows=False):
    """The LP over every feasible group, solved directly; with ``subset_rows``, also every subset-row
    cut on three records: Σ of x_S over the groups holding two or more of them ≤ 1."""
    n = Z.shape[0]
    cols = groups(n, k)
    A = np.zeros((n, len(cols)))
    for j, S in enumerate(cols):
        A[list(S), j] = 1.0
    rows = {}
    if subset_rows:
        triples = list(itertools.combinations(range(n), 3))
        rows = {"A_ub": np.array([[float(len(set(S) & set(T)) >= 2) for S in cols] for T in triples]),
                "b_ub": np.ones(len(triples))}
    res = linprog([group_sse(Z, S) for S in cols], A_eq=A, b_eq=np.ones(n), bounds=(0, None), method="highs", **rows)
    assert res.status == 0
    return float(res.fun)


def cut_instance(n, k, seed, ncuts, noise=1.0):
    """Random records, duals (the pair bound's plus noise), subset-row cuts and penalties, with the
    reduced cost r(S) = c_S − u(S) + the penalties of the cuts S meets in two or more records."""
    rng = np.random.default_rng(seed)
    Z = np.ascontiguousarray(rng.normal(size=(n, 2)))
    P, _ = CG.nearest_prefix(Z, 2 * k - 1)
    u = np.ascontiguousarray(P[:, k - 1] / (2 * k) + noise * rng.normal(size=n))
    cuts = np.array([rng.choice(n, 3, replace=False) for _ in range(ncuts)]).reshape(-1, 3)
    pen = np.ascontiguousarray(rng.exponential(size=ncuts))

    def reduced(S):
        return group_sse(Z, S) - u[list(S)].sum() + sum(p for T, p in zip(cuts, pen) if len(set(S) & set(T.tolist())) >= 2)

    return Z, P, u, (*CG.cut_index(cuts, n), pen), reduced


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n,k", [(10, 2), (10, 3), (12, 3)])
def test_column_generation_reaches_the_full_lp(n, k, seed):
    Z = np.random.default_rng([seed, n, k]).normal(size=(n, 2))
    lp = full_lp(Z, k)
    res = B.lp_bound(Z, k, budget=NET, subset_rows=0)
    assert res["converged"] and res["cuts"] == 0
    assert rel(res["sse_bound"], lp) < 1e-9
    assert res["sse_bound"] <= lp
    assert res["sse_bound"] <= optimum(Z, k, 2 * k - 1) + 1e-9


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n,k", [(9, 2), (10, 3)])
def test_subset_row_cuts_reach_the_full_cut_lp(n, k, seed):
    """With the cuts, column generation converges to the LP with every three-record subset-row cut
    (the violated ones suffice), which lies between the plain LP and the optimum; on these seeds
    (all but n = 9, seed 4) it lies strictly above the plain LP."""
    Z = np.random.default_rng([seed, n, k]).normal(size=(n, 2))
    cut_lp, lp, opt = full_lp(Z, k, subset_rows=True), full_lp(Z, k), optimum(Z, k, 2 * k - 1)
    res = B.lp_bound(Z, k, budget=NET)
    assert res["converged"]
    assert rel(res["sse_bound"], cut_lp) < 1e-9
    assert res["sse_bound"] <= opt + 1e-9
    if (n, seed) != (9, 4):
        assert res["sse_bound"] > lp + 1e-6 and res["cuts"] > 0


@pytest.mark.parametrize("k", [2, 3])
def test_lp_bound_tight_when_the_lp_is_integral(k):
    # clusters of k points far apart: the LP optimum is the clusters, and so is the bound
    rng = np.random.default_rng(k)
    centres = np.array([[0.0, 0.0], [50.0, 0.0], [0.0, 50.0], [50.0, 50.0]])[: 12 // k if k == 3 else 4]
    Z = np.concatenate([c + rng.normal(size=(k, 2)) for c in centres])
    opt = optimum(Z, k, 2 * k - 1)
    res = B.lp_bound(Z, k, budget=NET)
    assert rel(res["sse_bound"], opt) < 1e-9 and res["sse_bound"] <= opt


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 9), k=st.integers(2, 3), seed=st.integers(0, 10**6), ties=st.booleans(),
       scale=st.sampled_from([0.0, 0.3, 1.0, 3.0]), limits=st.sampled_from([(1, 1), (3, 2), (20, 4), (10**6, 1024)]))
def test_certified_pricing_below_every_group(n, k, seed, ties, scale, limits):
    """ρ ≤ min(0, min_S r(S)/|S|) for arbitrary u, however small the node and candidate limits; hence
    L(u) = Σu + nρ ≤ the LP value ≤ the optimum."""
    if 2 * k > n:
        return
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 3))
    Z = np.ascontiguousarray(Z)
    kmax = 2 * k - 1
    P, _ = CG.nearest_prefix(Z, kmax)
    # arbitrary duals: the pair bound's (feasible) dual plus noise
    u = np.ascontiguousarray(P[:, k - 1] / (2 * k) + scale * rng.normal(size=n))
    rho, cols, sizes, red, nc, _ = CG.certified_price(Z, u, k, kmax, P, limits[0], limits[1], 8 * n, *NO_CUTS(n))
    exact = min(0.0, min((group_sse(Z, S) - u[list(S)].sum()) / len(S) for S in groups(n, k)))
    assert rho <= exact + 1e-9
    for a in range(nc):  # the columns it reports are real groups with the reduced cost it says
        S = cols[a, : sizes[a]]
        assert len(set(S.tolist())) == sizes[a] and k <= sizes[a] <= kmax
        assert abs(group_sse(Z, S) - u[S].sum() - red[a]) < 1e-9 and red[a] < 0
    lagrangian, _ = B.lagrangian(Z, u, k, P, limits[0], limits[1])
    assert lagrangian <= full_lp(Z, k) + 1e-9
    assert lagrangian <= optimum(Z, k, kmax) + 1e-9
    if limits[0] >= 10**6:  # exact pricing: ρ is the minimum itself
        assert abs(rho - exact) < 1e-9
    res = B.lp_bound(Z, k, budget=10)
    assert res["sse_bound"] <= optimum(Z, k, kmax) + 1e-9


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 9), k=st.integers(2, 3), seed=st.integers(0, 10**6), ncuts=st.integers(1, 12),
       limits=st.sampled_from([(1, 1), (3, 2), (10**6, 1024)]))
def test_certified_pricing_with_cut_penalties(n, k, seed, ncuts, limits):
    """With subset-row cuts, r(S) = c_S − u(S) + the penalties of the cuts S meets in two or more
    records: ρ stays below every group's r(S)/|S|, is exact without limits, and
    L = Σu − Σpen + nρ stays below the optimum."""
    if 2 * k > n:
        return
    kmax = 2 * k - 1
    Z, P, u, (cut_ptr, cut_ids, pen), reduced = cut_instance(n, k, seed, ncuts)
    rho, cols, sizes, red, nc, _ = CG.certified_price(Z, u, k, kmax, P, limits[0], limits[1], 8 * n, cut_ptr, cut_ids, pen)

    exact = min(0.0, min(reduced(S) / len(S) for S in groups(n, k)))
    assert rho <= exact + 1e-9
    if limits[0] >= 10**6:
        assert abs(rho - exact) < 1e-9
    for a in range(nc):
        S = cols[a, : sizes[a]].tolist()
        assert abs(reduced(S) - red[a]) < 1e-9 and red[a] < 0
    value, _ = B.lagrangian(Z, u, k, P, limits[0], limits[1], 1, (cut_ptr, cut_ids, pen))
    assert value <= optimum(Z, k, kmax) + 1e-9


def test_stored_lp_bounds_below_best_known():
    stored = pd.read_csv(ROOT / "registry" / "best_known" / "bounds.csv")
    index = pd.read_csv(ROOT / "registry" / "best_known" / "index.csv")
    lp = index.merge(stored[stored["method"] == "lp"], on=["dataset", "k"])
    assert len(lp) == 12
    assert (lp["il_bound"] < lp["il"]).all()
    best = index.merge(B.load(), on=["dataset", "k"])  # the largest bound per cell
    assert len(best) == 12 and (best["il_bound"] < best["il"]).all()


def test_cli_bound_lp(tmp_path, cli_main):
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(2)
    pd.DataFrame(rng.normal(size=(30, 2)), columns=["a", "b"]).to_csv(data, index=False)
    lines = {}
    for method in ("pair", "lp"):
        proc = cli_main("bound", str(data), "-k", "3", "--method", method, "--budget", "20")
        assert proc.returncode == 0, proc.stderr
        lines[method] = json.loads(proc.stdout.splitlines()[0])
        assert lines[method]["method"] == method and lines[method]["k"] == 3 and lines[method]["n"] == 30
    assert lines["pair"]["sse_bound"] <= lines["lp"]["sse_bound"] + 1e-9
    assert lines["lp"]["sse_bound"] <= lines["lp"]["lp_value"]
    assert_user_error(cli_main("bound", str(data), "-k", "3", "--method", "lp", "--budget", "nan"), "--budget")


def test_store_keeps_the_larger_bound_per_method(tmp_path):
    rec = {"dataset": "tarragona", "k": 3, "sse_bound": 10.0, "il_bound": 1.0, "budget": 5.0}
    B.store([{**rec, "method": "pair"}, {**rec, "il_bound": 2.0, "method": "lp"}], tmp_path)
    B.store([{**rec, "il_bound": 1.5, "method": "lp"}], tmp_path)  # weaker: ignored
    frame = pd.read_csv(tmp_path / "bounds.csv")
    assert sorted(zip(frame["method"], frame["il_bound"])) == [("lp", 2.0), ("pair", 1.0)]
    assert B.load(tmp_path)["il_bound"].tolist() == [2.0]  # the largest per cell
