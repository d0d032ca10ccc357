"""Algorithms: equal to the independent NumPy reference, valid, deterministic, thread-count free."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench import discovery, partition
from mabench.plugin import format_params
from oracles.mdav_family import REFERENCE
from support import run_plugin as _run, tied_records

CONFIGS = [(name, dict(p.split("=") for p in params.split(",")) if params else {})
           for name, params in REFERENCE]




def test_every_plugin_declares_its_contract():
    algos = discovery.algorithms()
    assert {"mdav", "mdav1", "md", "cbfs"} <= set(algos)
    for algo in algos.values():
        assert ".txt" in algo.citation, f"{algo.name} must cite its seed file"
        bound = algo.max_group_size(3, algo.resolve({}))
        assert bound is None or bound >= 5, f"{algo.name}: a bound below 2k-1 cannot hold"  # V-MDAV: 3k-2
        for (name, params) in REFERENCE:
            if name == algo.name:
                assert set(dict(p.split("=") for p in params.split(",")) if params else {}) <= set(algo.params)


# Small integer grids make ties (duplicate records, equidistant records) common:
# the kernels must break them exactly like the reference (lowest record index).
data = tied_records(max_n=40, max_d=4)


@pytest.mark.parametrize("name,params", CONFIGS, ids=[f"{n}[{format_params(p)}]" for n, p in CONFIGS])
@settings(max_examples=60, deadline=None)
@given(Z=data, k=st.integers(1, 6))
def test_matches_reference_on_tied_data(name, params, Z, k):
    if len(Z) < k:
        return
    got = _run(name, params, Z, k)
    want = REFERENCE[(name, format_params(params) if params else "")](Z, k)
    assert partition.canonical_labels(got).tolist() == partition.canonical_labels(want).tolist()


@pytest.mark.parametrize("name,params", CONFIGS, ids=[f"{n}[{format_params(p)}]" for n, p in CONFIGS])
def test_matches_reference_on_continuous_data(name, params):
    Z = np.random.default_rng(7).standard_normal((157, 5))
    for k in (2, 3, 5):
        got = _run(name, params, Z, k)
        want = REFERENCE[(name, format_params(params) if params else "")](Z, k)
        assert partition.canonical_labels(got).tolist() == partition.canonical_labels(want).tolist()


@pytest.mark.parametrize("name", ["mdav", "cbfs", "md"])
def test_result_does_not_depend_on_thread_count(name):
    import numba

    Z = np.random.default_rng(3).standard_normal((9000, 4))  # above the parallel threshold
    k = 3
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = _run(name, {}, Z, k)
        numba.set_num_threads(max(2, before))
        two = _run(name, {}, Z, k)
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one, two)


def test_all_identical_records_still_give_a_valid_partition():
    Z = np.ones((11, 3))
    for name, params in CONFIGS:
        _run(name, params, Z, 3)


@pytest.mark.parametrize("bad,match", [
    (np.array([0, 0, 1, 1, 1]), "< k=3"),
    (np.array([0, 0, 0, 2, 2, 2]), "unused"),
    (np.array([0, 0, 0, -1, 1, 1]), "negative"),
    (np.array([0.0, 0, 0, 0, 0]), "not integers"),
])
def test_partition_validation_rejects_bad_partitions(bad, match):
    with pytest.raises(partition.InvalidPartition, match=match):
        partition.check(bad, len(bad), 3, 5)


def test_partition_validation_enforces_the_declared_bound():
    with pytest.raises(partition.InvalidPartition, match="> 5"):
        partition.check(np.zeros(6, dtype=np.int64), 6, 3, 5)
