"""Damaged workflow intermediates: found before the workflow decides what to run, and removed.

Snakemake redoes a job when one of its outputs is missing or older than an input,
not when a file is damaged (truncated, overwritten, half-copied). Before each run
the workflow calls :func:`repair`, which checks every intermediate under
``results/`` by its content and deletes the damaged ones, so Snakemake redoes
exactly the jobs that produce them:

* cell records ``cells/**/k{K}.json``: a JSON object with the run record's fields whose
  ``record_sha256`` matches its content and whose ``partition_sha256`` matches the partition
  file (content-level damage: an edited IL digit, two swapped labels, a truncated file);
* cell partitions ``cells/**/k{K}.csv`` of a record without those hashes (written before cells
  were sealed): header ``group`` and one non-negative integer per record (as many as the
  record's ``n``), every group at least ``k``;
* data draws ``data/{id}/seed{S}.parquet``: a readable Parquet file with mabench's
  metadata and at least one row;
* fetched files ``data/raw/*``: the catalog's SHA-256;
* batch benchmarks ``benchmarks/**/*.tsv`` and ``results.parquet``: readable.

The cell cache (``cache/cells``) is checked by the same :func:`partition_ok` when
an entry is used (:mod:`mabench.bench.batch`).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

RECORD_FIELDS = {"algorithm", "dataset", "k", "seed", "n", "d", "n_groups", "min_group", "max_group", "il"}
_PARTITION = re.compile(rb"group\n(?:[0-9]+\n)+")
# A per-variable partition: group_1,...,group_d, one row of d labels per record.
_COLUMNS = re.compile(rb"group_1(?:,group_[0-9]+)*\n(?:[0-9]+(?:,[0-9]+)*\n)+")


def record_ok(text: str) -> dict | None:
    """The run record if ``text`` is one, else None."""
    try:
        record = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(record, dict) or not RECORD_FIELDS <= set(record):
        return None
    return record


def record_digest(record: dict) -> str:
    """SHA-256 of a run record's content (every field but ``record_sha256`` itself, canonical JSON)."""
    import hashlib

    body = {key: value for key, value in record.items() if key != "record_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def seal(record: dict, partition: bytes) -> dict:
    """The record as a cell file stores it: with the hash of its partition and of itself, so that a
    changed digit or two swapped labels are found as damage (:func:`content_problem`)."""
    import hashlib

    sealed = {key: value for key, value in record.items() if key not in ("partition_sha256", "record_sha256")}
    sealed["partition_sha256"] = hashlib.sha256(partition).hexdigest()
    sealed["record_sha256"] = record_digest(sealed)
    return sealed


def content_problem(record: dict, partition: bytes | None) -> str | None:
    """Why a sealed cell's record or partition is not what was written (None: intact). Records
    written before cells were sealed carry no hashes and are checked by structure only."""
    import hashlib

    if "record_sha256" in record and record["record_sha256"] != record_digest(record):
        return "its content differs from its hash (an edited record)"
    if partition is not None and "partition_sha256" in record \
            and record["partition_sha256"] != hashlib.sha256(partition).hexdigest():
        return "the partition differs from the hash its record holds"
    return None


def partition_ok(data: bytes, n: int, k: int) -> bool:
    """A partition file as mabench writes it, for ``n`` records and groups of at least ``k``."""
    if _PARTITION.fullmatch(data) is None:
        return _columns_ok(data, n, k)
    if data.count(b"\n") != n + 1:
        return False
    labels = np.array(data.split(b"\n")[1:-1], dtype=np.int64)
    sizes = np.bincount(labels)
    return bool(sizes[sizes > 0].min() >= k)


def _columns_ok(data: bytes, n: int, k: int) -> bool:
    """A per-variable partition file: every column a partition of n records into groups of >= k."""
    if _COLUMNS.fullmatch(data) is None or data.count(b"\n") != n + 1:
        return False
    rows = data.split(b"\n")[1:-1]
    d = rows[0].count(b",") + 1 if rows else 0
    if any(r.count(b",") + 1 != d for r in rows) or data.split(b"\n")[0].count(b",") + 1 != d:
        return False
    labels = np.array([r.split(b",") for r in rows], dtype=np.int64)
    for j in range(d):
        sizes = np.bincount(labels[:, j])
        if sizes[sizes > 0].min() < k:
            return False
    return True


def _cells(root: Path):
    for record_path in sorted((root / "cells").rglob("k*.json")):
        try:
            record = record_ok(record_path.read_text(encoding="utf-8"))
        except OSError:
            record = None
        if record is None:
            yield record_path, "not a run record"
            continue
        part = record_path.with_suffix(".csv")
        data = None
        if part.exists():
            try:
                data = part.read_bytes()
                # A sealed record holds the hash of the partition as written, and what was written was
                # validated first: the hash (content_problem, below) proves the file, parsing it adds
                # nothing. Records without a seal are checked by structure.
                good = "partition_sha256" in record or partition_ok(data, int(record["n"]), int(record["k"]))
            except (OSError, ValueError):
                good = False
            if not good:
                yield part, f"not a partition of {record['n']} records into groups of >= {record['k']}"
                continue
        why = content_problem(record, data)
        if why is not None:  # record and partition are redone together (one job writes both)
            yield record_path, why
            if data is not None:
                yield part, why
    for part in sorted((root / "cells").rglob("k*.csv")):
        if not part.with_suffix(".json").exists():
            try:
                raw = part.read_bytes()
                good = _PARTITION.fullmatch(raw) is not None or _COLUMNS.fullmatch(raw) is not None
            except OSError:
                good = False
            if not good:
                yield part, "not a partition file"


def _parquet_ok(path: Path, need_meta: bool) -> bool:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception:  # noqa: BLE001 - any failure to read means damaged
        return False
    if table.num_rows == 0:
        return False
    return not need_meta or b"mabench" in (table.schema.metadata or {})


def _data(root: Path):
    data = root / "data"
    for path in sorted(data.glob("*/seed*.parquet")):
        if path.parent.name != "raw" and not _parquet_ok(path, need_meta=True):
            yield path, "not a readable data draw"
    raw = data / "raw"
    if raw.is_dir():
        from mabench.data import fetch

        pinned = {entry["file"]: entry["sha256"] for entry in fetch.catalog().values()}
        for path in sorted(raw.iterdir()):
            if path.name in pinned and path.is_file() and fetch.sha256_bytes(path.read_bytes()) != pinned[path.name]:
                yield path, "checksum differs from the catalog's"


def _tables(root: Path):
    import pandas as pd

    for path in sorted((root / "benchmarks").rglob("*.tsv")):
        try:
            ok = "s" in pd.read_csv(path, sep="\t").columns
        except Exception:  # noqa: BLE001
            ok = False
        if not ok:
            yield path, "not a benchmark table"
    results = root / "results.parquet"
    if results.exists() and not _parquet_ok(results, need_meta=False):
        yield results, "not a readable results table"


def damaged(root="results") -> list[tuple[Path, str]]:
    """Every damaged intermediate under ``root``, with the reason."""
    root = Path(root)
    if not root.is_dir():
        return []
    return [*_cells(root), *_data(root), *_tables(root)]


def missing(paths, removed=()) -> list[str]:
    """The ``paths`` that do not exist or are among ``removed`` (a dry run's damaged files stay)."""
    gone = {str(p) for p in removed}
    return [p for p in map(str, paths) if p in gone or not Path(p).exists()]


def repair(root="results", dry_run: bool = False) -> list[Path]:
    """Delete the damaged intermediates (report only, with ``dry_run``); returns them."""
    found = damaged(root)
    for path, why in found:
        verb = "would remove" if dry_run else "removing"
        sys.stderr.write(f"mabench: {verb} damaged {path} ({why}); the workflow recomputes it\n")
        if not dry_run:
            path.unlink(missing_ok=True)
    return [p for p, _ in found]
