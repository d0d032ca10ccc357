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

from mabench.errors import UserError

__all__ = ["microaggregate", "evaluate", "methods", "datasets", "load", "Result", "Microaggregator"]

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


def _variables(frame: pd.DataFrame, columns, aside: list[str], where: str) -> list:
    """The columns to aggregate: ``columns`` (checked numeric), or every numeric column not set aside."""
    names = list(frame.columns)
    if columns is None:
        picked = [c for c in names if c not in aside and _is_numeric(frame[c])]
        if not picked:
            raise UserError(f"{where} has no numeric column to aggregate; give numeric variables or name them "
                            "with columns=[...]")
        return picked
    picked = [columns] if isinstance(columns, str) else list(columns)
    if not picked:
        raise UserError("columns=[] names no variable; name at least one numeric column, or omit columns")
    for c in picked:
        if c not in names:
            raise UserError(f"columns names {c!r}, which is not a column of {where} (columns: "
                            f"{', '.join(map(str, names[:20]))}{', ...' if len(names) > 20 else ''})")
        if not _is_numeric(frame[c]):
            raise UserError(f"column {c!r} is not numeric ({frame[c].dtype}); microaggregation averages numbers, "
                            "so leave it out of columns (it is passed through unchanged) or convert it")
        if c in aside:
            raise UserError(f"column {c!r} is both a variable and a strata/weights column; name it in one place")
    if len(set(picked)) != len(picked):
        raise UserError("columns names a column twice; list each once")
    return picked


def _check_complete(frame: pd.DataFrame, picked: list, where: str) -> None:
    values = frame[picked].to_numpy(dtype=np.float64, na_value=np.nan)
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        what = "missing (NaN)" if np.isnan(values[i, j]) else "infinite"
        label = frame.index[i]
        label = label.item() if isinstance(label, np.generic) else label
        at = f"row {i + 1}" + (f" (index {label!r})" if label != i else "")
        raise UserError(f"{where}: value in {at}, column {picked[j]!r} is {what}; microaggregation needs complete "
                        "numeric data, impute or drop such rows first")


def _prepare(data, k, method, columns, seed, params):
    """Everything a run needs: (frame, variables, Dataset, algorithm, resolved params, extra columns)."""
    from mabench import discovery, partition
    from mabench.data import Dataset, check_values
    from mabench.data.seeds import check_seed

    seed = check_seed(seed)
    k = partition.check_k(k)
    algo = discovery.algorithm(method)
    given = {_API_PARAMS.get(name, name): value for name, value in params.items()}
    if isinstance(given.get("strata"), (list, tuple)):
        given["strata"] = "+".join(map(str, given["strata"]))
    resolved = algo.resolve({name: value for name, value in given.items() if value is not None})
    frame, name, meta = _input_frame(data, seed)
    where = name if name not in ("DataFrame", "array") else f"the {name}"
    aside = [c for c in str(resolved.get("strata", "")).split("+") if c]
    if resolved.get("sampling_weights"):
        aside.append(resolved["sampling_weights"])
    for c in aside:
        if c not in frame.columns:
            what = "sampling-weights" if c == resolved.get("sampling_weights") else "strata"
            raise UserError(f"{what} column {c!r} is not a column of {where}")
    picked = _variables(frame, columns, aside, where)
    _check_complete(frame, picked, where)
    values = np.ascontiguousarray(frame[picked].to_numpy(dtype=np.float64))
    cols = [str(c) for c in picked]
    check_values(values, cols, where)
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
    """

    labels: np.ndarray
    masked: pd.DataFrame
    groups: np.ndarray
    columns: list
    seconds: float
    info: dict
    record: dict
    _cell: Any = field(repr=False, default=None)

    def __repr__(self) -> str:
        r = self.record
        params = f"[{r['params']}]" if r.get("params") else ""
        return (f"Result({r['algorithm']}{params}, k={r['k']}: {r['n']} rows in {r['n_groups']} groups of "
                f"{r['min_group']}..{r['max_group']}, {len(self.columns)} column(s) aggregated, "
                f"{self.seconds:.3g} s)")

    def metrics(self, names=None) -> dict[str, float]:
        """Metrics of this partition, keyed by name (``il``, ``dld``, ``id``, ``g_il``, ...).

        Parameters
        ----------
        names : str or list of str, optional
            Metric names (see ``docs/metrics.md``); default: every metric that applies to the data
            (``rld``, ``g_dr`` and ``si`` need key variables).

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

        ctx = self._cell.context
        if names is None:
            names = applicable(ctx.options)
        else:
            names = parse_names(names if isinstance(names, str) else ",".join(names))
        return evaluate(ctx, names)


