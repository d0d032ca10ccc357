"""Property tests (hypothesis) of the metrics, and thread-count independence of the kernels.

Data are continuous draws (no exact ties), so strict-rank linkage is
order-free here; the tie conventions themselves are pinned in
test_metrics_reference.py.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mabench.metrics import EvalContext, evaluate
from mabench.metrics import linkage as L
from mabench.partition import canonical_labels
from mabench.data.standardize import zscore

ALL = ["il", "m1", "m2", "m3", "m4", "m5", "g_il", "dld", "rld", "id", "g_dr", "si", "sdid", "il1s"]
COUNTS = ["dld", "rld", "id", "sdid"]  # ratios of integer counts: compared exactly
OPTIONS = {"key_variables": "all", "id_p": [1, 5, 10, 20, 40], "sdid_p": 0.5}
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def ctx_for(x, labels, options=OPTIONS):
    x = np.ascontiguousarray(x, dtype=np.float64)
    cols = [f"v{j}" for j in range(x.shape[1])]
    return EvalContext(x, zscore(x), canonical_labels(np.asarray(labels)), cols, "prop", dict(options))


@st.composite
def problems(draw, singletons=False, max_n=30, max_d=4):
    n = draw(st.integers(3, max_n))
    d = draw(st.integers(1, max_d))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.normal(rng.uniform(2, 10, d), rng.uniform(0.1, 3, d), (n, d))
    if singletons:
        labels = np.arange(n)
    else:
        labels = rng.integers(0, draw(st.integers(1, n)), n)
    return x, canonical_labels(labels), rng


def same(a: dict, b: dict):
    for key in a:
        if key in COUNTS:
            assert a[key] == b[key], key
        else:
            assert a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-9), key


@SETTINGS
@given(problems())
def test_il_bounds(p):
    x, labels, _ = p
    out = evaluate(ctx_for(x, labels), ["il", "g_il", "m5", "dld", "rld", "id", "sdid"])
    assert 0.0 <= out["il"] <= 100.0 + 1e-9
    assert out["g_il"] >= 0.0 and 0.0 <= out["m5"] <= 2.0
    for key in ("dld", "rld", "id", "sdid"):
        assert 0.0 <= out[key] <= 100.0


@SETTINGS
@given(problems(singletons=True))
def test_singleton_groups_lose_nothing_and_link_everything(p):
    x, labels, _ = p
    out = evaluate(ctx_for(x, labels), ALL)
    for key in ("il", "m1", "m2", "m3", "m4", "m5", "g_il", "il1s"):
        assert out[key] == 0.0, key
    assert out["dld"] == 100.0
    assert out["rld"] == 100.0
    assert out["sdid"] == 100.0  # every original equals its masked value


@SETTINGS
@given(problems())
def test_strict_dld_links_at_most_two_per_group(p):
    x, labels, _ = p
    n, g = len(x), labels.max() + 1
    strict = evaluate(ctx_for(x, labels), ["dld"])["dld"]
    inclusive = evaluate(ctx_for(x, labels, {"linkage_ties": "inclusive"}), ["dld"])["dld"]
    assert strict <= 100.0 * min(n, 2 * g) / n + 1e-9
    assert inclusive >= strict


@SETTINGS
@given(problems())
def test_m2_vanishes_for_mean_aggregation(p):
    x, labels, _ = p
    assert abs(evaluate(ctx_for(x, labels), ["m2"])["m2"]) < 1e-12


@SETTINGS
@given(problems())
def test_invariant_under_a_permutation_of_the_records(p):
    """Every metric but ``id`` under any permutation (partition permuted alike)."""
    x, labels, rng = p
    perm = rng.permutation(len(x))
    names = [m for m in ALL if m not in ("id", "g_dr", "si")]
    same(evaluate(ctx_for(x, labels), names), evaluate(ctx_for(x[perm], labels[perm]), names))


def order_keeping_permutation(labels, rng):
    """A random permutation that keeps the relative order of the records inside every group."""
    perm = rng.permutation(len(labels))
    out = perm.copy()
    for g in np.unique(labels):
        slots = np.flatnonzero(labels[perm] == g)
        out[slots] = np.sort(perm[slots])
    return out


@SETTINGS
@given(problems())
def test_id_and_composites_invariant_under_group_order_keeping_permutations(p):
    """ID's tie rule (own position among equal masked values, in record order) makes it depend on
    the order of records INSIDE a group (see test_metrics_reference); any other reordering is free."""
    x, labels, rng = p
    perm = order_keeping_permutation(labels, rng)
    names = ["id", "g_dr", "si"]
    same(evaluate(ctx_for(x, labels), names), evaluate(ctx_for(x[perm], labels[perm]), names))


@SETTINGS
@given(problems(), st.data())
def test_invariant_under_positive_affine_rescaling(p, data):
    x, labels, rng = p
    d = x.shape[1]
    a = np.array(data.draw(st.lists(st.floats(0.01, 1000), min_size=d, max_size=d)))
    b = np.array(data.draw(st.lists(st.floats(-1000, 1000), min_size=d, max_size=d)))
    names = ["il", "dld", "rld", "id", "sdid", "il1s"]
    same(evaluate(ctx_for(x, labels), names), evaluate(ctx_for(x * a + b, labels), names))


# --------------------------------------------------------------------------- threads


def _problem(n=4000, d=6, k=3, seed=7):
    rng = np.random.default_rng(seed)
    z = zscore(rng.normal(size=(n, d)))
    order = np.argsort(z[:, 0] + 0.5 * z[:, 1], kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, n // k - 1)
    return z, labels


def test_parallel_and_serial_drivers_agree_and_thread_count_does_not_matter():
    from mabench.kernels import group_means

    z, labels = _problem()
    g = labels.max() + 1
    C, _ = group_means(z, labels, g)
    assert g * z.shape[0] * z.shape[1] >= L.PARALLEL_MIN_WORK  # the parallel path is the one under test
    starts, members = L.group_members(labels, g)
    keys = np.ascontiguousarray(z[:, :5])
    ck = np.ascontiguousarray(C[:, :5])
    ZT = np.ascontiguousarray(keys.T)
    results = []
    before = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            out = [np.full(g, -1, dtype=np.int64), np.full(g, np.inf), np.full(g, -1, dtype=np.int64), np.full(g, np.inf)]
            L._nearest_two_parallel(z, C, out[0], out[1], out[2], out[3])
            size = (g + 63) // 64
            per = np.zeros(((g + size - 1) // size, 32), dtype=np.int64)
            L._subsets_parallel(ZT, ck, starts, members, L.TIES_INDEX, per, size)
            results.append((out, per.sum(axis=0)))
    finally:
        numba.set_num_threads(before)
    serial = [np.full(g, -1, dtype=np.int64), np.full(g, np.inf), np.full(g, -1, dtype=np.int64), np.full(g, np.inf)]
    L._nearest_two_serial(z, C, serial[0], serial[1], serial[2], serial[3])
    per = np.zeros(((g + size - 1) // size, 32), dtype=np.int64)
    L._subsets_serial(ZT, ck, starts, members, L.TIES_INDEX, per, size)
    results.append((serial, per.sum(axis=0)))
    for out, counts in results[1:]:
        for got, want in zip(out, results[0][0]):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(counts, results[0][1])


def test_one_thread_never_takes_the_parallel_driver():
    """With one thread the parallel drivers are neither run nor compiled (their set-up is all they add)."""
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        assert not L.parallel_for(10 * L.PARALLEL_MIN_WORK)
        if numba.config.NUMBA_NUM_THREADS > 1:
            numba.set_num_threads(2)
            assert L.parallel_for(L.PARALLEL_MIN_WORK) and not L.parallel_for(L.PARALLEL_MIN_WORK - 1)
    finally:
        numba.set_num_threads(before)

