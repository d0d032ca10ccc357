"""The radix order of float64 values (mabench/kernels/core/radix.py) against NumPy's stable sort, and
the shell order built on it (mabench/kernels/spatial/shell.py) against a plain NumPy shell order.

Values come from a handful of integers (and their square roots) so that most arrays hold ties: equal
values must keep their positions' order, as ``np.argsort(-a, kind="mergesort")`` keeps them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench.kernels.core.radix import decreasing_order
from mabench.kernels.spatial.shell import shell_order
from support import as_run

special = st.sampled_from([0.0, -0.0, np.inf, np.nan, 5e-324, 1e-300, 1e300])
value = st.one_of(st.integers(0, 4).map(float), st.integers(0, 12).map(lambda v: float(np.sqrt(v))), special,
                  st.floats(0.0, 1e6, allow_nan=False))


def _reference(a):
    return np.argsort(-a, kind="mergesort")


@settings(max_examples=300, deadline=None)
@given(st.lists(value, min_size=0, max_size=300))
def test_decreasing_order_is_numpys_stable_order_of_the_negated_values(vals):
    a = np.array(vals, dtype=np.float64)
    assert decreasing_order(a).tolist() == _reference(a).tolist()


def test_decreasing_order_on_many_values_with_ties_and_wide_exponents():
    """Enough values that every radix pass moves keys (exponents from 1e-200 to 1e200) and many ties."""
    rng = np.random.default_rng(11)
    a = np.concatenate([np.sqrt(rng.integers(0, 30, 40_000).astype(np.float64)),
                        10.0 ** rng.uniform(-200, 200, 40_000), np.zeros(50), np.full(20, np.nan)])
    a = a[rng.permutation(a.size)]
    a.setflags(write=False)  # read as a run's data would be
    assert decreasing_order(a).tolist() == _reference(a).tolist()


@pytest.mark.parametrize("d", [1, 2, 3, 10])
def test_shell_order_is_numpys_order_of_the_remaining_records_with_ties(d):
    """Integer-valued records about an integer pivot: many records at one radius, across blocks."""
    rng = np.random.default_rng(d)
    Z = as_run(rng.integers(-3, 4, size=(3_000, d)).astype(np.float64))
    labels = np.where(rng.random(len(Z)) < 0.3, 5, -1).astype(np.int64)
    c0 = rng.integers(-1, 2, d).astype(np.float64)
    rem = np.flatnonzero(labels == -1)
    s = np.zeros(rem.size)
    for j in range(d):
        s += (Z[rem, j] - c0[j]) ** 2
    radius = np.sqrt(s)
    want = rem[_reference(radius)]
    shell = shell_order(Z, labels, c0)
    assert shell.ids.tolist() == want.tolist()
    assert shell.radius.tolist() == radius[_reference(radius)].tolist()
