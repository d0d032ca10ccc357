"""Atomic output: write to a temporary file beside the target, then rename.

A crash or an error therefore never leaves a partial output behind, and
Snakemake never sees a half-written file as done.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in the target's folder; rename it onto target on success."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_text(target: str | os.PathLike, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(target: str | os.PathLike, data: bytes) -> None:
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_parquet(target: str | os.PathLike, frame, metadata: dict[str, str] | None = None) -> None:
    """Write a DataFrame as Parquet, deterministically (no pandas index, fixed metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    # pandas' own metadata embeds library versions; keep only ours so equal data
    # gives byte-identical files across pandas releases.
    table = table.replace_schema_metadata({k.encode(): v.encode() for k, v in (metadata or {}).items()})
    with atomic_path(target) as tmp:
        pq.write_table(table, tmp, compression="zstd", write_statistics=False)


def partition_csv(labels) -> str:
    """A partition as the CSV every command reads and writes: header ``group``, one label per record."""
    return "group\n" + "".join(f"{g}\n" for g in labels.tolist())
