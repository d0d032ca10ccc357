"""Aggregate per-cell outputs of the workflow into one tidy results table.

A cell is ``{dataset_id}/{algo_id}/k{k}/seed{seed}``: its run JSON (partition
summary and the algorithm's own time), its metrics JSON and its Snakemake
benchmark TSV (wall time and peak memory of the whole job) become one row,
with provenance columns that are the same on every row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from . import io, provenance
from .errors import UserError

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
        return {"job_seconds": float("nan"), "job_max_rss_mb": float("nan")}
    bench = pd.read_csv(path, sep="\t")
    return {"job_seconds": float(bench["s"].iloc[0]), "job_max_rss_mb": float(pd.to_numeric(bench["max_rss"], errors="coerce").iloc[0])}


def collect(run_paths, runs_dir, metrics_dir=None, benchmarks_dir=None) -> pd.DataFrame:
    runs_dir = Path(runs_dir)
    rows = []
    for raw in run_paths:
        path = Path(raw)
        try:
            rel = path.relative_to(runs_dir)
        except ValueError:
            raise UserError(f"run output {raw!r} is not under --runs-dir {str(runs_dir)!r}") from None
        parts = rel.with_suffix("").parts
        if len(parts) != 4:
            raise UserError(f"run output {raw!r} is not laid out as DATASET/ALGO/kK/seedS.json")
        row = {"dataset_id": parts[0], "algo_id": parts[1]}
        row.update(_read_json(path))
        if metrics_dir is not None:
            metrics = _read_json(Path(metrics_dir) / rel)
            row.update({k: v for k, v in metrics.items() if k not in {"dataset", "dataset_params", "n"}})
        if benchmarks_dir is not None:
            row.update(_benchmark((Path(benchmarks_dir) / rel).with_suffix(".tsv")))
        rows.append(row)
    if not rows:
        raise UserError("no run outputs given to aggregate")
    frame = pd.DataFrame(rows)
    first = [c for c in IDENTITY if c in frame.columns]
    frame = frame[first + [c for c in frame.columns if c not in first]]
    return frame.sort_values(["dataset_id", "algo_id", "k", "seed"], kind="stable").reset_index(drop=True)


def write(frame: pd.DataFrame, out, root_seed=None, config_path=None) -> None:
    prov = provenance.record(root_seed, config_path)
    for key, value in prov.items():
        frame[key] = value
    io.write_parquet(out, frame, {"mabench.provenance": json.dumps(prov, sort_keys=True)})
