"""merge: the set-partitioning IP over a pool against brute force; the search never raises SSE, returns a
valid partition and is the same for the same seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mabench import kernels as K
from mabench.optimum import merge as M
from mabench.kernels.improve import search as S
from support import as_run


def _random_partition(rng, n, k):
    """Labels of a random partition of n records into groups of k..2k−1 (n ≥ k)."""
    order = rng.permutation(n)
    sizes = []
    left = n
    while left:
        if left <= 2 * k - 1 and (left < 2 * k or rng.random() < 0.5):
            sizes.append(left)
            break
        s = int(rng.integers(k, min(2 * k - 1, left - k) + 1))
        sizes.append(s)
        left -= s
    labels = np.empty(n, dtype=np.int64)
    at = 0
    for g, s in enumerate(sizes):
        labels[order[at:at + s]] = g
        at += s
    return labels


def _best_cover(members, costs, n):
    """Plain-Python brute force: the cheapest exact cover of 0..n−1 by the given groups (inf if none)."""
    by_record = {i: [j for j, g in enumerate(members) if i in set(g.tolist())] for i in range(n)}

    def rec(covered: frozenset) -> float:
        if len(covered) == n:
            return 0.0
        first = min(set(range(n)) - covered)
        best = float("inf")
        for j in by_record[first]:
            g = set(members[j].tolist())
            if g & covered:
                continue
            best = min(best, costs[j] + rec(covered | g))
        return best

    return rec(frozenset())


@settings(max_examples=20, deadline=None)
@given(n=st.integers(4, 12), k=st.integers(2, 3), parts=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_ip_over_a_pool_equals_brute_force(n, k, parts, seed):
    rng = np.random.default_rng(seed)
    if n < k:
        return
    Z = rng.normal(size=(n, 2))
    pool = M.Pool(Z, k, 2 * k - 1)
    for p in range(parts):
        pool.add(_random_partition(rng, n, k), protect=p == 0)
    members, costs = pool.columns()
    want = _best_cover(members, costs, n)
    got = M.solve(members, costs, n, time_limit=30)
    assert got["optimal"]
    assert got["objective"] == pytest.approx(want, abs=1e-9)
    labels = got["labels"]
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    real = sum(((Z[labels == g] - Z[labels == g].mean(axis=0)) ** 2).sum() for g in range(sizes.size))
    assert real == pytest.approx(want, abs=1e-9)


def test_pool_costs_and_dedupe():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(10, 3))
    labels = _random_partition(rng, 10, 3)
    pool = M.Pool(Z, 3, 5)
    assert pool.add(labels) == labels.max() + 1
    assert pool.add(labels) == 0  # the same groups again: nothing new
    members, costs = pool.columns()
    assert sum(costs) == pytest.approx(K.sse(Z, labels, int(labels.max()) + 1), abs=1e-12)
    assert sorted(np.concatenate(members).tolist()) == list(range(10))


def test_pool_cap_keeps_the_protected_groups():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(30, 2))
    pool = M.Pool(Z, 3, 5, cap=12)
    keep = _random_partition(rng, 30, 3)
    pool.add(keep, protect=True)
    for _ in range(10):
        pool.add(_random_partition(rng, 30, 3))
    assert len(pool) <= max(12, keep.max() + 1)
    got = M.solve(*pool.columns(), 30, time_limit=30)
    assert got["labels"] is not None  # the protected partition keeps the IP feasible
    assert got["objective"] <= K.sse(Z, keep, int(keep.max()) + 1) + 1e-9


def test_solve_without_a_cover_returns_none():
    Z = np.arange(12, dtype=float).reshape(6, 2)
    members = [np.array([0, 1, 2]), np.array([2, 3, 4])]  # record 5 in no group
    assert M.solve(members, np.array([1.0, 1.0]), 6, time_limit=5)["labels"] is None
    members = [np.array([0, 1, 2]), np.array([2, 3, 4]), np.array([1, 4, 5])]  # covers all, no exact cover
    assert M.solve(members, np.array([1.0, 1.0, 1.0]), 6, time_limit=5)["labels"] is None


def _start(Z, k):
    """MDAV's partition (2k tail) as the search's state, on read-only data as ``mabench best-known
    improve`` and a run's searches have them: the kernels are the ones they compile."""
    Z = as_run(Z)
    return S.State(Z, K.mdav_partition(Z, k, K.TAIL_2K), k, 2 * k - 1)


def _run(Z, k, seed):
    state = _start(Z, k)
    start = state.sse
    info = M.search(state, np.random.default_rng(seed), budget=0, rounds=1, chains=2, restarts=3)
    return state, start, info


