"""Certified lower bounds on the optimal IL of a data set at k (``mabench bound``).

The bound is :func:`mabench.kernels.bounds.pair_bound` (proof in docs/bounds.md): valid for every
partition whose groups have at least k records, whatever their upper size. IL units as everywhere in
the harness: z-scores of the selected columns, IL = 100·SSE/SST. ``store`` writes
config/best_known/bounds.csv for the twelve registry cells, so the report and the best-known table
read the bound from a file a command produced.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io
from mabench.errors import UserError

MAX_N = 20000  # the bound is O(n²·d) time, O(n) memory per row; refuse larger inputs up front
COLUMNS = ["dataset", "k", "sse_bound", "il_bound", "method", "command"]


def _z(spec: str, seed: int):
    from mabench import data
    from mabench.data.standardize import zscore

    ds = data.load(spec, seed)
    return np.ascontiguousarray(zscore(ds.values, ds.columns), dtype=np.float64)


def compute(spec: str, ks, seed: int = 0, Z=None) -> list[dict]:
    """One record per k: ``k, n, sse_bound, il_bound, sst, method``."""
    from mabench.kernels import bounds as KB

    Z = _z(spec, seed) if Z is None else Z
    n = Z.shape[0]
    if n > MAX_N:
        raise UserError(f"bound: {spec!r} has {n} records; the bound handles at most {MAX_N} (O(n²) work)")
    for k in ks:
        if k > n or n < 2:
            raise UserError(f"bound: k={k} exceeds the {n} records of {spec!r}; give k ≤ {n}")
    sst = float(((Z - Z.mean(axis=0)) ** 2).sum())
    near, _ = KB.nearest_sq(Z, max(max(ks) - 1, 1))
    out = []
    for k in ks:
        sse = float(KB.pair_bound(near, k))
        out.append({"dataset": spec, "k": int(k), "n": int(n), "sse_bound": sse,
                    "il_bound": 100.0 * sse / sst if sst > 0 else 0.0, "sst": sst, "method": "pair"})
    return out


def load(root=None) -> pd.DataFrame:
    from mabench.report.best_known import default_dir

    path = Path(root or default_dir()) / "bounds.csv"
    if not path.exists():
        raise UserError(f"{path} does not exist; write it with `mabench bound tarragona -k 3,4,5,10 --store` (and census, eia)")
    return pd.read_csv(path, keep_default_na=False)


def store(records: list[dict], root=None) -> Path:
    """Merge ``records`` into bounds.csv (one row per data set and k; a new bound replaces the row)."""
    from mabench.report.best_known import default_dir

    path = Path(root or default_dir()) / "bounds.csv"
    old = pd.read_csv(path, keep_default_na=False) if path.exists() else pd.DataFrame(columns=COLUMNS)
    new = pd.DataFrame([{"dataset": r["dataset"], "k": r["k"], "sse_bound": r["sse_bound"], "il_bound": r["il_bound"],
                         "method": r["method"],
                         "command": f"mabench bound {r['dataset']} -k {r['k']} --store"} for r in records])
    keys = set(zip(new["dataset"], new["k"].astype(int)))
    keep = old[[(d, int(k)) not in keys for d, k in zip(old["dataset"], old["k"])]] if len(old) else old
    frame = pd.concat([keep, new], ignore_index=True).sort_values(["dataset", "k"])
    with io.atomic_path(path) as tmp:
        frame[COLUMNS].to_csv(tmp, index=False)  # full repr: a rounded-up bound would not be a bound
    return path
