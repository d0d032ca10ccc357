"""Regression checks: what did a change do to every number?

``compare(baseline, current)`` matches two results tables cell by cell (algorithm,
params, data set, data set params, k, seed) and reports, per cell, the change of
every metric and the algorithm-time ratio; per registry row, the change of
verdict; and a Markdown summary of what got better, worse, appeared or
disappeared. Three gates decide whether the change passes:

* **IL of a deterministic cell** changed by more than ``il_tolerance`` (1e-9),
  unless its algorithm is listed as intentionally changed;
* **a verdict got worse** (reproduced → within tolerance → not reproduced → not run);
* **an algorithm got slower**: the median over its cells of current/baseline
  ``seconds`` exceeds ``time_ratio`` (1.25). Cells whose baseline time is under
  ``min_seconds`` (0.05 s) are too short to time on a shared machine and do not count.
  ``time_ratio=None`` lists the ratios without gating them: times recorded on another
  day measure the machine as much as the code (docs/regression.md), so the time gate
  belongs to two tables timed in one session (:func:`median_of_runs` merges alternating runs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mabench.bench.records import RunRecord
from mabench.errors import UserError

KEY = list(RunRecord.KEY)
# Columns that describe a cell or its run rather than a metric of its partition (the workflow adds the
# configuration's ids of the data set and the algorithm).
NOT_METRICS = set(KEY) | {"dataset_id", "algo_id"} | set(RunRecord.RUN)
VERDICT_RANK = {"reproduced": 0, "within tolerance": 1, "not reproduced": 2, "not run": 3, "not implemented": 4}


def read(path: str | Path) -> pd.DataFrame:
    """A results table: results.parquet, a results folder holding it, or a CSV written by ``regress``."""
    path = Path(path)
    if path.is_dir():
        candidates = [path / "results.parquet", path / "results" / "results.parquet"]
        found = [p for p in candidates if p.is_file()]
        if not found:
            raise UserError(f"{str(path)!r} holds no results.parquet; give a results table or a results folder")
        path = found[0]
    if not path.is_file():
        raise UserError(f"results table {str(path)!r} does not exist; check the path")
    try:
        frame = pd.read_csv(path) if path.suffix == ".csv" else pd.read_parquet(path)
    except Exception as exc:  # noqa: BLE001 - an unreadable table is the user's to fix
        raise UserError(f"cannot read results table {str(path)!r} ({exc.__class__.__name__}); "
                        "give a results.parquet or a CSV written by `mabench regress`") from None
    return check_table(frame, str(path))


def check_table(frame: pd.DataFrame, where: str, required=("il",), unique=tuple(KEY)) -> pd.DataFrame:
    """A results table as the comparison needs it, or a UserError naming what is wrong: the key
    columns, at least one row, whole k and seed values, no cell twice, and numeric finite ``required``
    metric columns (a table without ``il`` would otherwise compare as hundreds of verdict changes)."""
    missing = [c for c in KEY if c not in frame.columns]
    if missing:
        raise UserError(f"{where!r} is not a results table: it lacks column(s) {', '.join(missing)}")
    if frame.empty:
        raise UserError(f"{where!r} has no rows (a header only); give a results table with at least one cell")
    frame = frame.copy()
    for col in ("params", "dataset_params"):
        frame[col] = frame[col].astype(object).where(frame[col].notna(), "").astype(str)
    for col in ("k", "seed"):
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = values.isna() | ~np.isfinite(values) | (values != np.round(values))
        if bad.any():
            raw = frame[col][bad].iloc[0]
            raise UserError(f"{where!r}: column {col} has {raw!r}, not a whole number (data row {int(np.flatnonzero(bad)[0]) + 1}); "
                            f"every cell's {col} must be an integer")
        frame[col] = values.astype("int64")
    for col in required:
        if col not in frame.columns:
            raise UserError(f"{where!r} has no {col!r} column; give results tables that both hold the metric {col}")
        values = pd.to_numeric(frame[col], errors="coerce")
        bad = (values.isna() & frame[col].notna()) | np.isinf(values)
        if bad.any():
            raise UserError(f"{where!r}: column {col} holds {frame[col][bad].iloc[0]!r} (data row "
                            f"{int(np.flatnonzero(bad)[0]) + 1}); metric values must be finite numbers")
        frame[col] = values.astype("float64")
    dup = frame.duplicated(subset=list(unique), keep=False)
    if dup.any():
        row = frame[dup].iloc[0]
        raise UserError(f"{where!r} holds the cell {row['algorithm']}[{row['params']}] on {row['dataset']}"
                        f"[{row['dataset_params']}] k={row['k']} seed={row['seed']} {int(dup.sum())} times; "
                        "a results table has one row per cell (remove the duplicates)")
    return frame.reset_index(drop=True)


def metric_columns(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c not in NOT_METRICS and not c.startswith(("batch_", "git_", "job_"))
            and pd.api.types.is_numeric_dtype(frame[c])]


@dataclass
class Comparison:
    cells: pd.DataFrame  # one row per cell present in both: metric deltas and time ratio
    appeared: pd.DataFrame
    disappeared: pd.DataFrame
    verdicts: pd.DataFrame  # registry rows whose verdict changed
    times: pd.DataFrame  # per algorithm: median time ratio over timed cells
    failures: list[str] = field(default_factory=list)
    time_gated: bool = True  # False: the time ratios are listed, not gated
    out_of_scope: int = 0  # baseline cells of methods the current table does not run at all (not compared)

    @property
    def ok(self) -> bool:
        return not self.failures


def compare(baseline: pd.DataFrame, current: pd.DataFrame, *, changed=(), il_tolerance: float = 1e-9,
            time_ratio: float | None = 1.25, min_seconds: float = 0.05, registry: pd.DataFrame | None = None,
            deterministic: dict[str, bool] | None = None) -> Comparison:
    changed = set(changed)
    # A current table that runs some of the baseline's methods (regress --algorithms a,b) is compared on
    # those: the other methods' baseline cells are out of scope, not "disappeared" nor "not run".
    by = "algo_id" if "algo_id" in baseline.columns and "algo_id" in current.columns else "algorithm"
    in_scope = baseline[by].isin(set(current[by]))
    out_of_scope = int((~in_scope).sum())
    baseline = baseline[in_scope].reset_index(drop=True)
    both = baseline.merge(current, on=KEY, how="outer", suffixes=("_base", "_cur"), indicator=True)
    appeared = both.loc[both["_merge"] == "right_only", KEY].reset_index(drop=True)
    disappeared = both.loc[both["_merge"] == "left_only", KEY].reset_index(drop=True)
    common = both[both["_merge"] == "both"].drop(columns="_merge").reset_index(drop=True)

    metrics = [m for m in metric_columns(baseline) if m in metric_columns(current)]
    cells = common[KEY].copy()
    for m in metrics:
        cells[f"{m}_base"] = common[f"{m}_base"]
        cells[f"{m}_delta"] = common[f"{m}_cur"] - common[f"{m}_base"]
    if "seconds_base" in common and "seconds_cur" in common:
        cells["seconds_base"] = common["seconds_base"]
        cells["time_ratio"] = common["seconds_cur"] / common["seconds_base"]

    failures = []
    det = deterministic or {}
    if "il" in metrics:
        moved = cells[(cells["il_delta"].abs() > il_tolerance)
                      | (cells["il_base"].isna() != common["il_cur"].isna())]
        for algo, rows in moved.groupby("algorithm", sort=True):
            if algo in changed or not det.get(algo, True):
                continue
            worst = rows.loc[rows["il_delta"].abs().idxmax()] if rows["il_delta"].notna().any() else rows.iloc[0]
            failures.append(
                f"IL of {len(rows)} deterministic {algo} cell(s) changed (largest: {worst['dataset']} "
                f"k={worst['k']} Δ={worst['il_delta']:+.3g}); list it with --changed {algo} if intended")
    verdicts = _verdict_changes(registry, baseline, current) if registry is not None else pd.DataFrame()
    worse = verdicts[verdicts["worse"]] if len(verdicts) else verdicts
    for row in worse.itertuples() if len(worse) else []:
        failures.append(f"verdict got worse: {row.source} {row.table} {row.row} {row.column} "
                        f"({row.dataset} k={row.k}): {row.verdict_base} -> {row.verdict_cur}")
    times = _time_ratios(cells, min_seconds)
    for row in times.itertuples() if time_ratio is not None else ():
        if row.median_ratio > time_ratio:
            failures.append(f"{row.algorithm} is slower: median time ratio {row.median_ratio:.2f} over "
                            f"{row.timed_cells} timed cell(s) > {time_ratio:.2f}")
    if len(disappeared):
        failures.append(f"{len(disappeared)} cell(s) of the baseline are missing from the current results")
    return Comparison(cells, appeared, disappeared, verdicts, times, failures, time_ratio is not None, out_of_scope)


def same_session(baseline: pd.DataFrame, current: pd.DataFrame) -> bool:
    """True when both tables were timed on the same machine in the same job (their ``session``
    provenance, :func:`mabench.bench.provenance.session`): only then is a time ratio a verdict."""
    if "session" not in baseline.columns or "session" not in current.columns:
        return False
    a, b = set(baseline["session"].dropna().astype(str)), set(current["session"].dropna().astype(str))
    return len(a) == 1 and a == b


def median_of_runs(runs: list[pd.DataFrame]) -> pd.DataFrame:
    """One results table from several runs of the same cells (e.g. alternating with another
    checkout's runs in one session): the first run's rows with each cell's median ``seconds`` over
    the runs. A UserError when the runs do not hold the same cells."""
    if not runs:
        raise UserError("no runs to merge; give at least one results table")
    first = runs[0].set_index(KEY)
    seconds = []
    for i, run in enumerate(runs):
        run = run.set_index(KEY)
        if len(run) != len(first) or not run.index.sort_values().equals(first.index.sort_values()):
            raise UserError(f"run {i + 1} holds other cells than run 1; merge runs of the same cells only")
        seconds.append(run["seconds"].reindex(first.index).to_numpy())
    out = first.copy()
    out["seconds"] = np.median(np.vstack(seconds), axis=0)
    return out.reset_index()[runs[0].columns]


def _time_ratios(cells: pd.DataFrame, min_seconds: float) -> pd.DataFrame:
    if "time_ratio" not in cells:
        return pd.DataFrame(columns=["algorithm", "median_ratio", "timed_cells"])
    timed = cells[(cells["seconds_base"] >= min_seconds) & np.isfinite(cells["time_ratio"])]
    out = timed.groupby("algorithm", sort=True)["time_ratio"].agg(["median", "size"]).reset_index()
    return out.rename(columns={"median": "median_ratio", "size": "timed_cells"})


def _verdict_changes(registry, baseline, current) -> pd.DataFrame:
    from mabench.report import published

    base = published.compare(registry, baseline)
    cur = published.compare(registry, current)
    keys = published.KEY
    merged = base[keys + ["verdict", "reproduced"]].merge(
        cur[keys + ["verdict", "reproduced"]], on=keys, suffixes=("_base", "_cur"))
    merged = merged[merged["verdict_base"] != merged["verdict_cur"]].copy()
    merged["worse"] = merged["verdict_cur"].map(VERDICT_RANK) > merged["verdict_base"].map(VERDICT_RANK)
    return merged.reset_index(drop=True)


def markdown(c: Comparison, baseline_name: str, current_name: str) -> str:
    lines = [f"# Regression check: `{current_name}` against `{baseline_name}`", "",
             f"**{'PASS' if c.ok else 'FAIL'}** — {len(c.cells)} cells compared, {len(c.appeared)} appeared, "
             f"{len(c.disappeared)} disappeared, {len(c.verdicts)} verdict change(s)"
             + (f"; {c.out_of_scope} baseline cells of methods the current table does not run were not compared"
                if c.out_of_scope else "") + ".", ""]
    if c.failures:
        lines += ["## Gates that failed", ""] + [f"- {f}" for f in c.failures] + [""]
    if "il_delta" in c.cells:
        moved = c.cells[c.cells["il_delta"].abs() > 0].copy()
        for title, part in (("IL got worse", moved[moved["il_delta"] > 0]), ("IL got better", moved[moved["il_delta"] < 0])):
            if len(part):
                part = part.reindex(part["il_delta"].abs().sort_values(ascending=False).index).head(30)
                lines += [f"## {title} ({len(moved[moved['il_delta'] > 0]) if title.endswith('worse') else len(moved[moved['il_delta'] < 0])} cells; largest first)", "",
                          "| algorithm | params | data set | k | seed | IL before | Δ IL |", "|---|---|---|---|---|---|---|"]
                lines += [f"| {r.algorithm} | {r.params} | {r.dataset}{f'[{r.dataset_params}]' if r.dataset_params else ''} "
                          f"| {r.k} | {r.seed} | {r.il_base:.6f} | {r.il_delta:+.3g} |" for r in part.itertuples()]
                lines.append("")
    if len(c.verdicts):
        lines += ["## Verdict changes", "", "| source | table | row | column | k | before | after |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {r.source} | {r.table} | {r.row} | {r.column} | {r.k} | {r.verdict_base} | {r.verdict_cur} |"
                  for r in c.verdicts.itertuples()]
        lines.append("")
    if len(c.times):
        lines += ["## Algorithm time (median current/baseline over cells timed ≥ the floor)", ""]
        if not c.time_gated:
            lines += ["Listed, not gated: the tables were not timed on the same machine in the same job (their "
                      "`session`). For a time verdict, time both checkouts in one job (`make regress-time "
                      "BASE=<commit>`), or give `--time-gate`.", ""]
        lines += ["| algorithm | median ratio | timed cells |", "|---|---|---|"]
        lines += [f"| {r.algorithm} | {r.median_ratio:.2f} | {r.timed_cells} |" for r in c.times.itertuples()]
        lines.append("")
    for title, part in (("Appeared", c.appeared), ("Disappeared", c.disappeared)):
        if len(part):
            lines += [f"## {title} ({len(part)} cells)", ""]
            lines += [f"- {r.algorithm}[{r.params}] on {r.dataset}[{r.dataset_params}] k={r.k} seed={r.seed}"
                      for r in part.head(50).itertuples()]
            lines.append("")
    return "\n".join(lines)
