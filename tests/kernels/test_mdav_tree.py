"""The tree kernels of the MDAV family and CBFS (kernels/methods/mdav.py, kernels/methods/cbfs.py, kernels/spatial/treegroups.py)
give the pass kernels' partitions, record for record.

The pass kernel (``index=scan``) is the reference: a full distance pass per question, ties to the
lowest record id. The tree kernel answers the same questions from a shell order and a k-d tree
and must agree on every tail and variant, on random, clustered and tie-heavy data (integer grids,
duplicated rows, z-scored duplicates, where equal distances sit in different boxes).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench import kernels as K
from mabench.kernels.core.counter import GROUPED
from support import as_run

MDAV_TAILS = (K.TAIL_3K, K.TAIL_2K, K.TAIL_MDAV1)
CBFS_VARIANTS = [(tg, fx) for tg in (False, True) for fx in (False, True)]


def _data(kind, n, d, rng):
    if kind == "normal":
        return rng.standard_normal((n, d))
    if kind == "clustered":
        centres = rng.standard_normal((max(1, n // 50), d)) * 5
        return centres[rng.integers(0, len(centres), n)] + 0.1 * rng.standard_normal((n, d))
    if kind == "grid":
        return rng.integers(0, 4, size=(n, d)).astype(np.float64)
    if kind == "duplicates":  # a few distinct rows, each repeated many times
        rows = rng.standard_normal((max(1, n // 20), d))
        return rows[rng.integers(0, len(rows), n)]
    if kind == "zscored":  # z-scored duplicates: rounded means, equal distances off the grid
        X = rng.integers(0, 3, size=(n, d)).astype(np.float64)
        sd = X.std(axis=0)
        return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    raise ValueError(kind)


KINDS = ("normal", "clustered", "grid", "duplicates", "zscored")


def _same_mdav(Z, k):
    Z = as_run(Z)
    for tail in MDAV_TAILS:
        want = K.mdav_partition(Z, k, tail, "scan")
        got = K.mdav_partition(Z, k, tail, "tree")
        assert np.array_equal(want, got), ("mdav tail", tail)


def _same_cbfs(Z, k):
    Z = as_run(Z)
    for tail_group, fixed in CBFS_VARIANTS:
        want = K.cbfs_labels(Z, k, tail_group, fixed, "scan")
        got = K.cbfs_labels(Z, k, tail_group, fixed, "tree")
        assert np.array_equal(want, got), ("cbfs", tail_group, fixed)


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(1, 400), d=st.integers(1, 5), k=st.integers(2, 9),
       seed=st.integers(0, 2**32 - 1))
def test_tree_kernels_give_the_pass_kernels_partition(kind, n, d, k, seed):
    Z = _data(kind, n, d, np.random.default_rng(seed))
    _same_mdav(Z, k)
    _same_cbfs(Z, k)


@pytest.mark.parametrize("kind", KINDS)
def test_tree_kernels_agree_at_a_size_where_the_tree_rebuilds_many_times(kind):
    """12,000 records in 3 dimensions (treegroups.LOW_D: the tree rebuilt when half of it is grouped,
    ~10 times, the shell order when a quarter is, ~25 times) and the running sums recomputed ~30
    times along the way; every step must still match the pass."""
    rng = np.random.default_rng(7)
    Z = _data(kind, 12_000, 3, rng)
    _same_mdav(Z, 3)
    _same_cbfs(Z, 5)


def test_tree_kernels_agree_in_ten_dimensions():
    rng = np.random.default_rng(11)
    _same_mdav(rng.standard_normal((6_000, 10)), 3)
    _same_cbfs(rng.standard_normal((6_000, 10)), 4)


@pytest.mark.parametrize("kind", KINDS)
def test_two_thread_kernels_give_the_pass_kernels_partition(kind):
    """``pair=True``: MDAV finds s and s's nearest while r's nearest are found, CBFS finds the likely
    next seed's nearest with the seed's; answers found before a group left are used only when still
    valid. The partition must not change, on data where it often is not (ties, duplicates)."""
    rng = np.random.default_rng(13)
    for n, d in ((4_000, 3), (2_500, 10)):
        Z = as_run(_data(kind, n, d, rng))
        for k in (2, 3, 5):
            for tail in MDAV_TAILS:
                assert np.array_equal(K.mdav_partition(Z, k, tail, "scan"),
                                      K.mdav_labels_tree(Z, k, tail, True, GROUPED)), (tail, k)
            for tail_group, fixed in CBFS_VARIANTS:
                want = K.cbfs_labels(Z, k, tail_group, fixed, "scan")
                assert np.array_equal(want, K.cbfs_labels_tree(Z, k, tail_group, fixed, True, GROUPED)), (tail_group, fixed, k)


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(KINDS), n=st.integers(1, 300), d=st.integers(1, 4), k=st.integers(2, 7),
       seed=st.integers(0, 2**32 - 1))
def test_two_thread_kernels_agree_on_small_inputs(kind, n, d, k, seed):
    Z = as_run(_data(kind, n, d, np.random.default_rng(seed)))
    for tail in MDAV_TAILS:
        assert np.array_equal(K.mdav_partition(Z, k, tail, "scan"), K.mdav_labels_tree(Z, k, tail, True, GROUPED))
    for tail_group, fixed in CBFS_VARIANTS:
        assert np.array_equal(K.cbfs_labels(Z, k, tail_group, fixed, "scan"),
                              K.cbfs_labels_tree(Z, k, tail_group, fixed, True, GROUPED))


def test_two_thread_kernels_give_the_same_partition_on_one_thread():
    import numba

    Z = as_run(np.random.default_rng(17).standard_normal((3_000, 6)))
    both = K.mdav_labels_tree(Z, 3, K.TAIL_3K, True, GROUPED), K.cbfs_labels_tree(Z, 3, False, False, True, GROUPED)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = K.mdav_labels_tree(Z, 3, K.TAIL_3K, True, GROUPED), K.cbfs_labels_tree(Z, 3, False, False, True, GROUPED)
    finally:
        numba.set_num_threads(before)
    assert all(np.array_equal(a, b) for a, b in zip(both, one))


def _tree_of_all(Z):
    """A k-d tree over every record of Z (read-only, as a run's), its query scratch, and each record's
    position in it. The queries pass ``skip`` (-1: none) as the tree kernels do, for the same reason."""
    Z = as_run(Z)
    labels = np.full(len(Z), -1, dtype=np.int64)
    pos = np.empty(len(Z), dtype=np.int64)
    T = K.kd_remaining(Z, labels, -1, pos)
    return T, K.kd_scratch(T), pos


def test_k_nearest_query_skips_the_position_it_is_told_to():
    rng = np.random.default_rng(3)
    Z = rng.integers(0, 3, size=(300, 2)).astype(np.float64)
    T, KS, pos = _tree_of_all(Z)
    top_d, top_i = np.empty(5), np.empty(5, dtype=np.int64)
    for r in rng.integers(0, len(Z), 20):
        p = Z[r].copy()
        dist = ((Z - p) ** 2).sum(axis=1)
        others = np.delete(np.arange(len(Z)), r)
        want = others[np.lexsort((others, dist[others]))][:5]
        assert K.kd_nearest_k(T, p, 5, top_d, top_i, KS, pos[r]) == 5
        assert T.rec[top_i].tolist() == want.tolist()


def _scan_nearest(Z, p, alive, want):
    """The ``want`` alive records nearest to p by (squared distance, id), the distances summed
    attribute by attribute like the pass; returns (ids, distances)."""
    dist = np.zeros(len(Z))
    for j in range(Z.shape[1]):
        dist += (Z[:, j] - p[j]) ** 2
    ids = alive[np.lexsort((alive, dist[alive]))][:want]
    return ids, dist[ids]


def test_k_nearest_query_equals_a_numpy_scan_with_ties():
    """kd_nearest_k: the ``want`` alive records nearest to a point by (squared distance, id), the
    distances summed attribute by attribute like the pass."""
    rng = np.random.default_rng(5)
    Z = rng.integers(0, 3, size=(700, 3)).astype(np.float64)
    T, KS, pos = _tree_of_all(Z)
    dead = rng.random(len(Z)) < 0.3
    for r in np.flatnonzero(dead):
        K.kd_delete(T, pos[r])
    top_d, top_i = np.empty(40), np.empty(40, dtype=np.int64)
    for _ in range(50):
        p = Z[rng.integers(len(Z))] + rng.integers(-1, 2, 3) * 0.5
        want, want_d = _scan_nearest(Z, p, np.flatnonzero(~dead), 25)
        cnt = K.kd_nearest_k(T, p, 25, top_d, top_i, KS, -1)
        assert cnt == 25
        assert T.rec[top_i[:cnt]].tolist() == want.tolist()
        assert top_d[:cnt].tolist() == want_d.tolist()


def test_auto_picks_by_size_and_dimension():
    assert not K.use_tree("auto", 1_000, 3)
    assert K.use_tree("auto", 1_000_000, 3) and K.use_tree("auto", 1_000_000, 10)
    assert K.use_tree("auto", 10_000, 10) and not K.use_tree("auto", 9_999, 10)
    assert K.use_tree("auto", 10_000, 12) and not K.use_tree("auto", 10_000, 13)
    assert not K.use_tree("auto", 1_000_000, 30)
    assert K.use_tree("tree", 10, 30) and not K.use_tree("scan", 10**6, 3)
    with pytest.raises(ValueError):
        K.use_tree("fast", 10, 3)


def test_a_second_thread_is_used_where_it_pays(monkeypatch):
    """Two threads available: the second question (MDAV's s and its nearest, CBFS's guessed next seed)
    from PAIR_FROM records and PAIR_FROM_D attributes (below either, a question costs less than a
    second thread's start-up per iteration); one thread never."""
    from mabench.kernels.spatial import index_choice as ic

    monkeypatch.setattr(ic.numba, "get_num_threads", lambda: 2)
    assert ic.use_pair(10**6, ic.PAIR_FROM_D) is True and ic.use_pair(10**6, 10) is True
    assert ic.use_pair(ic.PAIR_FROM - 1, 10) is None
    assert ic.use_pair(10**6, ic.PAIR_FROM_D - 1) is None and ic.use_pair(10**6, 1) is None
    with ic.sized_as(10**6, 10):  # a warm-up on a tiny problem answers as the real size will
        assert ic.use_pair(10, 3) is True
    with ic.sized_as(10**6, 3):
        assert ic.use_pair(10, 10) is None
    monkeypatch.setattr(ic.numba, "get_num_threads", lambda: 1)
    assert ic.use_pair(10**6, 10) is None


def test_running_centroid_is_the_pass_kernels_bit_for_bit():
    """treegroups.centroid_of_remaining replays buffer.centroid (sums recomputed in record order when
    more than 1/8 of the slots are gone, each removed record subtracted in between): the same bits
    after every removal, on values whose sums round."""
    from mabench.kernels.spatial import treegroups as TG

    rng = np.random.default_rng(9)
    n, d = 3_000, 4
    Z = as_run(rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 4, size=(1, d)))
    W, ids_w, alive = K.work_buffer(Z)
    S = K.scratch(n, d, 1)
    m = K.compact(W, ids_w, alive, n, S.sums)
    labels = np.full(n, -1, dtype=np.int64)
    ids_t, sums_t = TG.start_sums(Z, labels)
    slots = n
    c_t = np.empty(d)
    left = n
    for r in rng.permutation(n)[: n - 5]:
        m = K.centroid(W, ids_w, alive, m, left, S.sums, S.centroid)
        slots = TG.centroid_of_remaining(Z, ids_t, labels, slots, left, sums_t, c_t)
        assert S.centroid.tobytes() == c_t.tobytes()
        slot = int(np.searchsorted(ids_w[:m], r))
        alive[slot] = False
        K.forget(W, slot, S.sums)
        labels[r] = 0
        TG.forget_record(Z, r, sums_t)
        left -= 1


def _rounding_case(kind, size, spread, n, d, rng):
    """Rows whose distances differ below single precision's resolution, and a query generator:
    "far" = rows on a far cap queried from near the origin (the relative error of the sum matters),
    "offset" = a cloud far from the origin queried from inside it (the rounding of |x| matters)."""
    rows = np.empty((n // 2, d))
    if kind == "far":
        rows[:, 0] = size + spread * rng.standard_normal(len(rows))
        rows[:, 1:] = 1e-3 * rng.standard_normal((len(rows), d - 1))
        return rows, lambda: 1e-3 * rng.standard_normal(d)
    rows[:] = size + spread * rng.standard_normal(rows.shape)
    return rows, lambda: size + spread * rng.standard_normal(d)


@pytest.mark.parametrize("kind, size, spread, d", [("far", 1e4, 1e-6, 30), ("far", 1e2, 1e-8, 3),
                                                   ("offset", 1e4, 30.0, 3), ("offset", 1e3, 0.3, 3)])
def test_k_nearest_query_is_exact_where_single_precision_rounds(kind, size, spread, d):
    """kd_nearest_k filters a leaf's records in single precision and computes the double-precision
    distance only where it could enter. Where single precision cannot tell the candidates apart (and
    with duplicated rows: ties, and grouped records), the answer is still the double pass's, ties to
    the lowest id: the filter's error bound, not luck (without it several of these queries come out
    wrong; the "offset" cases need its rounding term, the "far" ones either term)."""
    rng = np.random.default_rng(11)
    n = 5_000
    rows, query = _rounding_case(kind, size, spread, n, d, rng)
    Z = rows[rng.integers(0, len(rows), n)]
    T, KS, pos = _tree_of_all(Z)
    dead = rng.random(n) < 0.2
    for r in np.flatnonzero(dead):
        K.kd_delete(T, pos[r])
    alive = np.flatnonzero(~dead)
    top_d, top_i = np.empty(7), np.empty(7, dtype=np.int64)
    for _ in range(100):
        p = query()
        want, want_d = _scan_nearest(Z, p, alive, 7)
        assert K.kd_nearest_k(T, p, 7, top_d, top_i, KS, -1) == 7
        assert T.rec[top_i].tolist() == want.tolist()
        assert top_d.tolist() == want_d.tolist()


def _outliers_and_cells(n, d, offset, scale, rng):
    """Records that a coarse view of a leaf cannot tell apart: tight clusters (spread ``scale`` · 1e-4,
    some rows exact duplicates) beside a few records 50 times farther out, so that leaves' boxes are
    wide around records that nearly coincide; everything shifted by ``offset`` from the origin."""
    centres = rng.standard_normal((max(1, n // 40), d)) * scale
    Z = centres[rng.integers(0, len(centres), n)] + 1e-4 * scale * rng.standard_normal((n, d))
    Z[rng.random(n) < 0.3] = Z[0]                      # exact duplicates
    Z[rng.random(n) < 0.05] *= 50.0                    # far records stretch the leaves' boxes
    return np.ascontiguousarray(offset + Z)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 900), d=st.integers(1, 12), offset=st.sampled_from([0.0, 1e3, 1e9]),
       scale=st.sampled_from([1e-6, 1.0, 1e6]), want=st.integers(1, 9), seed=st.integers(0, 2**32 - 1))
def test_k_nearest_query_is_exact_on_clusters_duplicates_and_outliers(n, d, offset, scale, want, seed):
    """kd_nearest_k filters a leaf's records before any double distance. On clusters, exact duplicates
    and far records, near the origin and 10⁹ from it, the answer is still the double pass's, ties to
    the lowest id, queried from records (MDAV's seeds, the record itself skipped) and from points
    between them, with a fifth of the records grouped."""
    rng = np.random.default_rng(seed)
    Z = _outliers_and_cells(n, d, offset, scale, rng)
    T, KS, pos = _tree_of_all(Z)
    dead = rng.random(n) < 0.2
    for r in np.flatnonzero(dead):
        K.kd_delete(T, pos[r])
    top_d, top_i = np.empty(want), np.empty(want, dtype=np.int64)
    for r in rng.integers(0, n, 15):
        alive = np.flatnonzero(~dead & (np.arange(n) != r))
        p = Z[r].copy()
        ids, dist = _scan_nearest(Z, p, alive, want)
        cnt = K.kd_nearest_k(T, p, want, top_d, top_i, KS, pos[r] if not dead[r] else -1)
        assert T.rec[top_i[:cnt]].tolist() == ids.tolist()
        assert top_d[:cnt].tolist() == dist.tolist()
        q = Z[r] + 0.5 * (Z[rng.integers(0, n)] - Z[r])
        ids, dist = _scan_nearest(Z, q, np.flatnonzero(~dead), want)
        cnt = K.kd_nearest_k(T, q, want, top_d, top_i, KS, -1)
        assert T.rec[top_i[:cnt]].tolist() == ids.tolist()
        assert top_d[:cnt].tolist() == dist.tolist()


@pytest.mark.parametrize("offset, scale", [(0.0, 1.0), (1e6, 1e-3), (0.0, 1e9)])
def test_tree_kernels_agree_on_clusters_duplicates_and_outliers(offset, scale):
    """The MDAV and CBFS tree kernels on clustered, duplicated records with far outliers (wide leaf
    boxes around nearly coinciding records), at a size where the tree has many leaves and is rebuilt."""
    rng = np.random.default_rng(int(offset) % 97 + int(np.log10(scale) + 10))
    Z = _outliers_and_cells(3_000, 6, offset, scale, rng)
    _same_mdav(Z, 3)
    _same_cbfs(Z, 4)


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("kind", ["grid", "duplicates", "zscored"])
def test_tree_kernels_agree_on_tied_data_through_many_shell_re_sorts(kind, d):
    """5,000 records at d <= treegroups.LOW_D, where equal radii fill whole shell blocks: the shell
    order (kernels/spatial/shell.py, sorted by kernels/core/radix.py) is re-sorted about 20 times and
    must keep tied records in record order each time."""
    Z = _data(kind, 5_000, d, np.random.default_rng(40 + d))
    _same_mdav(Z, 3)
    _same_cbfs(Z, 3)
