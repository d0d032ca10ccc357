"""The best-known registry: the lowest-IL partition the harness has found per real data set and k.

``registry/best_known/index.csv`` has one row per cell — ``dataset, k, il, method, params, seed,
budget, date, file`` — and ``registry/best_known/{file}`` holds the partition: a CSV with header
``group`` and one integer label per record in the data set's row order (``.csv.gz`` allowed).

* :func:`verify` re-derives every entry from the data: the file exists and has one label per
  record, every group has at least k records, and the IL recomputed from the labels (z-scores,
  IL = 100·SSE/SST) equals the recorded one.
* :func:`improve` runs a search from an entry's partition for a budget and replaces the entry
  only when the result is lower (files written atomically: partition first, then the index).
* the comparison with the lowest IL any seed publishes for a cell is the report's
  (:mod:`mabench.report.best_known_table`).
"""

from __future__ import annotations

import datetime as _dt
import io as _io
import time
from pathlib import Path

import numpy as np
import pandas as pd

from mabench import io, resources
from mabench.errors import UserError

COLUMNS = ["dataset", "k", "il", "method", "params", "seed", "budget", "date", "file"]
IL_TOLERANCE = 1e-6  # recorded IL (8 decimals) vs recomputed
CELLS = [(ds, k) for ds in ("tarragona", "census", "eia") for k in (3, 4, 5, 10)]


def default_dir() -> Path:
    return resources.registry_path("best_known")


def load_index(root=None) -> pd.DataFrame:
    path = Path(root or default_dir()) / "index.csv"
    if not path.exists():
        raise UserError(f"best-known index {str(path)!r} does not exist; create it with `mabench best-known improve`")
    frame = pd.read_csv(path, dtype={"params": str, "method": str, "date": str, "file": str}, keep_default_na=False)
    if list(frame.columns) != COLUMNS:
        raise UserError(f"{path}: columns must be {','.join(COLUMNS)}; found {','.join(frame.columns)}")
    return frame


def _data(dataset: str):
    from mabench import data
    from mabench.data.standardize import zscore
    from mabench.plugin import read_only

    ds = data.load(dataset, 0)
    # read-only, as a run hands its data to the searches: their kernels are compiled once for both
    return read_only(zscore(ds.values, ds.columns))


def il_of(Z: np.ndarray, labels: np.ndarray) -> float:
    from mabench import kernels as K

    labels = np.ascontiguousarray(labels, dtype=np.int64)
    sse = K.sse(Z, labels, int(labels.max()) + 1)
    return 100.0 * sse / float(((Z - Z.mean(axis=0)) ** 2).sum())


def read_partition(path: Path, n: int) -> np.ndarray:
    """Labels of a registry file; raises ValueError saying what is wrong."""
    if not path.exists():
        raise ValueError(f"partition file {path.name} is missing")
    frame = pd.read_csv(path)
    if list(frame.columns) != ["group"]:
        raise ValueError(f"{path.name}: header must be `group`, found {list(frame.columns)}")
    values = pd.to_numeric(frame["group"], errors="coerce")
    if values.isna().any() or not np.all(values == np.round(values)):
        raise ValueError(f"{path.name}: labels must be integers")
    if len(values) != n:
        raise ValueError(f"{path.name}: {len(values)} labels for {n} records")
    from mabench.partition import canonical_labels

    return canonical_labels(values.to_numpy().astype(np.int64))


