"""What a metric is computed from and how it is registered: :class:`EvalContext` (original data,
partition, options), the per-variable context, and the ``@metric`` decorator that fills
:data:`REGISTRY`. Metric modules import from here; :mod:`mabench.metrics` imports them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from mabench.kernels import group_means


@dataclass
class EvalContext:
    original: np.ndarray  # (n, d) float64, original units
    z: np.ndarray  # (n, d) float64, z-scores (population sd)
    labels: np.ndarray  # (n,) int64, groups 0..g-1
    columns: list[str]
    dataset: str = ""
    options: dict = field(default_factory=dict)  # per-metric options, e.g. {"id_p": [1..10]}
    # Re-runs the same algorithm (same k, params, seed) on other standardized data and returns its
    # labels; set by `mabench run`, None for `mabench evaluate` (a metric that needs it must say so).
    rerun: Callable[[np.ndarray], np.ndarray] | None = None
    # Each group's published values (n_groups, d), original units, when they are not the plain group
    # means (measure median/trim/onestep or sampling weights; docs/metrics.md#aggregation-measures).
    published: np.ndarray | None = None
    # Per-variable partition (individual ranking): (n, d) labels, column j the groups of variable j.
    # Built by per_variable_context(); then every record is its own published point (labels =
    # 0..n-1) and the masked values are the column-wise group means.
    column_labels: np.ndarray | None = None
    # missing=available: (n, d) True where the original value is observed; the metrics are then
    # computed on the available cases (docs/metrics.md#missing-values), NaN in original and z.
    observed: np.ndarray | None = None

    @functools.cached_property
    def n_groups(self) -> int:
        return int(self.labels.max()) + 1

    @functools.cached_property
    def group_points(self) -> np.ndarray:
        """Each group's published point (n_groups, d), original units: ``published``, or the group means."""
        if self.published is not None:
            return self.published
        means, _ = group_means(self.original, self.labels, self.n_groups)
        return means

    @functools.cached_property
    def masked(self) -> np.ndarray:
        """The published file: every record replaced by its group's value (the mean unless
        ``published`` says otherwise), original units."""
        return np.ascontiguousarray(self.group_points[self.labels])

    def masked_rows(self, start: int, stop: int) -> np.ndarray:
        """Rows start:stop of :attr:`masked`; the whole (n, d) array is not built for them (a masked
        file is written part by part)."""
        if "masked" in self.__dict__:
            return self.__dict__["masked"][start:stop]
        return self.group_points[self.labels[start:stop]]

    @functools.cached_property
    def centroids_z(self) -> np.ndarray:
        """Each group's masked point in z-scores, (n_groups, d), computed once per context: the group
        means of the z-scores, or the ``published`` values standardized with the original's mean and sd."""
        if self.published is not None:
            from mabench.data.standardize import zscore_like

            return zscore_like(self.published, self.original)
        means, _ = group_means(self.z, self.labels, self.n_groups)
        return means

    @functools.cached_property
    def masked_z(self) -> np.ndarray:
        """Per record, its group's mean z-score (= the masked file standardized with the original's mean and sd)."""
        return np.ascontiguousarray(self.centroids_z[self.labels])


def column_means(x: np.ndarray, column_labels: np.ndarray) -> np.ndarray:
    """Per record and variable, the mean of x_j over the record's group in variable j's partition."""
    out = np.empty_like(x, dtype=np.float64)
    for j in range(x.shape[1]):
        lab = np.ascontiguousarray(column_labels[:, j])
        col = np.ascontiguousarray(x[:, j:j + 1], dtype=np.float64)
        means, _ = group_means(col, lab, int(lab.max()) + 1)
        out[:, j] = means[lab, 0]
    return out


def per_variable_context(original: np.ndarray, z: np.ndarray, column_labels: np.ndarray, columns, dataset="",
                         options=None, rerun=None, published: np.ndarray | None = None) -> EvalContext:
    """The evaluation context of a per-variable partition.

    The masked file is exact (each value its group's mean in its own variable's partition). Every
    masked record is then a distinct published point, so the context's ``labels`` are 0..n-1 with
    the masked records as the "group points": metrics computed from (original, masked) values
    (IL, IL_raw, M1-M5, G_IL, DLD, RLD literal, ID, SDID, IL1s) are correct as they stand;
    ``il``/``il_raw`` sum the SSE variable by variable (docs/metrics.md#per-variable-partitions).
    """
    n = original.shape[0]
    column_labels = np.ascontiguousarray(column_labels, dtype=np.int64)
    ctx = EvalContext(original, z, np.arange(n, dtype=np.int64), columns, dataset, dict(options or {}), rerun,
                      column_labels=column_labels)
    if published is not None:  # (n, d) values other than the column means (measure, weights): one "group" per record
        ctx.published = np.ascontiguousarray(published, dtype=np.float64)
        return ctx
    masked_z = np.ascontiguousarray(column_means(z, column_labels))
    ctx.__dict__["masked"] = np.ascontiguousarray(column_means(original, column_labels))
    ctx.__dict__["centroids_z"] = masked_z
    ctx.__dict__["masked_z"] = masked_z
    return ctx


@dataclass(frozen=True)
class Metric:
    name: str
    fn: Callable[[EvalContext], float]
    doc: str
    needs_key_variables: bool = False  # only defined where the data set names key variables
    # warm(n, d, k, options): compile the metric's Numba kernels for data of that shape (see :func:`warm`)
    warm: Callable[[int, int, int, dict], None] | None = None
    # Computed only when named (never in "every metric that applies"): sdcMicro's measures, some of
    # them quadratic or cubic in n (dRiskRMD's distances, recordLinkage's assignment).
    opt_in: bool = False
    options: tuple[str, ...] = ()  # the options it reads (`mabench list metrics`; each declared in OPTIONS)


REGISTRY: dict[str, Metric] = {}
# Every metric option with its one-line description, declared next to the metric that reads it
# (metric(options={name: description}), or option() where several metrics read it; docs/metrics.md
# has the details). Options not declared are refused, so a misspelt --option never passes silently.
OPTIONS: dict[str, str] = {}


def option(name: str, doc: str) -> str:
    """Declare a metric option (its name and one-line description); returns the name, for ``metric(options=...)``
    of each metric that reads it."""
    if OPTIONS.setdefault(name, doc) != doc:
        raise RuntimeError(f"metric option {name!r} declared twice with different descriptions")
    return name
# Names that stand for several metrics (a measure sdcMicro reports as one list of numbers).
GROUPS: dict[str, tuple[str, ...]] = {}


def metric(name: str, doc: str = "", needs_key_variables: bool = False, warm=None, opt_in: bool = False,
           options: dict[str, str] | tuple[str, ...] = ()):
    """Register ``fn(ctx) -> float`` as metric ``name``. ``options``: the options it reads, either declared
    here (``{name: one-line description}``) or named (``(name, ...)``, each declared by :func:`option` or
    by another metric)."""
    if isinstance(options, dict):
        options = tuple(option(key, text) for key, text in options.items())

    def register(fn):
        if name in REGISTRY:
            raise RuntimeError(f"metric {name!r} registered twice")
        REGISTRY[name] = Metric(name, fn, doc or (fn.__doc__ or "").strip().splitlines()[0], needs_key_variables,
                                warm, opt_in, tuple(options))
        return fn

    return register
