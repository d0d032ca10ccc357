"""Metrics on available cases (``missing=available``): DLD, ID, eigen, il_correl and il_variables
over the observed cells, robeigen on the complete records as sdcMicro's does. docs/metrics.md#missing-values.

The cells a metric compares are those the ORIGINAL observes (a value ``fill=True`` gave a missing
cell has no original to compare with); z-scores use each variable's observed mean and sd (ddof 0),
as the methods and ``il`` do. With complete data every definition is the complete-data one.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mabench.errors import UserError
from mabench.metrics.context import EvalContext


def observed_pair(ctx: EvalContext) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, x', observed): the original and masked values, NaN wherever the original is missing."""
    seen = ctx.observed
    return ctx.original, np.where(seen, ctx.masked, np.nan), seen


def _z_pair(ctx: EvalContext) -> tuple[np.ndarray, np.ndarray]:
    x, xm, _ = observed_pair(ctx)
    mean, sd = np.nanmean(x, axis=0), np.nanstd(x, axis=0)
    return (x - mean) / sd, (xm - mean) / sd


@njit(cache=True, parallel=True)
def _linked(Z, M, seen):
    """Per masked record i (its observed cells of M), is i its own original's nearest or second-nearest
    by the scaled available-case distance (ties: lowest record index)? A pair with nothing in common
    has no distance; a record with no distance to anyone is not linked."""
    n, d = Z.shape
    out = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        d1, d2 = np.inf, np.inf
        i1, i2 = -1, -1
        for r in range(n):
            s = 0.0
            m = 0
            for j in range(d):
                if seen[i, j] and seen[r, j]:
                    t = Z[r, j] - M[i, j]
                    s += t * t
                    m += 1
            if m == 0:
                continue
            v = s if m == d else s * (d / m)
            if v < d1:
                d2, i2 = d1, i1
                d1, i1 = v, r
            elif v < d2:
                d2, i2 = v, r
        out[i] = 1 if (i1 == i or i2 == i) else 0
    return out


def warm_dld() -> None:
    """Compile the available-case linkage pass (the runner does, so a cell's metric time has no compiling)."""
    _linked(np.zeros((2, 1)), np.zeros((2, 1)), np.ones((2, 1), dtype=np.bool_))


def dld(ctx: EvalContext) -> float:
    """DLD on available cases: each masked record against every original over the attributes both
    observe (scaled by d/m, as the methods' distance); 100 · linked / n. O(n²·d)."""
    for name, default in (("dld_scale", "original"), ("linkage_ties", "index")):
        if ctx.options.get(name, default) != default:
            raise UserError(f"metric dld on data with missing values takes {name}={default} only (the option's default)")
    z, zm = _z_pair(ctx)
    seen = np.ascontiguousarray(ctx.observed)
    linked = _linked(np.ascontiguousarray(np.nan_to_num(z)), np.ascontiguousarray(np.nan_to_num(zm)), seen)
    return 100.0 * int(linked.sum()) / z.shape[0]


def interval_matches(x: np.ndarray, xm: np.ndarray, seen: np.ndarray, percentages, window) -> tuple[int, int]:
    """(Σ over P of the records whose every observed original value lies in its masked rank interval
    among that variable's observed records, the records with an observed value)."""
    n, d = x.shape
    inside = np.ones((len(percentages), n), dtype=bool)
    for j in range(d):
        rows = np.flatnonzero(seen[:, j])
        if rows.size == 0:
            continue
        order = np.argsort(xm[rows, j], kind="stable")  # ties -> record order
        s = xm[rows, j][order]
        pos = np.empty(rows.size, dtype=np.int64)
        pos[order] = np.arange(rows.size)
        for q, p in enumerate(percentages):
            m = window(p, rows.size)
            lb = s[np.maximum(pos - m, 0)]
            ub = s[np.minimum(pos + m, rows.size - 1)]
            inside[q, rows] &= (lb <= x[rows, j]) & (x[rows, j] <= ub)
    counted = seen.any(axis=1)
    return int(inside[:, counted].sum()), int(counted.sum())