def _masked_frame(frame: pd.DataFrame, picked: list, values: np.ndarray) -> pd.DataFrame:
    out = frame.copy()
    for j, c in enumerate(picked):
        col = values[:, j]
        dtype = frame[c].dtype
        if pd.api.types.is_integer_dtype(dtype):
            whole = np.all(col == np.round(col))
            out[c] = col.astype(dtype) if whole else col
        elif pd.api.types.is_float_dtype(dtype):
            out[c] = col.astype(dtype)
        else:
            out[c] = col
    return out


# --------------------------------------------------------------------------- functions


def microaggregate(data, k: int, method: str = "mdav", columns=None, seed: int = 0, n_jobs: int = 1,
                   executor: str = "processes", scheduler: str | None = None, **params) -> Result:
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

    spread = Spread(n_jobs, executor, scheduler)
    frame, picked, ds, algo, resolved, extra, k, seed = _prepare(data, k, method, columns, seed, params)
    cell = next(run_dataset(algo, resolved, ds, [k], seed, ("il",), None, extra, spread=spread, notice=True))
    masked = _masked_frame(frame, picked, cell.masked)
    labels = cell.labels
    groups = (np.concatenate([np.bincount(labels[:, j]) for j in range(labels.shape[1])]) if labels.ndim == 2
              else np.bincount(labels))
    return Result(labels, masked, groups, list(picked), float(cell.record["seconds"]),
                  dict(cell.record.get("info") or {}), cell.record, cell)


def evaluate(data, labels, k: int | None = None, metrics=None, columns=None, seed: int = 0,
             **options) -> dict[str, float]:
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

    frame, picked, ds, *_ = _prepare(data, 1 if k is None else k, "mdav", columns, seed, {})
    raw = np.asarray(labels)
    n = ds.values.shape[0]
    if raw.shape != (n,):
        raise UserError(f"labels has shape {raw.shape} but the data have {n} rows; give one label per row")
    if raw.dtype.kind == "f" and np.all(np.isfinite(raw)) and np.all(raw == np.round(raw)):
        raw = raw.astype(np.int64)
    if raw.dtype.kind not in "iu" or (raw.size and raw.min() < 0):
        raise UserError("labels must be non-negative integers (one group number per row)")
    lab = partition.canonical_labels(raw)
    sizes = np.bincount(lab)
    if k is not None and sizes.min() < k:
        raise UserError(f"a group has {sizes.min()} records, fewer than k={k}; pass the k the partition was made with")
    names = None if metrics is None else parse_names(metrics if isinstance(metrics, str) else ",".join(metrics))
    record = evaluate_labels(ds, lab, names, options)
    from mabench.metrics import REGISTRY

    return {name: value for name, value in record.items() if name in REGISTRY}


def methods() -> list[dict]:
    """Every microaggregation method: name, title, citation and parameters.

    Returns
    -------
    list of dict
        One dict per method: ``name``, ``title``, ``citation``, ``deterministic`` and ``parameters``
        (``{name: {"default", "choices", "doc"}}``; ``choices`` is None when any value of the
        default's type is allowed).

    Examples
    --------
    >>> import mabench
    >>> mdav = next(m for m in mabench.methods() if m["name"] == "mdav")
    >>> mdav["parameters"]["tail"]["default"]
    '3k'
    """
    from mabench import discovery

    out = []
    for name, algo in sorted(discovery.algorithms().items()):
        out.append({
            "name": name, "title": algo.title, "citation": algo.citation, "deterministic": algo.deterministic,
            "parameters": {p: {"default": v.default, "choices": None if v.choices is None else list(v.choices),
                               "doc": v.doc} for p, v in algo.params.items()},
        })
    return out


def datasets() -> list[dict]:
    """Every data set :func:`load` knows: the fetched catalog and the generators.

    Returns
    -------
    list of dict
        ``name``, ``kind`` ("fetched" or "generated"), ``title`` and, for generators, ``parameters``
        (``{name: default}``).

    Examples
    --------
    >>> import mabench
    >>> [d["name"] for d in mabench.datasets() if d["kind"] == "fetched"]
    ['census', 'eia', 'tarragona']
    """
    from mabench import data, discovery
    from mabench.data import fetch

    cat, gens = fetch.catalog(), discovery.generators()
    out = []
    for name in data.names():
        if name in cat:
            out.append({"name": name, "kind": "fetched", "title": cat[name]["title"]})
        else:
            out.append({"name": name, "kind": "generated", "title": gens[name].title,
                        "parameters": {p: v.default for p, v in gens[name].params.items()}})
    return out


