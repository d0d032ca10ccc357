"""The tail bound (docs/bounds.md, method ``tail``): the enumeration lists exactly the groups below delta
that hold an accepted anchor, and the bound lies between the Lagrangian bound it starts from and the
optimum, reaching the optimum when every record is in the tail."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.partition_bruteforce import optimum
from test_lp_bound import NET, cut_instance, groups

from mabench.kernels.lowerbound import colgen as CG
from mabench.optimum import bounds as B


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 9), k=st.integers(2, 3), seed=st.integers(0, 10**6), ncuts=st.integers(0, 8),
       delta=st.floats(0.0, 4.0), cap=st.sampled_from([1, 4, 10**6]), share=st.floats(0.2, 1.0))
def test_groups_below_lists_every_group_below_delta(n, k, seed, ncuts, delta, cap, share):
    """Every returned group holds an accepted anchor, has the reduced cost it reports and is below
    delta; every group below delta holding an accepted anchor is returned once; with no cap every
    anchor is accepted."""
    if 2 * k > n:
        return
    kmax = 2 * k - 1
    Z, P, u, (cut_ptr, cut_ids, pen), reduced = cut_instance(n, k, seed, ncuts, noise=0.5)
    rng = np.random.default_rng([seed, 1])
    rho = float(CG.certified_price(Z, u, k, kmax, P, 10**6, 1024, 1, cut_ptr, cut_ids, pen)[0])
    anchors = np.ascontiguousarray(rng.permutation(n)[: max(1, int(share * n))])
    accepted, members, sizes, red, count = CG.groups_below(Z, u, k, kmax, P, cut_ptr, cut_ids, pen, rho, delta, anchors,
                                                           cap, 1024, 10**6, 10**4)
    tail = set(anchors[accepted].tolist())
    if cap >= 10**6:
        assert accepted.all()
    got = [tuple(sorted(members[a, : sizes[a]].tolist())) for a in range(count)]
    assert len(set(got)) == len(got)
    for S, r in zip(got, red[:count]):
        assert k <= len(S) <= kmax and len(set(S)) == len(S) and tail & set(S)
        assert abs(reduced(S) - len(S) * rho - r) < 1e-9 and r < delta and r >= -1e-9
    want = {S for S in groups(n, k) if tail & set(S) and reduced(S) - len(S) * rho < delta - 1e-9}
    assert want <= set(got)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("n,k", [(9, 2), (10, 3)])
def test_tail_bound_between_lagrangian_and_optimum(n, k, seed):
    """From the cut LP's best dual point: the bound is ≥ L and ≤ the optimum; with every record in
    the tail and the optimum as the incumbent it is the optimum (up to the solver margin); and in
    some instances it is strictly above the LP."""
    Z = np.random.default_rng([seed, n, k]).normal(size=(n, 2))
    opt = optimum(Z, k, 2 * k - 1)
    lp = B.lp_bound(Z, k, budget=NET)
    L = lp["sse_bound"]
    part = B.tail_bound(Z, k, lp["point"], L, anchors=n // 2, time_limit=NET)
    assert L - 1e-12 <= part["sse_bound"] <= opt + 1e-9
    full = B.tail_bound(Z, k, lp["point"], L, incumbent=opt, anchors=n, time_limit=NET)
    assert L - 1e-12 <= full["sse_bound"] <= opt + 1e-9
    assert full["sse_bound"] >= opt - 1e-4 and full["tail_records"] == n


def test_tail_bound_above_the_lp_somewhere():
    rises = 0
    for seed in range(4):
        Z = np.random.default_rng([seed, 10, 3]).normal(size=(10, 2))
        lp = B.lp_bound(Z, 3, budget=NET)
        res = B.tail_bound(Z, 3, lp["point"], lp["sse_bound"], anchors=10, time_limit=NET)
        rises += res["sse_bound"] > lp["sse_bound"] + 1e-3
    assert rises >= 1


def test_cli_bound_tail(tmp_path, cli_main):
    data = tmp_path / "d.csv"
    pd.DataFrame(np.random.default_rng(5).normal(size=(24, 2)), columns=["a", "b"]).to_csv(data, index=False)
    lines = {}
    for method in ("lp", "tail"):
        proc = cli_main("bound", str(data), "-k", "3", "--method", method, "--budget", "20")
        assert proc.returncode == 0, proc.stderr
        lines[method] = json.loads(proc.stdout.splitlines()[0])
    assert lines["tail"]["method"] == "tail" and lines["tail"]["tail_records"] > 0
    assert lines["tail"]["sse_bound"] >= lines["lp"]["sse_bound"] - 1e-12


@settings(max_examples=30, deadline=None)
@given(n=st.integers(6, 9), k=st.integers(2, 3), seed=st.integers(0, 10**6), start=st.sampled_from([1e-3, 1e-2, 0.05, 0.2]),
       whole=st.booleans())
def test_tail_bound_never_above_the_optimum(n, k, seed, start, whole):
    """Whatever delta the doubling tries, the bound stays ≤ the optimum: a program over the groups
    below delta says nothing beyond delta."""
    if 2 * k > n:
        return
    Z = np.random.default_rng(seed).normal(size=(n, 2))
    lp = B.lp_bound(Z, k, budget=10)
    res = B.tail_bound(Z, k, lp["point"], lp["sse_bound"], anchors=n if whole else n // 2, time_limit=10, start=start)
    assert lp["sse_bound"] - 1e-12 <= res["sse_bound"] <= optimum(Z, k, 2 * k - 1) + 1e-9


def test_tail_bound_says_nothing_beyond_delta():
    """With zero duals r'(S) = SSE(S) and L = 0. On this instance (seven records on a line, k = 2)
    there is a δ where every partition built from groups below δ costs more than the optimum, which
    uses a group above δ: the program's value must then count only up to δ."""
    rng = np.random.default_rng(119)
    n = int(rng.integers(6, 9))
    Z = np.ascontiguousarray(rng.normal(size=(n, 1)) * np.where(rng.random(n) < 0.3, 4, 1)[:, None])
    point = (np.zeros(n), np.zeros(0), CG.cut_index(np.zeros((0, 3)), n), 0.0)
    res = B.tail_bound(Z, 2, point, 0.0, anchors=n, time_limit=10, start=1e-2)
    assert 0.0 <= res["sse_bound"] <= optimum(Z, 2, 3) + 1e-9
