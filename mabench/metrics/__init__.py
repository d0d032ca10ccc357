"""Metric registry: every metric is computed from (original data, partition).

A metric is a function ``f(ctx: EvalContext) -> float`` registered with
``@metric("name", doc=...)``. The runner and ``mabench evaluate`` call
:func:`evaluate` with metric names; adding a metric means adding a function in
a module of this package (importing ``EvalContext`` and ``metric`` from :mod:`mabench.metrics.context`,
never from this package: that would be an import cycle) and importing the module at the bottom of this file.
Definitions, conventions and sources: docs/metrics.md.
"""

from __future__ import annotations

import numpy as np

from mabench.errors import UserError
from mabench.metrics.context import (GROUPS, OPTIONS, REGISTRY, EvalContext, Metric, column_means, metric,
                                     option, per_variable_context)

__all__ = ["REGISTRY", "GROUPS", "EvalContext", "Metric", "column_means", "metric", "per_variable_context", "OPTIONS", "option",
           "warm", "applicable", "parse_names", "check_options", "evaluate", "listing"]


def listing() -> list[str]:
    """One line per metric and per group name: name, when it is computed, its options, its description
    (`mabench list metrics`)."""
    lines = []
    for name, m in sorted(REGISTRY.items()):
        when = "when named" if m.opt_in else ("with key variables" if m.needs_key_variables else "default")
        opts = ", ".join(f"{o} ({OPTIONS[o]})" for o in m.options) or "no options"
        lines.append(f"{name}\t{when}\t{opts}\t{m.doc}")
    for name, members in sorted(GROUPS.items()):
        lines.append(f"{name}\tgroup\t{', '.join(members)}\tall of these")
    return lines


def warm(names, n: int, d: int, k: int, options: dict) -> None:
    """Compile the Numba kernels of the named metrics for n records of d columns at group size k (each
    metric's ``warm``, once per distinct one), so that no cell's metric time includes compiling: the
    workflow's compile step does it before the batches fan out, and every run before its cells."""
    done = set()
    for name in names:
        fn = REGISTRY[name].warm if name in REGISTRY else None
        if fn is not None and fn not in done:
            fn(n, d, k, options)
            done.add(fn)


def applicable(options: dict, available_cases: bool = False) -> list[str]:
    """Every registered metric that is defined for a data set with these options; ``available_cases``:
    for data with missing values, only those defined on available cases (:data:`AVAILABLE_CASES`)."""
    has_keys = any(key in options for key in ("key_variables", "key_variables_rule", "n_key_variables"))
    return [name for name, m in REGISTRY.items() if (has_keys or not m.needs_key_variables) and not m.opt_in
            and (not available_cases or name in AVAILABLE_CASES)]


def parse_names(text: str | None, default=("il",)) -> list[str]:
    if text is None:
        names = list(default)
    else:
        names = [t.strip() for t in text.split(",") if t.strip()]
        if not names:
            raise UserError(f"--metrics {text!r} names no metric; give comma-separated names, e.g. --metrics il,g_il")
    expanded = []
    for name in names:
        if name in GROUPS:
            expanded.extend(GROUPS[name])
        elif name in REGISTRY:
            expanded.append(name)
        else:
            raise UserError(f"unknown metric {name!r}; available: {', '.join(sorted([*REGISTRY, *GROUPS]))}")
    return list(dict.fromkeys(expanded))


def check_options(options: dict) -> None:
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise UserError(f"unknown metric option {unknown[0]!r}; known options: {', '.join(sorted(OPTIONS))}")


# Metrics that are scale-free by construction (computed on z-scores, whose standardization handles
# any magnitude: tests/cli/test_reliability.py). Every other metric also works in the data's own
# units, where a square of 1e300 overflows and a square of 1e-300 underflows to 0.
SCALE_FREE = {"il"}
# Metrics defined on available cases (missing=available; docs/metrics.md#missing-values).
AVAILABLE_CASES = {"il", "dld", "id", "eigen", "il_correl", "il_variables", "robeigen", "rl_rate"}
# sdcMicro measures that sdcMicro itself gives no number for on data with NA: why, per metric (prefix).
NOT_ON_MISSING = {
    "rmd_": "sdcMicro's dRiskRMD centres on colMeans(x) without na.rm, so one NA makes every record's distance NA "
            "and it reports a risk of 0",
    "summary_micro_": "sdcMicro's summary() of a microaggregation stops on NA (\"missing value where TRUE/FALSE "
                      "needed\")",
}


