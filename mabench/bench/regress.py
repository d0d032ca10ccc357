"""The regression cells: every algorithm id of a workflow configuration on its fixed data sets.

``make regress`` runs them (in one process, each (algorithm, data set) as one
batch of k values), writes a CSV results table and compares it with the tracked
baseline ``registry/regress/baseline.csv`` (``mabench compare``). The cells come
from the configuration's plan (:mod:`mabench.bench.plan`), so a new algorithm
joins the check as soon as the default configuration runs it. Only fixed data (catalog sets, files, column
selections of them) are used: they are small and need no draws. Randomized
algorithms run their first seed only; their IL is not gated.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from mabench.bench import config, plan
from mabench.bench.runner import run_cells
from mabench.errors import UserError

COLUMNS = ["dataset_id", "algo_id", "algorithm", "params", "dataset", "dataset_params", "k", "seed",
           "n_groups", "min_group", "max_group", "il", "seconds", "code_hash", "session"]


def run(config_path=None, only: str | None = None, cache_dir: str | None = None) -> pd.DataFrame:
    """The regression cells as a table. ``cache_dir``: the cell cache (:mod:`mabench.bench.batch`),
    so that after an edit only the cells whose code changed are computed again; their ``seconds``
    are then those of the run that computed them."""
    from mabench import data, discovery, io
    from mabench.bench.batch import cached, cell_key, data_digest, keep

    from mabench.bench.provenance import session

    here = session()  # a cell from the cache keeps the session that timed it
    rows = []
    wanted = {a.strip() for a in only.split(",")} if only else None
    digests: dict[str, str] = {}
    for ds_id, spec, algo_id, algorithm, params, ks in plan.build(config.load(config_path)).regression_batches(wanted):
        for k in ks:
            key = None
            if cache_dir:
                if spec not in digests:
                    digests[spec] = data_digest(data.load(spec))
                key = cell_key(digests[spec], algorithm, discovery.algorithm(algorithm).resolve(params), k, 0,
                               ["il"], {})
                hit = cached(Path(cache_dir), key)
                if hit is not None:
                    rows.append({"dataset_id": ds_id, "algo_id": algo_id, **{c: hit[0].get(c, "") for c in COLUMNS[2:]}})
                    sys.stderr.write(f"{ds_id} {algo_id} k={k}: from cache (il={hit[0]['il']:.10f})\n")
                    continue
            # A setting may not apply at every k of the data set (lns region=12 needs k <= 6); such a
            # cell is skipped, not checked. A baseline cell that starts being refused still fails the
            # comparison: it is missing from the current results.
            try:
                result = next(run_cells(algorithm, spec, [k], 0, params, ["il"]))
            except UserError as exc:
                sys.stderr.write(f"{ds_id} {algo_id} k={k}: not applicable ({exc})\n")
                continue
            result.record["session"] = here
            if key is not None:
                keep(Path(cache_dir), key, result.record, io.partition_csv(result.labels))
            rows.append({"dataset_id": ds_id, "algo_id": algo_id,
                         **{c: result.record[c] for c in COLUMNS[2:]}})
            r = rows[-1]
            sys.stderr.write(f"{ds_id} {algo_id} k={r['k']}: il={r['il']:.10f} in {r['seconds']:.3f} s\n")
    if not rows:
        raise UserError("the configuration runs no algorithm on fixed data; nothing to check")
    return pd.DataFrame(rows, columns=COLUMNS)
