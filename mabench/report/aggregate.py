"""Aggregate per-cell outputs of the workflow into one tidy results table.

A cell's record is ``CELLS/{dataset_id}/{algo_id}/seed{seed}/k{k}.json`` (the
partition summary, the algorithm's own time and the metrics, written by a
batch job). The benchmark TSV of the job that computed the cell,
``BENCHMARKS/{batch}.tsv`` with ``batch`` from the record (``{dataset_id}/part{N}``: wall and
CPU time, peak memory of the whole job, measured by the job itself), is attached to each of its cells as ``batch_*`` columns, so the
start-up and scheduling cost can be told apart from the algorithms' own time.
Provenance columns are the same on every row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from mabench import io
from mabench.bench import provenance
from mabench.errors import UserError

IDENTITY = ["dataset_id", "algo_id", "dataset", "dataset_params", "algorithm", "params", "k", "seed"]


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise UserError(f"missing cell output {str(path)!r}; re-run the workflow to produce it") from None
    except json.JSONDecodeError:
        raise UserError(f"cell output {str(path)!r} is not valid JSON; delete it and re-run the workflow") from None


def _benchmark(path: Path) -> dict:
    if not path.exists():
        return {"batch_seconds": float("nan"), "batch_cpu_seconds": float("nan"), "batch_max_rss_mb": float("nan")}
    bench = pd.read_csv(path, sep="\t")
    num = lambda col: float(pd.to_numeric(bench[col], errors="coerce").iloc[0]) if col in bench else float("nan")
    return {"batch_seconds": num("s"), "batch_cpu_seconds": num("cpu_time"), "batch_max_rss_mb": num("max_rss")}


def collect(cell_paths, cells_dir, benchmarks_dir=None) -> pd.DataFrame:
    cells_dir = Path(cells_dir)
    rows = []
    benches: dict[str, dict] = {}
    for raw in cell_paths:
        path = Path(raw)
        try:
            rel = path.relative_to(cells_dir)
        except ValueError:
            raise UserError(f"cell output {raw!r} is not under --cells-dir {str(cells_dir)!r}") from None
        parts = rel.with_suffix("").parts
        if len(parts) != 4 or not parts[2].startswith("seed") or not parts[3].startswith("k"):
            raise UserError(f"cell output {raw!r} is not laid out as DATASET/ALGO/seedS/kK.json")
        row = {"dataset_id": parts[0], "algo_id": parts[1]}
        record = _read_json(path)
        if "info" in record:  # an algorithm's extra fields (structure, trace): kept as JSON text
            info = record["info"]
            # numeric scalars (a search's gain, iterations) also become columns, so that the
            # published registry can compare them (docs/published.md, metric column)
            for key, value in (info.items() if isinstance(info, dict) else ()):
                if isinstance(value, (int, float)) and not isinstance(value, bool) and key not in record:
                    row[key] = value
            record["info"] = json.dumps(info, sort_keys=True)
        for key in ("partition_sha256", "record_sha256"):  # integrity seals of the cell files, not results
            record.pop(key, None)
        row.update(record)
        if benchmarks_dir is not None and record.get("batch"):
            key = record["batch"]  # the job that computed the cell: DATASET/partN
            if key not in benches:
                benches[key] = _benchmark(Path(benchmarks_dir) / f"{key}.tsv")
            row.update(benches[key])
        rows.append(row)
    if not rows:
        raise UserError("no cell outputs given to aggregate")
    frame = pd.DataFrame(rows)
    first = [c for c in IDENTITY if c in frame.columns]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    return frame.sort_values(["dataset_id", "algo_id", "k", "seed"], kind="stable").reset_index(drop=True)


def write(frame: pd.DataFrame, out, root_seed=None, config_path=None) -> None:
    prov = provenance.record(root_seed, config_path)
    for key, value in prov.items():
        frame[key] = value
    io.write_parquet(out, frame, {"mabench.bench.provenance": json.dumps(prov, sort_keys=True)})