def interval_disclosure(ctx: EvalContext, percentages, window) -> float:
    """ID on available cases: per variable the rank window is taken among the records observing it;
    a record counts if every value it has lies in its interval; records with no observed value are
    left out of numerator and denominator."""
    x, xm, seen = observed_pair(ctx)
    hits, records = interval_matches(x, xm, seen, percentages, window)
    return 100.0 * hits / (len(percentages) * records)


def pairwise_correlation(x: np.ndarray) -> np.ndarray:
    """Pearson correlations, each pair over the records observing both (R's
    ``cor(use = "pairwise.complete.obs")``)."""
    d = x.shape[1]
    out = np.eye(d)
    for a in range(d):
        for b in range(a + 1, d):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            if both.sum() < 2:
                raise UserError(f"variables {a + 1} and {b + 1} are observed together in fewer than 2 records; "
                                "their correlation (eigen, il_correl) is undefined on these data")
            out[a, b] = out[b, a] = np.corrcoef(x[both, a], x[both, b])[0, 1]
    return out


def correlations(ctx: EvalContext, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The pairwise-complete correlation matrices of x and x' (over the cells x observes)."""
    x, xm, _ = observed_pair(ctx)
    c, cm = pairwise_correlation(x), pairwise_correlation(xm)
    if not (np.isfinite(c).all() and np.isfinite(cm).all()):
        raise UserError(f"metric {name}: a variable is constant over the records that observe it together with "
                        "another, so a correlation is undefined; choose other metrics")
    return c, cm


def il_variables(ctx: EvalContext) -> float:
    """Mean of (2/π)·atan|x − x'| over the observed cells."""
    x, xm, seen = observed_pair(ctx)
    return float(np.sum((2.0 / np.pi) * np.arctan(np.abs(x[seen] - xm[seen]))) / int(seen.sum()))


def il_correl(ctx: EvalContext) -> float:
    """IL_correl with pairwise-complete correlation matrices."""
    c, cm = correlations(ctx, "il_correl")
    try:
        r, rm = np.diag(np.linalg.inv(c)), np.diag(np.linalg.inv(cm))
    except np.linalg.LinAlgError:
        raise UserError("metric il_correl: a pairwise-complete correlation matrix is singular; choose other "
                        "metrics") from None
    return float(np.sqrt(np.sum((r / np.sqrt(np.sum(r ** 2)) - rm / np.sqrt(np.sum(rm ** 2))) ** 2)) / np.sqrt(2.0))


def r_scale(a: np.ndarray) -> np.ndarray:
    """R's ``scale(x)`` with NA: each column centred by its observed mean and divided by its observed
    sample sd (n − 1); NaN stays NaN."""
    mean = np.nanmean(a, axis=0)
    sd = np.nanstd(a, axis=0, ddof=1)
    out = np.where(np.isnan(a), np.nan, 0.0)  # a constant column: 0, as standardized_sample gives
    np.divide(a - mean, sd, out=out, where=(sd > 0) & ~np.isnan(a))
    return out


def robeigen_pair(ctx: EvalContext, name: str = "robeigen") -> tuple[np.ndarray, np.ndarray]:
    """What sdcMicro's dUtility(method = "robeigen") gives robustbase's covMcd on data with NA:
    ``scale(x)`` and ``scale(xm)`` (each over its observed values), then only the records complete in
    both (covMcd drops a row with an NA). x' is NaN where x is (a filled value has no original)."""
    x, xm, seen = observed_pair(ctx)
    complete = seen.all(axis=1)
    d = x.shape[1]
    if int(complete.sum()) <= d:
        raise UserError(f"metric {name} on data with missing values needs more than {d} records with every variable "
                        f"observed (sdcMicro's covMcd drops the others); {int(complete.sum())} have; choose other "
                        "metrics")
    return r_scale(x)[complete], r_scale(xm)[complete]
