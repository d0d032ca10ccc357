"""Synthetic generators (datasets/icsm.py, datasets/thesis.py, datasets/thesis_ch6.py): determinism, shapes, ranges, structure."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mabench import data, discovery
from mabench.errors import UserError
from support import ROOT, safety_net


# Small versions of every generator (the defaults are checked separately).
SMALL = {
    "sim1": "sim1",
    "sim2": "sim2",
    "sim3": "sim3[clusters=4,per_cluster=10]",
    "icsm_synthetic": "icsm_synthetic[n=300,d=4,clusters=5]",
    "uniform": "uniform[n=200,d=5]",
    "normal": "normal[n=200,d=5]",
    "uniform_si": "uniform_si[n=240,d=6]",
    "normal_si": "normal_si[n=240,d=6]",
    "fayyoumi_sim1": "fayyoumi_sim1[n=200]",
    "fayyoumi_sim2": "fayyoumi_sim2[n=200,tree=random]",
    "fayyoumi_sim3": "fayyoumi_sim3[n=200]",
    "dtree": "dtree[n=150,d=6]",
}


def gen(name):
    return discovery.generators()[name]


def draw(name: str, seed: int, **params):
    """Call a generator directly with a fresh rng (the engine's rng is tested through data.load)."""
    g = gen(name)
    values, columns = g.generate(np.random.default_rng(seed), **g.resolve(params))
    return np.asarray(values), list(columns)


def test_all_generators_declared_with_citations():
    gens = discovery.generators()
    assert set(SMALL) <= set(gens)
    for name in SMALL:
        g = gens[name]
        assert g.citation and g.notes and g.title
        seed_file = "003_58f0e37d459aa4df.txt" if name.startswith(("sim", "icsm")) else "001_26cfb99743cbb1f3.txt"
        assert seed_file in g.citation and "§" in g.citation


@pytest.mark.parametrize("name", sorted(SMALL))
def test_same_seed_same_data_different_seed_different_data(name):
    spec = SMALL[name]
    a, b, c = data.load(spec, 11), data.load(spec, 11), data.load(spec, 12)
    assert a.values.dtype == np.float64 and a.values.flags.c_contiguous
    assert a.values.tobytes() == b.values.tobytes() and a.columns == b.columns
    assert a.values.shape != c.values.shape or not np.array_equal(a.values, c.values)
    assert a.columns == [f"V{j + 1}" for j in range(a.values.shape[1])]
    assert a.provenance["generator"] == name and a.seed == 11


def test_parameters_change_the_stream_name_not_just_the_size():
    a = data.load("uniform[n=100,d=3]", 5).values
    b = data.load("uniform[n=101,d=3]", 5).values
    assert not np.array_equal(a, b[:100])  # the engine keys the rng by name and parameters


def test_default_shapes():
    shapes = {
        "sim1": (100, 10),
        "icsm_synthetic": (10000, 10),
        "uniform": (3000, 16),
        "normal": (3000, 16),
        "uniform_si": (4800, 16),
        "normal_si": (1560, 16),
    }
    for name, shape in shapes.items():
        assert draw(name, 0)[0].shape == shape
    for name in ("sim2", "sim3"):
        values, _ = draw(name, 0)
        assert values.shape[0] == 100 and 4 <= values.shape[1] <= 8


def test_sim1_range():
    values, _ = draw("sim1", 3, n=2000, d=10)
    assert values.min() >= -1000 and values.max() < 1000
    assert values.min() < -990 and values.max() > 990
    assert abs(values.mean()) < 20


@pytest.mark.parametrize("name", ["sim2", "sim3"])
def test_sim23_dimension_is_drawn_from_4_to_8(name):
    dims = {draw(name, seed, clusters=2, per_cluster=2)[0].shape[1] for seed in range(300)}
    assert dims == {4, 5, 6, 7, 8}


def _replay_clusters(name: str, seed: int, sizes: list[int], d: int | None, high: float):
    """Re-draw the documented stream: d (sim2/3), centres, sigmas, noise, permutation."""
    rng = np.random.default_rng(seed)
    if d is None:
        d = int(rng.integers(4, 9))
    c = len(sizes)
    centres = rng.uniform(0.0, high, size=(c, d))
    sigmas = rng.uniform(0.1, 0.3, size=c)
    labels = np.repeat(np.arange(c), sizes)
    noise = rng.standard_normal((labels.size, d))
    perm = rng.permutation(labels.size)
    return centres, sigmas, labels[perm], noise[perm]


@pytest.mark.parametrize(
    "name, params, sizes, d, high",
    [
        ("sim2", {"clusters": 5, "per_cluster": 20}, [20] * 5, None, 1.0),
        ("sim3", {"clusters": 5, "per_cluster": 20}, [20] * 5, None, 2.0),
        ("icsm_synthetic", {"n": 1003, "d": 10, "clusters": 10}, [101, 101, 101] + [100] * 7, 10, 1.0),
    ],
)
def test_cluster_generators_follow_the_documented_recipe(name, params, sizes, d, high):
    for seed in (0, 1, 2):
        values, _ = draw(name, seed, **params)
        centres, sigmas, labels, noise = _replay_clusters(name, seed, sizes, d, high)
        assert np.array_equal(values, centres[labels] + sigmas[labels, None] * noise)
        assert np.all((centres >= 0) & (centres <= high)) and np.all((sigmas >= 0.1) & (sigmas <= 0.3))
        assert np.array_equal(np.bincount(labels), sizes)
        assert not np.all(np.diff(labels) >= 0)  # rows are shuffled, not sorted by cluster


def test_clusters_are_real_clusters():
    """Within-cluster spread is small next to the spread of the whole set (icsm_synthetic, d=10)."""
    values, _ = draw("icsm_synthetic", 4, n=2000, d=10, clusters=10)
    _, _, labels, _ = _replay_clusters("icsm_synthetic", 4, [200] * 10, 10, 1.0)
    sst = ((values - values.mean(0)) ** 2).sum()
    sse = sum(((values[labels == g] - values[labels == g].mean(0)) ** 2).sum() for g in range(10))
    assert sse / sst < 0.6
    # and each record is, on average, closer to its own centre than to the others
    means = np.stack([values[labels == g].mean(0) for g in range(10)])
    dist = ((values[:, None, :] - means[None]) ** 2).sum(-1)
    assert (dist.argmin(1) == labels).mean() > 0.6


def test_thesis_uniform_and_normal():
    u, _ = draw("uniform", 1, n=5000, d=4)
    assert u.min() >= 0 and u.max() < 1000 and abs(u.mean() - 500) < 10
    assert np.unique(u).size == u.size  # continuous
    v, _ = draw("uniform", 1, n=100, d=2, low=-5.0, high=5.0)
    assert v.min() >= -5 and v.max() < 5
    z, _ = draw("normal", 1, n=20000, d=3)
    assert abs(z.mean()) < 0.002 and abs(z.std() - 0.05) < 0.002


def test_si_sets_are_integer_with_repeats():
    u, _ = draw("uniform_si", 2)
    assert u.shape == (4800, 16) and np.array_equal(u, np.rint(u))
    assert u.min() >= 0 and u.max() <= 40000
    z, _ = draw("normal_si", 2)
    assert z.shape == (1560, 16) and np.array_equal(z, np.rint(z))
    assert abs(z.mean() - 500) < 5 and abs(z.std() - 150) < 5
    for values in (u, z):  # integer draws repeat, as the thesis reports
        assert all(np.unique(values[:, j]).size < values.shape[0] for j in range(values.shape[1]))


def test_si_metric_options():
    for name, m in (("uniform_si", 3), ("normal_si", 5)):
        opts = data.metric_defaults(name)
        assert opts["key_variables_rule"] == "fewest_repeats" and opts["n_key_variables"] == m
        assert opts["id_p"] == list(range(1, 31))
    assert data.metric_defaults("uniform")["id_p"] == list(range(1, 31))
    assert "key_variables_rule" not in data.metric_defaults("uniform")


def test_fewest_repeats_rule():
    from mabench.generators import thesis as module

    fewest_repeats = module.fewest_repeats
    values = np.array([[1, 1, 1, 5], [2, 1, 2, 6], [3, 1, 2, 7], [4, 2, 3, 7]], dtype=float)
    # repeats: V1 0, V2 2, V3 1, V4 1 -> V1, then V3/V4 tie (earlier first), then V2
    cols = ["V1", "V2", "V3", "V4"]
    assert fewest_repeats(values, cols, 3) == ["V1", "V3", "V4"]
    assert fewest_repeats(values, cols, 10) == ["V1", "V3", "V4", "V2"]
    u, names = draw("uniform_si", 0, n=600, d=8)
    chosen = fewest_repeats(u, names, 3)
    repeats = {c: u.shape[0] - np.unique(u[:, names.index(c)]).size for c in names}
    assert max(repeats[c] for c in chosen) <= min(repeats[c] for c in names if c not in chosen)


@pytest.mark.parametrize(
    "spec, word",
    [
        ("sim1[n=0]", "n"),
        ("sim1[d=-2]", "d"),
        ("sim2[clusters=0]", "clusters"),
        ("icsm_synthetic[n=5,clusters=6]", "clusters"),
        ("uniform[low=5.0,high=5.0]", "low"),
        ("normal[sigma=0]", "sigma"),
        ("normal_si[sigma=nan]", "sigma"),
        ("uniform[n=100000000,d=100]", "too large"),
    ],
)
def test_bad_parameter_values(spec, word):
    with pytest.raises(UserError, match=word):
        data.load(spec, 0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["sim1", "uniform", "normal", "uniform_si", "normal_si", "icsm_synthetic"]),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 60),
    d=st.integers(1, 6),
)
def test_property_shape_and_determinism(name, seed, n, d):
    params = {"n": n, "d": d}
    if name == "icsm_synthetic":
        params["clusters"] = min(n, 3)
    a, ca = draw(name, seed, **params)
    b, cb = draw(name, seed, **params)
    assert a.shape == (n, d) and a.dtype == np.float64 and np.isfinite(a).all()
    assert a.tobytes() == b.tobytes() and ca == cb == [f"V{j + 1}" for j in range(d)]


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(["sim2", "sim3"]), seed=st.integers(0, 2**32 - 1),
       clusters=st.integers(1, 6), per_cluster=st.integers(1, 8))
