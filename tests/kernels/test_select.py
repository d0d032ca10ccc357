"""The "k smallest so far" insertion step and the quickselect (mabench/kernels/core/select.py)
against plain NumPy.

Values are drawn from a handful of integers so that most lists hold ties: the ordered step must keep
the lowest indices among equal values, the ranked step the lowest ranks whatever the order offered.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from mabench.kernels.core.select import keep_smallest, keep_smallest_ranked, select_by_key

values = st.lists(st.integers(0, 4).map(float), min_size=0, max_size=40)


def _reference(v, key, want):
    """The first ``want`` of (value, key) sorted: a stable NumPy sort, no insertion."""
    order = np.lexsort((key, v))[:want]
    return v[order], order


@settings(max_examples=200, deadline=None)
@given(values, st.integers(1, 8))
def test_keep_smallest_matches_a_stable_sort(vals, want):
    v = np.array(vals, dtype=np.float64)
    top_d = np.full(want, np.nan)
    top_i = np.full(want, -7, dtype=np.int64)
    cnt = 0
    for i in range(v.size):
        cnt = keep_smallest(top_d, top_i, cnt, want, v[i], i)
    ref_d, ref_i = _reference(v, np.arange(v.size), want)
    assert cnt == min(want, v.size)
    assert top_d[:cnt].tolist() == ref_d.tolist()
    assert top_i[:cnt].tolist() == ref_i.tolist()


@settings(max_examples=200, deadline=None)
@given(values, st.integers(1, 8), st.randoms(use_true_random=False))
def test_keep_smallest_ranked_matches_a_sort_in_any_offer_order(vals, want, rnd):
    v = np.array(vals, dtype=np.float64)
    rank = np.arange(v.size, dtype=np.int64)
    rnd.shuffle(rank)
    offer = list(range(v.size))
    rnd.shuffle(offer)
    top_d = np.full(want, np.nan)
    top_i = np.full(want, -7, dtype=np.int64)
    cnt = 0
    for i in offer:
        cnt = keep_smallest_ranked(top_d, top_i, cnt, want, v[i], i, rank)
    ref_d, ref_i = _reference(v, rank, want)
    assert cnt == min(want, v.size)
    assert top_d[:cnt].tolist() == ref_d.tolist()
    assert top_i[:cnt].tolist() == ref_i.tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4).map(float), min_size=1, max_size=40), st.data())
def test_select_by_key_puts_the_order_statistic_in_place(vals, data):
    """On one column of a (n, 3) array (a strided key, as the k-d tree's split passes it), over a
    sub-range of the indices: the range is permuted, nothing outside it moves, and the key at kth is
    the kth smallest of the range with no larger key before it and no smaller one after it."""
    n = len(vals)
    Z = np.zeros((n, 3))
    Z[:, 1] = vals
    lo = data.draw(st.integers(0, n - 1))
    hi = data.draw(st.integers(lo + 1, n))
    kth = data.draw(st.integers(lo, hi - 1))
    idx = np.arange(n)[::-1].copy()
    before = idx.copy()
    select_by_key(Z[:, 1], idx, lo, hi, kth)
    keys = Z[idx, 1]
    assert sorted(idx[lo:hi].tolist()) == sorted(before[lo:hi].tolist())
    assert idx[:lo].tolist() == before[:lo].tolist() and idx[hi:].tolist() == before[hi:].tolist()
    assert keys[kth] == np.sort(Z[before[lo:hi], 1])[kth - lo]
    assert (keys[lo:kth] <= keys[kth]).all() and (keys[kth + 1:hi] >= keys[kth]).all()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4).map(float), min_size=1, max_size=40), st.data())
def test_select_by_key_with_rows_moves_the_rows_and_makes_the_same_swaps(vals, data):
    """With ``rows`` (the k-d tree's build): the key read in place from a column of the moving rows
    gives idx the same order as the key read through idx, and every row ends beside its index."""
    n = len(vals)
    rng = np.random.default_rng(len(vals))
    Z = rng.integers(0, 3, size=(n, 3)).astype(np.float64)
    Z[:, 1] = vals
    lo = data.draw(st.integers(0, n - 1))
    hi = data.draw(st.integers(lo + 1, n))
    kth = data.draw(st.integers(lo, hi - 1))
    idx = np.arange(n)[::-1].copy()
    select_by_key(Z[:, 1], idx, lo, hi, kth)
    moved = np.arange(n)[::-1].copy()
    rows = Z[moved].copy()
    select_by_key(rows[:, 1], moved, lo, hi, kth, rows)
    assert moved.tolist() == idx.tolist()
    assert np.array_equal(rows, Z[moved])
