"""Per-variable partitions (individual ranking, ``onedims``): one partition per variable, every
column validated, metrics computed from the exact masked values (docs/metrics.md#per-variable-partitions)."""

from __future__ import annotations

import numpy as np
import pytest

from mabench import io, partition
from mabench.bench import runner, verify
from mabench.data.standardize import zscore
from mabench.metrics import EvalContext, evaluate, per_variable_context
from oracles import sdcmicro as oracle


def test_onedims_cell_is_marked_and_scored_from_its_masked_values():
    cell = runner.run_cell("onedims", "sim1", 3, seed=0, metrics=["il", "il_raw", "dld", "g_il", "sdid", "il1s", "id"])
    rec = cell.record
    assert rec["per_variable"] is True
    assert cell.labels.shape == (rec["n"], rec["d"])
    assert rec["min_group"] >= 3 and rec["max_group"] <= 5
    from mabench import data

    ds = data.load("sim1", 0)
    x = ds.values
    masked = oracle.onedims(x, 3)
    z = zscore(x)
    mz = (masked - x.mean(axis=0)) / x.std(axis=0)
    il = 100.0 * np.sum((z - mz) ** 2) / np.sum(z ** 2)
    assert rec["il"] == pytest.approx(il, rel=1e-12)
    # DLD by brute force: each masked record's nearest two originals (z-scores), lower index on ties
    linked = 0
    for i in range(len(x)):
        dist = np.sum((z - mz[i]) ** 2, axis=1)
        order = np.lexsort((np.arange(len(x)), dist))
        linked += i in order[:2]
    assert rec["dld"] == pytest.approx(100.0 * linked / len(x))


def test_a_per_variable_context_of_one_partition_repeated_equals_the_plain_context():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((60, 3)) * [1, 5, 20]
    z = zscore(x)
    labels = partition.canonical_labels(np.repeat(np.arange(20), 3)[rng.permutation(60)])
    plain = EvalContext(x, z, labels, ["a", "b", "c"])
    per_var = per_variable_context(x, z, np.repeat(labels[:, None], 3, axis=1), ["a", "b", "c"])
    names = ["il", "il_raw", "dld", "g_il", "sdid", "il1s", "id"]
    a, b = evaluate(plain, names), evaluate(per_var, names)
    for name in names:
        assert a[name] == pytest.approx(b[name], rel=1e-9, abs=1e-12), name


def test_every_column_is_validated():
    good = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 1], [1, 0]])
    partition.check_columns(good, 6, 2, 3)
    bad = good.copy()
    bad[0, 1] = 1  # variable 2: groups of 2 and 4
    with pytest.raises(partition.InvalidPartition, match="variable 2"):
        partition.check_columns(bad, 6, 2, 3)
    with pytest.raises(partition.InvalidPartition, match="expected"):
        partition.check_columns(good[:, :1], 6, 2, 3)


def test_per_variable_partition_file_round_trips_through_verify():
    labels = np.array([[0, 1], [0, 1], [0, 0], [1, 0], [1, 0], [1, 1]])
    text = io.partition_csv(labels).encode()
    assert text.startswith(b"group_1,group_2\n")
    assert verify.partition_ok(text, 6, 3)
    assert not verify.partition_ok(text, 6, 4)
    assert not verify.partition_ok(text.replace(b"1,1\n", b"1\n", 1), 6, 3)


def test_evaluate_reads_a_per_variable_partition_file(tmp_path):
    cell = runner.run_cell("onedims", "sim1", 3, seed=0, metrics=["il", "dld"])
    path = tmp_path / "p.csv"
    path.write_text(io.partition_csv(cell.labels))
    got = runner.evaluate_partition("sim1", path, 3, seed=0, metrics=["il", "dld"])
    assert got["per_variable"] is True
    assert got["il"] == cell.record["il"] and got["dld"] == cell.record["dld"]
    assert got["n_groups"] == cell.record["n_groups"]
