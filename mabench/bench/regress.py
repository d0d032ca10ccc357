"""The regression cells: every algorithm id of a workflow configuration on its fixed data sets.

``make regress`` runs them (in one process, each (algorithm, data set) as one
batch of k values), writes a CSV results table and compares it with the tracked
baseline ``config/regress/baseline.csv`` (``mabench compare``). The cells come
from the configuration itself, so a new algorithm joins the check as soon as
the default configuration runs it. Only fixed data (catalog sets, files, column
selections of them) are used: they are small and need no draws. Randomized
algorithms run their first seed only; their IL is not gated.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import yaml

from mabench import data, resources
from mabench.data import fetch
from mabench.errors import UserError
from mabench.bench.runner import run_cells

COLUMNS = ["dataset_id", "algo_id", "algorithm", "params", "dataset", "dataset_params", "k", "seed",
           "n_groups", "min_group", "max_group", "il", "seconds"]


def _config(path) -> dict:
    path = Path(path) if path else resources.config_path("config.yaml")
    try:
        config = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise UserError(f"config {str(path)!r} does not exist; give --config FILE") from None
    except (yaml.YAMLError, UnicodeDecodeError, IsADirectoryError):
        raise UserError(f"config {str(path)!r} is not valid YAML") from None
    if not isinstance(config, dict) or not isinstance(config.get("algorithms"), dict) \
            or not isinstance(config.get("datasets"), dict):
        raise UserError(f"config {str(path)!r} is not a workflow configuration: it needs the mappings `algorithms` "
                        "and `datasets` (see config/config.yaml)")
    for ds_id, entry in config["datasets"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), str):
            raise UserError(f"config {str(path)!r}: datasets.{ds_id} needs a `spec` (e.g. spec: tarragona)")
    for algo_id, entry in config["algorithms"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("algorithm"), str):
            raise UserError(f"config {str(path)!r}: algorithms.{algo_id} needs an `algorithm` (e.g. algorithm: mdav)")
    from mabench.bench.config_check import check_config

    check_config(config)  # every parameter and data set checked before the first cell runs
    return config


def cells(config: dict, only: str | None = None):
    """(dataset_id, spec, algo_id, algorithm, params, ks) of every regression batch, in config order."""
    catalog = fetch.catalog()
    wanted = {a.strip() for a in only.split(",")} if only else None
    algos = config["algorithms"]
    for ds_id, entry in config["datasets"].items():
        spec = entry["spec"]
        if data.base_name(spec) not in catalog:
            continue
        everywhere = [a for a, e in algos.items() if e.get("on_every_dataset", True)]
        for algo_id in entry.get("algorithms", everywhere):
            if wanted is not None and algo_id not in wanted:
                continue
            params = {str(k): str(v) for k, v in (algos[algo_id].get("params") or {}).items()}
            yield ds_id, spec, algo_id, algos[algo_id]["algorithm"], params, entry.get("k", config.get("k", [3, 4, 5, 10]))


def run(config_path=None, only: str | None = None) -> pd.DataFrame:
    rows = []
    for ds_id, spec, algo_id, algorithm, params, ks in cells(_config(config_path), only):
        for result in run_cells(algorithm, spec, ks, 0, params, ["il"]):
            rows.append({"dataset_id": ds_id, "algo_id": algo_id,
                         **{c: result.record[c] for c in COLUMNS[2:]}})
            r = rows[-1]
            sys.stderr.write(f"{ds_id} {algo_id} k={r['k']}: il={r['il']:.10f} in {r['seconds']:.3f} s\n")
    if not rows:
        raise UserError("the configuration runs no algorithm on fixed data; nothing to check")
    return pd.DataFrame(rows, columns=COLUMNS)
