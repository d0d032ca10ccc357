"""Helpers shared by the metric modules: per-context caching and option checks.

Options come from ``--option NAME=JSON`` and from catalog / generator
defaults (``ctx.options``). Every check raises :class:`~mabench.errors.UserError`
with one line saying what is wrong and how to fix it.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from mabench.errors import UserError
from mabench.metrics.context import EvalContext

_CACHE = "_mabench_metric_cache"


def cached(ctx: EvalContext, key: str, compute):
    """``compute()`` once per context (composite metrics such as g_dr and si reuse their parts)."""
    store = ctx.__dict__.setdefault(_CACHE, {})
    if key not in store:
        store[key] = compute()
    return store[key]


def group_centroids(ctx: EvalContext, z: np.ndarray | None = None) -> np.ndarray:
    """Group means (g, d) of ``z`` (default: the z-scores, cached on the context): the groups' masked points."""
    if z is None:
        return ctx.centroids_z
    from mabench.kernels import group_means

    means, _ = group_means(np.ascontiguousarray(z), ctx.labels, ctx.n_groups)
    return means


def is_number(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value))


def number_option(ctx: EvalContext, name: str, default: float, lo: float | None = None,
                  hi: float | None = None, example: str = "") -> float:
    value = ctx.options.get(name, default)
    ok = is_number(value) and (lo is None or value >= lo) and (hi is None or value <= hi)
    if not ok:
        bounds = f" in [{lo}, {hi}]" if hi is not None else (f" >= {lo}" if lo is not None else "")
        raise UserError(f"option {name}={value!r} must be a number{bounds}; e.g. --option {name}={example or default}")
    return float(value)


def choice_option(ctx: EvalContext, name: str, default: str, choices: tuple[str, ...]) -> str:
    value = ctx.options.get(name, default)
    if value not in choices:
        raise UserError(f"option {name}={value!r} is not allowed; choose one of: {', '.join(choices)}")
    return value
