"""Thesis Ch. 6 simulated sets (datasets/thesis_ch6.py): determinism, domain, the drawn model, tree recovery.

References are written here in plain NumPy/Python (interval codes, conditional frequencies, EMIM, Prim's
maximum spanning tree); the code under test only supplies the data and the model it drew.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import yaml

from mabench import data, discovery
from mabench.report import published
from mabench.plugin import format_params
from mabench.errors import UserError
from mabench.bench.runner import run_cell
from support import ROOT

SETS = {"fayyoumi_sim1": (8, 5000), "fayyoumi_sim2": (16, 10000), "fayyoumi_sim3": (22, 20000)}


def _module():
    from mabench.generators import thesis_ch6

    return thesis_ch6


def _undirected(edges) -> set[frozenset]:
    return {frozenset(e) for e in edges}


def _intervals(values: np.ndarray) -> np.ndarray:
    """Interval code 0..9 of the thesis's [1, 100], [101, 200], ..., [901, 1000]."""
    return (values.astype(np.int64) - 1) // 100


# ------------------------------------------------------------------ determinism, shape, domain
@pytest.mark.parametrize("spec", ["fayyoumi_sim1[n=400]", "fayyoumi_sim3[n=300,tree=random]", "dtree[n=200,d=5]"])
def test_same_seed_same_bytes_other_seed_other_data(spec):
    a, b, c = data.load(spec, 7), data.load(spec, 7), data.load(spec, 8)
    assert a.values.tobytes() == b.values.tobytes()
    assert not np.array_equal(a.values, c.values)


@pytest.mark.parametrize("name", sorted(SETS))
def test_shape_and_integer_domain(name):
    d, n = SETS[name]
    gen = discovery.generators()[name]
    assert gen.resolve({})["n"] == n and gen.resolve({})["tree"] == "thesis"
    x = data.load(f"{name}[n=3000]", 1).values
    assert x.shape == (3000, d)
    assert np.array_equal(x, np.round(x)) and x.min() >= 1 and x.max() <= 1000
    # every interval and both ends of the domain occur; offsets inside an interval are uniform on 0..99
    assert set(np.unique(_intervals(x))) == set(range(10))
    offsets = (x.astype(np.int64) - 1) % 100
    counts = np.bincount(offsets.ravel(), minlength=100)
    expected = offsets.size / 100
    assert ((counts - expected) ** 2 / expected).sum() < 99 + 6 * math.sqrt(2 * 99)  # chi2(99), ~6 sd


# ------------------------------------------------------------------ the drawn model
def test_conditional_frequencies_match_the_drawn_tables():
    mod = _module()
    values, model = mod.draw(np.random.default_rng(11), 40000, 5, "random")
    codes = _intervals(values)
    parent = model["parent"]
    root = int(np.flatnonzero(parent < 0)[0])
    # root: relative frequencies vs the drawn vector (binomial sd, 4.5 sd bound per cell)
    p = model["root_p"]
    freq = np.bincount(codes[:, root], minlength=10) / len(codes)
    assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / len(codes)) + 1e-12)
    # every child given its parent: P(child = j | parent = l) vs cpt[child, l, j]
    checked = 0
    for child in range(5):
        if parent[child] < 0:
            continue
        for l in range(10):
            rows = codes[:, parent[child]] == l
            m = int(rows.sum())
            if m < 200:
                continue
            p = model["cpt"][child, l]
            freq = np.bincount(codes[rows, child], minlength=10) / m
            assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / m) + 1e-12), (child, l)
            checked += 1
    assert checked >= 25
    # and the tables are probability vectors (rows sum to 1)
    assert np.allclose(model["cpt"][parent >= 0].sum(axis=2), 1.0)


def test_thesis_trees_give_the_printed_candidate_sets():
    """Degrees of the reconstructed trees: top-3 {1,3} + one of a tied pair, top-4 a single set (Tables 6.5-6.7)."""
    mod = _module()
    printed = {8: ({1, 3}, {4, 6}), 16: ({1, 3}, {4, 6}), 22: ({1, 3}, {5, 18})}
    for d, (sure, tied) in printed.items():
        edges = mod.THESIS_TREES[d]
        assert len(edges) == d - 1 and {v for e in edges for v in e} == set(range(1, d + 1))
        deg = Counter(v for e in edges for v in e)
        ranked = sorted(deg.values(), reverse=True)
        assert {v for v in deg if deg[v] > ranked[2]} == sure
        assert {v for v in deg if deg[v] == ranked[2]} == tied  # the 3rd place is shared by exactly two
        assert ranked[3] > ranked[4]  # the top 4 is one set
        model = mod.draw_model(np.random.default_rng(0), d, "thesis")
        assert _undirected(model["edges"]) == _undirected(edges)


def test_random_trees_are_uniform_over_labelled_trees():
    """Pruefer decoding: on 4 variables every one of the 4^2 = 16 labelled trees, equally often."""
    mod = _module()
    rng = np.random.default_rng(5)
    draws = 3200
    seen = Counter()
    for _ in range(draws):
        edges = mod.pruefer_tree(rng, 4)
        assert len(edges) == 3
        # connected (3 edges on 4 nodes without a cycle): union-find in plain Python
        comp = list(range(4))
        for a, b in edges:
            ra, rb = comp[a], comp[b]
            assert ra != rb
            comp = [ra if c == rb else c for c in comp]
        seen[frozenset(frozenset(e) for e in edges)] += 1
    assert len(seen) == 16
    expected = draws / 16
    assert sum((c - expected) ** 2 / expected for c in seen.values()) < 15 + 6 * math.sqrt(30)