def verify(root=None) -> tuple[pd.DataFrame, list[str]]:
    """Every entry re-checked from the data; returns (per-entry report, problems)."""
    root = Path(root or default_dir())
    index = load_index(root)
    problems, rows = [], []
    cache: dict = {}
    for rec in index.to_dict("records"):
        where = f"{rec['dataset']} k={rec['k']}"
        Z = cache.setdefault(rec["dataset"], _data(rec["dataset"]))
        try:
            labels = read_partition(root / rec["file"], Z.shape[0])
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            rows.append({**rec, "il_recomputed": float("nan"), "min_group": -1, "max_group": -1, "ok": False})
            continue
        sizes = np.bincount(labels)
        il = il_of(Z, labels)
        ok = True
        if sizes.min() < int(rec["k"]):
            problems.append(f"{where}: a group has {sizes.min()} < k={rec['k']} records")
            ok = False
        if abs(il - float(rec["il"])) > IL_TOLERANCE:
            problems.append(f"{where}: recorded IL {rec['il']} but the partition gives {il:.8f}")
            ok = False
        rows.append({**rec, "il_recomputed": il, "min_group": int(sizes.min()), "max_group": int(sizes.max()), "ok": ok})
    return pd.DataFrame(rows), problems


def _write_partition(path: Path, labels: np.ndarray) -> None:
    text = "group\n" + "".join(f"{g}\n" for g in labels.tolist())
    if path.name.endswith(".gz"):
        import gzip

        buf = _io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
            gz.write(text.encode())
        io.write_bytes(path, buf.getvalue())
    else:
        io.write_text(path, text)


def _write_index(root: Path, index: pd.DataFrame) -> None:
    index = index.sort_values(["dataset", "k"], key=lambda s: s.map(dataset_order) if s.name == "dataset" else s)
    with io.atomic_path(root / "index.csv") as tmp:
        index[COLUMNS].to_csv(tmp, index=False, float_format="%.8f")


def dataset_order(name):
    return {"tarragona": 0, "census": 1, "eia": 2}.get(name, 3)


def record(dataset: str, k: int, labels: np.ndarray, method: str, params: str, seed: int, budget: str,
           root=None, Z=None) -> tuple[bool, float, float]:
    """Store ``labels`` for (dataset, k) if it is valid and lower than the entry (or there is none).

    Returns (replaced, new IL, previous IL or nan)."""
    root = Path(root or default_dir())
    Z = _data(dataset) if Z is None else Z
    labels = np.asarray(labels, dtype=np.int64)
    if labels.shape != (Z.shape[0],) or np.bincount(labels).min() < k:
        raise RuntimeError(f"{dataset} k={k}: refusing to store an invalid partition")
    il = il_of(Z, labels)
    path = root / "index.csv"
    index = load_index(root) if path.exists() else pd.DataFrame(columns=COLUMNS)
    mask = (index["dataset"] == dataset) & (index["k"].astype(int) == int(k))
    prev = float(index.loc[mask, "il"].iloc[0]) if mask.any() else float("nan")
    if mask.any() and not il < prev - 1e-7:  # prev is stored to 8 decimals
        return False, il, prev
    name = f"{dataset}_k{k}.csv.gz"
    _write_partition(root / name, labels)
    row = {"dataset": dataset, "k": int(k), "il": round(il, 8), "method": method, "params": params, "seed": int(seed),
           "budget": budget, "date": _dt.date.today().isoformat(), "file": name}
    index = pd.concat([index[~mask], pd.DataFrame([row])], ignore_index=True)
    _write_index(root, index)
    return True, il, prev


NEIGHBOURS = 8  # improve's default: nearest groups for moves and perturbations; region: nearest records


