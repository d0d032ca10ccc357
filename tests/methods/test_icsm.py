"""ICSM, the move/swap local search and the best-known registry.

Edge weights and incremental SSE updates are checked against brute-force SSE
(plain NumPy), Tour2Assignment against an exhaustive enumeration of cyclic
partitions, and every improvement step against the SSE it claims.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from mabench.optimum import best_known
from mabench import discovery, kernels as K, partition
from mabench.kernels.improve import search
from mabench.cli import main
from mabench.bench.runner import run_cell
from support import as_run


def sse_np(X):
    X = np.asarray(X, dtype=float)
    return float(((X - X.mean(axis=0)) ** 2).sum()) if len(X) else 0.0


def mdav_2k(Z, k):
    """MDAV's partition with the 2k tail (the searches' default start), as a run computes it."""
    return K.mdav_partition(as_run(Z), k, K.TAIL_2K)


def state(Z, labels, k):
    return search.State(as_run(Z), np.asarray(labels), k, 2 * k - 1)


# ------------------------------------------------------------------ edge weights
def test_example_1_gives_6():
    """T = [2,3,4,5,6,7], k = 3, G1 = [2,3,4], G2 = [5,6,7]: R1(3, G2, 6) = 6."""
    Z = np.array([[2.0], [3.0], [4.0], [5.0], [6.0], [7.0]])
    s = state(Z, [0, 0, 0, 1, 1, 1], 3)
    assert K.r1(s.Z, 1, 1, 4, s.sizes, s.means) == pytest.approx(6.0)
    assert sse_np([[5.0], [3.0], [7.0]]) - sse_np([[5.0], [6.0], [7.0]]) == pytest.approx(6.0)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 5), sp=st.integers(2, 8), sq=st.integers(2, 8))
def test_r1_r2_r3_and_exchange_match_brute_force(seed, d, sp, sq):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((sp + sq, d))
    labels = np.array([0] * sp + [1] * sq)
    s = state(Z, labels, 1)
    P, Q = Z[:sp], Z[sp:]
    x, y = int(rng.integers(sp)), sp + int(rng.integers(sq))
    # R1(x, G_q, y): SSE change of G_q when y is replaced by x
    Qy = Q.copy()
    Qy[y - sp] = Z[x]
    assert K.r1(s.Z, x, 1, y, s.sizes, s.means) == pytest.approx(sse_np(Qy) - sse_np(Q), abs=1e-9)
    # exchange = R1(x,q,y) + R1(y,p,x), exact
    Px = P.copy()
    Px[x] = Z[y]
    want = sse_np(Px) + sse_np(Qy) - sse_np(P) - sse_np(Q)
    assert K.swap_cost(s.Z, x, y, s.labels, s.sizes, s.means) == pytest.approx(want, abs=1e-9)
    assert (K.r1(s.Z, x, 1, y, s.sizes, s.means) + K.r1(s.Z, y, 0, x, s.sizes, s.means)) == pytest.approx(want, abs=1e-9)
    # R2: G_q gains x; R3: G_p loses x
    assert K.r2(s.Z, x, 1, s.sizes, s.means) == pytest.approx(sse_np(np.vstack([Q, Z[x]])) - sse_np(Q), abs=1e-9)
    assert K.r3(s.Z, x, 0, s.sizes, s.means) == pytest.approx(sse_np(np.delete(P, x, axis=0)) - sse_np(P), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 4), k=st.integers(1, 6), steps=st.integers(1, 10))
def test_incremental_window_updates_match_brute_force(seed, d, k, steps):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((k + steps + 3, d))
    c = np.zeros(d)
    s = 0.0
    for m in range(k):  # growing from empty
        s = K.grow_update(s, c, X[m], m)
        assert s == pytest.approx(sse_np(X[: m + 1]), abs=1e-9)
        np.testing.assert_allclose(c, X[: m + 1].mean(axis=0), atol=1e-12)
    for i in range(1, steps + 1):  # window of k slides by one
        s = K.slide_update(s, c, X[i - 1], X[i + k - 1], k)
        assert s == pytest.approx(sse_np(X[i: i + k]), abs=1e-9)
        np.testing.assert_allclose(c, X[i: i + k].mean(axis=0), atol=1e-12)


# ------------------------------------------------------------------ Tour2Assignment
def cyclic_optimum(X, k, kmax):
    """Exhaustive: every partition of the closed tour 0..m-1 into runs of k..kmax records."""
    m = len(X)
    best = np.inf
    for first in range(m):  # a run starts at `first`
        def rec(pos, left):
            nonlocal best_here
            if left == 0:
                return 0.0
            out = np.inf
            for L in range(k, kmax + 1):
                if L > left:
                    break
                idx = [(first + pos + t) % m for t in range(L)]
                out = min(out, sse_np(X[idx]) + rec(pos + L, left - L))
            return out
        best_here = None
        best = min(best, rec(0, m))
    return best


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), m=st.integers(4, 13), k=st.integers(2, 3))
def test_tour2assignment_is_the_cyclic_optimum(seed, m, k):
    if m < 2 * k:
        return
    X = np.random.default_rng(seed).standard_normal((m, 2))
    labels, total = K.tour2assignment(as_run(X), np.arange(m, dtype=np.int64), k, 2 * k - 1)
    assert total == pytest.approx(cyclic_optimum(X, k, 2 * k - 1), abs=1e-9)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert sum(sse_np(X[labels == g]) for g in range(sizes.size)) == pytest.approx(total, abs=1e-9)


def test_tour_visits_every_record_group_by_group():
    Z = np.random.default_rng(3).standard_normal((60, 3))
    s = state(Z, mdav_2k(Z, 3), 3)
    path = K.tour(s.Z, s.labels, s.sizes, s.members)
    assert sorted(path.tolist()) == list(range(60))
    runs = [g for g, _ in itertools.groupby(s.labels[path])]
    assert len(runs) == s.sizes.size  # each group is contiguous on the path


# ------------------------------------------------------------------ heuristics
@pytest.mark.parametrize("pool", ["best", "first"])
def test_simple_heuristic_lowers_sse_by_what_it_claims(pool):
    Z = np.random.default_rng(11).standard_normal((150, 4))
    for k in (2, 3, 5):
        s = state(Z, mdav_2k(Z, k), k)
        before = s.sse
        applied, delta = K.simple_heuristic(s.Z, k, 2 * k - 1, s.labels, s.sizes, s.means, s.members, s.pos, 10,
                                            pool == "best")
        assert applied > 0 and delta < 0
        s.resync()
        assert s.sse == pytest.approx(before + delta, abs=1e-8)
        sizes = np.bincount(s.labels)
        assert sizes.min() >= k and sizes.max() <= 2 * k - 1


def test_group_scores_closed_form_equals_the_double_sum():
    Z = np.random.default_rng(5).standard_normal((90, 3))
    s = state(Z, mdav_2k(Z, 3), 3)
    np.testing.assert_allclose(K.group_scores_fast(s.Z, s.labels, s.sizes, s.means),
                               K.group_scores(s.Z, s.labels, s.sizes, s.means), rtol=1e-9, atol=1e-8)


def test_complex_heuristic_applies_a_valid_negative_cycle():
    found = 0
    for seed in range(12):
        Z = np.random.default_rng(seed).standard_normal((80, 2))
        s = state(Z, mdav_2k(Z, 3), 3)
        search.descent(s, 50)  # no improving move or swap left: only longer cycles can help
        before = s.sse
        moved, delta = K.complex_heuristic(s.Z, 3, 5, s.labels, s.sizes, s.means, s.members, s.pos, True)
        s.resync()
        sizes = np.bincount(s.labels)
        assert sizes.min() >= 3 and sizes.max() <= 5
        if moved:
            found += 1
            assert delta < 0
            assert s.sse == pytest.approx(before + delta, abs=1e-8)
        else:
            assert s.sse == pytest.approx(before)
    assert found > 0


def test_descent_reaches_a_move_swap_local_optimum():
    Z = np.random.default_rng(2).standard_normal((120, 3))
    s = state(Z, mdav_2k(Z, 3), 3)
    before = s.sse
    search.descent(s, 100)  # every group is a neighbour
    assert s.sse < before
    for x in range(120):  # brute force: no single move or swap lowers SSE
        for y in range(120):
            if s.labels[x] != s.labels[y]:
                assert K.swap_cost(s.Z, x, y, s.labels, s.sizes, s.means) > -1e-9
        p = s.labels[x]
        if s.sizes[p] > 3:
            for q in range(s.sizes.size):
                if q != p and s.sizes[q] < 5:
                    assert K.r2(s.Z, x, q, s.sizes, s.means) + K.r3(s.Z, x, p, s.sizes, s.means) > -1e-9


def test_dissolve_keeps_the_partition_valid():
    Z = np.random.default_rng(4).standard_normal((100, 3))
    s = state(Z, mdav_2k(Z, 4), 4)
    c = s.sizes.size
    moved = K.dissolve(s.Z, 2, 7, s.labels, s.sizes, s.means, s.members, s.pos)
    assert len(moved) == 4 and s.sizes[2] == 0
    s.resync()
    sizes = np.bincount(s.labels)
    assert sizes.size == c - 1 and sizes.min() >= 4 and sizes.max() <= 7
    assert s.sse == pytest.approx(sum(sse_np(Z[s.labels == g]) for g in range(c - 1)))


def test_budget_restarts_with_dissolve_stay_valid():
    Z = np.random.default_rng(8).standard_normal((120, 3))
    s = state(Z, mdav_2k(Z, 5), 5)
    search.descent(s, 8)
    before = s.sse
    best, sse, done = search.iterate(s, lambda st_: None, 30, 0.0, 5, 4, np.random.default_rng(1),
                                     local=lambda st_, t: search.descent(st_, 8, start=t), dissolve=0.5)
    assert done == 30 and sse <= before
    sizes = np.bincount(best)
    assert sizes.min() >= 5 and sizes.max() <= 9


# ------------------------------------------------------------------ plugins on the real data
@pytest.fixture(scope="module")
def tarragona_k3():
    return {name: run_cell(name, "tarragona", 3, 0, {}) for name in ("icsm", "ls")}


def test_icsm_and_ls_improve_on_mdav(tarragona_k3):
    mdav = run_cell("mdav", "tarragona", 3, 0, {"tail": "2k"}).record["il"]
    for name, res in tarragona_k3.items():
        rec = res.record
        assert rec["il"] < mdav - 1.0, name
        assert rec["info"]["il_init"] == pytest.approx(mdav)
        assert rec["info"]["gain"] == pytest.approx(100 * (1 - rec["il"] / mdav))
        assert 3 <= rec["min_group"] and rec["max_group"] <= 5
        trace = rec["info"]["trace"]
        assert trace[0][1] == pytest.approx(mdav) and trace[-1][1] == pytest.approx(rec["il"])
        assert all(b[1] <= a[1] + 1e-12 for a, b in zip(trace, trace[1:]))
    assert tarragona_k3["icsm"].record["il"] < tarragona_k3["ls"].record["il"]


def test_search_plugins_are_deterministic(tarragona_k3):
    for name, params in (("icsm", {"max_iterations": "2", "restarts": "1"}), ("ls", {"restarts": "10"})):
        a = run_cell(name, "census", 3, 7, params)
        b = run_cell(name, "census", 3, 7, params)
        assert a.labels.tolist() == b.labels.tolist()
        assert [p[1] for p in a.record["info"]["trace"]] == [p[1] for p in b.record["info"]["trace"]]


def test_restarts_never_lose_the_best():
    plain = run_cell("ls", "census", 4, 0, {}).record["il"]
    more = run_cell("ls", "census", 4, 0, {"restarts": "40"}).record
    assert more["il"] <= plain + 1e-12 and more["info"]["restarts_done"] == 40


def test_improves_any_init_and_rejects_a_search_as_init():
    base = run_cell("cbfs", "tarragona", 4, 0, {}).record["il"]
    rec = run_cell("ls", "tarragona", 4, 0, {"init": "cbfs", "init_params": ""}).record
    assert rec["il"] < base and rec["info"]["il_init"] == pytest.approx(base)
    assert main(["run", "ls", "tarragona", "-k", "3", "--param", "init=icsm"]) == 2


def test_max_group_size_follows_the_init():
    assert discovery.algorithm("icsm").max_group_size(3, discovery.algorithm("icsm").resolve({})) == 5


# ------------------------------------------------------------------ best-known registry
def test_best_known_registry_verifies(capsys):
    assert main(["best-known", "verify"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {(r["dataset"], r["k"]) for r in rows} == set(best_known.CELLS)
    assert all(r["ok"] and r["min_group"] >= r["k"] for r in rows)


def _copy_registry(tmp_path) -> Path:
    """A registry with the Tarragona k=3 entry only (keeps the test fast)."""
    root = tmp_path / "bk"
    root.mkdir()
    index = best_known.load_index()
    index = index[(index["dataset"] == "tarragona") & (index["k"] == 3)]
    shutil.copy(best_known.default_dir() / index["file"].iloc[0], root / index["file"].iloc[0])
    index.to_csv(root / "index.csv", index=False)
    return root


def test_corrupted_best_known_entry_exits_2(tmp_path, capsys):
    root = _copy_registry(tmp_path)
    index = pd.read_csv(root / "index.csv", keep_default_na=False)
    index.loc[0, "il"] = float(index.loc[0, "il"]) - 0.01  # a claimed IL the partition does not give
    index.to_csv(root / "index.csv", index=False)
    assert main(["best-known", "verify", "--dir", str(root)]) == 2
    assert "partition gives" in capsys.readouterr().err


def test_best_known_entry_with_a_too_small_group_exits_2(tmp_path, capsys):
    root = _copy_registry(tmp_path)
    index = pd.read_csv(root / "index.csv", keep_default_na=False)
    path = root / index.loc[0, "file"]
    labels = pd.read_csv(path)["group"].to_numpy().copy()
    labels[0] = labels.max() + 1  # a singleton group
    best_known._write_partition(path, labels)
    assert main(["best-known", "verify", "--dir", str(root)]) == 2
    assert "< k=" in capsys.readouterr().err


def test_best_known_record_replaces_only_when_lower(tmp_path):
    root = tmp_path / "bk"
    root.mkdir()
    Z = best_known._data("tarragona")
    mdav = mdav_2k(Z, 3)
    assert best_known.record("tarragona", 3, mdav, "mdav", "tail=2k", 0, "-", root, Z)[0]
    s = state(Z, mdav, 3)
    search.descent(s, 8)
    assert not best_known.record("tarragona", 3, mdav, "mdav", "tail=2k", 0, "-", root, Z)[0]
    replaced, il, prev = best_known.record("tarragona", 3, s.labels, "ls", "", 0, "-", root, Z)
    assert replaced and il < prev
    assert best_known.verify(root)[1] == []


def test_anytime_figure_draws_traces_and_points(tmp_path):
    from mabench.report import figures, render

    trace = json.dumps({"trace": [[0.0, 17.0], [0.01, 15.5], [0.2, 15.0]], "gain": 11.0})
    frame = pd.DataFrame([
        {"dataset_id": "tarragona", "algorithm": "icsm", "params": "", "k": 3, "seed": 0, "il": 15.0, "seconds": 0.3,
         "info": trace},
        {"dataset_id": "tarragona", "algorithm": "mdav", "params": "tail=2k", "k": 3, "seed": 0, "il": 16.9,
         "seconds": 0.001, "info": None},
    ])
    spec = figures.anytime(frame)
    steps = spec.data[spec.data["shape"] == "trace"]
    assert list(steps["seconds"]) == [1e-4, 0.01, 0.2, 0.3] and list(steps["il"]) == [17.0, 15.5, 15.0, 15.0]
    written = render.save(spec, tmp_path, "anytime")
    assert [p.name for p in written] == ["anytime.png", "anytime.pdf"] and all(p.stat().st_size > 0 for p in written)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(12, 70), k=st.integers(2, 4), d=st.integers(1, 3), seed=st.integers(0, 10**6),
       ties=st.booleans(), score_all=st.booleans())
def test_complex_heuristic_is_the_reference_bit_for_bit(n, k, d, seed, ties, score_all):
    """Every source relaxed in one walk (shared dot products) applies the same cycle with the same SSE
    change as one pass per source (tests/oracles/icsm_reference.py); tie-heavy data included."""
    from oracles import icsm_reference as ref

    rng = np.random.default_rng(seed)
    Z = rng.integers(0, 3, size=(n, d)).astype(float) if ties else rng.standard_normal((n, d))
    s = state(Z, mdav_2k(Z, k), k)
    search.descent(s, 50)
    got, want = state(Z, s.labels, k), state(Z, s.labels, k)
    for _ in range(3):  # a few calls in a row: the moved partitions must stay equal too
        a = K.complex_heuristic(got.Z, k, 2 * k - 1, got.labels, got.sizes, got.means, got.members, got.pos, score_all)
        b = ref.complex_heuristic(want.Z, k, 2 * k - 1, want.labels, want.sizes, want.means, want.members,
                                  want.pos, score_all)
        assert a == b
        assert np.array_equal(got.labels, want.labels)
        if not a[0]:
            break
        got.resync()
        want.resync()
