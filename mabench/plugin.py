"""What a plugin declares.

An algorithm plugin (``algorithms/<name>.py``) defines ``ALGORITHM = Algorithm(...)``;
a generator plugin (``datasets/<name>.py``) defines ``GENERATORS = [Generator(...)]``.
Fetched data sets are rows of ``datasets/catalog.yaml``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from mabench.errors import PluginContractError, UserError


# Size limits of generated data (declared as the n and d ranges of the generators): d is capped on its
# own because every column costs Python objects and per-column passes, n*d by the memory it needs.
MAX_RECORDS = 100_000_000
MAX_COLUMNS = 10_000
INT64_MAX = 2**63 - 1  # the kernels' integer type (int64): a larger integer would overflow inside them
_INTEGER = re.compile(r"^[+-]?\d+$")


@dataclass(frozen=True)
class Param:
    """One parameter of a plugin: its default, its type and, optionally, allowed values or a range.

    A number's range is declared, not checked in the plugin: ``min``/``max`` (inclusive; ``above=True``
    makes ``min`` exclusive). Every float must be finite, every integer an integer (not 2.5, not
    "3_0") that fits int64. The checks run wherever parameters are resolved (CLI, API, workflow).
    """

    default: Any
    doc: str = ""
    choices: tuple | None = None
    min: float | None = None
    max: float | None = None
    above: bool = False
    sized: bool = False  # the value is about the data (e.g. a partition file of n labels): the warm-up's
    #                      tiny problem runs with the default instead
    neutral: bool = False  # the choices change how the partition is computed, never the partition (e.g. a
    #                        search index): left out of the run record's parameters; `mabench warmup` warms each
    hidden_default: bool = False  # the default is left out of the run record's parameters (a parameter added
    #                               after results were recorded under keys without it)

    def parse(self, owner: str, name: str, raw: Any) -> Any:
        kind = type(self.default)
        try:
            # Only the values that mean the type: bool(2), bool([]) and float(True) would all be taken.
            if kind is bool:
                if isinstance(raw, str) and raw.lower() in {"true", "false", "1", "0"}:
                    value = raw.lower() in {"true", "1"}
                elif isinstance(raw, (bool, np.bool_)) or (isinstance(raw, (int, np.integer)) and raw in (0, 1)):
                    value = bool(raw)
                else:
                    raise ValueError(raw)
            elif kind is int:
                value = _to_int(raw)
            elif kind is float:
                if isinstance(raw, (bool, np.bool_)) or not isinstance(raw, (str, int, float, np.number)):
                    raise ValueError(raw)
                value = float(raw)
            elif kind is str and not isinstance(raw, (str, int, float, np.number)) or isinstance(raw, bool):
                raise ValueError(raw)
            else:
                value = kind(raw)
        except (TypeError, ValueError, OverflowError):
            raise UserError(
                f"{owner}: parameter {name}={raw!r} is not {'an integer' if kind is int else 'a ' + kind.__name__}; "
                f"give e.g. {name}={self.default}"
            ) from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise UserError(f"{owner}: parameter {name}={raw!r} is not allowed; choose one of: {allowed}")
        self.check(owner, name, value)
        return value

    def check(self, owner: str, name: str, value: Any) -> None:
        """The declared range of a number (a default must satisfy it too)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return
        if isinstance(value, float) and not math.isfinite(value):
            raise UserError(f"{owner}: parameter {name}={value!r} must be a finite number{self._range_text()}")
        lo, hi = self.min, self.max
        if isinstance(value, int):
            lo = -INT64_MAX if lo is None else lo
            hi = INT64_MAX if hi is None else hi
        if (lo is not None and (value <= lo if self.above else value < lo)) or (hi is not None and value > hi):
            raise UserError(f"{owner}: parameter {name}={value!r} is out of range; it must be{self._range_text(True)}")

    def _range_text(self, bare: bool = False) -> str:
        parts = []
        if self.min is not None:
            parts.append(f"{'>' if self.above else '>='} {_num(self.min)}")
        hi = self.max if self.max is not None else (INT64_MAX if type(self.default) is int else None)
        if hi is not None:
            parts.append(f"<= {_num(hi)}" if hi != INT64_MAX else f"<= {INT64_MAX} (int64)")
        text = " and ".join(parts)
        return (" " + text if text else " a finite number") if bare else (f" ({text})" if text else "")