def _missing_refusal(name: str) -> str:
    """The one-line refusal of a metric that is not defined on available cases."""
    known = ", ".join(sorted(AVAILABLE_CASES))
    for prefix, why in NOT_ON_MISSING.items():
        if name.startswith(prefix):
            return (f"metric {name} is not defined on data with missing values: {why}; score the complete records "
                    f"(drop the rows with a missing value, missing=refuse) or use one of: {known}")
    return f"metric {name} is not defined on data with missing values; on available cases mabench computes: {known}"
EXTREME = 1e150  # |x| above (or nonzero below 1/EXTREME): its square leaves float64's normal range


def _magnitude_problem(values: np.ndarray) -> str | None:
    """A column whose squares overflow, or one whose every nonzero value is so small that its squares
    (and its sum of squares) underflow. A lone tiny value beside moderate ones is harmless: its square
    is negligible next to theirs."""
    a = np.abs(np.asarray(values, dtype=np.float64)).reshape(len(values), -1)
    big = float(a.max()) if a.size else 0.0
    if big > EXTREME:
        return f"values up to {big:.3g}"
    col_max = a.max(axis=0) if a.size else np.zeros(0)
    tiny = col_max[(col_max > 0) & (col_max < 1.0 / EXTREME)]
    if tiny.size:
        return f"a column whose values are at most {float(tiny.max()):.3g}"
    return None


def evaluate(ctx: EvalContext, names) -> dict[str, float]:
    """Each metric's value, or a UserError: never a NaN, an infinity or a number computed through an
    overflow or underflow (those would be printed as if true)."""
    import warnings

    check_options(ctx.options)
    if ctx.observed is not None:
        other = [name for name in names if name not in AVAILABLE_CASES]
        if other:
            raise UserError(_missing_refusal(other[0]))
    raw = [name for name in names if name not in SCALE_FREE]
    if raw:
        problem = _magnitude_problem(ctx.original)
        if problem is not None:
            raise UserError(
                f"metric {raw[0]} works in the data's own units, and these data hold {problem}, whose squares "
                f"leave the range of float64 (the result would be wrong); rescale the columns to moderate units "
                f"(e.g. divide by a power of ten) and re-run, or use --metrics il, which is scale-free")
    out = {}
    for name in names:
        try:
            with np.errstate(over="raise", invalid="raise", divide="raise"), warnings.catch_warnings():
                warnings.simplefilter("error", RuntimeWarning)
                value = float(REGISTRY[name].fn(ctx))
        except (FloatingPointError, RuntimeWarning, OverflowError, ZeroDivisionError) as exc:
            raise UserError(f"metric {name} cannot be computed reliably on these data ({exc}); rescale the "
                            "columns to moderate units and re-run") from None
        if not np.isfinite(value):
            raise UserError(f"metric {name} is not a finite number on these data ({value}); it is undefined here "
                            "(e.g. a constant column or a single group), choose other metrics")
        out[name] = value
    return out


from mabench.metrics import information_loss  # noqa: E402,F401  (registers il)
from mabench.metrics import utility  # noqa: E402,F401  (registers m1..m5, g_il)
from mabench.metrics import disclosure  # noqa: E402,F401  (registers dld, rld, id)
from mabench.metrics import score  # noqa: E402,F401  (registers g_dr, si)
from mabench.metrics import sdcmicro  # noqa: E402,F401  (registers sdid, il1s)
from mabench.metrics import sdcmicro_risk  # noqa: E402,F401  (registers rmd_risk1, rmd_risk2, rmd_wrisk1, rmd_wrisk2)
from mabench.metrics import sdcmicro_utility  # noqa: E402,F401  (registers eigen, robeigen, il_correl, il_variables)
from mabench.metrics import summary_micro  # noqa: E402,F401  (registers summary_micro_* and the group summary_micro)
from mabench.metrics import record_linkage  # noqa: E402,F401  (registers rl_rate)

# Every option a metric names is declared (so `mabench list metrics` can describe it), and every
# declared option is read by some metric.
for _m in REGISTRY.values():
    if set(_m.options) - set(OPTIONS):
        raise RuntimeError(f"metric {_m.name!r} reads undeclared options {sorted(set(_m.options) - set(OPTIONS))}")
if set(OPTIONS) - {_o for _m in REGISTRY.values() for _o in _m.options}:
    raise RuntimeError(f"metric options no metric reads: {sorted(set(OPTIONS) - {_o for _m in REGISTRY.values() for _o in _m.options})}")