def load(name: str, seed: int = 0) -> pd.DataFrame:
    """A catalog or generated data set (or a file) as a DataFrame, in original units.

    Parameters
    ----------
    name : str
        ``"tarragona"``, ``"census"``, ``"eia"``, a generator with parameters
        (``"uniform[n=300,d=3]"``), or a CSV/Parquet path.
    seed : int, default 0
        Seed of a generated data set's draw.

    Examples
    --------
    >>> import mabench
    >>> mabench.load("tarragona").shape
    (834, 13)
    >>> mabench.load("uniform[n=300,d=3]", seed=1).shape
    (300, 3)
    """
    from mabench import data
    from mabench.data.seeds import check_seed

    return data.load(str(name), check_seed(seed)).frame()


# --------------------------------------------------------------------------- estimator


class Microaggregator:
    """scikit-learn-style estimator: ``fit`` finds the groups, ``transform`` gives the masked values.

    Parameters follow :func:`microaggregate`. The estimator masks the data it was fitted on
    (microaggregation has no out-of-sample rule): ``transform`` refuses other data.

    Attributes
    ----------
    labels_ : numpy.ndarray
        Group of each fitted row.
    result_ : Result
        The full result (masked frame, metrics).
    n_features_in_ : int
        Number of aggregated columns.

    Examples
    --------
    >>> import numpy as np
    >>> from mabench import Microaggregator
    >>> X = np.array([[1.0, 2.0], [1.5, 2.5], [2.0, 2.0], [9.0, 9.0], [9.5, 8.0], [10.0, 9.5]])
    >>> m = Microaggregator(method="mdav", k=3).fit(X)
    >>> m.labels_.tolist()
    [1, 1, 1, 0, 0, 0]
    >>> m.transform(X)[0].tolist()
    [1.5, 2.1666666666666665]
    >>> m.get_params()["k"]
    3
    """

    def __init__(self, method: str = "mdav", k: int = 3, *, columns=None, seed: int = 0, **params):
        self.method = method
        self.k = k
        self.columns = columns
        self.seed = seed
        self._extra = dict(params)
        for name, value in params.items():
            setattr(self, name, value)

    def get_params(self, deep: bool = True) -> dict:
        return {"method": self.method, "k": self.k, "columns": self.columns, "seed": self.seed,
                **{name: getattr(self, name) for name in self._extra}}

    def set_params(self, **params) -> "Microaggregator":
        for name, value in params.items():
            if name not in ("method", "k", "columns", "seed"):
                self._extra[name] = value
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"Microaggregator({args})"

    def fit(self, X, y=None) -> "Microaggregator":
        params = {name: getattr(self, name) for name in self._extra}
        self.result_ = microaggregate(X, self.k, self.method, self.columns, self.seed, **params)
        self.labels_ = self.result_.labels
        self.n_features_in_ = len(self.result_.columns)
        self._fitted = _snapshot(X)
        return self

    def transform(self, X):
        """The masked values of the fitted data: an array for an array, a DataFrame for a DataFrame."""
        if not hasattr(self, "result_"):
            raise UserError("this Microaggregator is not fitted yet; call fit(X) or fit_transform(X) first")
        if not _same(self._fitted, _snapshot(X)):
            raise UserError("Microaggregator.transform masks the data it was fitted on; for other data call "
                            "fit_transform(X)")
        masked = self.result_.masked
        if isinstance(X, np.ndarray):
            return masked[self.result_.columns].to_numpy(dtype=np.float64)
        return masked

    def fit_transform(self, X, y=None):
        return self.fit(X).transform(X)


def _snapshot(X):
    if isinstance(X, pd.DataFrame):
        return ("frame", X.copy())
    if isinstance(X, np.ndarray):
        return ("array", X.copy())
    return ("other", str(X))


def _same(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "frame":
        return a[1].shape == b[1].shape and a[1].equals(b[1])
    if a[0] == "array":
        return a[1].shape == b[1].shape and np.array_equal(a[1], b[1], equal_nan=True)
    return a[1] == b[1]