def improve(dataset: str, k: int, budget: float, seed: int = 0, method: str = "icsm", restarts: int = 0,
            perturb: int = 20, neighbours: int = NEIGHBOURS, dissolve: float = 0.2, root=None) -> dict:
    """Search from the entry's partition (or from MDAV when there is none): ICSM, then perturbation
    restarts for ``budget`` seconds (or ``restarts`` restarts; a share ``dissolve`` of them dissolve a
    random group instead of exchanging records), then ICSM; replace the entry only when lower."""
    from mabench import kernels as K
    from mabench.kernels.improve import search

    _check_improve_args(dataset, k, budget, seed, restarts, perturb, neighbours, dissolve)
    if budget <= 0 and restarts <= 0:
        raise UserError("give a positive --budget (seconds) or --restarts")
    if method == "region" and budget <= 0:
        raise UserError("--method region needs a positive --budget: the integer program's time limit in seconds")
    root = Path(root or default_dir())
    Z = _data(dataset)
    if k > Z.shape[0]:
        raise UserError(f"-k {k} is larger than {dataset}'s {Z.shape[0]} records; use k <= {Z.shape[0]}")
    kmax = 2 * k - 1
    if method == "region":
        from mabench.optimum import merge

        most = merge.column_count(Z.shape[0], k, kmax, neighbours)
        if most > merge.REGION_COLUMNS:
            raise UserError(f"--method region at k={k} with --neighbours {neighbours} may enumerate {most:,} groups "
                            f"on {dataset}, more than the {merge.REGION_COLUMNS:,} that fit in memory; use a smaller "
                            "--neighbours")
    start_labels = None
    if (root / "index.csv").exists():
        index = load_index(root)
        mask = (index["dataset"] == dataset) & (index["k"].astype(int) == int(k))
        if mask.any():
            start_labels = read_partition(root / index.loc[mask, "file"].iloc[0], Z.shape[0])
    st = search.State(Z, start_labels if start_labels is not None else K.mdav_partition(Z, k, K.TAIL_2K), k, kmax)
    tr = search.Trace(search.sst(Z))
    il_start = tr.il(st.sse)
    search.icsm(st)
    rng = np.random.default_rng([seed, k, dataset_order(dataset)])
    if method == "region":
        return _improve_region(dataset, k, budget, neighbours, root, Z, st, tr, il_start)
    if method == "merge":
        return _improve_merge(dataset, k, budget, seed, restarts, perturb, neighbours, dissolve, root, Z, st, tr,
                              il_start, rng)
    deadline = time.perf_counter() + budget if budget > 0 else None
    if method == "lns":
        from mabench.kernels.improve import lns

        rmax = lns.default_region(k)
        scratch = lns.scratch(Z.shape[1], min(rmax, lns.RMAX))
        search.lns_descent(st, rng, rmax, scratch, tr, deadline)

    touched_now = []

    def local(s, touched):
        search.descent(s, neighbours, start=touched)
        touched_now[:] = [touched]

    def improve_fn(s):
        if method == "icsm":
            search.icsm(s, use_complex=False)
        elif method == "lns":
            search.lns_descent(s, rng, rmax, scratch, None, deadline, seeds=touched_now[0])

    left = budget if deadline is None else max(1e-9, deadline - time.perf_counter())
    _, _, done = search.iterate(st, improve_fn, restarts, left, perturb, neighbours, rng, tr, local, dissolve)
    search.icsm(st)
    params = f"perturb={perturb};neighbours={neighbours};dissolve={dissolve};restarts={done}"
    if method == "lns":
        params += f";region={rmax}"
    params += (f";command=mabench best-known improve {dataset} -k {k} --method {method} --seed {seed} "
               f"--budget {budget:g} --restarts {restarts} --dissolve {dissolve}")
    replaced, il, prev = record(dataset, k, st.labels, f"{method}+restarts", params, seed,
                                f"{budget:g}s" if budget > 0 else f"{restarts} restarts", root, Z)
    return {"dataset": dataset, "k": k, "il_start": il_start, "il": il,
            "previous": None if np.isnan(prev) else prev,  # a new entry has none (JSON has no NaN)
            "replaced": replaced, "restarts": done}