# ------------------------------------------------------------------ Experiment Set 1: the tree is learned back
def _emim_tree(values: np.ndarray, width: float) -> set[frozenset]:
    """Bins floor((x - min)/width), plug-in EMIM (natural log), Prim's maximum spanning tree; 1-based edges."""
    codes = np.floor((values - values.min(axis=0)) / width).astype(np.int64)
    n, d = codes.shape
    W = np.zeros((d, d))
    for i, j in itertools.combinations(range(d), 2):
        a, b = codes[:, i], codes[:, j]
        joint = np.zeros((a.max() + 1, b.max() + 1))
        np.add.at(joint, (a, b), 1.0 / n)
        pa, pb = joint.sum(axis=1), joint.sum(axis=0)
        nz = joint > 0
        W[i, j] = W[j, i] = float((joint[nz] * np.log(joint[nz] / np.outer(pa, pb)[nz])).sum())
    inside, edges = {0}, set()
    while len(inside) < d:
        _, i, j = max((W[i, j], i, j) for i in inside for j in range(d) if j not in inside)
        inside.add(j)
        edges.add(frozenset((i + 1, j + 1)))
    return edges


@pytest.mark.parametrize("width", [50, 100, 150])
def test_emim_spanning_tree_recovers_the_sim1_tree(width):
    x = data.load("fayyoumi_sim1", 3).values  # the thesis's size, 5,000 x 8
    assert _emim_tree(x, width) == _undirected(_module().THESIS_TREES[8])


@pytest.mark.parametrize("seed", [1, 2])
def test_emim_spanning_tree_recovers_random_trees(seed):
    mod = _module()
    values, model = mod.draw(np.random.default_rng(seed), 6000, 10, "random")
    assert _emim_tree(values, 100) == _undirected(model["edges"])


def test_emad_run_record_holds_the_learned_tree():
    rec = run_cell("emad", "fayyoumi_sim1", 3, 4, {"weights": "chi2", "width": "100"}).record
    learned = {frozenset(int(v) for v in e.split("-")) for e in rec["info"]["tree"].split(";")}
    assert learned == _undirected(_module().THESIS_TREES[8])
    assert rec["info"]["subsets"] == "1+3+4;1+3+6"  # the thesis's two possibilities (Table 6.7)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("spec, word", [
    ("dtree[d=5,tree=thesis]", "tree=thesis"),
    ("fayyoumi_sim1[tree=1-2+2-3]", "has 7 edges"),
    ("dtree[d=4,tree=1-2+2-1+3-4]", "not a tree"),
    ("dtree[d=3,tree=1-2+2-9]", "1..3"),
    ("dtree[d=3,tree=oak]", "not an edge"),
    ("fayyoumi_sim2[alpha=0]", "alpha"),
    ("fayyoumi_sim3[n=0]", "parameter n"),
    ("dtree[n=100000000,d=100]", "too large"),
])
def test_bad_parameters_are_user_errors(spec, word):
    with pytest.raises(UserError, match=word):
        data.load(spec, 0)


# ------------------------------------------------------------------ registry rows and the default workflow
def _sim_rows():
    reg = published.load()
    return reg[reg["dataset"].isin(list(SETS))].reset_index(drop=True)


def test_registry_rows_are_draws_rows_with_their_causes():
    rows = _sim_rows()
    assert len(rows) == 82 and (rows["rule"] == "draws").all()
    assert rows["note"].str.contains("reconstruction").all()
    copy = rows[rows["table"].isin(["Table 6.5", "Table 6.7"]) & rows["row"].str.startswith("Sim_1")]
    assert len(copy) == 6 and copy["note"].str.contains("copy error").all()
    il_rows = rows[rows["metric"] != "n_possibilities"]
    four = il_rows[il_rows["params"].str.contains("c=[45],", regex=True)
                   | il_rows["params"].str.contains(r"subset=\d+\+\d+\+\d+\+")]
    assert len(four) == 12 and four["note"].str.contains("artifact").all()  # Table 6.4 c = 4, 5 and Table 6.6
    assert not rows.drop(four.index)["note"].str.contains("artifact").any()


def test_default_workflow_covers_every_row_but_the_costly_exhaustive_ones():
    """The registry matched against one fake result per configured cell (the workflow's own params strings)."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    algos, gens = discovery.algorithms(), discovery.generators()
    records = []
    for ds_id, entry in cfg["datasets"].items():
        name, params = data.parse_spec(entry["spec"])
        if name not in SETS:
            continue
        assert entry.get("draws", 1) >= 2 and entry["k"] == [3], ds_id
        ds_params = format_params(gens[name].resolve(params))
        for algo_id in entry["algorithms"]:
            a = cfg["algorithms"][algo_id]
            resolved = algos[a["algorithm"]].resolve({k: str(v) for k, v in (a.get("params") or {}).items()})
            for seed in (1, 2):
                records.append(dict(algorithm=a["algorithm"], params=format_params(resolved), dataset=name,
                                    dataset_params=ds_params, k=3, seed=seed, il=50.0 + seed, il_min=40.0 + seed,
                                    il_max=60.0 + seed, il_avg=50.0 + seed, n_possibilities=2.0))
    out = published.compare(_sim_rows(), pd.DataFrame(records))
    left_out = out["note"].str.contains("left out of the default workflow")
    assert left_out.sum() == 6  # Sim_2 c = 4 and Sim_3 c = 3: min, max, average each
    assert (out.loc[left_out, "verdict"] == "not run").all()
    assert (out.loc[~left_out, "verdict"] != "not run").all()
    assert (out.loc[~left_out, "n_draws"] == 2).all()
