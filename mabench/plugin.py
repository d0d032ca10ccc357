"""What a plugin declares.

An algorithm plugin (``algorithms/<name>.py``) defines ``ALGORITHM = Algorithm(...)``;
a generator plugin (``datasets/<name>.py``) defines ``GENERATORS = [Generator(...)]``.
Fetched data sets are rows of ``datasets/catalog.yaml``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from mabench.errors import UserError


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

    def parse(self, owner: str, name: str, raw: Any) -> Any:
        kind = type(self.default)
        try:
            if kind is bool and isinstance(raw, str):
                if raw.lower() not in {"true", "false", "1", "0"}:
                    raise ValueError(raw)
                value = raw.lower() in {"true", "1"}
            elif kind is int:
                value = _to_int(raw)
            elif kind is float:
                value = float(raw)
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


def call_run(algo, z, k: int, params: dict, rng, raw=None):
    """``algo.run`` with the raw values passed to the plugins that ask for them (``uses_raw``)."""
    if algo.uses_raw:
        return algo.run(z, k, params, rng, raw=raw)
    return algo.run(z, k, params, rng)


def split_output(out) -> tuple[np.ndarray, dict]:
    """An algorithm's ``run`` returns labels, or (labels, info) where info holds extra record fields
    (e.g. a recursion structure, a convergence cycle, an anytime trace): JSON-serializable values."""
    if isinstance(out, tuple):
        labels, info = out
        return np.asarray(labels, dtype=np.int64), dict(info or {})
    return np.asarray(out, dtype=np.int64), {}


# run(Z, k, params, rng) -> labels, or (labels, extra): extra is a dict of JSON-serializable fields
# added to the run record (split_output). Z is the standardized (n, d) float64 C-contiguous data.
# With scale=raw (the algorithm declares a `scale` param) Z holds the original values instead.
RunFn = Callable[[np.ndarray, int, dict, np.random.Generator], np.ndarray]


# Choices of the generic `scale` parameter (see mabench.bench.runner.algorithm_input).
SCALES = ("standardized", "raw")

# Parameters every algorithm takes: how groups publish their values and where the partition is made
# (sdcMicro's measure, weights and strata_variables; docs/metrics.md#aggregation-measures). The engine
# handles them (mabench.bench.runner); a plugin's run() never sees them.
AGGREGATION = {
    "measure": Param("mean", "value a group publishes per variable", ("mean", "median", "trim", "onestep")),
    "trim": Param(0.0, "share trimmed at each end of a group with measure=trim (0..0.5; sdcMicro's default 0)"),
    "sampling_weights": Param("", "column of sampling weights: weighted group means / medians"),
    "strata": Param("", "columns whose value combinations are microaggregated separately, joined with '+'"),
}


def split_aggregation(resolved: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the plugin's own parameters, the aggregation parameters with their defaults filled in)."""
    own = {k: v for k, v in resolved.items() if k not in AGGREGATION}
    agg = {name: resolved.get(name, p.default) for name, p in AGGREGATION.items()}
    return own, agg


@dataclass(frozen=True)
class Algorithm:
    name: str
    title: str
    citation: str  # seed file name and section it implements
    run: RunFn
    max_group_size: Callable[[int, dict], int | None]  # the algorithm's own size bound
    params: dict[str, Param] = field(default_factory=dict)
    deterministic: bool = True
    notes: str = ""  # choices made where the source is ambiguous
    # True: run() also gets the keyword raw= with the unstandardized (n, d) values (None where the
    # caller has only z-scores, e.g. metric re-runs): for scale-dependent steps (EMAD's bin width)
    # and for univariate methods whose tie order must not depend on z-score rounding.
    uses_raw: bool = False
    # How the method scales (n records, d columns, k, g = n/k groups), as stated in its docstring and
    # shown by `mabench list algorithms --long`; e.g. time="O(n²·d/k)", memory="O(n·d)".
    time: str = ""
    memory: str = ""
    # Estimated peak bytes of one run (the data included), or None where memory is O(n·d) with a small
    # constant: a run whose estimate exceeds the machine is refused up front (mabench.memory).
    memory_bytes: Callable[[int, int, int, dict], int] | None = None
    # check(resolved params) raises UserError for what one parameter's range cannot say (e.g. a
    # search's init and init_params); runs in resolve, so before any work everywhere.
    check: Callable[[dict], None] | None = None
    max_columns: int | None = None  # e.g. 1 for a univariate method: checked before work (also in the workflow)

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

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        return resolve_params(f"data set {self.name}", self.params, given)
