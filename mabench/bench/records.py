"""The two records the bench hands on, as named structures: :class:`JobPlan` (what one batch job runs,
the entries of ``results/plans.json``) and :class:`RunRecord` (one cell's row of ``results.parquet``,
the columns the report reads).

Both are written out as plain dicts (JSON, a table row) whose keys and key order are the dataclass
fields' (``as_dict``), so the files they make are the same bytes as when they were built by hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class PlannedRun:
    """One run of a job: an algorithm with its parameters on one data set's draws, at each k."""

    algorithm: str
    params: dict
    draws: list  # [[seed, data file], ...]
    k: list[int]
    metrics: list[str] | None
    cells_dir: str | None  # results/cells/<data set id>/<algorithm id> (none in a plan only compiled)

    def as_dict(self) -> dict:
        out = {"algorithm": self.algorithm, "params": self.params, "draws": self.draws, "k": self.k,
               "metrics": self.metrics}
        if self.cells_dir is not None:
            out["cells_dir"] = self.cells_dir
        return out

    @classmethod
    def from_dict(cls, run: dict, metrics: list[str] | None = None) -> PlannedRun:
        """A run as read from JSON; ``params`` may be absent, and ``metrics`` (the plan's, when the run
        has no ``metrics`` key: a hand-written plan)."""
        return cls(str(run["algorithm"]), dict(run.get("params") or {}),
                   [[int(seed), str(path)] for seed, path in run["draws"]], [int(k) for k in run["k"]],
                   run.get("metrics", metrics), run.get("cells_dir"))


@dataclass(frozen=True)
class JobPlan:
    """What ``mabench batch`` runs for one job. ``metrics`` and ``options`` apply to every run that
    names no metrics of its own (a plan written by hand or by a test; the workflow's runs name theirs)."""

    batch: str | None
    runs: list[PlannedRun] = field(default_factory=list)
    metrics: list[str] | None = None
    options: dict | None = None

    def as_dict(self) -> dict:
        """The plan as written to ``results/plans.json`` (only the keys that are set)."""
        out: dict = {"batch": self.batch, "runs": [run.as_dict() for run in self.runs]}
        if self.metrics is not None:
            out["metrics"] = self.metrics
        if self.options is not None:
            out["options"] = self.options
        return out

    @classmethod
    def from_dict(cls, plan: dict) -> JobPlan:
        return cls(plan.get("batch"), [PlannedRun.from_dict(run, plan.get("metrics")) for run in plan["runs"]],
                   plan.get("metrics"), plan.get("options"))


@dataclass
class RunRecord:
    """One cell of the results table: what was run, the shape of its partition, its metrics, what the
    run cost, and the code that made it. :meth:`as_dict` is the row (column order as below; the
    metrics' own columns between the partition's shape and the costs)."""

    # the cell (KEY: one row per cell in every results table)
    algorithm: str
    params: str  # shown_params: the resolved parameters as text
    dataset: str
    dataset_params: str
    k: int
    seed: int
    # the data and the partition (per variable: the largest number of groups of any variable)
    n: int
    d: int
    n_groups: int
    min_group: int
    max_group: int
    metrics: dict = field(default_factory=dict)  # metric name -> value (one column each)
    # what the run cost (wall and process CPU seconds of the algorithm and of the metrics)
    seconds: float = 0.0
    metric_seconds: float = 0.0
    cpu_seconds: float = 0.0
    metric_cpu_seconds: float = 0.0
    threads: int = 1
    max_rss_mb: float = 0.0
    provenance: dict = field(default_factory=dict)  # codehash.cell_provenance: code_hash, user plugins
    n_strata: int | None = None  # set with strata only
    per_variable: bool = False  # one partition per variable (individual ranking)
    info: dict | None = None  # what the plugin reported about its run

    KEY = ("algorithm", "params", "dataset", "dataset_params", "k", "seed")
    # Columns that describe the data or the run rather than a metric of the partition.
    RUN = ("n", "d", "seconds", "metric_seconds", "cpu_seconds", "metric_cpu_seconds", "threads", "max_rss_mb",
           "info")

    def as_dict(self) -> dict:
        row = {name: getattr(self, name) for name in (*self.KEY, "n", "d", "n_groups", "min_group", "max_group")}
        row.update(self.metrics)
        row.update({name: getattr(self, name) for name in ("seconds", "metric_seconds", "cpu_seconds",
                                                           "metric_cpu_seconds", "threads", "max_rss_mb")})
        row.update(self.provenance)
        if self.n_strata is not None:
            row["n_strata"] = self.n_strata
        if self.per_variable:
            row["per_variable"] = True
        if self.info:
            row["info"] = self.info
        return row