def _num(x) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def _to_int(raw: Any) -> int:
    """An integer parameter: 7, "7", "+7", 7.0 or "7.0" (the workflow writes 16.0 for 16); never 2.5
    (silently truncated by int()) nor "3_0" (Python's digit grouping, read as 30)."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float):
        if not raw.is_integer():
            raise ValueError(raw)
        return int(raw)
    text = str(raw).strip()
    if _INTEGER.match(text):
        return int(text)
    if NUMBER.match(text):
        x = float(text)
        if x.is_integer() and abs(x) < 2**53:
            return int(x)
    raise ValueError(raw)


def resolve_params(owner: str, declared: dict[str, Param], given: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with ``given`` (strings or values), each checked against its declaration."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise UserError(f"{owner}: unknown parameter {unknown[0]!r}; known parameters: {known}")
    out = {name: p.default for name, p in declared.items()}
    for name, raw in given.items():
        if not isinstance(name, str):
            raise UserError(f"{owner}: parameter name {name!r} must be text")
        out[name] = declared[name].parse(owner, name, raw)
    return out


NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _norm_value(raw) -> str:
    """Canonical text of one parameter value: numbers compare by value ("16.0" == "16")."""
    s = str(raw).strip()
    if NUMBER.match(s):
        x = float(s)
        return str(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(x)
    if s.lower() in ("true", "false"):
        return s.lower()
    return s


def parse_params(text) -> dict[str, str]:
    """``"a=1,b=x"`` -> ``{"a": "1", "b": "x"}`` with normalised values; empty/NaN -> ``{}``."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return {}
    out = {}
    for item in str(text).split(","):
        if item.strip():
            key, _, value = item.partition("=")
            out[key.strip()] = _norm_value(value)
    return out