def test_property_sim23(name, seed, clusters, per_cluster):
    a, _ = draw(name, seed, clusters=clusters, per_cluster=per_cluster)
    b, _ = draw(name, seed, clusters=clusters, per_cluster=per_cluster)
    assert a.shape[0] == clusters * per_cluster and 4 <= a.shape[1] <= 8
    assert a.tobytes() == b.tobytes()


def _prepare(spec: str, seed: int, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "MABENCH_HOME": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mabench.cli", "prepare", spec, "--seed", str(seed),
                           "--out", str(out)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=safety_net(120))


def test_prepare_parquet_is_byte_identical_across_processes(tmp_path):
    jobs = {
        "a": ("sim2", 7), "b": ("sim2", 7),
        "d": ("uniform_si[n=600,d=4]", 7), "e": ("uniform_si[n=600,d=4]", 7),
    }
    with ThreadPoolExecutor(len(jobs)) as pool:
        procs = {k: pool.submit(_prepare, spec, seed, tmp_path / f"{k}.parquet") for k, (spec, seed) in jobs.items()}
        procs = {k: f.result() for k, f in procs.items()}
    for k, proc in procs.items():
        assert proc.returncode == 0, proc.stderr
    from mabench import cli

    assert cli.main(["prepare", "sim2", "--seed", "8", "--out", str(tmp_path / "c.parquet")]) == 0
    blob = {k: (tmp_path / f"{k}.parquet").read_bytes() for k in [*jobs, "c"]}
    assert blob["a"] == blob["b"] and blob["d"] == blob["e"]
    assert blob["a"] != blob["c"]
    # the file reads back as the same draw, with its spec and seed
    ds = data.read_table(tmp_path / "a.parquet")
    ref = data.load("sim2", 7)
    assert ds.name == "sim2" and ds.seed == 7 and ds.params == ref.params
    assert ds.values.tobytes() == ref.values.tobytes()
