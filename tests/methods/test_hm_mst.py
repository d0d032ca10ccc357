"""hm, mhm, mdst, muapprox: brute-force optimum (hm), independent references (all four),
group-size bounds, properties, and the published values they reproduce."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from oracles import hm_mst as ref
from mabench import data, kernels as K, partition
from mabench.errors import UserError
from mabench.bench.runner import run_cell
from mabench.data.standardize import zscore
from support import as_run, run_plugin, tied_records


def _run(name, Z, k, **params):
    return run_plugin(name, params, Z, k)


def _same(a, b):
    return partition.canonical_labels(a).tolist() == partition.canonical_labels(b).tolist()


# ------------------------------------------------------------------ hm
@settings(max_examples=100, deadline=None)
@given(x=arrays(np.float64, st.integers(1, 7), elements=st.one_of(
    st.integers(-4, 4).map(float), st.floats(-50, 50, allow_nan=False, width=32).map(float))),
    k=st.integers(1, 4))
def test_hm_equals_brute_force_over_all_partitions(x, k):
    if len(x) < k:
        return
    labels = _run("hm", x[:, None], k)
    assert ref.sse(x[:, None], labels) == pytest.approx(ref.brute_force_sse(x, k), rel=1e-9, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(x=arrays(np.float64, st.integers(1, 11), elements=st.floats(-1e3, 1e3, allow_nan=False, width=32).map(float)),
       k=st.integers(1, 5))
def test_hm_equals_brute_force_over_sorted_cuts(x, k):
    if len(x) < k:
        return
    labels = _run("hm", x[:, None], k)
    assert ref.sse(x[:, None], labels) == pytest.approx(ref.brute_force_contiguous_sse(x, k), rel=1e-9, abs=1e-7)


@settings(max_examples=80, deadline=None)
@given(Z=tied_records(40, 1), k=st.integers(1, 6))
def test_hm_matches_reference_path_on_tied_data(Z, k):
    if len(Z) < k:
        return
    order = np.argsort(Z[:, 0], kind="stable")
    assert _same(_run("hm", Z, k), ref.hm_path(Z, order, k)[0])


def test_hm_refuses_multicolumn_data_and_names_the_fix():
    with pytest.raises(UserError, match=r"columns=3"):
        _run("hm", np.zeros((10, 2)), 3)
    record = run_cell("hm", "tarragona[columns=3]", 3).record
    assert record["d"] == 1 and record["max_group"] <= 5


def test_hm_kernel_cost_is_the_partition_sse_and_never_beaten_by_mdav():
    x = as_run(np.random.default_rng(1).standard_normal((500, 1)))  # a run's data are read-only: its kernels
    order = np.argsort(x[:, 0], kind="stable")
    labels, cost = K.hm_labels(x, order, 3)
    assert cost == pytest.approx(ref.sse(x, labels), rel=1e-10)
    assert cost <= ref.sse(x, K.mdav_partition(x, 3, K.TAIL_3K)) + 1e-12


def test_shortest_path_on_a_rotated_extended_order_supports_cyclic_use():
    """The building blocks ICSM's cyclic variant needs: a path between interior nodes of an extended order."""
    Z = as_run(np.random.default_rng(2).standard_normal((40, 3)))  # as a run's
    k, n = 3, 40
    tour = np.arange(n)
    ext = np.concatenate([tour, tour[: 2 * k - 1]])
    P1, P2 = K.prefix_sums(Z, ext)
    cost = np.empty(ext.size + 1)
    pred = np.empty(ext.size + 1, dtype=np.int64)
    for s in range(2 * k - 1):
        total = K.shortest_path(P1, P2, s, s + n, k, cost, pred)
        labels = np.full(n, -1, dtype=np.int64)
        K.path_labels(ext, s, s + n, pred, labels, 0)
        rotated = np.roll(tour, -s)
        want_labels, want = ref.hm_path(Z, rotated, k)
        assert total == pytest.approx(want, rel=1e-12)
        assert _same(labels, want_labels)


# ------------------------------------------------------------------ mhm
MHM = [dict(order="npn"), dict(order="npn", start="centroid"),
       *[dict(order=o, sequence=s) for o in ("mdav", "md", "cbfs") for s in ("ends", "creation", "chain")]]
MHM_IDS = [",".join(f"{k}={v}" for k, v in p.items()) for p in MHM]


@pytest.mark.parametrize("params", MHM, ids=MHM_IDS)
@settings(max_examples=40, deadline=None)
@given(Z=tied_records(30, 3), k=st.integers(1, 5))
def test_mhm_matches_reference_on_tied_data(params, Z, k):
    if len(Z) < k:
        return
    assert _same(_run("mhm", Z, k, **params), ref.mhm(Z, k, **params))


@pytest.mark.parametrize("params", MHM, ids=MHM_IDS)
def test_mhm_matches_reference_on_continuous_data(params):
    Z = np.random.default_rng(7).standard_normal((120, 4))
    for k in (2, 3, 5):
        assert _same(_run("mhm", Z, k, **params), ref.mhm(Z, k, **params))


@pytest.mark.parametrize("order", ["mdav", "md", "cbfs"])
def test_mhm_is_never_worse_than_the_method_it_orders_with(order):
    Z = np.random.default_rng(11).standard_normal((300, 5))
    key = {"mdav": ("mdav", {}), "md": ("md", {}), "cbfs": ("cbfs", {})}[order]
    for k in (3, 4, 7):
        base = ref.sse(Z, _run(key[0], Z, k, **key[1]))
        for seq in ("ends", "creation", "chain"):
            assert ref.sse(Z, _run("mhm", Z, k, order=order, sequence=seq)) <= base + 1e-9


