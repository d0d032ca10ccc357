"""The Python API: microaggregate a DataFrame in one call, evaluate a partition, list what exists.

Every function here goes through the same engine as the ``mabench`` command (``mabench.bench.runner``
and ``mabench.metrics``), so a partition, its masked file and its metrics are the numbers
``mabench run`` prints for the same data, method, k, parameters and seed. Input problems raise
:class:`mabench.UserError` with the CLI's one-line message.

Examples
--------
>>> import pandas as pd, mabench
>>> df = pd.DataFrame({"id": ["a", "b", "c", "d", "e", "f"],
...                    "age": [23, 25, 24, 61, 65, 60],
...                    "income": [1.0, 1.2, 1.1, 5.0, 5.5, 4.5]})
>>> result = mabench.microaggregate(df, k=3)
>>> result.masked
  id  age  income
0  a   24     1.1
1  b   24     1.1
2  c   24     1.1
3  d   62     5.0
4  e   62     5.0
5  f   62     5.0

The identifier is passed through; ``age`` stays integer because both group means are whole numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mabench.api_terms import OPTION_WORDS, in_api_terms
from mabench.catalog import datasets, load, methods  # noqa: F401  (part of this API's names)
from mabench.errors import UserError

__all__ = ["microaggregate", "evaluate", "methods", "datasets", "load", "Result"]

_API_PARAMS = {"measure": "measure", "trim": "trim", "weights": "sampling_weights", "strata": "strata"}


# --------------------------------------------------------------------------- input


def _input_frame(data, seed: int) -> tuple[pd.DataFrame, str, dict]:
    """(the data as a DataFrame with every column, its name for the metrics' defaults, metadata)."""
    from mabench import data as mdata

    if isinstance(data, pd.DataFrame):
        return data, "DataFrame", {}
    if isinstance(data, np.ndarray):
        if data.ndim != 2:
            raise UserError(f"data is a {data.ndim}-dimensional array; give a 2-D array (records x variables) "
                            "or a DataFrame")
        return pd.DataFrame(data, columns=[f"x{j + 1}" for j in range(data.shape[1])]), "array", {}
    if isinstance(data, (str, Path)):
        spec = str(data)
        if mdata.looks_like_path(spec) and "[" not in spec:
            frame, meta = mdata.read_frame(spec)
            return frame, meta.get("name") or Path(spec).name, meta
        ds = mdata.load(spec, seed)
        return ds.frame(), ds.name, {"params": ds.params, "seed": ds.seed}
    raise UserError(f"data is a {type(data).__name__}; give a pandas DataFrame, a 2-D NumPy array, a file path "
                    "or a data-set name (see mabench.datasets())")


def _is_numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def _check_kind(frame: pd.DataFrame, c, where: str) -> None:
    """Numbers float64 cannot carry as given are refused, never silently changed: a complex column
    (its imaginary part would be dropped) and integers beyond 2^53 (rounded, so that 2^62 + i are
    all one value)."""
    series = frame[c]
    if pd.api.types.is_complex_dtype(series):
        raise UserError(f"column {c!r} of {where} is complex; microaggregation averages real numbers, so give its "
                        "real and imaginary parts as two columns")
    if pd.api.types.is_integer_dtype(series) and series.notna().any():
        big = max((int(series.min()), int(series.max())), key=abs)  # Python ints: no overflow at -2^63
        if abs(big) > _EXACT:
            raise UserError(f"column {c!r} of {where} holds the integer {big}, beyond 2^53, which float64 cannot "
                            "hold exactly; subtract an offset or convert the column to float first")


_EXACT = 2**53


def _variables(frame: pd.DataFrame, columns, aside: list[str], where: str) -> list:
    """The columns to aggregate: ``columns`` (checked numeric), or every numeric column not set aside;
    a column name given twice in the frame is refused (which of the two is meant would be a guess)."""
    from mabench.data import columns as kinds

    names = list(frame.columns)
    kinds.check_unique(names, where)
    if columns is None:
        for c in names:  # a complex column is numeric to pandas: refused, not passed through
            if c not in aside and pd.api.types.is_complex_dtype(frame[c]):
                _check_kind(frame, c, where)
        picked = [c for c in kinds.variables(frame, where, aside) if c not in aside]
        if not picked:
            raise UserError(f"{where} has no numeric column to aggregate; give numeric variables or name them "
                            "with columns=[...]")
        for c in picked:
            _check_kind(frame, c, where)
        return picked
    picked = [columns] if isinstance(columns, str) else list(columns)
    if not picked:
        raise UserError("columns=[] names no variable; name at least one numeric column, or omit columns")
    for c in picked:
        if c not in names:
            raise UserError(f"columns names {c!r}, which is not a column of {where} (columns: "
                            f"{', '.join(map(str, names[:20]))}{', ...' if len(names) > 20 else ''})")
        _check_kind(frame, c, where)
        if kinds.kind(frame[c]) != kinds.NUMBER:
            kinds.refuse_not_numeric(c, frame[c], where, "leave it out of columns (it is passed through "
                                                         "unchanged) or convert it")
        if c in aside:
            raise UserError(f"column {c!r} is both a variable and a strata/weights column; name it in one place")
    if len(set(picked)) != len(picked):
        raise UserError("columns names a column twice; list each once")
    return picked


def _numbers(frame: pd.DataFrame, picked: list) -> np.ndarray:
    from mabench.data import columns as kinds

    return np.ascontiguousarray(np.column_stack([kinds.numbers(frame[c]) for c in picked]))


def _check_complete(frame: pd.DataFrame, picked: list, where: str, missing: bool = False) -> None:
    values = _numbers(frame, picked)
    bad = ~np.isfinite(values) & ~(missing & np.isnan(values))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        what = "missing (NaN)" if np.isnan(values[i, j]) else "infinite"
        # the row's index label (what frame.loc takes), never a 1-based position that reads as one
        label = frame.index[i]
        label = tuple(v.item() if isinstance(v, np.generic) else v for v in label) if isinstance(label, tuple) \
            else (label.item() if isinstance(label, np.generic) else label)
        raise UserError(f"{where}: the value in the row with index {label!r}, column {picked[j]!r}, is {what}; "
                        "microaggregation needs complete numeric data, impute or drop such rows first")


def _prepare(data, k, method, columns, seed, params):
    """Everything a run needs: (frame, variables, Dataset, algorithm, resolved params, extra columns)."""
    from mabench import discovery, partition
    from mabench.data import Dataset, check_values
    from mabench.data.seeds import check_seed

    seed = check_seed(seed)
    k = partition.check_k(k)
    algo = discovery.algorithm(method)
    given = {_API_PARAMS.get(name, name): value for name, value in params.items()}
    strata = given.get("strata")
    strata = [] if strata is None else [strata] if not isinstance(strata, (list, tuple)) else list(strata)
    if strata:  # the engine takes strata as text, "a+b"; a column named 2 is "2"
        given["strata"] = "+".join(map(str, strata))
    resolved = algo.resolve({name: value for name, value in given.items() if value is not None})
    frame, name, meta = _input_frame(data, seed)
    where = name if name not in ("DataFrame", "array") else f"the {name}"
    by_text = {str(c): c for c in frame.columns}
    for c in strata:
        if str(c) in by_text and any(sep in str(c) for sep in "+,"):
            raise UserError(f"strata column {str(c)!r}: '+' and ',' separate strata columns, so a column named so "
                            "cannot be one; rename it (e.g. frame.rename(columns={...}))")
    aside = [c for c in str(resolved.get("strata", "")).replace(",", "+").split("+") if c]
    if resolved.get("sampling_weights"):
        aside.append(str(resolved["sampling_weights"]))
    for c in aside:
        if c not in by_text:
            what = "sampling-weights" if c == resolved.get("sampling_weights") else "strata"
            raise UserError(f"{what} column {c!r} is not a column of {where}")
    aside = [by_text[c] for c in aside]  # the columns themselves (an integer name stays an integer)
    picked = _variables(frame, columns, aside, where)
    missing = resolved.get("missing") == "available"
    _check_complete(frame, picked, where, missing)
    values = _numbers(frame, picked)
    cols = [str(c) for c in picked]
    check_values(values, cols, where, missing)
    ds = Dataset(name, values, cols, dict(meta.get("params") or {}), meta.get("seed"), {})
    extra = {str(c): frame[c].to_numpy() for c in aside}
    return frame, picked, ds, algo, resolved, extra, k, seed


# --------------------------------------------------------------------------- result


@dataclass
class Result:
    """A microaggregated data set: the partition, the masked data and their metrics.

    Attributes
    ----------
    labels : numpy.ndarray
        Group (0, 1, ...) of each input row, int64; for a method that aggregates variable by variable
        (``onedims``) an (n, d) array, column j the groups of aggregated column j.
    masked : pandas.DataFrame
        The input's columns and index; each aggregated column replaced by its group's value (the mean
        unless ``measure`` says otherwise) in original units, every other column unchanged. A float
        column keeps its dtype; an integer column stays integer only if every group value is a whole
        number, otherwise it becomes float64.
    groups : numpy.ndarray
        Size of each group (per-variable methods: the sizes of every column's groups, column by column).
    columns : list
        The aggregated columns.
    seconds : float
        The method's own run time (loading, standardizing and compiling excluded).
    info : dict
        Extra fields the method reports (e.g. a search's trace); empty for most methods.
    record : dict
        The run record ``mabench run`` prints (algorithm, params, k, n, group sizes, IL, ...).

    Methods: :meth:`metrics` (any metric, with options), :meth:`risk` (per-record disclosure risk,
    sdcMicro's dRiskRMD) and :meth:`linkage_pairs` (recordLinkage's pair table).
    """

    labels: np.ndarray
    masked: pd.DataFrame
    groups: np.ndarray
    columns: list
    seconds: float
    info: dict
    record: dict
    _cell: Any = field(repr=False, default=None)

    def __getstate__(self) -> dict:
        """Picklable: the metric context's re-run of the method (a closure, used only by rld's rerun
        mode) is left out; every other metric works on the unpickled result."""
        import copy

        state = self.__dict__.copy()
        cell = state.get("_cell")
        if cell is not None and cell.context is not None and cell.context.rerun is not None:
            cell, ctx = copy.copy(cell), copy.copy(cell.context)
            ctx.rerun = None
            cell.context = ctx
            state["_cell"] = cell
        return state

    def __repr__(self) -> str:
        r = self.record
        params = f"[{r['params']}]" if r.get("params") else ""
        return (f"Result({r['algorithm']}{params}, k={r['k']}: {r['n']} rows in {r['n_groups']} groups of "
                f"{r['min_group']}..{r['max_group']}, {len(self.columns)} column(s) aggregated, "
                f"{self.seconds:.3g} s)")

    def metrics(self, names=None, options: dict | None = None) -> dict[str, float]:
        """Metrics of this partition, keyed by name (``il``, ``dld``, ``id``, ``g_il``, ...).

        Parameters
        ----------
        names : str or list of str, optional
            Metric names (see ``docs/metrics.md``); default: every metric that applies to the data
            (``rld``, ``g_dr`` and ``si`` need key variables).
        options : dict, optional
            Metric options, e.g. ``{"key_variables": [1, 2, 5], "id_p": [1, 5]}`` (docs/metrics.md),
            on top of the data set's defaults.

        Returns
        -------
        dict
            ``{name: value}``, the numbers ``mabench run --metrics ...`` prints.

        Examples
        --------
        >>> import mabench
        >>> r = mabench.microaggregate(mabench.load("tarragona"), k=3)
        >>> round(r.metrics(["il"])["il"], 4)
        16.9326
        """
        from mabench.metrics import applicable, evaluate, parse_names

        ctx = self._context(options)
        if names is None:
            names = applicable(ctx.options, available_cases=ctx.observed is not None)
        else:
            names = parse_names(names if isinstance(names, str) else ",".join(names))
        return in_api_terms(evaluate, OPTION_WORDS)(ctx, names)

    def risk(self, options: dict | None = None) -> pd.DataFrame:
        """Per-record disclosure risk (sdcMicro's ``dRiskRMD``), one row per input row, indexed as
        :attr:`masked`: ``rmd`` (0.05 x the record's robust Mahalanobis distance), ``rmd_risk1`` and
        ``rmd_risk2`` (``rmd`` where the record is at risk at level 1 or 2, else 0; their shares of
        records are the metrics ``rmd_risk1``/``rmd_risk2``). ``options``: ``rmd_k``, ``rmd_k2``,
        ``rmd_seed`` (docs/metrics.md#rmd_risk1). What ``mabench run --risk-out FILE`` writes.

        Examples
        --------
        >>> import mabench
        >>> r = mabench.microaggregate(mabench.load("tarragona"), k=3)
        >>> risk = r.risk()
        >>> list(risk.columns), len(risk)
        (['rmd', 'rmd_risk1', 'rmd_risk2'], 834)
        >>> float((risk["rmd_risk1"] > 0).mean()) == r.metrics(["rmd_risk1"])["rmd_risk1"]
        True
        """
        table = self._table("risk", options)
        table.index = self.masked.index
        return table

    def linkage_pairs(self, options: dict | None = None) -> pd.DataFrame:
        """recordLinkage's pair table (sdcMicro): the least-cost one-to-one links of the original
        records to the masked ones, one row per link: ``x_row``, ``y_row`` (1-based rows), ``x_id``,
        ``y_id``, ``distance``, ``correct_match``, ``n_best``; the share of correct links is the metric
        ``rl_rate``. ``options``: ``rl_distance``, ``rl_variables``, ``rl_weights``, ``rl_ids``
        (docs/metrics.md#rl_rate). What ``mabench run --rl-pairs-out FILE`` writes."""
        return self._table("rl_pairs", options)

    def _context(self, options: dict | None):
        """The run's metric context; with ``options``, a copy (the masked values kept, cached metric
        parts not) whose options are these on top of the run's."""
        import copy

        from mabench.metrics.common import _CACHE

        ctx = self._cell.context
        if options:
            ctx = copy.copy(ctx)
            ctx.__dict__.pop(_CACHE, None)
            ctx.options = {**ctx.options, **dict(options)}
        return ctx

    def _table(self, name: str, options: dict | None) -> pd.DataFrame:
        from mabench.metrics.record_tables import record_table

        return in_api_terms(record_table, OPTION_WORDS)(self._context(options), name)


# --------------------------------------------------------------------------- functions


@in_api_terms
def microaggregate(data, k: int, method: str = "mdav", columns=None, seed: int = 0, n_jobs: int = 1,
                   executor: str = "processes", scheduler: str | None = None, *, progress=None,
                   **params) -> Result:
    """Microaggregate ``data``: groups of at least ``k`` similar records, each published as one value.

    Parameters
    ----------
    data : pandas.DataFrame, numpy.ndarray, str or path
        The records: a DataFrame, a 2-D array (columns named x1, x2, ...), a CSV/Parquet file, or a
        data-set name (``"tarragona"``, ``"uniform[n=500,d=4]"``; see :func:`datasets`).
    k : int
        Minimum group size.
    method : str, default "mdav"
        Algorithm name (see :func:`methods`).
    columns : list of str, optional
        The variables to aggregate (numeric). Default: every numeric column except the strata and
        weights columns. Other columns (identifiers, categories) are passed through unchanged.
    seed : int, default 0
        Seed of the method's randomness and of a generated data set's draw.
    n_jobs : int, default 1
        With ``strata``: how many strata run at once, each in a process of its own. The result is
        the same as with 1 (each stratum has its own random stream). A script needs the
        ``if __name__ == "__main__":`` guard (the processes import it again).
    executor : {"processes", "dask"}, default "processes"
        ``"dask"``: the strata are tasks on a Dask cluster (``pip install 'mabench[dask]'``); same result.
    scheduler : str, optional
        With ``executor="dask"``: the scheduler's address (``"tcp://host:8786"``); default the Dask
        client this process already has.
    progress : None, bool or float, default None
        None: a tqdm bar on stderr (phase, strata done and records, or records grouped, time left)
        once a phase passes 3 s, only when stderr is a terminal; False: nothing (not even the
        compiling notice); True or seconds: plain lines, one per phase and a heartbeat every 10 s (or
        that many seconds), e.g. for a notebook's log. The results never depend on it.
    **params
        The method's parameters (``mabench.methods()``), and for every method:
        ``measure`` ("mean", "median", "trim", "onestep": what a group publishes), ``trim`` (share
        dropped at each end with measure="trim"), ``weights`` (column of sampling weights: weighted
        means or medians), ``strata`` (column or list of columns: each combination of their values is
        microaggregated separately and must hold at least k records).

    Returns
    -------
    Result
        ``.labels``, ``.masked``, ``.groups``, ``.seconds``, ``.info`` and ``.metrics()``.

    Raises
    ------
    mabench.UserError
        Missing values in a variable (naming the first row and column), a non-numeric variable,
        k larger than the number of rows (or than a stratum), an unknown method or parameter.

    Examples
    --------
    >>> import pandas as pd, mabench
    >>> df = pd.DataFrame({"region": ["N", "N", "N", "S", "S", "S"],
    ...                    "income": [10.0, 12.0, 30.0, 5.0, 6.0, 7.0]})
    >>> r = mabench.microaggregate(df, k=3, measure="median", strata="region")
    >>> r.masked["income"].tolist()
    [12.0, 12.0, 12.0, 6.0, 6.0, 6.0]
    >>> r.groups.tolist()
    [3, 3]
    >>> r  # doctest: +ELLIPSIS
    Result(mdav[measure=median,strata=region,tail=3k], k=3: 6 rows in 2 groups of 3..3, 1 column(s) aggregated, ... s)
    """
    from mabench.bench.runner import run_dataset
    from mabench.bench.strata import Spread

    from mabench.bench.progress import Progress
    from mabench.data.masked import masked_table

    spread = Spread(n_jobs, executor, scheduler)
    frame, picked, ds, algo, resolved, extra, k, seed = _prepare(data, k, method, columns, seed, params)
    shown = Progress.for_api(progress)
    try:
        # the compile notice is the bar's "compiling" phase on a terminal; progress=False is quiet
        cell = next(run_dataset(algo, resolved, ds, [k], seed, ("il",), None, extra, shown, spread=spread,
                                notice=progress is not False and not shown.live))
    finally:
        shown.close()
    masked = masked_table(frame, picked, cell.masked)
    labels = cell.labels
    groups = (np.concatenate([np.bincount(labels[:, j]) for j in range(labels.shape[1])]) if labels.ndim == 2
              else np.bincount(labels))
    return Result(labels, masked, groups, list(picked), float(cell.record["seconds"]),
                  dict(cell.record.get("info") or {}), cell.record, cell)


@in_api_terms
def evaluate(data, labels, k: int | None = None, metrics=None, columns=None, seed: int = 0, *,
             measure: str | None = None, trim: float | None = None, weights: str | None = None, strata=None,
             missing: str | None = None, fill: bool | None = None, **options) -> dict[str, float]:
    """Metrics of a given partition of ``data`` (what ``mabench evaluate`` prints).

    Parameters
    ----------
    data : pandas.DataFrame, numpy.ndarray, str or path
        As in :func:`microaggregate`.
    labels : array-like of int
        Group of each row (any non-negative integers; relabelled 0..g-1).
    k : int, optional
        If given, every group must have at least k records.
    metrics : str or list of str, optional
        Metric names; default: every metric that applies.
    columns : list of str, optional
        The aggregated variables (default: every numeric column).
    seed : int, default 0
        Seed of a generated data set's draw.
    measure, trim, weights, strata
        How the partition was published, as in :func:`microaggregate`: the metrics score each group's
        median, trimmed mean or weighted mean (the numbers ``Result.metrics()`` gives for the run), the
        weights and strata columns are not variables, and every group must lie in one stratum.
    missing, fill
        As in :func:`microaggregate`: ``missing="available"`` scores data with missing values on
        available cases (each group's mean of its observed values; the metrics of
        docs/metrics.md#missing-values), the numbers ``Result.metrics()`` gives for such a run; a
        per-variable partition (onedims' labels) variable by variable, k over its observed records.
    **options
        Metric options (``id_p``, ``key_variables``, ...; docs/metrics.md).

    Returns
    -------
    dict
        ``{metric name: value}``.

    Examples
    --------
    >>> import numpy as np, mabench
    >>> x = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> round(mabench.evaluate(x, [0, 0, 0, 1, 1, 1], k=3, metrics="il")["il"], 4)
    3.1873
    """
    from mabench import partition
    from mabench.bench.runner import evaluate_labels
    from mabench.metrics import parse_names

    given = {"measure": measure, "trim": trim, "weights": weights, "strata": strata, "missing": missing, "fill": fill}
    given = {name: value for name, value in given.items() if value is not None}
    frame, picked, ds, _, resolved, extra, *_ = _prepare(data, 1 if k is None else k, "mdav", columns, seed, given)
    raw = np.asarray(labels)
    n, d = ds.values.shape
    if raw.shape not in ((n,), (n, d)):
        raise UserError(f"labels has shape {raw.shape} but the data have {n} rows and {d} aggregated columns; give "
                        f"one label per row, or an (n, d) array of per-variable labels (as onedims returns)")
    if raw.dtype.kind == "f" and np.all(np.isfinite(raw)) and np.all(raw == np.round(raw)):
        raw = raw.astype(np.int64)
    if raw.dtype.kind not in "iu" or (raw.size and raw.min() < 0):
        raise UserError("labels must be non-negative integers (one group number per row)")
    if raw.ndim == 2:  # per-variable: column j the groups of aggregated column j
        lab = np.column_stack([partition.canonical_labels(raw[:, j]) for j in range(d)])
        sizes = np.concatenate([np.bincount(lab[:, j]) for j in range(d)])
    else:
        lab = partition.canonical_labels(raw)
        sizes = np.bincount(lab)
    # a per-variable partition on data with missing values: k over each variable's observed records
    if k is not None and sizes.min() < k and not (raw.ndim == 2 and missing == "available"):
        raise UserError(f"a group has {sizes.min()} records, fewer than k={k}; pass the k the partition was made with")
    names = None if metrics is None else parse_names(metrics if isinstance(metrics, str) else ",".join(metrics))
    from mabench.plugin import split_aggregation

    record = evaluate_labels(ds, lab, names, options, aggregation=split_aggregation(resolved)[1],
                             extra=extra, k=1 if k is None else k)
    from mabench.metrics import REGISTRY

    return {name: value for name, value in record.items() if name in REGISTRY}
