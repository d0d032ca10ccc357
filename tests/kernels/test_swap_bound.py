"""OMMA's exchange bound (mabench/kernels/methods/swap_bound.py) and the learning cycles that use it.

* Soundness: whenever ``far_apart`` (stage 1) or ``no_gain`` (stage 2) says that no exchange of y with a
  member of u can be made, every exchange's Δ as best_swap computes it (``swap_delta``: the same
  operations) is above 2·EPS — on tie-heavy integer data (duplicates: Δ exactly 0) and on clustered
  continuous data, with random and sorted groups. Each stage is seen to decide some pairs (not vacuous).
* Same decisions: the plugin's ``learn`` returns what the previous kernel (tests/oracles/omma_reference.py,
  best_swap for every pair) returns, bit for bit: groups, deleted pairs, SSE per cycle, cycle count.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mabench import discovery
from mabench import kernels as K
from mabench.kernels.methods.swap import EPS
from oracles import omma_reference
from support import tied_records


def _plugin():
    return __import__(discovery.algorithm("omma").run.__module__, fromlist=["learn"])


def _clustered(n, d, seed):
    """Gaussian clusters of different spreads plus a few far outliers: far and near groups both occur."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 6.0, (8, d))
    Z = centres[rng.integers(0, 8, n)] + rng.normal(0.0, 1.0, (n, d)) * rng.uniform(0.2, 2.0, (n, 1))
    Z[rng.integers(0, n, 3)] *= 8.0
    return (Z - Z.mean(axis=0)) / Z.std(axis=0)


def _groups(Z, k, seed, sort):
    n = Z.shape[0] - Z.shape[0] % k
    order = np.lexsort(Z[:n].T[::-1]) if sort else np.random.default_rng(seed).permutation(n)
    return np.ascontiguousarray(Z[:n]), K.fixed_groups(order.astype(np.int64), k)


def _check_bound(Z, k, seed, sort):
    """Every pair (y, u) the bound decides: all of best_swap's Δ > 2·EPS. Returns (stage 1, stage 2) counts."""
    Z, (members, grp, pos) = _groups(Z, k, seed, sort)
    n, d = Z.shape
    h = members.shape[0]
    sums = np.empty((h, d))
    K.member_sums(Z, members, sums)
    offset, radius = np.empty(n), np.empty(h)
    K.group_radii(Z, members, sums, offset, radius)
    slack = K.bound_slack(Z, k)
    fired = [0, 0]
    for y in range(n):
        v = grp[y]
        for u in range(h):
            if u == v:
                continue
            gap = K.sum_gap(sums, u, v)
            first = K.far_apart(gap, offset[y], radius[u], k, d, slack)
            second = K.no_gain(Z, sums, radius, k, u, v, y, gap, slack)
            if first:
                assert second  # stage 2's m is never below stage 1's
            if first or second:
                fired[0 if first else 1] += 1
                for x in members[u]:
                    assert K.swap_delta(Z, sums, u, v, x, y, k) > 2 * EPS, (y, u, x)
    return fired


@settings(max_examples=60, deadline=None)
@given(Z=tied_records(40, 4, span=3, min_n=4), k=st.integers(2, 4), seed=st.integers(0, 5), sort=st.booleans())
def test_bound_never_decides_a_pair_with_an_exchange_on_tied_data(Z, k, seed, sort):
    _check_bound(Z, k, seed, sort)


@pytest.mark.parametrize("k, sort", [(2, True), (3, False), (3, True), (5, True)])
def test_bound_never_decides_a_pair_with_an_exchange_on_clustered_data(k, sort):
    fired = _check_bound(_clustered(300, 4, k), k, k, sort)
    assert fired[0] > 0 and (fired[1] > 0 or k == 2)  # both stages decide pairs (k = 2: the same bound)


def _learn_both(Z, k, seed, M=5, strict=False, sort=False):
    Zc, (members, grp, pos) = _groups(Z, k, seed, sort)
    _, ptr, partner = _plugin().similarity_list(Zc, "offdiag")
    out = {}
    for name, learn in (("new", _plugin().learn), ("old", omma_reference.learn)):
        state = [members.copy(), grp.copy(), pos.copy(), partner.copy()]
        cycle, history, sst = learn(Zc, state[0], state[1], state[2], ptr, state[3], M, strict, 1000)
        out[name] = (cycle, history.tobytes(), sst, [a.tobytes() for a in state])
    return out["new"], out["old"]


@settings(max_examples=40, deadline=None)
@given(Z=tied_records(40, 4, span=3, min_n=4), k=st.integers(2, 4), seed=st.integers(0, 5),
       strict=st.booleans(), sort=st.booleans())
def test_learn_equals_the_previous_kernel_on_tied_data(Z, k, seed, strict, sort):
    new, old = _learn_both(Z, k, seed, strict=strict, sort=sort)
    assert new == old


@pytest.mark.parametrize("n, d, k, M, strict", [(600, 5, 3, 5, False), (600, 3, 4, 2, True),
                                                 (450, 8, 5, 5, False), (500, 2, 2, 5, False)])
def test_learn_equals_the_previous_kernel_on_clustered_data(n, d, k, M, strict):
    new, old = _learn_both(_clustered(n, d, n + k), k, seed=k, M=M, strict=strict)
    assert new == old


def test_learn_equals_the_previous_kernel_on_standard_normal_data():
    new, old = _learn_both(np.random.default_rng(2026).standard_normal((900, 16)), 3, seed=7)
    assert new == old