def format_params(params: dict[str, Any]) -> str:
    """Canonical ``a=1,b=x`` form (sorted), used in file names and result tables."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params))


def read_only(a: np.ndarray | None) -> np.ndarray | None:
    """A view of ``a`` that cannot be written to: what a plugin gets, so that the data the metrics and
    the masked file use afterwards are the data the partition was made from."""
    if a is None:
        return None
    view = a.view()
    view.flags.writeable = False
    return view


def call_run(algo, z, k: int, params: dict, rng, raw=None):
    """``algo.run`` on read-only views of the data, with the raw values passed to the plugins that ask
    for them (``uses_raw``). A plugin that writes into its input is refused in one line; a plugin that
    ends the process (``sys.exit``) is refused too, instead of ending mabench with its status."""
    z, raw = read_only(z), read_only(raw)
    try:
        if algo.uses_raw:
            return algo.run(z, k, params, rng, raw=raw)
        return algo.run(z, k, params, rng)
    except ValueError as exc:
        if "read-only" not in str(exc):
            raise
        raise PluginContractError(f"algorithm {algo.name} writes into its input array ({exc}); a plugin must leave Z "
                        "unchanged: work on a copy (Z = Z.copy())") from None
    except SystemExit as exc:
        raise PluginContractError(f"algorithm {algo.name} called sys.exit({exc.code!r}) instead of returning labels; "
                        "a plugin returns its partition, or raises an exception") from None


def tiny_rows(k: int, d: int) -> int:
    """Records of a warm-up's problem: a few groups of k, and more records than columns, as a run's
    data has: an estimator with a branch for n <= d + 1 (the MCD's h-subsets cover every record there)
    would otherwise compile only that branch, and the run would compile its general path inside a
    cell's time."""
    return max(3 * k + 1, 2 * d + 3)


def tiny_problem(k: int, d: int) -> np.ndarray:
    """(:func:`tiny_rows`, d) standard normal values, the same every time: what a warm-up runs on."""
    return np.ascontiguousarray(np.random.default_rng(0).standard_normal((tiny_rows(k, d), d)))


def tiny_run(algo, d: int, k: int, params: dict) -> None:
    """The default warm-up: ``algo.run`` on a tiny problem of the same types (d columns), which compiles
    the kernels a run of any size takes."""
    tiny = tiny_problem(k, d)
    call_run(algo, tiny, k, params, np.random.default_rng(0), raw=tiny)


def split_output(out, who: str = "algorithm") -> tuple[np.ndarray, dict]:
    """An algorithm's ``run`` returns labels, or (labels, info) where info holds extra record fields
    (e.g. a recursion structure, a convergence cycle, an anytime trace): JSON-serializable values.

    ``who`` names the plugin and the cell in the one line that refuses what breaks this contract:
    labels that are not whole numbers (a cast to int64 would truncate 0.5 to 0 and merge groups), NaN
    or infinite labels, and info that is not strict JSON (NaN, infinity, objects)."""
    info: dict = {}
    if isinstance(out, tuple):
        if len(out) != 2:
            raise PluginContractError(f"{who} returned a tuple of {len(out)} items; run() returns labels or (labels, info)")
        out, info = out
        if info is not None and not isinstance(info, dict):
            raise PluginContractError(f"{who} returned info of type {type(info).__name__}; it must be a dict of JSON values")
        info = dict(info or {})
        try:
            json.dumps(info, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise PluginContractError(f"{who} returned info that is not strict JSON ({exc}); give finite numbers, text, "
                            "lists and dicts only") from None
    return integer_labels(out, who), info


def integer_labels(raw, who: str) -> np.ndarray:
    """A plugin's labels as int64, refusing every value the cast would change (one line naming it)."""
    try:
        labels = np.asarray(raw)
    except (TypeError, ValueError) as exc:
        raise PluginContractError(f"{who} returned labels that are not an array ({exc}); return one integer per record") from None
    kind = labels.dtype.kind
    if kind in "iu":
        if kind == "u" and labels.size and labels.max() > INT64_MAX:
            raise PluginContractError(f"{who} returned label {labels.max()} beyond int64; number the groups 0..g-1")
        return labels.astype(np.int64, copy=False)
    if kind != "f":
        raise PluginContractError(f"{who} returned labels of type {labels.dtype}; return integer labels (one per record)")
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(labels) | (labels != np.trunc(labels)) | (np.abs(labels) > 2.0**62)
    if bad.any():
        where = np.argwhere(bad)[0]
        at = ", ".join(str(int(i)) for i in where)
        value = labels[tuple(where)].item()
        what = "is NaN" if value != value else "is not a whole number"
        raise PluginContractError(f"{who} returned label {value!r} at labels[{at}], which {what}; labels must be "
                                  "whole numbers (a cast to integers would merge groups)")
    return labels.astype(np.int64)


# run(Z, k, params, rng) -> labels, or (labels, extra): extra is a dict of JSON-serializable fields
# added to the run record (split_output). Z is the standardized (n, d) float64 C-contiguous data;
# the original values instead when the plugin's raw_input says so (e.g. scale=raw).
RunFn = Callable[[np.ndarray, int, dict, np.random.Generator], np.ndarray]


# Choices of the generic `scale` parameter: decide on z-scores or on the original values.
SCALES = ("standardized", "raw")


def scale_param(doc: str) -> Param:
    """The generic ``scale`` parameter (declare it with ``raw_input=raw_scale``); its default stays out of
    the run record's parameters."""
    return Param("standardized", doc, SCALES, hidden_default=True)


def raw_scale(params: dict) -> bool:
    """``raw_input`` of a method with the ``scale`` parameter: the original values with scale=raw."""
    return params.get("scale") == "raw"

# Parameters every algorithm takes: how groups publish their values and where the partition is made
# (sdcMicro's measure, weights and strata_variables; docs/metrics.md#aggregation-measures). The engine
# handles them (mabench.bench.runner); a plugin's run() never sees them.
AGGREGATION = {
    "measure": Param("mean", "value a group publishes per variable", ("mean", "median", "trim", "onestep")),
    "trim": Param(0.0, "share trimmed at each end of a group with measure=trim (0..0.5; sdcMicro's default 0)"),
    "sampling_weights": Param("", "column of sampling weights: weighted group means / medians"),
    "strata": Param("", "columns whose value combinations are microaggregated separately, joined with '+'"),
    "missing": Param("refuse", "missing values (NaN) in the variables: refuse, or available (distances and group "
                     "values over the observed values; docs/metrics.md#missing-values)", ("refuse", "available")),
    "fill": Param(False, "with missing=available: also give a record's missing values its group's value "
                  "(default: NA stays NA)"),
}


def split_aggregation(resolved: dict[str, Any], declared=()) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the plugin's own parameters, the aggregation parameters with their defaults filled in).

    ``declared``: the plugin's own parameter names. A plugin parameter that shares an aggregation
    parameter's name is the plugin's (as in :meth:`Algorithm.resolve`): ps's ``fill`` (how a seed's
    companions are chosen) is not ``fill`` of missing values, which keeps its default there."""
    own = {k: v for k, v in resolved.items() if k not in AGGREGATION or k in declared}
    agg = {name: (p.default if name in declared else resolved.get(name, p.default)) for name, p in AGGREGATION.items()}
    return own, agg


def two_k_minus_one(k: int, params: dict) -> int:
    """The default group-size bound: a group of 2k or more records could be split in two."""
    return 2 * k - 1


def linear_memory(n: int, d: int, k: int, params: dict) -> int:
    """The default memory estimate: an O(n·d) run (:func:`linear_bytes`)."""
    return linear_bytes(n, d)


def tree_memory(n: int, d: int, k: int, params: dict) -> int:
    """The memory estimate of a method that may take the k-d tree path (:func:`tree_bytes`)."""
    return tree_bytes(n, d)


def covariance_memory(n: int, d: int, k: int, params: dict) -> int:
    """The memory estimate of an O(n·d) run that also holds a d x d matrix (a covariance, its eigenvectors)."""
    return linear_bytes(n, d) + 8 * d * d


# The growth each shared memory estimate stands for: a plugin that names one need not repeat it.
GROWTH = {linear_memory: "O(n·d)", tree_memory: "O(n·d)", covariance_memory: "O(n·d + d²)"}


@dataclass(frozen=True)
class Algorithm:
    name: str
    title: str
    citation: str  # seed file name and section it implements
    run: RunFn
    # the algorithm's own group-size bound (None: unbounded); default 2k−1
    max_group_size: Callable[[int, dict], int | None] = two_k_minus_one
    params: dict[str, Param] = field(default_factory=dict)
    deterministic: bool = True
    notes: str = ""  # choices made where the source is ambiguous
    # True: run() also gets the keyword raw= with the unstandardized (n, d) values (None where the
    # caller has only z-scores, e.g. metric re-runs): for scale-dependent steps (EMAD's bin width)
    # and for univariate methods whose tie order must not depend on z-score rounding.
    uses_raw: bool = False
    # How the method scales (n records, d columns, k, g = n/k groups), stated here only (no docstring
    # repeats it; `mabench list algorithms --long` and docs/scaling.md show it), e.g. time="O(n²·d/k)".
    # memory: default the growth of the shared estimate named in memory_bytes (GROWTH); declare it with
    # any other estimate.
    time: str = ""
    memory: str = ""
    # Estimated peak bytes of one run (the data included); default an O(n·d) run (linear_bytes). A run
    # whose estimate exceeds the machine is refused up front (mabench.memory).
    memory_bytes: Callable[[int, int, int, dict], int] | None = linear_memory
    # check(resolved params) raises UserError for what one parameter's range cannot say (e.g. a
    # search's init and init_params); runs in resolve, so before any work everywhere.
    check: Callable[[dict], None] | None = None
    max_columns: int | None = None  # e.g. 1 for a univariate method: checked before work (also in the workflow)
    # A MABENCH_HOME plugin with a built-in's name is refused unless it says override=True (it then
    # replaces the built-in, and run records name its file: discovery.user_plugins).
    override: bool = False
    # Parameter sets `mabench check` (mabench.testing) runs besides the defaults, e.g. ({"index": "tree"},):
    # small and fast, one per code path worth checking.
    test_params: tuple = ()
    # warm_up(n, d, k, params): compile (or load from Numba's cache) what a run on n x d records at k with
    # these parameters will use, without touching n x d data, so that a cell's time never includes
    # compiling. None: run() on a tiny problem of d columns (tiny_run). Methods whose kernels depend on
    # the size declare one (e.g. kernels.tree_warm_up: index=auto picks its kernel by n and d).
    warm_up: Callable[[int, int, int, dict], None] | None = None
    # raw_input(params) -> True when run() with these parameters decides on the original values instead
    # of the z-scores (e.g. raw_scale for scale=raw). None: always the z-scores.
    raw_input: Callable[[dict], bool] | None = None

    def __post_init__(self):
        if not self.memory:
            object.__setattr__(self, "memory", GROWTH.get(self.memory_bytes, "O(n·d)"))

    def warm(self, n: int, d: int, k: int, params: dict) -> None:
        """The warm-up of a run on n x d at k: the plugin's ``warm_up``, else :func:`tiny_run`. A data-sized
        parameter (``Param.sized``) takes its default: the warm-up never sees the data."""
        params = {name: self.params[name].default if name in self.params and self.params[name].sized else value
                  for name, value in params.items()}
        if self.max_columns is not None:  # a univariate method refuses more columns than it takes
            d = min(d, self.max_columns)
        if self.warm_up is None:
            tiny_run(self, d, k, params)
        else:
            self.warm_up(n, d, k, params)

    def decides_on_raw(self, params: dict) -> bool:
        """Whether run() with these parameters gets the original values instead of the z-scores."""
        return self.raw_input is not None and bool(self.raw_input(params))

    def record_params(self, resolved: dict) -> str:
        """The run record's canonical parameter string: neutral parameters never, parameters with
        ``hidden_default`` and the aggregation parameters only when not at their defaults, so that
        existing result keys stay stable."""
        def hidden(name, value):
            p = self.params.get(name)
            if p is not None and (p.neutral or (p.hidden_default and value == p.default)):
                return True
            return name in AGGREGATION and value == AGGREGATION[name].default
        return format_params({k: v for k, v in resolved.items() if not hidden(k, v)})

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        """The plugin's parameters, plus the aggregation parameters (AGGREGATION) that were given."""
        given = dict(given)
        agg = {name: given.pop(name) for name in AGGREGATION if name in given and name not in self.params}
        try:
            own = resolve_params(f"algorithm {self.name}", self.params, given)
        except UserError as exc:
            if "unknown parameter" in str(exc):  # name the engine-wide parameters too
                raise UserError(f"{exc} (and for every algorithm: {', '.join(AGGREGATION)})") from None
            raise
        if self.check is not None:
            self.check(own)
        owner = f"algorithm {self.name}"
        return {**own, **{name: AGGREGATION[name].parse(owner, name, raw) for name, raw in agg.items()}}


def linear_bytes(n: int, d: int, copies: int = 8, ints: int = 8) -> int:
    """Bytes an O(n·d) run adds to the process: ``copies`` float64 copies of the data and ``ints``
    int64 arrays per record. The default covers the data path of ``mabench run`` (reading,
    standardizing, the group means, IL: about five copies, measured) and a method's own few arrays
    (docs/scaling.md, "Memory")."""
    return 8 * n * d * copies + 8 * n * ints


def tree_bytes(n: int, d: int) -> int:
    """Bytes of a run that may take the k-d tree path (kernels/spatial/kdtree.py): the records again in double
    and single precision, per-record positions, leaves and flags, and while a tree is rebuilt, the old
    one beside the new. At least 14 % above every growth measured under ``mabench run`` at 10^5 to
    10^6 records (docs/scaling.md, "Memory")."""
    return linear_bytes(n, d, copies=10, ints=48)


# generate(rng, **params) -> (values (n, d) float64, column names)
GenerateFn = Callable[..., tuple[np.ndarray, list[str]]]


@dataclass(frozen=True)
class Generator:
    name: str
    title: str
    citation: str
    generate: GenerateFn
    params: dict[str, Param] = field(default_factory=dict)
    notes: str = ""
    metric_options: dict = field(default_factory=dict)  # e.g. key variables, interval-disclosure P range
    override: bool = False  # as Algorithm.override

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        return resolve_params(f"data set {self.name}", self.params, given)
