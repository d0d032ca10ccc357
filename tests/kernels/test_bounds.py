"""The certified lower bounds (pair, degree cover with triangle cuts): ≤ the brute-force optimum on
tiny instances, ≤ every best-known IL."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.partition_bruteforce import optimum
from support import ROOT, assert_user_error

from mabench.kernels.lowerbound import bounds as KB
from mabench.optimum import bounds as RB


def _tiny(n, seed, ties):
    """n records: a 3 × 3 integer grid's points (ties and duplicates) or standard normal in 3-D."""
    rng = np.random.default_rng(seed)
    return np.ascontiguousarray(rng.integers(0, 3, size=(n, 2)).astype(float) if ties else rng.normal(size=(n, 3)))


def test_pair_bound_tight_on_k_cliques():
    # k-point clusters far apart: the optimum is the clusters and the bound meets it
    centres = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    tri = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    Z = np.concatenate([c + tri for c in centres])
    near, _ = KB.nearest_sq(Z, 2)
    assert abs(KB.pair_bound(near, 3) - optimum(Z, 3, 5)) < 1e-9


@settings(max_examples=25, deadline=None)
@given(n=st.integers(4, 9), k=st.integers(2, 4), seed=st.integers(0, 10**6), ties=st.booleans())
def test_pair_and_cover_bounds_below_optimum(n, k, seed, ties):
    """pair ≤ cover ≤ the optimum over groups of any size ≥ k (both bounds hold for all of them)."""
    if k > n:
        return
    Z = _tiny(n, seed, ties)
    near, ids = KB.nearest_sq(Z, k - 1)  # the fewest candidates: the cover loop's pricing adds the rest
    pair = KB.pair_bound(near, k)
    cover = RB.cover_bound(Z, k, ids)["sse_bound"]
    best = optimum(Z, k, n)
    assert pair <= best + 1e-9 and cover <= best + 1e-9
    # the cover LP is at least the pair bound; its dual values are HiGHS's, optimal to its tolerances
    assert cover >= pair * (1 - 1e-6) - 1e-9


def test_cover_bound_charges_an_outliers_edges_in_full():
    """Three tight pairs and one far record: its nearest do not have it as a neighbour, so the pair
    bound charges its edges half and the cover bound in full; both stay below the optimum."""
    Z = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 0.0], [5.1, 0.0], [0.0, 5.0], [0.1, 5.0], [2.5, 20.0]])
    near, ids = KB.nearest_sq(Z, 6)
    pair = KB.pair_bound(near, 2)
    cover = RB.cover_bound(Z, 2, ids)["sse_bound"]
    assert pair < cover <= optimum(Z, 2, 7) + 1e-9
    assert cover > 1.5 * pair


def test_triangle_cuts_close_the_sliding_window_gap():
    """Twelve points on a line, k = 4: the cover LP alone lets each point take its nearest on both sides
    (windows that are no groups); the triangle cuts forbid that, and here reach the optimum."""
    Z = np.arange(12.0).reshape(-1, 1)
    near, ids = KB.nearest_sq(Z, 11)
    best = optimum(Z, 4, 12)
    plain = RB.cover_bound(Z, 4, ids, triangles=False)["sse_bound"]
    cut = RB.cover_bound(Z, 4, ids)
    assert KB.pair_bound(near, 4) < plain < cut["sse_bound"] <= best + 1e-9
    assert cut["sse_bound"] > best - 1e-6 and cut["cuts"] > 0


def test_violated_triangles_equals_a_plain_search():
    import itertools

    rng = np.random.default_rng(5)
    n = 9
    pairs = np.array([p for p in itertools.combinations(range(n), 2) if rng.random() < 0.6], dtype=np.int64)
    y = np.where(rng.random(len(pairs)) < 0.3, 0.0, rng.uniform(0.2, 1.0, len(pairs)))
    value = {tuple(p): v for p, v in zip(pairs.tolist(), y)}
    want = {}
    for i in range(n):
        for j, l in itertools.combinations([x for x in range(n) if x != i], 2):
            yij, yil = value.get((min(i, j), max(i, j)), 0.0), value.get((min(i, l), max(i, l)), 0.0)
            if yij > 0 and yil > 0 and yij + yil - 1 - value.get((j, l), 0.0) > 1e-6:
                want[(i, j, l)] = yij + yil - 1 - value.get((j, l), 0.0)
    viol, ti, tj, tl = KB.violated_triangles(n, pairs, y, 1e-6)
    got = {(a, b, c): v for v, a, b, c in zip(viol, ti, tj, tl)}
    assert got.keys() == want.keys() and want
    assert all(np.isclose(got[t], want[t]) for t in want)


