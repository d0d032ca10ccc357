"""LNS: the exact region solver against brute force; the search never raises SSE; partitions valid."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.partition_bruteforce import optimum

from mabench.kernels.improve import lns as L


def run_plugin(params, Z, k, seed=0):
    """lns's labels after the contract check (it returns labels and info)."""
    from mabench import discovery, partition
    from mabench.plugin import call_run, split_output

    algo = discovery.algorithm("lns")
    resolved = algo.resolve(params)
    labels, info = split_output(call_run(algo, np.ascontiguousarray(Z, dtype=np.float64), k, resolved,
                                         np.random.default_rng(seed)))
    partition.check(np.asarray(labels), len(Z), k, algo.max_group_size(k, resolved), who="lns")
    return np.asarray(labels), info


def _solve(Z, k, kmax):
    scratch = L.scratch(Z.shape[1], 10)
    out = np.empty(10, dtype=np.int64)
    sse, groups = L.region_optimum(np.ascontiguousarray(Z), k, kmax, *scratch, out)
    return sse, groups, out[: Z.shape[0]].copy()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 9), k=st.integers(2, 3), seed=st.integers(0, 10**6), ties=st.booleans())
def test_region_optimum_equals_brute_force(n, k, seed, ties):
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 3))
    want = optimum(Z, k, 2 * k - 1)
    sse, groups, labels = _solve(Z, k, 2 * k - 1)
    if want == float("inf"):
        assert sse == float("inf")
        return
    assert sse == pytest.approx(want, abs=1e-9)
    # the labels returned realise that SSE and respect the sizes
    sizes = np.bincount(labels, minlength=groups)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    real = sum(((Z[labels == g] - Z[labels == g].mean(axis=0)) ** 2).sum() for g in range(groups))
    assert real == pytest.approx(want, abs=1e-9)


def test_lns_never_rises_and_is_valid():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(120, 3))
    for k in (2, 3, 5):
        labels, info = run_plugin({"restarts": 3}, Z, k, seed=1)
        ils = [il for _, il in info["trace"]]
        assert all(b <= a + 1e-12 for a, b in zip(ils, ils[1:])), ils
        assert ils[-1] <= info["il_init"] + 1e-12


def test_lns_improves_mdav_and_is_deterministic():
    rng = np.random.default_rng(5)
    Z = rng.normal(size=(150, 2))
    from mabench import discovery
    from mabench.plugin import call_run

    algo = discovery.algorithm("lns")
    params = algo.resolve({})
    a, info = call_run(algo, Z, 3, params, np.random.default_rng(7))
    b, _ = call_run(algo, Z, 3, params, np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert info["gain"] > 0.0  # MDAV on random data is never LNS-optimal at this size


def test_lns_start_file(tmp_path):
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(30, 2))
    start = tmp_path / "p.csv"
    start.write_text("group\n" + "".join(f"{i // 3}\n" for i in range(30)))
    labels, info = run_plugin({"start": str(start)}, Z, 3)
    assert labels.shape == (30,)
    assert info["il_init"] == pytest.approx(100 * sum(((Z[i:i + 3] - Z[i:i + 3].mean(0)) ** 2).sum()
                                                      for i in range(0, 30, 3)) / ((Z - Z.mean(0)) ** 2).sum())


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 4), extra=st.integers(0, 4), seed=st.integers(0, 10**6), ties=st.booleans())
def test_pair_optimum_equals_brute_force(k, extra, seed, ties):
    n = min(k + extra + k - 1, 3 * k - 1)  # fewer than 3k records: one or two groups
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 3))
    want = optimum(Z, k, 2 * k - 1)
    out = np.empty(n, dtype=np.int64)
    sse, groups = L.pair_optimum(np.ascontiguousarray(Z), k, 2 * k - 1, np.empty(n, dtype=np.int64), out)
    if want == float("inf"):
        assert sse == float("inf")
        return
    assert sse == pytest.approx(want, abs=1e-9)
    labels = out[:n]
    real = sum(((Z[labels == g] - Z[labels == g].mean(axis=0)) ** 2).sum() for g in range(groups))
    assert real == pytest.approx(want, abs=1e-9)
    assert np.bincount(labels).min() >= k and np.bincount(labels).max() <= 2 * k - 1


def test_lns_large_k_uses_pair_regions():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(90, 2))
    labels, info = run_plugin({}, Z, 9, seed=0)  # 2k = 18 > 16: two-group regions
    assert np.bincount(labels).min() >= 9 and info["il_init"] >= info["trace"][-1][1] - 1e-12


