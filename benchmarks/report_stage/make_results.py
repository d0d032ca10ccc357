"""A 100-cell user configuration's results table, for timing the report stage (docs/method-authors.md,
"Measured"): 13 methods on tarragona and census at k = 3, 4, 5, 10, the cells' IL, group shapes and
seconds taken from registry/regress/baseline.csv, one method marked as a MABENCH_HOME plugin.

    python benchmarks/report_stage/make_results.py OUT/results.parquet
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
METHODS = ["cbfs", "dbfs", "emad", "icsm", "kward", "md", "mdav", "mdav1", "mdav2", "pca", "rmd", "vmdav",
           "simple"]
DATASETS = {"tarragona": (834, 13), "census": (1080, 13)}
KS = [3, 4, 5, 10]
USER = "simple"  # drawn as the author's own method (★)


def results() -> pd.DataFrame:
    base = pd.read_csv(ROOT / "registry" / "regress" / "baseline.csv", dtype={"params": str, "dataset_params": str},
                       keep_default_na=False)
    cells = base[base["algo_id"].isin(METHODS) & base["dataset_id"].isin(list(DATASETS)) & base["k"].isin(KS)]
    cells = cells.sort_values(["dataset_id", "algo_id", "k", "seed"]).head(100).reset_index(drop=True)
    cells = cells.assign(n=[DATASETS[d][0] for d in cells["dataset_id"]], d=[DATASETS[d][1] for d in cells["dataset_id"]],
                         metric_seconds=0.0, cpu_seconds=cells["seconds"], metric_cpu_seconds=0.0, threads=1,
                         max_rss_mb=200.0, info="",
                         plugin_path=[f"/home/author/algorithms/{a}.py" if a == USER else None for a in cells["algo_id"]])
    return cells


if __name__ == "__main__":
    frame = results()
    assert len(frame) == 100, len(frame)
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(out, index=False)
    print(f"{len(frame)} cells, {frame['algo_id'].nunique()} methods -> {out}")