def test_cover_pricing_equals_a_numpy_sum_over_all_pairs():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(30, 4))
    u = rng.uniform(0, 1.5, size=30)
    D = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=2) / 3
    excess = np.triu(u[:, None] + u[None, :] - D, 1)
    penalty, pairs, count = KB.cover_pricing(Z, u, 3, 5)
    assert np.isclose(penalty, excess[excess > 0].sum(), rtol=1e-12)
    assert count == int((excess > 0).sum()) and len(pairs) == min(count, 5)
    assert all(excess[i, j] > 0 and i < j for i, j in pairs)


def test_stored_bounds_below_best_known():
    bounds = pd.read_csv(ROOT / "registry" / "best_known" / "bounds.csv")
    index = pd.read_csv(ROOT / "registry" / "best_known" / "index.csv")
    for method in ("pair", "cover"):  # lp rows: test_lp_bound.py
        merged = index.merge(bounds[bounds["method"] == method], on=["dataset", "k"])
        assert len(merged) == 12, method
        assert (merged["il_bound"] < merged["il"]).all(), method


def test_cli_bound(tmp_path, cli_main):
    data = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(40, 3)), columns=["a", "b", "c"]).to_csv(data, index=False)
    proc = cli_main("bound", str(data), "-k", "3,5")
    assert proc.returncode == 0, proc.stderr
    import json

    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [x["k"] for x in lines] == [3, 5]
    assert all(x["il_bound"] > 0 and x["sse_bound"] > 0 for x in lines)
    assert_user_error(cli_main("bound", str(data), "-k", "50"), "k=50")
    cover = cli_main("bound", str(data), "-k", "3,5", "--method", "cover")
    assert cover.returncode == 0, cover.stderr
    covered = [json.loads(x) for x in cover.stdout.splitlines()]
    assert [x["method"] for x in covered] == ["cover", "cover"]
    assert all(c["il_bound"] >= p["il_bound"] - 1e-9 for c, p in zip(covered, lines))


def _bound_lines(capsys, *args):
    import json

    from support import main_in_process

    proc = main_in_process(capsys, "bound", *args)
    assert proc.returncode == 0, proc.stderr
    return [json.loads(x) for x in proc.stdout.splitlines()]


def test_bound_names_a_file_as_run_does(tmp_path, monkeypatch, capsys):
    """A file data set is named by the loader's rule (its base name; ./tarragona for a file named like
    a catalog set), the name `run` writes, not the path as typed."""
    rng = np.random.default_rng(2)
    (tmp_path / "sub").mkdir()
    frame = pd.DataFrame(rng.normal(size=(20, 2)), columns=["a", "b"])
    frame.to_csv(tmp_path / "sub" / "d.csv", index=False)
    frame.to_csv(tmp_path / "tarragona", index=False)
    monkeypatch.chdir(tmp_path)
    assert _bound_lines(capsys, "sub/d.csv", "-k", "3")[0]["dataset"] == "d.csv"
    assert _bound_lines(capsys, "./tarragona", "-k", "3")[0]["dataset"] == "./tarragona"
    from support import main_in_process

    run = main_in_process(capsys, "run", "mdav", "sub/d.csv", "-k", "3")
    assert run.returncode == 0 and "d.csv" in run.stdout and "sub/d.csv" not in run.stdout, run.stdout


def test_bound_store_refuses_anything_but_a_catalog_data_set(tmp_path, monkeypatch, capsys):
    from support import main_in_process

    pd.DataFrame(np.random.default_rng(4).normal(size=(20, 2)), columns=["a", "b"]).to_csv(tmp_path / "d.csv",
                                                                                           index=False)
    monkeypatch.chdir(tmp_path)
    for spec in ("d.csv", "uniform[n=30,d=2]"):
        assert_user_error(main_in_process(capsys, "bound", spec, "-k", "3", "--store", "--dir", "reg"),
                          f"bound --store: {spec!r} is not a catalog data set", "drop --store")
    assert not (tmp_path / "reg").exists()
