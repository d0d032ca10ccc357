"""EMAD: variable selection against an independent reference, the thesis's candidate sets, the MAT step."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from mabench import data, discovery, partition
from mabench.errors import UserError
from mabench.plugin import call_run
from mabench.bench.runner import run_cell
from mabench.data.standardize import zscore
from support import tied_records


# ------------------------------------------------------------------ reference (plain Python/NumPy)
def ref_weight(a, b, kind):
    """EMIM or chi2 from counts, written from Eq. 6.5 / 6.6."""
    n = len(a)
    pab = {key: c / n for key, c in Counter(zip(a, b)).items()}
    pa = {key: c / n for key, c in Counter(a).items()}
    pb = {key: c / n for key, c in Counter(b).items()}
    if kind == "emim":
        return sum(p * math.log(p / (pa[u] * pb[v])) for (u, v), p in pab.items())
    return sum((pab.get((u, v), 0.0) - pa[u] * pb[v]) ** 2 / (pa[u] * pb[v]) for u in pa for v in pb)


def ref_select(X, width, kind, c):
    """Bins, weights, Prim's maximum spanning tree, degree ranking, every tied choice."""
    d = X.shape[1]
    if kind == "normal":
        rho = np.corrcoef(X, rowvar=False)
        W = [[-0.5 * math.log(1 - rho[i, j] ** 2) if i != j else 0.0 for j in range(d)] for i in range(d)]
    else:
        codes = [[int(math.floor((v - X[:, j].min()) / width)) for v in X[:, j]] for j in range(d)]
        W = [[ref_weight(codes[i], codes[j], kind) if i != j else 0.0 for j in range(d)] for i in range(d)]
    # Edges ordered by weight (larger first), then by the lower (i, j): a strict order, so the maximum
    # spanning tree is unique even when two weights are exactly equal (hypothesis found such data:
    # seed 139559 below), and Prim here must find the plugin's Kruskal tree.
    in_tree, degree = {0}, [0] * d
    while len(in_tree) < d:
        _, a, b = min((-W[i][j], min(i, j), max(i, j)) for i in in_tree for j in range(d) if j not in in_tree)
        in_tree.add(b if a in in_tree else a)
        degree[a] += 1
        degree[b] += 1
    cut = sorted(degree, reverse=True)[c - 1]
    sure = [v for v in range(d) if degree[v] > cut]
    tied = [v for v in range(d) if degree[v] == cut]
    return sorted(tuple(sorted(sure + list(extra))) for extra in itertools.combinations(tied, c - len(sure)))


def _module():
    """The emad plugin module (its selection steps are plain functions)."""
    from mabench.algorithms import emad

    return emad


def _subsets(info):
    return sorted(tuple(sorted(int(t) - 1 for t in s.split("+"))) for s in info["subsets"].split(";"))


def _emad(X, k=3, **params):
    algo = discovery.algorithm("emad")
    resolved = algo.resolve(params)
    Z = zscore(X)
    labels, info = call_run(algo, Z, k, resolved, np.random.default_rng(0), raw=np.ascontiguousarray(X, dtype=float))
    partition.check(np.asarray(labels), len(X), k, algo.max_group_size(k, resolved), who="emad")
    return np.asarray(labels), info


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(3, 7), c=st.integers(1, 3),
       kind=st.sampled_from(["emim", "chi2", "normal"]))
@example(seed=139559, d=5, c=1, kind="emim")  # two exactly equal EMIM weights compete for the tree
def test_selection_matches_the_reference(seed, d, c, kind):
    rng = np.random.default_rng(seed)
    latent = rng.standard_normal((120, 1))
    X = latent * rng.uniform(0, 2, d) + rng.standard_normal((120, d)) * rng.uniform(0.3, 1.5, d)
    _, info = _emad(X, weights=kind, width=0.7, c=c)
    assert _subsets(info) == ref_select(X, 0.7, kind, c)