# ---------------------------------------------------------------------- bit-identity with the reference
# The kernels enumerate fewer candidates than the reference sub-solvers (tests/oracles/lns_reference.py,
# the kernels as they were before issue 39) but must return the same bits: SSE, groups and labels.

def _data(rng, n, d, ties):
    return rng.integers(0, 2, size=(n, d)).astype(float) if ties else rng.normal(size=(n, d))


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 10), k=st.integers(1, 4), seed=st.integers(0, 10**6), ties=st.booleans(),
       d=st.integers(1, 3))
def test_region_optimum_is_the_reference_bit_for_bit(n, k, seed, ties, d):
    from oracles import lns_reference as ref

    Z = np.ascontiguousarray(_data(np.random.default_rng(seed), n, d, ties))
    kmax = max(k, 2 * k - 1)
    out, out_ref = np.full(10, -1, dtype=np.int64), np.full(10, -1, dtype=np.int64)
    got = L.region_optimum(Z, k, kmax, *L.scratch(d, 10), out)
    want = ref.region_optimum(Z, k, kmax, *L.scratch(d, 10), out_ref)
    assert got[0] == want[0] or (np.isinf(got[0]) and np.isinf(want[0]))
    assert got[1] == want[1]
    assert np.array_equal(out, out_ref)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 5), extra=st.integers(0, 5), seed=st.integers(0, 10**6), ties=st.booleans(),
       d=st.integers(1, 3))
def test_pair_optimum_is_the_reference_bit_for_bit(k, extra, seed, ties, d):
    from oracles import lns_reference as ref

    n = max(1, min(k + extra + k - 1, 3 * k - 1))
    Z = np.ascontiguousarray(_data(np.random.default_rng(seed), n, d, ties))
    out, out_ref = np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64)
    got = L.pair_optimum(Z, k, 2 * k - 1, np.empty(n, dtype=np.int64), out)
    want = ref.pair_optimum(Z, k, 2 * k - 1, np.empty(n, dtype=np.int64), out_ref)
    assert got[0] == want[0] or (np.isinf(got[0]) and np.isinf(want[0]))
    assert got[1] == want[1]
    assert np.array_equal(out, out_ref)


@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 40), k=st.integers(2, 5), rmax=st.integers(4, 16), seed=st.integers(0, 10**6),
       ties=st.booleans())
def test_pick_region_is_the_reference(c, k, rmax, seed, ties):
    """Equal centroid distances (ties) and groups too large for the region (skipped) included; more than
    SCANS groups exercise the sorted fall-back."""
    from oracles import lns_reference as ref

    rng = np.random.default_rng(seed)
    sizes = rng.integers(k, 2 * k, size=c).astype(np.int64)
    members = np.arange(c * (2 * k), dtype=np.int64).reshape(c, 2 * k)
    means = _data(rng, c, 2, ties)
    seed_group = int(rng.integers(c))
    outs = []
    for f in (L.pick_region, ref.pick_region):
        region, region_groups = np.full(rmax + 2 * k, -1, dtype=np.int64), np.full(c, -1, dtype=np.int64)
        r, ng = f(means, None, sizes, means, members, seed_group, rmax, np.empty(c, dtype=np.int64),
                  np.empty(c), region, region_groups)
        outs.append((r, ng, region[:r].tolist(), region_groups[:ng].tolist()))
    assert outs[0] == outs[1]


@settings(max_examples=8, deadline=None)
@given(n=st.integers(20, 90), k=st.sampled_from([2, 3, 4, 9]), seed=st.integers(0, 10**6), ties=st.booleans())
def test_lns_descent_skipping_settled_regions_changes_nothing(n, k, seed, ties):
    """A region that gained nothing is not solved again until its groups change: the same partition,
    the same number of changes, as solving every region of every pass."""
    from mabench.kernels.improve import search

    if n < 2 * k:
        n = 2 * k
    rng = np.random.default_rng(seed)
    Z = np.ascontiguousarray(_data(rng, n, 2, ties))
    labels = np.arange(n) // k
    labels[labels == labels.max()] = max(0, labels.max() - 1) if n % k else labels.max()
    rmax = L.default_region(k)
    out = []
    for remember in (True, False):
        st_ = search.State(Z, labels.copy(), k, 2 * k - 1)
        changes = search.lns_descent(st_, np.random.default_rng(seed), rmax, L.scratch(2, min(rmax, L.RMAX)),
                                     remember=remember)
        out.append((changes, st_.labels.tolist(), st_.sse))
    assert out[0] == out[1]
