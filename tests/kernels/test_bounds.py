"""The certified lower bound: ≤ the brute-force optimum on tiny instances, ≤ every best-known IL."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.partition_bruteforce import optimum
from support import ROOT, assert_user_error, run_cli

from mabench.kernels import bounds as KB


@settings(max_examples=25, deadline=None)
@given(n=st.integers(4, 9), k=st.integers(2, 4), seed=st.integers(0, 10**6), ties=st.booleans())
def test_pair_bound_below_optimum(n, k, seed, ties):
    if k > n:
        return
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 3))
    near, _ = KB.nearest_sq(np.ascontiguousarray(Z), k - 1)
    bound = KB.pair_bound(near, k)
    # the bound holds for groups of any size ≥ k, so compare with the unrestricted optimum
    assert bound <= optimum(Z, k, n) + 1e-9


def test_pair_bound_tight_on_k_cliques():
    # k-point clusters far apart: the optimum is the clusters and the bound meets it
    centres = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    tri = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    Z = np.concatenate([c + tri for c in centres])
    near, _ = KB.nearest_sq(Z, 2)
    assert abs(KB.pair_bound(near, 3) - optimum(Z, 3, 5)) < 1e-9


def test_stored_bounds_below_best_known():
    bounds = pd.read_csv(ROOT / "config" / "best_known" / "bounds.csv")
    index = pd.read_csv(ROOT / "config" / "best_known" / "index.csv")
    merged = index.merge(bounds[bounds["method"] == "pair"], on=["dataset", "k"])  # lp rows: test_lp_bound.py
    assert len(merged) == 12
    assert (merged["il_bound"] < merged["il"]).all()


def test_cli_bound(tmp_path):
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"]).to_csv(data, index=False)
    proc = run_cli("bound", str(data), "-k", "3,5")
    assert proc.returncode == 0, proc.stderr
    import json

    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["k"] for x in lines] == [3, 5]
    assert all(x["il_bound"] > 0 and x["sse_bound"] > 0 for x in lines)
    assert_user_error(run_cli("bound", str(data), "-k", "50"), "k=50")