def test_figure_6_3_example_selects_the_two_hubs():
    """Fig. 6.3: B, C, D depend on A; E, F on D -> {A, D} (both of degree 3)."""
    emad = _module()
    tree = [(0, 1), (0, 2), (0, 3), (3, 4), (3, 5)]
    ranking = emad.degree_ranking(tree, 6)
    assert emad.candidate_subsets(ranking, 2) == [(0, 3)]
    assert emad.candidate_subsets(ranking, 3) == [(0, 3, 1), (0, 3, 2), (0, 3, 4), (0, 3, 5)]


# ------------------------------------------------------------------ published candidate sets (Tables 6.5, 6.7, 6.8)
# (data set, weights, width) -> the possibilities printed in the thesis (1-based, as sets)
PUBLISHED = {
    ("tarragona", "emim", 50000): [{7, 4, 1}, {7, 4, 10}, {7, 4, 2}, {7, 4, 12}, {7, 4, 6}],
    ("tarragona", "emim", 100000): [{7, 4, 1}, {7, 4, 2}, {7, 4, 12}],
    ("tarragona", "emim", 150000): [{7, 4, 2}, {7, 4, 12}],
    ("tarragona", "chi2", 50000): [{7, 2, 12}],
    ("tarragona", "chi2", 100000): [{7, 1, 12}],
    ("tarragona", "chi2", 150000): [{7, 4, 12}],
    ("tarragona", "normal", 0): [{2, 4, 10}, {2, 4, 1}, {2, 4, 7}, {2, 4, 12}, {2, 4, 6}],
    ("census", "emim", 1000): [{1, 10, 7}, {1, 10, 12}],
    ("census", "emim", 5000): [{2, 10, 8}, {2, 10, 5}, {2, 10, 1}, {2, 10, 13}, {2, 10, 7}, {2, 10, 12}],
    ("census", "chi2", 1000): [{1, 10, 7}, {1, 10, 12}],
    ("census", "chi2", 5000): [{10, 2, 8}, {5, 8, 2}, {10, 5, 2}, {10, 5, 8}],
    ("census", "normal", 0): [{4, 10, 5}, {4, 10, 9}, {4, 10, 6}, {4, 10, 7}, {4, 10, 12}],
}
# Not reproduced (docs/algorithms/emad.md): the degree ranking differs slightly from the print.
DIFFERENT = {
    ("census", "emim", 10000): ([{1, 2, 12}], "2+12+1;2+12+5;2+12+7;2+12+8;2+12+10"),
    ("census", "chi2", 10000): ([{1, 5, 8}, {1, 8, 12}, {1, 5, 12}, {5, 8, 12}], "5+8+12;5+8+13;5+12+13;8+12+13"),
}


@pytest.fixture(scope="module")
def real():
    return {name: data.load(name).values.astype(float) for name in ("tarragona", "census")}


def _selection(X, weights, width):
    mod = _module()
    tree = mod.maximum_spanning_tree(mod.weight_matrix(X, weights, float(width)))
    return mod.candidate_subsets(mod.degree_ranking(tree, X.shape[1]), 3)


@pytest.mark.parametrize("key", sorted(PUBLISHED), ids=lambda k: f"{k[0]}-{k[1]}-{k[2]}")
def test_published_candidate_sets(real, key):
    name, weights, width = key
    got = sorted(sorted(c + 1 for c in s) for s in _selection(real[name], weights, width))
    assert got == sorted(sorted(s) for s in PUBLISHED[key])


def test_the_two_census_settings_that_differ(real):
    for (name, weights, width), (printed, ours) in DIFFERENT.items():
        got = ";".join("+".join(str(c + 1) for c in s) for s in _selection(real[name], weights, width))
        assert got == ours
        assert sorted(map(sorted, printed)) != sorted(sorted(int(t) for t in s.split("+")) for s in ours.split(";"))


# ------------------------------------------------------------------ MAT step, modes, run record
def test_select_mode_run_record_and_min_pick():
    rec = run_cell("emad", "tarragona", 3, params={"weights": "emim", "width": "100000"}).record
    assert rec["info"]["subsets"] == "7+4+1;7+4+2;7+4+12" and rec["info"]["n_possibilities"] == 3
    ils = [float(v) for v in rec["info"]["il_subsets"].split(";")]
    assert rec["info"]["chosen"] == "7+4+1" and abs(rec["il"] - min(ils)) < 1e-4
    assert abs(rec["il"] - 24.1333) < 0.05  # Table 6.5, approximately (the thesis's MDAV variant)


