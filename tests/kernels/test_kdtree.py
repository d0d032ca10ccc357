"""The k-d tree's nearest-to-a-group query (mabench/kernels/spatial/kdtree.py) against a plain NumPy scan.

The reference scores every alive record by its summed squared distance to the members (each
member's distances summed attribute by attribute, as the full pass does) and takes the smallest,
ties to the lowest record id. Tie-heavy integer data puts equal scores in different boxes, so the
pruning must not drop an equal candidate with a lower id.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench import kernels as K


def _reference(Z, free, member_ids):
    score = np.zeros(len(Z))
    for q in member_ids:
        dist = np.zeros(len(Z))
        for j in range(Z.shape[1]):
            u = Z[:, j] - Z[q, j]
            dist += u * u
        score += dist
    score = np.where(free, score, np.inf)
    if not free.any():
        return -1
    return int(np.flatnonzero(score == score.min())[0])


class Tree:
    def __init__(self, Z, ids):
        labels = np.zeros(len(Z), dtype=np.int64)
        labels[ids] = -1
        self.pos = np.full(len(Z), -1, dtype=np.int64)
        self.T = K.kd_remaining(Z, labels, -1, self.pos)
        self.rec, self.count = self.T.rec, self.T.count
        self.KS = K.kd_scratch(self.T)

    def delete(self, r):
        K.kd_delete(self.T, self.pos[r])

    def nearest(self, member_ids):
        members = np.array([self.pos[r] for r in member_ids], dtype=np.int64)
        i = K.kd_nearest_to_group(self.T, members, len(members), self.KS)
        return int(self.rec[i]) if i >= 0 else -1


def _grow_everything(Z, ids, k, rng):
    """Delete random seeds and grow groups of k until nothing is left; compare every answer."""
    tree = Tree(Z, ids)
    free = np.zeros(len(Z), bool)
    free[ids] = True
    answers = 0
    while free.any():
        seed = int(rng.choice(np.flatnonzero(free)))
        group = [seed]
        free[seed] = False
        tree.delete(seed)
        while len(group) < k:
            want = _reference(Z, free, group)
            got = tree.nearest(group)
            assert got == want, (group, got, want)
            answers += 1
            if got < 0:
                break
            group.append(got)
            free[got] = False
            tree.delete(got)
    assert tree.count[0] == 0
    return answers


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 400), d=st.integers(1, 4), values=st.integers(1, 6), k=st.integers(2, 12),
       seed=st.integers(0, 2**32 - 1))
def test_nearest_to_group_equals_numpy_scan_on_tied_data(n, d, values, k, seed):
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, values, size=(n, d)).astype(np.float64)
    # z-scored, as the engine runs it: duplicates whose coordinates (and the members' mean) are not
    # exact binary fractions, so a duplicate's score is 0 while the centroid form rounds above 0
    Z = (Z - Z.mean(axis=0)) / np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
    _grow_everything(Z, np.arange(n), k, rng)


@pytest.mark.parametrize("n, d", [(1500, 3), (800, 10)])
def test_nearest_to_group_equals_numpy_scan_on_continuous_data(n, d):
    rng = np.random.default_rng(n + d)
    Z = rng.standard_normal((n, d))
    assert _grow_everything(Z, np.arange(n), 3, rng) >= n // 3


@settings(max_examples=30, deadline=None)
@given(n=st.integers(65, 500), d=st.integers(1, 12), values=st.integers(1, 5), offset=st.sampled_from([0.0, 1e3, 1e6]),
       scale=st.sampled_from([1e-7, 1e-3, 1.0]), k=st.integers(2, 6), seed=st.integers(0, 2**32 - 1))
def test_nearest_to_group_equals_numpy_scan_where_single_precision_cannot_tell_records_apart(
        n, d, values, offset, scale, k, seed):
    """Beyond one leaf, with tied and duplicate records far from the origin: the leaves' single-precision
    filter then rounds the differences between records away and must let every candidate through to
    the double-precision score (its margin grows with the records' norm)."""
    rng = np.random.default_rng(seed)
    Z = offset + scale * rng.integers(0, values, size=(n, d)).astype(np.float64)
    Z[rng.random(n) < 0.2] += scale * rng.random(d)  # some records off the grid, a few still duplicates
    _grow_everything(np.ascontiguousarray(Z), np.arange(n), k, rng)


@pytest.mark.parametrize("d", [40, 80])
def test_nearest_to_group_equals_numpy_scan_in_many_dimensions(d):
    """The thesis's Table 5.4 widths (IAMAT at d = 10 .. 80), where boxes barely prune, with duplicates."""
    rng = np.random.default_rng(d)
    Z = rng.standard_normal((400, d))
    Z[200:260] = Z[:60]
    assert _grow_everything(Z, np.arange(400), 3, rng) >= 400 // 3


def test_a_tree_over_a_subset_answers_only_from_that_subset():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((500, 4))
    ids = np.flatnonzero(rng.random(500) < 0.4)
    _grow_everything(Z, ids, 4, rng)
    tree = Tree(Z, ids)
    assert sorted(tree.rec.tolist()) == ids.tolist()
    assert tree.count[0] == ids.size
