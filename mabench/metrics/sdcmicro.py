"""sdcMicro-compatible measures, under their own names (never mixed with the thesis's).

Source: sdcMicro (sdcTools/sdcMicro, HEAD cf32510, 2026-04-22) ``R/dRisk.R``
``dRiskWORK`` and ``R/dUtility.R`` ``dUtilityWORK``; docs/metrics.md
"Metrics — exact definitions". Both run on ORIGINAL units, like sdcMicro.

* ``sdid`` (``dRisk(x, xm, k = 0.05)``, SDID): interval xm_ij ± p·sd(xm_j)
  with the sample sd (n − 1) of the MASKED column; a record is at risk iff
  every original value lies inside its interval (closed: sdcMicro tests
  ``x < mi | x > ma``). sdcMicro returns the FRACTION of records at risk;
  mabench returns the PERCENT (100 × sdcMicro's value). p = option ``sdid_p``.
* ``il1s`` (``dUtility(method = "IL1s")``): Σ_ij |x_ij − x'_ij| / (sd(x_j)·√2)
  with the sample sd of the ORIGINAL column — a SUM over all cells, as
  sdcMicro computes it (its normalised form is ``IL1old`` = il1s/(n·d)).
"""

from __future__ import annotations

import math

import numpy as np

from mabench.metrics.context import EvalContext, metric
from mabench.metrics.common import number_option


def _sample_sd(x: np.ndarray) -> np.ndarray:
    """R's sd(): n − 1 in the denominator (NaN for a single record, as in R)."""
    n = x.shape[0]
    if n < 2:
        return np.full(x.shape[1], np.nan)
    return x.std(axis=0, ddof=1)


def sdid_fraction(x: np.ndarray, xm: np.ndarray, p: float = 0.05) -> float:
    """sdcMicro's dRisk value (a fraction); NaN bounds count as 'inside', like R's na.rm."""
    sds = _sample_sd(xm)
    lo = xm - p * sds
    hi = xm + p * sds
    with np.errstate(invalid="ignore"):
        outside = (x < lo) | (x > hi)  # comparisons with NaN are False (R: NA, then na.rm = TRUE)
    return float(np.mean(~outside.any(axis=1)))


@metric("sdid", doc="SDID as sdcMicro dRisk: % of records with all originals in masked ± p·sd (p=sdid_p, 0.05)",
        options={"sdid_p": "interval half-width factor p of sdcMicro's SDID (x' \u00b1 p*sd)"})
def sdid(ctx: EvalContext) -> float:
    p = number_option(ctx, "sdid_p", 0.05, 0.0, example="0.05")
    return 100.0 * sdid_fraction(ctx.original, ctx.masked, p)


def il1s_sum(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro dUtility(method = "IL1s"): Σ |x − x'| / (sd(x)·√2), NaN terms dropped (na.rm)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.abs(x - xm) / (_sample_sd(x) * math.sqrt(2))
    return float(np.nansum(terms))


@metric("il1s", doc="IL1s as sdcMicro dUtility: Σ|x−x'|/(sd(x)·√2), a sum, original units")
def il1s(ctx: EvalContext) -> float:
    return il1s_sum(ctx.original, ctx.masked)