def test_search_never_worse_valid_and_deterministic():
    rng = np.random.default_rng(7)
    Z = rng.normal(size=(60, 3))
    for k in (2, 3):
        state, start, info = _run(Z, k, seed=5)
        assert state.sse <= start + 1e-12
        sizes = np.bincount(state.labels)
        assert sizes.sum() == 60 and sizes.min() >= k and sizes.max() <= 2 * k - 1
        assert state.sse == pytest.approx(K.sse(state.Z, state.labels, sizes.size), abs=1e-9)
        assert info["ip_optimal"] == info["rounds"] == 1
        again, _, info2 = _run(Z, k, seed=5)
        assert np.array_equal(again.labels, state.labels) and info2 == info


def _neighbourhood_groups(X, k, kmax, neighbours):
    """Plain Python: {sorted(a ∪ S)} over rows a and subsets S of a's nearest rows, by (distance, row)."""
    from itertools import combinations

    m = X.shape[0]
    out = set()
    for a in range(m):
        near = sorted((sum((X[a, j] - X[b, j]) ** 2 for j in range(X.shape[1])), b) for b in range(m) if b != a)
        near = [b for _, b in near[:neighbours]]
        for size in range(k - 1, kmax):
            for others in combinations(near, size):
                out.add(tuple(sorted((a,) + others)))
    return out


@settings(max_examples=25, deadline=None)
@given(m=st.integers(3, 11), k=st.integers(2, 3), neighbours=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_neighbourhood_columns_are_each_rows_groups_with_its_nearest(m, k, neighbours, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(m, 2)).astype(float)  # a small grid: many distance ties
    members, costs = M.neighbourhood_columns(X, k, 2 * k - 1, neighbours)
    got = [tuple(g.tolist()) for g in members]
    assert len(got) == len(set(got))  # each group once
    assert set(got) == _neighbourhood_groups(X, k, 2 * k - 1, neighbours)
    assert M.column_count(m, k, 2 * k - 1, neighbours) >= len(got)  # before duplicates go
    for g, c in zip(members, costs):
        assert c == pytest.approx(((X[g] - X[g].mean(axis=0)) ** 2).sum(), abs=1e-12)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(4, 10), k=st.integers(2, 3), seed=st.integers(0, 10**6))
def test_region_search_over_everything_finds_the_brute_force_optimum(n, k, seed):
    from itertools import combinations

    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    state = _start(Z, k)
    start = state.sse
    info = M.region_search(state, neighbours=n - 1, time_limit=30, share=1.0)
    every = [np.array(c) for s in range(k, 2 * k) for c in combinations(range(n), s)]
    best = _best_cover(every, np.array([((Z[g] - Z[g].mean(axis=0)) ** 2).sum() for g in every]), n)
    assert info["optimal"] and info["region_records"] == n
    assert state.sse == pytest.approx(best, abs=1e-9) and state.sse <= start + 1e-12
    assert info["improved"] == (best < start - K.EPS)


def test_region_search_never_worse_valid_and_deterministic():
    rng = np.random.default_rng(3)
    Z = np.concatenate([rng.normal(size=(80, 3)), 6 * rng.normal(size=(10, 3))])  # a costly tail
    for k in (2, 3):
        runs = []
        for _ in range(2):
            state = _start(Z, k)
            start = state.sse
            info = M.region_search(state, neighbours=6, time_limit=60, share=0.6, near=2)
            sizes = np.bincount(state.labels)
            assert sizes.min() >= k and sizes.max() <= 2 * k - 1 and sizes.sum() == len(Z)
            assert info["improved"] and state.sse < start - 1.0  # MDAV leaves the tail's groups improvable
            assert state.sse == pytest.approx(K.sse(state.Z, state.labels, sizes.size), abs=1e-9)
            assert state.sse == pytest.approx(start - info["sse_before"] + info["sse_after"], abs=1e-9)
            assert info["region_records"] < len(Z) and info["optimal"]
            runs.append((state.labels.copy(), info))
        assert np.array_equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]


def test_region_groups_take_the_costliest_groups_and_their_nearest():
    # groups 0..3 on a line, group 3 spread out (the costliest); group 2 is its nearest by centroid
    Z = np.array([[0.0], [0.1], [10.0], [10.1], [20.0], [20.1], [35.0], [41.0]])
    labels = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    assert M.region_groups(Z, labels, share=0.5, near=1).tolist() == [2, 3]
    assert M.region_groups(Z, labels, share=0.5, near=2).tolist() == [1, 2, 3]
    assert M.region_groups(Z, labels, share=1.0, near=0).tolist() == [0, 1, 2, 3]
