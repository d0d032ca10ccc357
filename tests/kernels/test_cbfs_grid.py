"""The grid kernel of fixed-centre CBFS (kernels/methods/cbfs_grid.py, kernels/spatial/grid.py) gives the
pass kernel's partition, record for record, and its k-nearest query is a full scan's answer.

References: ``cbfs_labels_scan(Z, k, True, True)`` (the previous path of EMAD's MAT runs, a full
distance pass per question) and the plain-Python CBFS of tests/oracles/mdav_family.py; the query
against a NumPy scan sorted by (squared distance, record id). Tie-heavy data (integer grids,
duplicates, z-scored duplicates) put equal distances in different cells.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench import kernels as K
from mabench.kernels.core.counter import GROUPED
from mabench.kernels.methods.cbfs_grid import CROWDED, cbfs_fixed_grid, cbfs_fixed_labels
from mabench.kernels.spatial.grid import grid_build, grid_delete, grid_nearest_k, reach_offsets
from oracles.mdav_family import cbfs as cbfs_reference
from support import as_run, tied_records


def _data(kind, n, d, rng):
    if kind == "normal":
        return rng.standard_normal((n, d))
    if kind == "offset":  # far from the origin: cell borders computed with rounding
        return 1e6 + 1e-3 * rng.standard_normal((n, d))
    if kind == "grid":
        return rng.integers(0, 4, size=(n, d)).astype(np.float64)
    if kind == "duplicates":
        rows = rng.standard_normal((max(1, n // 20), d))
        return rows[rng.integers(0, len(rows), n)]
    if kind == "zscored":
        X = rng.integers(0, 3, size=(n, d)).astype(np.float64)
        sd = X.std(axis=0)
        return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    if kind == "outlier":  # one far record: few crowded cells
        X = rng.standard_normal((n, d))
        X[0] = 1e4
        return X
    raise ValueError(kind)


KINDS = ("normal", "offset", "grid", "duplicates", "zscored", "outlier")


def _grid(Z, k, crowded=np.inf):
    """The grid kernel as ``cbfs_fixed_labels`` calls it (with the progress counter)."""
    return cbfs_fixed_grid(as_run(Z), k, crowded, GROUPED)


def _scan(Z, k):
    return K.cbfs_labels(as_run(Z), k, True, True, "scan")


@settings(max_examples=80, deadline=None)
@given(Z=tied_records(max_n=120, max_d=4, span=2), k=st.integers(1, 6))
def test_grid_kernel_gives_the_pass_kernels_partition_on_tied_records(Z, k):
    assert np.array_equal(_grid(Z, k), _scan(Z, k))


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(1, 500), d=st.integers(1, 4), k=st.integers(2, 7),
       seed=st.integers(0, 2**32 - 1))
def test_grid_kernel_gives_the_pass_kernels_partition(kind, n, d, k, seed):
    Z = _data(kind, n, d, np.random.default_rng(seed))
    assert np.array_equal(_grid(Z, k), _scan(Z, k))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_grid_kernel_agrees_at_the_size_of_emads_subsets(kind, d):
    Z = _data(kind, 5_000, d, np.random.default_rng(d))
    assert np.array_equal(_grid(Z, 3), K.cbfs_labels(as_run(Z), 3, True, True, "tree"))


@settings(max_examples=30, deadline=None)
@given(Z=tied_records(max_n=40, max_d=3, span=2, min_n=5), k=st.integers(2, 5))  # the oracle needs n >= k
def test_grid_kernel_gives_the_plain_python_cbfs(Z, k):
    assert np.array_equal(_grid(Z, k), cbfs_reference(Z, k, "group", "fixed"))


def test_every_index_choice_gives_the_same_partition_and_crowded_data_leave_the_grid():
    rng = np.random.default_rng(7)
    for kind in KINDS:
        Z = _data(kind, 3_000, 3, rng)
        want = _scan(Z, 3)
        for index in ("auto", "tree", "scan"):
            assert np.array_equal(cbfs_fixed_labels(as_run(Z), 3, index), want), (kind, index)
    # one outlier stretches the box: every other record shares a cell, the grid declines
    assert _grid(_data("outlier", 3_000, 3, rng), 3, CROWDED).size == 0


@pytest.mark.parametrize("kind", KINDS)
def test_k_nearest_query_equals_a_numpy_scan_with_deletions(kind):
    rng = np.random.default_rng(11)
    for d in (1, 2, 3, 4):
        Z = as_run(_data(kind, 700, d, rng))
        grid = grid_build(Z, 4.0)
        offsets, least = reach_offsets(d)
        alive = np.ones(len(Z), dtype=bool)
        for r in rng.permutation(len(Z))[:500]:
            grid_delete(grid, r)
            alive[r] = False
            p = Z[r].copy()
            want = int(rng.integers(1, 6))
            top_d, top_i = np.empty(want), np.empty(want, dtype=np.int64)
            cnt = grid_nearest_k(grid, p, want, top_d, top_i, offsets, least, np.empty(d, dtype=np.int64),
                                 np.empty(d), np.empty(d, dtype=np.int64))
            ids = np.flatnonzero(alive)
            dist = np.zeros(ids.size)
            for j in range(d):  # the pass's arithmetic: attribute order from 0.0
                dist += (Z[ids, j] - p[j]) ** 2
            best = ids[np.lexsort((ids, dist))][:want]
            assert cnt == best.size and np.array_equal(top_i[:cnt], best), (kind, d, r)