def _improve_merge(dataset, k, budget, seed, restarts, perturb, neighbours, dissolve, root, Z, st, tr, il_start, rng):
    """``improve --method merge``: set-partitioning recombination (:func:`mabench.optimum.merge.search`).
    With ``budget`` the rounds fill it; with ``--restarts R`` only, one round of 4 chains × R restarts
    and an integer program run to optimality."""
    from mabench.optimum import merge
    from mabench.kernels.improve import search

    info = merge.search(st, rng, budget=budget, rounds=1, chains=4, restarts=restarts, perturb=perturb,
                        neighbours=neighbours, dissolve=dissolve, trace=tr)
    search.icsm(st)
    params = (f"perturb={perturb};neighbours={neighbours};dissolve={dissolve};restarts={info['restarts']};"
              f"rounds={info['rounds']};chains=4;diversify=n/{merge.DIVERSIFY};pool={info['pool']};ip_better={info['ip_better']};"
              f"ip_optimal={info['ip_optimal']};region={merge.lns_region(k)}"
              f";command=mabench best-known improve {dataset} -k {k} --method merge --seed {seed} "
              f"--budget {budget:g} --restarts {restarts} --dissolve {dissolve}")
    replaced, il, prev = record(dataset, k, st.labels, "merge", params, seed,
                                f"{budget:g}s" if budget > 0 else f"{restarts} restarts", root, Z)
    return {"dataset": dataset, "k": k, "il_start": il_start, "il": il,
            "previous": None if np.isnan(prev) else prev, "replaced": replaced, "restarts": info["restarts"],
            "rounds": info["rounds"], "pool": info["pool"], "ip_better": info["ip_better"]}


def _improve_region(dataset, k, budget, neighbours, root, Z, st, tr, il_start):
    """``improve --method region``: integer programs over the region of the costliest groups
    (:func:`mabench.optimum.merge.region_search`), each followed by ICSM, until one changes nothing or
    ``budget`` seconds have passed (each program's time limit is what is left). No seed: nothing in it
    is random, so with the budget unspent the result is the same on any machine."""
    from mabench.optimum import merge
    from mabench.kernels.improve import search

    deadline = time.perf_counter() + budget
    rounds = 0
    while True:
        info = merge.region_search(st, neighbours, max(1e-3, deadline - time.perf_counter()))
        rounds += 1
        if not info["improved"]:
            break
        search.icsm(st)
        if time.perf_counter() >= deadline:
            break
    params = (f"neighbours={neighbours};share={merge.REGION_SHARE};near={merge.REGION_NEAR};rounds={rounds};"
              f"region_records={info['region_records']};columns={info['columns']};optimal={int(info['optimal'])}"
              f";command=mabench best-known improve {dataset} -k {k} --method region --budget {budget:g}"
              + (f" --neighbours {neighbours}" if neighbours != NEIGHBOURS else ""))
    replaced, il, prev = record(dataset, k, st.labels, "region", params, 0, f"{budget:g}s", root, Z)
    return {"dataset": dataset, "k": k, "il_start": il_start, "il": il,
            "previous": None if np.isnan(prev) else prev, "replaced": replaced, "rounds": rounds, **info}


MAX_BUDGET = 1e7  # seconds (~116 days): anything larger is a typo, and inf would never end


def _check_improve_args(dataset, k, budget, seed, restarts, perturb, neighbours, dissolve) -> None:
    """Every argument of :func:`improve`, before any work, in the CLI's terms."""
    import math

    from mabench.data.seeds import check_seed
    from mabench.partition import check_k

    cells = sorted({ds for ds, _ in CELLS}, key=dataset_order)
    if dataset not in cells:
        raise UserError(f"best-known registry data set {dataset!r} is not one of {', '.join(cells)}")
    check_k(k)
    check_seed(seed)
    if not (isinstance(budget, (int, float)) and math.isfinite(budget) and 0 <= budget <= MAX_BUDGET):
        raise UserError(f"--budget {budget!r} must be a finite number of seconds in 0..{MAX_BUDGET:g}")
    for name, value, low in (("--restarts", restarts, 0), ("perturb", perturb, 1), ("--neighbours", neighbours, 1)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < low or value > 2**63 - 1:
            raise UserError(f"{name} {value!r} must be an integer >= {low}")
    if not (isinstance(dissolve, (int, float)) and math.isfinite(dissolve) and 0.0 <= dissolve <= 1.0):
        raise UserError(f"--dissolve {dissolve!r} must be a share between 0 and 1 (of the restarts that dissolve a group)")
