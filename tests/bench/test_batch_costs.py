"""What a batch process does once instead of once a cell or a draw, and the same outputs with it
(issue 39, item 5: the workflow's start-up share): the warm-ups of draws of the same shape, the data
files its runs read again, the cells' code hash and user-plugin provenance, the partition's text."""

from __future__ import annotations

import functools
import json

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mabench import codehash, data, discovery, io
from mabench.bench import batch, threads
from mabench.plugin import Algorithm


def _plain_csv(labels) -> str:
    """The partition file's format, written the plain way."""
    return "group\n" + "".join(f"{g}\n" for g in np.asarray(labels).tolist())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 60), max_size=50), st.sampled_from([np.int64, np.int32, np.uint8, np.int8]))
def test_partition_csv_is_the_plain_format_for_every_label_array(values, dtype):
    labels = np.array([v for v in values if v >= 0 or np.dtype(dtype).kind == "i"], dtype=dtype)
    assert io.partition_csv(labels) == _plain_csv(labels)


def test_partition_csv_of_labels_outside_the_table_and_of_other_types():
    for labels in (np.array([0, 5_000, 2]), np.array([-1, 0, 1]), np.array([1.0, 0.0]), np.array([True, False]),
                   np.array([], dtype=np.int64), np.array([7])):
        assert io.partition_csv(labels) == _plain_csv(labels)


def _files(tmp_path, n=30, count=3):
    paths = []
    for i in range(count):
        path = tmp_path / f"d{i}.csv"
        pd.DataFrame(np.random.default_rng(i).standard_normal((n, 3)), columns=["a", "b", "c"]).to_csv(path, index=False)
        paths.append(str(path))
    return paths


def _outputs(root) -> dict[str, object]:
    """Every cell file of a batch, records without their timing and session fields."""
    timing = {"seconds", "metric_seconds", "cpu_seconds", "metric_cpu_seconds", "max_rss_mb", "threads",
              "record_sha256"}
    out = {}
    for path in sorted(root.rglob("k*.*")):
        key = str(path.relative_to(root))
        if path.suffix == ".json":
            out[key] = {k: v for k, v in json.loads(path.read_text()).items() if k not in timing}
        else:
            out[key] = path.read_bytes()
    return out


def test_a_batch_warms_each_method_and_shape_up_once_with_the_same_cells(tmp_path, monkeypatch):
    files = _files(tmp_path)
    plan = {"metrics": ["il"], "runs": [
        {"algorithm": "mdav", "params": {}, "draws": [[s, f] for s, f in zip((1, 2, 3), files)], "k": [3, 4],
         "cells_dir": str(tmp_path / "a")},
        {"algorithm": "mdav", "params": {}, "draws": [[4, files[0]]], "k": [3], "cells_dir": str(tmp_path / "b")},
        {"algorithm": "mdav", "params": {}, "draws": [[5, files[1]]], "k": [2], "cells_dir": str(tmp_path / "c")}]}
    algo = discovery.algorithm("mdav")
    calls = []
    original = Algorithm.warm

    def counted(self, n, d, k, params):
        calls.append((self.name, n, d, k))
        return original(self, n, d, k, params)

    monkeypatch.setattr(Algorithm, "warm", counted)
    monkeypatch.setattr(threads, "choose", lambda: 1)  # one thread count throughout (it is in the key)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert batch.run_plan(plan) == (8, 8)
    finally:
        numba.set_num_threads(before)
    # a run's smallest and largest k; the second run's k = 3 is done; another k is another warm-up
    assert calls == [("mdav", 30, 3, 3), ("mdav", 30, 3, 4), ("mdav", 30, 3, 2)]
    warmed = _outputs(tmp_path)
    calls.clear()
    numba.set_num_threads(1)
    for run in plan["runs"]:  # each draw on its own, warmed up every time: the same files
        for seed, path in run["draws"]:
            batch.run_batch(run["algorithm"], run["params"], [(seed, path)], run["k"], ["il"],
                            run["cells_dir"].replace(str(tmp_path), str(tmp_path / "alone")))
    numba.set_num_threads(before)
    assert len(calls) == 8  # each of the first run's three draws at k = 3 and 4, the other two runs once
    assert _outputs(tmp_path / "alone") == warmed
    assert algo is discovery.algorithm("mdav")


