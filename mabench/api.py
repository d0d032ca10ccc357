"""What a plugin declares.

An algorithm plugin (``algorithms/<name>.py``) defines ``ALGORITHM = Algorithm(...)``;
a generator plugin (``datasets/<name>.py``) defines ``GENERATORS = [Generator(...)]``.
Fetched data sets are rows of ``datasets/catalog.yaml``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .errors import UserError


@dataclass(frozen=True)
class Param:
    """One parameter of a plugin: its default, its type and, optionally, allowed values."""

    default: Any
    doc: str = ""
    choices: tuple | None = None

    def parse(self, owner: str, name: str, raw: Any) -> Any:
        kind = type(self.default)
        try:
            if kind is bool and isinstance(raw, str):
                if raw.lower() not in {"true", "false", "1", "0"}:
                    raise ValueError(raw)
                value = raw.lower() in {"true", "1"}
            else:
                value = kind(raw)
        except (TypeError, ValueError):
            raise UserError(
                f"{owner}: parameter {name}={raw!r} is not a {kind.__name__}; "
                f"give e.g. {name}={self.default}"
            ) from None
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(c) for c in self.choices)
            raise UserError(f"{owner}: parameter {name}={raw!r} is not allowed; choose one of: {allowed}")
        return value


def resolve_params(owner: str, declared: dict[str, Param], given: dict[str, Any]) -> dict[str, Any]:
    """Defaults overlaid with ``given`` (strings or values), each checked against its declaration."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise UserError(f"{owner}: unknown parameter {unknown[0]!r}; known parameters: {known}")
    out = {name: p.default for name, p in declared.items()}
    for name, raw in given.items():
        out[name] = declared[name].parse(owner, name, raw)
    return out


def format_params(params: dict[str, Any]) -> str:
    """Canonical ``a=1,b=x`` form (sorted), used in file names and result tables."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params))


# run(Z, k, params, rng) -> labels, or (labels, extra): extra is a dict of JSON-serializable fields
# added to the run record (mabench.runner.split_output). Z is the standardized (n, d) float64 C-contiguous data.
RunFn = Callable[[np.ndarray, int, dict, np.random.Generator], np.ndarray]


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

    def resolve(self, given: dict[str, Any]) -> dict[str, Any]:
        return resolve_params(f"algorithm {self.name}", self.params, given)


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