def test_given_mode_is_column_order_free_and_validated():
    X = np.random.default_rng(1).standard_normal((60, 5))
    a, _ = _emad(X, mode="given", subset="4+1+2")
    b, _ = _emad(X, mode="given", subset="1+2+4")
    assert np.array_equal(a, b)
    with pytest.raises(UserError, match="subset"):
        _emad(X, mode="given", subset="1+9")
    with pytest.raises(UserError, match="c=7"):
        _emad(X, c=7)


def test_exhaustive_mode_is_the_minimum_over_all_subsets():
    X = np.random.default_rng(3).standard_normal((45, 5)) @ np.random.default_rng(4).standard_normal((5, 5))
    labels, info = _emad(X, mode="exhaustive", c=2)
    Z = zscore(X)
    ils = {}
    for cols in itertools.combinations(range(5), 2):
        lab, _ = _emad(X, mode="given", subset="+".join(str(c + 1) for c in cols))
        ils[cols] = 100 * sum(((Z[lab == g] - Z[lab == g].mean(axis=0)) ** 2).sum() for g in np.unique(lab)) / Z.size
    best = min(ils, key=ils.get)
    assert info["n_subsets"] == 10 and info["argmin"] == "+".join(str(c + 1) for c in best)
    assert info["il_min"] == pytest.approx(ils[best]) and info["il_avg"] == pytest.approx(np.mean(list(ils.values())))


def test_table_6_4_extreme_subsets_on_tarragona():
    rec = run_cell("emad", "tarragona", 3, params={"mode": "exhaustive", "c": "3"}).record
    assert (rec["info"]["argmin"], rec["info"]["argmax"]) == ("2+3+10", "5+6+11")  # as printed
    assert abs(rec["info"]["il_min"] - 20.7141) < 0.05 and abs(rec["info"]["il_max"] - 34.1569) < 0.05


def _joint_before(a, b):
    """The plugin's joint table before issue 39: np.unique per pair, then np.add.at of 1.0 per record."""
    _, ai = np.unique(a, return_inverse=True)
    _, bi = np.unique(b, return_inverse=True)
    table = np.zeros((ai.max() + 1, bi.max() + 1))
    np.add.at(table, (ai, bi), 1.0)
    p = table / a.size
    return p, p.sum(axis=1), p.sum(axis=0)


@settings(max_examples=30, deadline=None)
@given(X=tied_records(max_n=80, max_d=5, span=3, min_n=2), width=st.sampled_from([0.0, 0.5, 2.0]))
def test_weights_are_the_previous_tables_bit_for_bit(X, width):
    """Category indices once per column and one bincount per pair give the per-pair np.unique /
    np.add.at tables' numbers exactly, so the same tree and the same possibilities."""
    emad = _module()
    codes = emad.discretize(X, width)
    idx = emad.category_index(codes)
    for i in range(X.shape[1]):
        for j in range(i + 1, X.shape[1]):
            for got, want in zip(emad._joint(idx[:, i], idx[:, j]), _joint_before(codes[:, i], codes[:, j])):
                assert np.array_equal(got, want)


def test_auto_index_gives_the_scan_kernels_runs_in_every_mode():
    """The grid path (index=auto, 1-4 selected columns) against the pass kernel (index=scan)."""
    rng = np.random.default_rng(5)
    X = np.round(rng.standard_normal((400, 6)) @ rng.standard_normal((6, 6)), 1)  # ties after z-scoring
    for params in ({"mode": "exhaustive", "c": 2}, {"mode": "exhaustive", "c": 4}, {"c": 3},
                   {"mode": "given", "subset": "1+3+6"}):
        auto, info_auto = _emad(X, **params)
        scan, info_scan = _emad(X, index="scan", **params)
        assert np.array_equal(auto, scan) and info_auto == info_scan, params
