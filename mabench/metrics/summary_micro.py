"""sdcMicro's ``summary.micro`` utility statistics, one metric each (``summary_micro_amean``, ...),
and the group name ``summary_micro`` for all eleven. docs/metrics.md#summary_micro.

Source: sdcMicro 5.8.1 (sdcTools/sdcMicro cf32510) ``R/microaggregation.R`` ``summary.micro``; x the
original, x' the masked values, sums over the d variables (over the d x d cells for the matrices):

* ``amean``    Σ |mean − mean'| / |mean|
* ``amedian``  Σ |median − median'| / |median|                 (NaN terms dropped, R's na.rm)
* ``aonestep`` the same for the means after clipping each variable to median ± (3/1.486)·mad
* ``devvar``   Σ_cells |cov − cov'| / |cov| / d   (R's ``var`` of a data frame is its covariance matrix)
* ``amad``     Σ |mad − mad'| / |mad|              (mad = 1.4826·median|x − median|; NaN terms dropped)
* ``acov``     Σ_cells |cov − cov'| / |cov| / (2d)
* ``acor``     Σ_cells |cor − cor'| / |cor| / (2d)
* ``acors``    the same with Spearman's correlation
* ``adlm``     Σ |b − b'| over the slopes of the least-squares regression of variable 1 on the others
* ``atotals``  Σ |(T − T')/T| with T, T' the column totals of x and x'
* ``pmtotals`` Σ (T' − T)/T

``atotals``/``pmtotals``: sdcMicro multiplies T' by the result's ``fot``, which every
``microaggregation()`` method sets to 0, so sdcMicro always reports atotals = d and pmtotals = −d
(docs/findings.md#summary-micro-totals). mabench uses the masked totals as they are (fot = 1), which is
sdcMicro's formula with the factor its blow-up code computes for an unweighted file.
"""

from __future__ import annotations

import numpy as np

from mabench.metrics.context import GROUPS, EvalContext, metric
from mabench.metrics.common import cached

R_MAD = 1.4826
ONESTEP = 3.0 / 1.486  # sdcMicro's constant, as written

STATISTICS = ("amean", "amedian", "aonestep", "devvar", "amad", "acov", "acor", "acors", "adlm", "atotals",
              "pmtotals")


def _mad(x: np.ndarray) -> np.ndarray:
    med = np.median(x, axis=0)
    return R_MAD * np.median(np.abs(x - med), axis=0)


def _onestep_means(x: np.ndarray) -> np.ndarray:
    med = np.median(x, axis=0)
    limit = ONESTEP * _mad(x)
    return np.clip(x, med - limit, med + limit).mean(axis=0)


def _ranks(x: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(x, axis=0)  # average ranks of ties, as R's cor(method = "spearman")


def _cell_change(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sum(np.abs(a - b) / np.abs(a)))


def _slopes(x: np.ndarray) -> np.ndarray:
    design = np.column_stack([np.ones(x.shape[0]), x[:, 1:]])
    coef, *_ = np.linalg.lstsq(design, x[:, 0], rcond=None)
    return coef[1:]


def summary_micro(x: np.ndarray, xm: np.ndarray) -> dict[str, float]:
    """The eleven statistics of sdcMicro's summary.micro(x, x') (with fot = 1, see the module doc)."""
    x = np.asarray(x, dtype=np.float64)
    xm = np.asarray(xm, dtype=np.float64)
    d = x.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        cov, covm = np.atleast_2d(np.cov(x, rowvar=False)), np.atleast_2d(np.cov(xm, rowvar=False))
        cor, corm = np.atleast_2d(np.corrcoef(x, rowvar=False)), np.atleast_2d(np.corrcoef(xm, rowvar=False))
        rs, rsm = np.atleast_2d(np.corrcoef(_ranks(x), rowvar=False)), np.atleast_2d(np.corrcoef(_ranks(xm), rowvar=False))
        med, medm = np.median(x, axis=0), np.median(xm, axis=0)
        one, onem = _onestep_means(x), _onestep_means(xm)
        mad, madm = _mad(x), _mad(xm)
        mean, meanm = x.mean(axis=0), xm.mean(axis=0)
        total, totalm = x.sum(axis=0), xm.sum(axis=0)
        out = {
            "amean": float(np.sum(np.abs(mean - meanm) / np.abs(mean))),
            "amedian": float(np.nansum(np.abs(med - medm) / np.abs(med))),
            "aonestep": float(np.nansum(np.abs(one - onem) / np.abs(one))),
            "devvar": _cell_change(cov, covm) / d,
            "amad": float(np.nansum(np.abs(mad - madm) / np.abs(mad))),
            "acov": _cell_change(cov, covm) / (2 * d),
            "acor": _cell_change(cor, corm) / (2 * d),
            "acors": _cell_change(rs, rsm) / (2 * d),
            # one variable: no regressors, adlm undefined (NaN, which mabench reports as undefined)
            "adlm": float(np.nansum(np.abs(_slopes(x) - _slopes(xm)))) if d > 1 else float("nan"),
            "atotals": float(np.sum(np.abs((total - totalm) / total))),
            "pmtotals": float(np.sum((totalm - total) / total)),
        }
    return out


def _register(stat: str):
    name = f"summary_micro_{stat}"

    @metric(name, doc=f"sdcMicro summary.micro {stat} (docs/metrics.md#summary_micro)", opt_in=True)
    def fn(ctx: EvalContext) -> float:
        return cached(ctx, "summary_micro", lambda: summary_micro(ctx.original, ctx.masked))[stat]

    fn.__name__ = name
    return name


GROUPS["summary_micro"] = tuple(_register(stat) for stat in STATISTICS)
