"""Content-level damage (issue 17): a cell record carries the hash of its partition and of itself,
so a changed IL digit or two swapped labels are damage that the workflow redoes; a data file's
identity comes from its content, not from metadata a sliced copy keeps."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from mabench import cli
from mabench.bench import batch, verify


def _cell(root):
    out = root / "cells" / "tarragona" / "mdav"
    record = {"algorithm": "mdav", "params": "", "dataset": "x", "dataset_params": "", "k": 2, "seed": 0, "n": 6,
              "d": 2, "n_groups": 3, "min_group": 2, "max_group": 2, "il": 27.169014084507033}
    batch._write_cell(out, 0, 2, record, "group\n0\n0\n1\n1\n2\n2\n")
    return out / "seed0" / "k2.json", out / "seed0" / "k2.csv"


def test_an_intact_cell_is_not_damaged(tmp_path):
    rec, part = _cell(tmp_path)
    assert "partition_sha256" in json.loads(rec.read_text())
    assert verify.damaged(tmp_path) == []


def test_a_changed_il_digit_is_damage(tmp_path):
    rec, part = _cell(tmp_path)
    rec.write_text(rec.read_text().replace("27.169", "27.179"))
    found = dict(verify.damaged(tmp_path))
    assert rec in found and part in found and "hash" in found[rec]


def test_two_swapped_labels_are_damage(tmp_path):
    rec, part = _cell(tmp_path)
    part.write_text("group\n0\n1\n0\n1\n2\n2\n")  # still a valid partition: only the hash can tell
    found = dict(verify.damaged(tmp_path))
    assert rec in found and part in found
    verify.repair(tmp_path)
    assert not rec.exists() and not part.exists()


def test_a_truncated_or_unsealed_bad_partition_is_damage(tmp_path):
    rec, part = _cell(tmp_path)
    part.write_text("group\n0\n0\n1\n")  # a sealed cell's partition is proved by its hash alone
    found = dict(verify.damaged(tmp_path))
    assert rec in found and part in found and "hash" in found[part]
    record = json.loads(rec.read_text())  # a record from before cells were sealed: checked by structure
    rec.write_text(json.dumps({key: v for key, v in record.items() if not key.endswith("_sha256")}))
    assert verify.damaged(tmp_path) == [(part, "not a partition of 6 records into groups of >= 2")]
    part.write_text("group\n0\n0\n1\n1\n2\n2\n")
    assert verify.damaged(tmp_path) == []


def test_a_sliced_prepared_file_is_not_the_catalog_set(tmp_path, capsys):
    full, sliced = tmp_path / "t.parquet", tmp_path / "s.parquet"
    assert cli.main(["prepare", "tarragona", "--out", str(full)]) == 0
    table = pq.read_table(full)
    pq.write_table(table.slice(0, 500).replace_schema_metadata(table.schema.metadata), sliced)
    capsys.readouterr()
    assert cli.main(["run", "mdav", str(sliced), "-k", "3"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["dataset"] == "s.parquet" and record["n"] == 500
    assert cli.main(["run", "mdav", str(full), "-k", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["dataset"] == "tarragona"