def test_the_warm_up_key_holds_the_thread_count(monkeypatch):
    from mabench.bench import runner

    algo = discovery.algorithm("mdav")
    calls = []
    monkeypatch.setattr(Algorithm, "warm", lambda self, n, d, k, params: calls.append(k))
    warmed: set = set()
    runner.warm_once(algo, {}, 40, 3, 3, warmed)
    runner.warm_once(algo, {}, 40, 3, 3, warmed)
    assert calls == [3]
    monkeypatch.setattr(numba, "get_num_threads", lambda: 7)  # the tree kernels' two-thread specialization
    runner.warm_once(algo, {}, 40, 3, 3, warmed)
    runner.warm_once(algo, {}, 40, 3, 3, None)
    assert calls == [3, 3, 3]


@pytest.mark.parametrize("size, budget, reads", [(None, None, 3), (2, None, 5), (None, 1, 6), (None, 2 * 30 * 3 * 8, 5)])
def test_the_shared_loader_keeps_files_within_its_count_and_bytes(tmp_path, monkeypatch, size, budget, reads):
    files = _files(tmp_path)
    loads = []
    real = data.load

    def counted(spec, *args, **kw):
        loads.append(spec)
        return real(spec, *args, **kw)

    monkeypatch.setattr(data, "load", counted)
    load = batch.shared_loader(size, budget)
    first = load(files[0])
    for path in (files[1], files[2], files[0], files[1], files[0]):
        ds = load(path)
    assert len(loads) == reads
    first.values[:] = 0  # every caller has its own copy
    assert load(files[0]).values.any()
    assert np.array_equal(ds.values, real(files[0]).values)


def test_a_cells_code_hash_is_kept_per_method_and_init(monkeypatch):
    codehash.clear_caches()
    plain = codehash.cell_code_hash("icsm", {})
    assert codehash.cell_code_hash("icsm", {"init": "mdav"}) == plain  # the declared default
    other = codehash.cell_code_hash("icsm", {"init": "md"})
    assert other != plain
    monkeypatch.setattr(codehash, "plugin_hash", functools.cache(lambda name: "changed"))
    assert codehash.cell_code_hash("icsm", {}) == plain  # kept ...
    codehash.clear_caches()
    assert codehash.cell_code_hash("icsm", {}) != plain  # ... until the caches are cleared
    monkeypatch.undo()
    codehash.clear_caches()
    assert codehash.cell_code_hash("icsm", {}) == plain


def test_user_plugins_are_read_once_per_loading_of_the_plugins(tmp_path, monkeypatch):
    from support import forget_plugins

    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    plugin = home / "algorithms" / "mine.py"
    plugin.write_text('import dataclasses\nfrom mabench.algorithms.mdav import ALGORITHM as _A\n'
                      'ALGORITHM = dataclasses.replace(_A, name="mine")\n')
    monkeypatch.setenv("MABENCH_HOME", str(home))
    forget_plugins()
    try:
        first = discovery.user_plugins()
        assert set(first) == {"mine"} and first["mine"]["overrides"] is False
        first["mine"]["sha256"] = "edited by the caller"
        assert discovery.user_plugins()["mine"]["sha256"] != "edited by the caller"  # a copy each time
        plugin.write_text(plugin.read_text() + "# changed\n")
        kept = discovery.user_plugins()["mine"]["sha256"]
        forget_plugins()  # the plugins loaded again: read again
        assert discovery.user_plugins()["mine"]["sha256"] != kept
        monkeypatch.delenv("MABENCH_HOME")
        forget_plugins()
        assert discovery.user_plugins() == {}
    finally:
        monkeypatch.delenv("MABENCH_HOME", raising=False)
        forget_plugins()


def test_the_missing_values_path_warms_up_at_the_smallest_and_the_largest_k(tmp_path, monkeypatch):
    """With missing=available the runner warms the method through the available-case partition on a
    tiny problem of 3k + 1 records, as for complete data at the smallest and the largest k of the run
    (runner.warm_k_values)."""
    from mabench.bench import runner
    from mabench.data import missing

    values = np.random.default_rng(0).standard_normal((60, 3))
    values[::7, 1] = np.nan
    path = tmp_path / "na.csv"
    pd.DataFrame(values, columns=["a", "b", "c"]).to_csv(path, index=False)
    warmed_at = []
    original = missing.available_partition

    def spy(algo, own, z, observed, k, *args, **kwargs):
        if z.shape[0] != 60:  # the warm-up's tiny problem, not a cell
            warmed_at.append((z.shape[0], k))
        return original(algo, own, z, observed, k, *args, **kwargs)

    monkeypatch.setattr(missing, "available_partition", spy)
    cells = list(runner.run_cells("mdav", str(path), [4, 3, 5], params={"missing": "available"}))
    assert [c.record["k"] for c in cells] == [4, 3, 5]
    assert warmed_at == [(10, 3), (16, 5)]
