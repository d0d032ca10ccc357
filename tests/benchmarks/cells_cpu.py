"""CPU time of one method's default-workflow cells, and their partitions (issue 39: cheaper cells).

Not a test (no timed assertions): a script. It builds the plan of a workflow configuration (default
``config/config.yaml``), takes the cells of the given algorithm plugins, and runs each through
``run_cells`` — the code path of ``mabench batch`` — after one untimed run of the same cell that
compiles (or loads) the kernels. Each cell is run ``--repeats`` times; the median of the cell's
``cpu_seconds`` (the algorithm's own CPU time, metrics excluded) is kept, and the partition's
SHA-256 (canonical labels) is printed, so two code versions can be compared cell by cell:

    .venv/bin/python tests/benchmarks/cells_cpu.py --algorithms omma --select 'eia/omma/*/k3' --repeats 3
    .venv/bin/python tests/benchmarks/cells_cpu.py --algorithms emad --cells-dir results/cells --out emad.csv

``--select``: shell patterns on the cell name ``{dataset_id}/{algo_id}/seed{S}/k{K}`` (comma-separated);
``--first-seed``: only the first seed of each batch; ``--cells-dir``: a workflow run's
``results/cells`` folder whose labels each partition is compared with (``same_as_run`` column);
``--data-dir``: that run's ``results/data`` (otherwise each data set is generated from its spec).
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import hashlib
import statistics
import sys
from pathlib import Path

import numpy as np


def cells(plan, algorithms: set[str], select: list[str], first_seed: bool):
    """(dataset_id, algo_id, spec, algorithm, params, seed, k) of the selected cells, in plan order."""
    for ds_id, algo_id in plan.batches:
        entry = plan.algorithms[algo_id]
        if entry.algorithm not in algorithms:
            continue
        seeds = plan.batch_seeds(ds_id, algo_id)
        for seed in seeds[:1] if first_seed else seeds:
            for k in plan.algo_ks(ds_id, algo_id):
                name = f"{ds_id}/{algo_id}/seed{seed}/k{k}"
                if not select or any(fnmatch.fnmatch(name, p) for p in select):
                    yield ds_id, algo_id, plan.datasets[ds_id].spec, entry.algorithm, entry.params, seed, k


def digest(labels) -> str:
    from mabench.partition import canonical_labels

    return hashlib.sha256(np.ascontiguousarray(canonical_labels(np.asarray(labels)), dtype=np.int64)
                          .tobytes()).hexdigest()[:16]


def run_labels(cells_dir: Path, ds_id: str, algo_id: str, seed: int, k: int):
    path = cells_dir / ds_id / algo_id / f"seed{seed}" / f"k{k}.csv"
    if not path.exists():
        return None
    return np.loadtxt(path, skiprows=1, dtype=np.int64, ndmin=1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=None)
    ap.add_argument("--algorithms", required=True, help="plugin names, comma-separated")
    ap.add_argument("--select", default="", help="cell name patterns, comma-separated")
    ap.add_argument("--first-seed", action="store_true")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cells-dir", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", default=None, help="CSV of every cell (else stdout only)")
    a = ap.parse_args(argv)

    from mabench.bench import config, plan as plan_mod
    from mabench.bench.runner import run_cells

    plan = plan_mod.build(config.load(a.config))
    chosen = list(cells(plan, {s.strip() for s in a.algorithms.split(",")},
                        [p.strip() for p in a.select.split(",") if p.strip()], a.first_seed))
    rows = []
    for ds_id, algo_id, spec, algorithm, params, seed, k in chosen:
        source = spec
        if a.data_dir:
            source = str(Path(a.data_dir) / plan.data_file(ds_id, seed).split("/", 2)[2])
        times, labels = [], None
        for r in range(a.repeats + 1):  # run 0 compiles (or loads) the kernels: not timed
            result = next(run_cells(algorithm, source, [k], seed, params, ["il"]))
            if r:
                times.append(float(result.record["cpu_seconds"]))
            labels = result.labels
        same = ""
        if a.cells_dir:
            ref = run_labels(Path(a.cells_dir), ds_id, algo_id, seed, k)
            same = "" if ref is None else str(bool(digest(ref) == digest(labels)))
        row = {"cell": f"{ds_id}/{algo_id}/seed{seed}/k{k}", "cpu_median": statistics.median(times),
               "cpu_runs": " ".join(f"{t:.3f}" for t in times), "il": result.record["il"],
               "labels_sha": digest(labels), "same_as_run": same}
        rows.append(row)
        print(",".join(str(v) if not isinstance(v, float) else f"{v:.4f}" for v in row.values()), flush=True)
    total = sum(r["cpu_median"] for r in rows)
    print(f"# {len(rows)} cells, summed median CPU {total:.3f} s", flush=True)
    if a.out:
        with open(a.out, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["cell"])
            w.writeheader()
            w.writerows(rows)
    return 0 if all(r["same_as_run"] != "False" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
