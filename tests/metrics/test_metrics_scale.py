"""Metrics at scale: the k-d tree DLD (mabench/kernels/spatial/knn_tree.py) answers exactly as the streaming
pass, and quadratic metrics refuse sizes they cannot handle (docs/metrics.md, "Scale")."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mabench.errors import UserError
from mabench.kernels import group_means
from mabench.kernels.spatial.knn_tree import linked_per_group_tree, nearest_two_tree
from mabench.metrics import EvalContext, evaluate
from mabench.metrics import disclosure
from mabench.metrics import linkage as L
from mabench.partition import canonical_labels
from mabench.data.standardize import zscore

KINDS = ("normal", "grid", "duplicates", "clustered")


def data(kind: str, n: int, d: int, rng) -> np.ndarray:
    if kind == "normal":
        x = rng.standard_normal((n, d))
    elif kind == "grid":  # integer grid: many exact distance ties
        x = rng.integers(0, 3, (n, d)).astype(float)
    elif kind == "duplicates":  # few distinct rows, each repeated many times
        base = rng.integers(0, 5, (max(1, n // 6), d)).astype(float)
        x = base[rng.integers(0, len(base), n)]
    else:
        centres = rng.normal(0, 10, (5, d))
        x = centres[rng.integers(0, 5, n)] + rng.normal(0, 0.05, (n, d))
    sd = x.std(axis=0)
    return (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1.0)  # z-scores; a constant column stays 0


def partition(z: np.ndarray, k: int, rng, compact: bool) -> np.ndarray:
    n = z.shape[0]
    order = np.argsort(z[:, 0], kind="stable") if compact else rng.permutation(n)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, max(0, n // k - 1))
    return canonical_labels(labels)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS), n=st.integers(2, 400),
       d=st.integers(1, 6), k=st.integers(1, 5), compact=st.booleans())
def test_tree_nearest_two_equals_pass(seed, kind, n, d, k, compact):
    rng = np.random.default_rng(seed)
    z = data(kind, n, d, rng)
    labels = partition(z, k, rng, compact)
    g = int(labels.max()) + 1
    centroids, _ = group_means(z, labels, g)
    starts, members = L.group_members(labels, g)
    want = L.nearest_two(z, centroids)
    for got in (nearest_two_tree(z, centroids, starts, members), nearest_two_tree(z, centroids)):
        for a, b in zip(want, got):
            assert np.array_equal(a, b)  # indices and distances, bit for bit
    for ties in (L.TIES_INDEX, L.TIES_INCLUSIVE):
        assert np.array_equal(linked_per_group_tree(z, centroids, starts, members, ties),
                              L.linked_per_group(z, centroids, starts, members, ties, "scan"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("scale", ["original", "own"])
@pytest.mark.parametrize("ties", ["index", "inclusive"])
def test_dld_tree_equals_scan_through_the_metric(kind, scale, ties):
    rng = np.random.default_rng(7)
    x = data(kind, 1500, 5, rng) * 4.0 + 10.0
    x[:, 0] += np.arange(1500) % 2  # never a constant column (zscore refuses those)
    for compact in (True, False):
        labels = partition(zscore(x), 3, rng, compact)
        values = {}
        for search in ("scan", "tree", "auto"):
            ctx = EvalContext(x, zscore(x), labels, [f"v{j}" for j in range(5)], "t",
                              {"linkage_search": search, "dld_scale": scale, "linkage_ties": ties})
            values[search] = evaluate(ctx, ["dld"])["dld"]
        assert values["scan"] == values["tree"] == values["auto"], values


def test_auto_uses_the_tree_only_when_the_pass_is_costly():
    assert not L.use_tree(100, 300, 10) and not L.use_tree(3_000, 8_000, 10)
    assert L.use_tree(10_000, 30_000, 10) and not L.use_tree(10_000, 30_000, 12)
    assert not L.use_tree(333_334, 1_000_000, 16)  # many dimensions: the pass is faster
    assert L.use_tree(2_000, 6_000, 3)
    assert L.use_tree(333_334, 1_000_000, 10)
    assert L.use_tree(5, 5, 2, "tree") and not L.use_tree(10**6, 10**6, 10, "scan")


def test_bad_linkage_search_is_a_user_error():
    x = np.arange(12.0).reshape(6, 2)
    ctx = EvalContext(x, zscore(x), np.array([0, 0, 0, 1, 1, 1]), ["a", "b"], "t", {"linkage_search": "kd"})
    with pytest.raises(UserError, match="linkage_search='kd' is not allowed"):
        evaluate(ctx, ["dld"])


def test_literal_rld_refuses_a_quadratic_size(monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 3))
    labels = partition(zscore(x), 3, rng, True)
    ctx = EvalContext(x, zscore(x), labels, ["a", "b", "c"], "t", {"key_variables": "all"})
    assert evaluate(ctx, ["rld"])["rld"] >= 0  # 200 · 600 · 8 terms: allowed
    monkeypatch.setattr(disclosure, "RLD_MAX_WORK", 100_000)
    ctx = EvalContext(x, zscore(x), labels, ["a", "b", "c"], "t", {"key_variables": "all"})
    with pytest.raises(UserError) as err:
        evaluate(ctx, ["g_dr"])
    text = str(err.value)
    assert "\n" not in text
    for needle in ("metric rld", "n=600", "limit", "--metrics il,dld,id,g_il"):
        assert needle in text, text


def test_a_million_record_refusal_is_immediate():
    """The check runs before any work: a 10^6-record RLD is refused from its sizes alone."""
    with pytest.raises(UserError, match="n=1000000"):
        disclosure.check_rld_size(1_000_000, 333_333, 10)
    disclosure.check_rld_size(4092, 1364, 7)  # EIA, the thesis's RLD: allowed
