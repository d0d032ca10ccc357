"""TFRP-1/2, DBA-1/2, MDAV-2, DBFS and the dissolve-and-reassign refinement kernel.

* every plugin (default and non-default readings) gives the same partition as the plain-NumPy
  reference in tests/oracles/tfrp_dba.py, on tie-heavy and on continuous data;
* the refinement never ends with a higher SSE than the partition it refines, keeps every group >= k
  and respects its size bounds (hypothesis);
* TFRP-1 reproduces the 12 published values of 004_d1273daa16c98592.txt Tables I–III at their
  3 printed decimals (EIA without UTILITYID).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from oracles import tfrp_dba as ref
from mabench import kernels as K
from mabench import discovery, partition
from mabench.bench.runner import run_cell
from support import reference_tests, run_plugin as _run, same_partition as _same, tied_records

CONFIGS = [
    ("tfrp1", {}, lambda Z, k: ref.tfrp1(Z, k)),
    ("tfrp1", {"ref": "vector"}, lambda Z, k: ref.tfrp1(Z, k, "vector")),
    ("tfrp2", {}, lambda Z, k: ref.tfrp2(Z, k)),
    ("tfrp2", {"resplit": "false", "order": "reverse"},
     lambda Z, k: ref.tfrp2(Z, k, order="reverse", resplit=False)),
    ("tfrp2", {"resplit": "false", "cap": "none"}, lambda Z, k: ref.tfrp2(Z, k, cap="none", resplit=False)),
    ("dba1", {}, lambda Z, k: ref.dba1(Z, k)),
    ("dba1", {"density": "once"}, lambda Z, k: ref.dba1(Z, k, "once")),
    ("dba2", {}, lambda Z, k: ref.dba2(Z, k)),
    ("dba2", {"density": "once", "order": "forward"},
     lambda Z, k: ref.dba2(Z, k, "once", order="forward")),
    ("mdav2", {}, lambda Z, k: ref.mdav2(Z, k)),
    ("mdav2", {"resplit": "false", "order": "reverse"}, lambda Z, k: ref.mdav2(Z, k, "reverse", resplit=False)),
    ("dbfs", {}, lambda Z, k: ref.dbfs(Z, k)),
    ("dbfs", {"step": "single"}, lambda Z, k: ref.dbfs(Z, k, "single")),
]
IDS = [f"{n}[{','.join(f'{a}={b}' for a, b in p.items())}]" for n, p, _ in CONFIGS]




def _sse(Z, labels):
    return sum(ref._sse(Z[labels == g]) for g in np.unique(labels))


# small integer grids: duplicate and equidistant records everywhere
tied = tied_records(max_n=36, max_d=3, span=2)


test_matches_reference_on_tied_data, test_matches_reference_on_continuous_data = reference_tests(
    CONFIGS, IDS, tied, examples=40, max_k=5, shape=(131, 4))


def test_each_method_differs_from_its_first_stage_somewhere():
    """The refinements really change partitions (else the reference comparison proves little)."""
    Z = np.random.default_rng(5).standard_normal((200, 3))
    for first, second in (("tfrp1", "tfrp2"), ("dba1", "dba2"), ("mdav1", "mdav2")):
        a, b = _run(first, {}, Z, 3), _run(second, {}, Z, 3)
        assert not _same(a, b)
        assert _sse(Z, b) < _sse(Z, a)


def test_dbfs_readings_differ_and_pair_reading_can_exceed_2k_minus_1():
    Z = np.random.default_rng(2).standard_normal((67, 2))
    assert not _same(_run("dbfs", {}, Z, 4), _run("dbfs", {"step": "single"}, Z, 4))
    assert discovery.algorithm("dbfs").max_group_size(3, {"step": "pair"}) == 8


# ------------------------------------------------------------------ the refinement kernel
@st.composite
def partitioned(draw):
    """Data, k and a valid partition (groups >= k, labels 0.. in 'creation' order, some groups large)."""
    k = draw(st.integers(1, 4))
    n = draw(st.integers(k, 48))
    d = draw(st.integers(1, 3))
    tie = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    Z = rng.integers(-2, 3, (n, d)).astype(float) if tie else rng.standard_normal((n, d))
    n_groups = int(rng.integers(1, n // k + 1))
    perm = rng.permutation(n)
    labels = np.empty(n, dtype=np.int64)
    labels[perm[: n_groups * k]] = np.repeat(np.arange(n_groups), k)
    labels[perm[n_groups * k:]] = rng.integers(0, n_groups, n - n_groups * k)
    return Z, k, labels


@settings(max_examples=150, deadline=None)
@given(case=partitioned(), cap=st.sampled_from([0, 1]), reverse=st.booleans(), resplit=st.booleans())
def test_refinement_never_raises_sse_and_keeps_groups_valid(case, cap, reverse, resplit):
    Z, k, labels = case
    cap_size = 4 * k - 1 if cap else 0
    before = labels.copy()
    out = K.dissolve_reassign(Z, labels, k, cap_size, reverse, resplit)
    assert np.array_equal(labels, before)  # input untouched
    sizes = partition.check(out, len(Z), k, None, who="refine")
    if resplit:
        assert sizes.max() <= 2 * k - 1 or sizes.size == 1 and len(Z) < 2 * k
    elif cap_size:
        assert sizes.max() <= max(cap_size, np.bincount(labels).max())
    scale = 1.0 + _sse(Z, labels)
    assert _sse(Z, out) <= _sse(Z, labels) + 1e-9 * scale
    want = ref.refine(Z, labels, k, cap=cap_size, resplit=resplit, reverse=reverse)
    assert _same(out, want)


def test_refinement_dissolves_a_group_that_belongs_to_its_neighbours():
    # two tight groups far apart and one group straddling them: dissolving the middle one lowers the SSE
    Z = np.array([[0.0], [0.1], [0.2], [10.0], [10.1], [10.2], [0.3], [9.9], [0.15]])
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    out = K.dissolve_reassign(Z, labels, 3, 0, True, True)
    assert _same(out, [0, 0, 0, 1, 1, 1, 0, 1, 0])
    assert _sse(Z, out) < _sse(Z, labels)


def test_refinement_respects_the_cap():
    # dissolving group 2 sends 0.02 to group 0 (size 3) and 10.05 to group 1; with k=1 the cap 4k-1 = 3
    # forbids group 0, so 0.02 would have to join group 1, which raises the SSE: group 2 stays
    Z = np.array([[0.0], [0.1], [0.05], [10.0], [10.1], [0.02], [10.05]])
    labels = np.array([0, 0, 0, 1, 1, 2, 2])
    free = K.dissolve_reassign(Z, labels, 1, 0, True, False)
    capped = K.dissolve_reassign(Z, labels, 1, 3, True, False)
    assert _same(free, [0, 0, 0, 1, 1, 0, 1])
    assert _same(capped, labels)


# ------------------------------------------------------------------ published values
# 004_d1273daa16c98592.txt Tables I–III, TFRP-1 row (3 decimals); EIA's need 10 columns
TFRP1_PUBLISHED = {
    "tarragona": (17.228, 19.396, 22.110, 33.186),
    "census": (5.931, 7.880, 9.357, 14.442),
    "eia[drop=UTILITYID]": (0.530, 0.661, 1.651, 3.242),
}


@pytest.mark.parametrize("dataset", list(TFRP1_PUBLISHED))
def test_tfrp1_reproduces_the_published_values(dataset):
    for k, want in zip((3, 4, 5, 10), TFRP1_PUBLISHED[dataset]):
        il = run_cell("tfrp1", dataset, k).record["il"]
        assert round(il, 3) == pytest.approx(want, abs=1e-9), (dataset, k, il)


def test_tfrp1_needs_the_scalar_reading_and_ten_eia_columns():
    assert round(run_cell("tfrp1", "tarragona", 3, params={"ref": "vector"}).record["il"], 3) != 17.228
    assert round(run_cell("tfrp1", "eia", 3).record["il"], 3) != 0.530


def test_tfrp2_and_mdav2_land_near_the_published_values():
    """Not reproduced exactly (docs/algorithms/tfrp_dba.md); pinned so that a change of reading shows."""
    assert run_cell("tfrp2", "tarragona", 3).record["il"] == pytest.approx(16.881, abs=0.002)
    assert run_cell("tfrp2", "tarragona", 5).record["il"] == pytest.approx(21.847, abs=0.0005)
    assert run_cell("mdav2", "census", 3).record["il"] == pytest.approx(5.656049371, abs=0.001)


def test_mdav2_reproduces_tarragona_k4_to_eight_decimals():
    assert round(run_cell("mdav2", "tarragona", 4).record["il"], 8) == pytest.approx(19.01314997, abs=1e-12)