# ------------------------------------------------------------------ mdst
@pytest.mark.parametrize("split", ["d", "c"])
@settings(max_examples=40, deadline=None)
@given(Z=tied_records(26, 3), k=st.integers(1, 5))
def test_mdst_matches_reference_on_tied_data(split, Z, k):
    if len(Z) < k:
        return
    assert _same(_run("mdst", Z, k, split=split), ref.mdst(Z, k, split))


@pytest.mark.parametrize("split", ["d", "c"])
def test_mdst_matches_reference_on_continuous_data(split):
    Z = np.random.default_rng(5).standard_normal((90, 4))
    for k in (2, 3, 5):
        assert _same(_run("mdst", Z, k, split=split), ref.mdst(Z, k, split))


def test_prim_kernel_is_a_minimum_spanning_tree():
    Z = as_run(np.random.default_rng(9).standard_normal((200, 3)))  # as mdst's run passes it
    order, parent, weight = K.prim_mst(Z, 0)
    want_parent, want_key = ref.prim(Z)
    assert np.array_equal(parent, want_parent)
    assert np.sqrt(weight).sum() == pytest.approx(np.sqrt(want_key).sum())
    assert sorted(order.tolist()) == list(range(200)) and order[0] == 0


# ------------------------------------------------------------------ muapprox
@pytest.mark.parametrize("forest", ["grow", "rounds"])
@settings(max_examples=50, deadline=None)
@given(Z=tied_records(30, 3), k=st.integers(1, 6))
def test_muapprox_matches_reference_on_tied_data(forest, Z, k):
    if len(Z) < k:
        return
    labels, pieces = ref.muapprox(Z, k, forest)
    assert _same(_run("muapprox", Z, k, forest=forest), labels)
    assert all(k <= len(p) <= max(2 * k - 1, 3 * k - 3) for p in pieces)  # the decomposition's bound


@pytest.mark.parametrize("forest", ["grow", "rounds"])
def test_muapprox_matches_reference_on_continuous_data(forest):
    Z = np.random.default_rng(4).standard_normal((110, 4))
    for k in (2, 3, 5, 7):
        assert _same(_run("muapprox", Z, k, forest=forest), ref.muapprox(Z, k, forest)[0])


@pytest.mark.parametrize("forest", ["grow", "rounds"])
def test_muapprox_decomposes_a_star(forest):
    """A star (one centre, many equidistant leaves) is the worst case for the decomposition."""
    leaves = np.array([[np.cos(a), np.sin(a)] for a in np.linspace(0, 2 * np.pi, 40, endpoint=False)])
    Z = np.vstack([[0.0, 0.0], leaves * 0.1, leaves * 5])
    for k in (2, 3, 4, 5, 10):
        assert _same(_run("muapprox", Z, k, forest=forest), ref.muapprox(Z, k, forest)[0])


# ------------------------------------------------------------------ all four
@pytest.mark.parametrize("name,params", [("hm", {}), ("mhm", {}), ("mhm", {"order": "md"}), ("mdst", {}),
                                         ("muapprox", {}), ("muapprox", {"forest": "rounds"})])
def test_bounds_and_determinism_at_scale(name, params):
    d = 1 if name == "hm" else 6
    Z = zscore(np.random.default_rng(3).standard_normal((2500, d)))
    for k in (3, 10):
        a = _run(name, Z, k, **params)  # validates k <= size <= 2k-1
        assert np.array_equal(a, _run(name, Z, k, **params))


def _il(name, dataset, k, **params):
    ds = data.load(dataset, 0)
    Z = np.ascontiguousarray(zscore(ds.values, ds.columns))
    labels = _run(name, Z, k, **params)
    return 100 * ref.sse(Z, labels) / ((Z - Z.mean(axis=0)) ** 2).sum()


def test_published_values_that_reproduce():
    """004_d1273daa16c98592.txt Tables I-II (docs/algorithms/hm_mst.md §5): the cells our readings reproduce."""
    assert round(_il("mhm", "tarragona", 3, order="mdav"), 4) == 16.9326  # MDAV-MHM
    assert round(_il("mhm", "tarragona", 5, order="mdav"), 4) == 22.4617  # MDAV-MHM (needs sequence=ends)
    assert round(_il("mhm", "tarragona", 5, order="mdav", sequence="creation"), 4) == 22.4618
    assert round(_il("mhm", "census", 10, order="md"), 4) == 14.3965  # MD-MHM
    assert round(_il("mdst", "tarragona", 3), 2) == 16.63  # M-d
    assert round(_il("mdst", "tarragona", 4), 2) == 19.66  # M-d (2008 source)


def test_default_config_keeps_hm_on_one_column_selections():
    """config/config.yaml: `hm` has on_every_dataset: false, so it never meets multi-column data."""
    from mabench.bench import config, plan

    placed = {(ds_id, algo_id) for ds_id, _, algo_id, *_ in plan.build(config.load()).regression_batches()}
    hm_sets = {ds for ds, algo in placed if algo == "hm"}
    assert hm_sets == {"tarragona_c3", "census_c3", "eia_c3"}
    for name in ("mhm_npn", "mhm_mdav", "mhm_md", "mhm_cbfs", "mdst", "muapprox"):
        assert {"tarragona", "census", "eia"} <= {ds for ds, algo in placed if algo == name}
