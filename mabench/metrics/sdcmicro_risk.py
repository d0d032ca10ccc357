"""sdcMicro's ``dRiskRMD``: disclosure risk of continuous key variables from robust Mahalanobis
distances, on sdcMicro's scale (fractions, not percent). docs/metrics.md#rmd_risk1.

Source: sdcMicro 5.8.1 (sdcTools/sdcMicro cf32510) ``R/dRiskRMD.R`` ``dRiskRMDWORK``:

1. ``x`` and ``xm`` are each standardized with their OWN mean and sample sd (R's ``scale``).
2. ``rmd_i = 0.05 * sqrt((x_i - colMeans(x))' S^-1 (x_i - colMeans(x)))`` with ``S`` the MCD
   covariance of the standardized originals (robustbase ``covMcd``) and the centre the column means
   (0 after scaling), not the MCD centre.
3. Record i is at risk (level 1) iff for SOME variable j the masked value lies strictly inside
   ``x_ij ± k·rmd_i``; at risk at level 2 iff also its nearest OTHER masked record (Euclidean, on the
   standardized masked file) is farther than ``k2``.
4. ``risk1 = #level1 / n``, ``risk2 = #level2 / n``, ``wrisk1 = #level1 · Σ_level1 rmd / n``,
   ``wrisk2 = #level2 · Σ_level2 rmd / n`` (sdcMicro's products, as written), and the per-record
   index ``riskvec1``/``riskvec2`` (rmd_i where the record is at risk, else 0).

The per-record computation is :func:`rmd_risk`, which the metrics and a per-record risk writer share.
"""

from __future__ import annotations

import numpy as np

from mabench.kernels.methods.sdcmicro import standardized_sample
from mabench.metrics.context import EvalContext, metric, option
from mabench.metrics.common import cached, number_option

RMD_SCALE = 0.05  # sdcMicro: rmd <- sqrt(rmd) * 0.05
CHUNK = 1024  # rows of the nearest-neighbour search at a time (bounded memory: CHUNK x n doubles)


def robust_covariance(z: np.ndarray, seed: int = 0) -> np.ndarray:
    """The MCD covariance of standardized data, the estimator sdcMicro calls (robustbase ``covMcd``:
    reweighted MCD, consistency-corrected). mabench's MCD (``mabench.kernels.methods.sdcmicro.mcd_fit``:
    mabench's own BLAS-free reweighted FastMCD with robustbase's constants, mabench/kernels/methods/mcd.py) stands in for it; the random starts differ
    from robustbase's, so on data with an unstable h-subset the covariance (and the risk flags near
    the interval bounds) can differ (docs/metrics.md#rmd_risk1 states the tolerance)."""
    from mabench.kernels.methods.sdcmicro import mcd_fit

    return np.asarray(mcd_fit(z, np.random.default_rng(seed)).covariance, dtype=np.float64)


def rmd_index(z: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """0.05 · robust Mahalanobis distance of each standardized record from the column means."""
    centred = z - z.mean(axis=0)
    inv = np.linalg.inv(cov)  # R's mahalanobis(): solve(cov), then rowSums((x %*% inv) * x)
    d2 = np.einsum("ij,jk,ik->i", centred, inv, centred)
    return np.sqrt(np.maximum(d2, 0.0)) * RMD_SCALE


def nearest_other_distance(points: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each record in ``rows``, the Euclidean distance to its nearest other record of ``points``
    (sdcMicro's ``min(as.matrix(dist(xm))[i, -i])``), in chunks of :data:`CHUNK` rows."""
    out = np.empty(rows.size)
    for lo in range(0, rows.size, CHUNK):
        idx = rows[lo:lo + CHUNK]
        diff2 = np.empty((idx.size, points.shape[0]))
        for t, i in enumerate(idx):  # exact differences, not the |a|^2 + |b|^2 - 2ab shortcut
            delta = points - points[i]
            diff2[t] = np.einsum("ij,ij->i", delta, delta)
            diff2[t, i] = np.inf
        out[lo:lo + idx.size] = np.sqrt(diff2.min(axis=1))
    return out


def rmd_risk(x: np.ndarray, xm: np.ndarray, k: float = 0.01, k2: float = 0.05, cov: np.ndarray | None = None,
             seed: int = 0) -> dict:
    """sdcMicro's ``dRiskRMD(x, xm, k, k2)``: ``risk1``, ``risk2``, ``wrisk1``, ``wrisk2`` (floats), the
    per-record index ``rmd`` and ``riskvec1``, ``riskvec2`` (rmd where at risk, else 0). ``cov``: the robust covariance of
    the standardized originals (default :func:`robust_covariance`; pass robustbase's to reproduce R)."""
    z = standardized_sample(np.asarray(x, dtype=np.float64))
    zm = standardized_sample(np.asarray(xm, dtype=np.float64))
    n = z.shape[0]
    if cov is None:
        cov = robust_covariance(z, seed)
    rmd = rmd_index(z, np.asarray(cov, dtype=np.float64))
    half = k * rmd[:, None]
    inside = (zm > z - half) & (zm < z + half)
    level1 = np.flatnonzero(inside.any(axis=1))
    level2 = level1[nearest_other_distance(zm, level1) > k2] if level1.size and n > 1 else level1[:0]
    riskvec1 = np.zeros(n)
    riskvec1[level1] = rmd[level1]
    riskvec2 = np.zeros(n)
    riskvec2[level2] = rmd[level2]
    return {
        "rmd": rmd,
        "risk1": level1.size / n,
        "risk2": level2.size / n,
        "wrisk1": level1.size * float(rmd[level1].sum()) / n,
        "wrisk2": level2.size * float(rmd[level2].sum()) / n,
        "riskvec1": riskvec1,
        "riskvec2": riskvec2,
    }


def context_rmd_risk(ctx: EvalContext) -> dict:
    """:func:`rmd_risk` of a context (options ``rmd_k``, ``rmd_k2``, ``rmd_seed``), computed once per
    context and shared by the four metrics."""
    k = number_option(ctx, "rmd_k", 0.01, 0.0, example="0.01")
    k2 = number_option(ctx, "rmd_k2", 0.05, 0.0, example="0.05")
    seed = int(number_option(ctx, "rmd_seed", 0, 0, example="0"))
    return cached(ctx, f"rmd_risk k={k!r} k2={k2!r} seed={seed}",
                  lambda: rmd_risk(ctx.original, ctx.masked, k, k2, seed=seed))


# Read by the four metrics of dRiskRMD (rmd_seed also by robeigen, mabench/metrics/sdcmicro_utility.py).
RMD_OPTIONS = (option("rmd_k", "interval factor k of sdcMicro's dRiskRMD (x \u00b1 k*rmd), default 0.01"),
               option("rmd_k2", "nearest-other-record distance k2 of sdcMicro's dRiskRMD, default 0.05"),
               option("rmd_seed", "seed of the MCD's random starts in rmd_* and robeigen, default 0"))


def _register(name: str, doc: str):
    @metric(name, doc=doc, opt_in=True, options=RMD_OPTIONS)
    def fn(ctx: EvalContext) -> float:
        return context_rmd_risk(ctx)[name.removeprefix("rmd_")]

    fn.__name__ = name
    return fn


_register("rmd_risk1", "sdcMicro dRiskRMD risk1: share of records with a masked value within x ± k·rmd (rmd_k)")
_register("rmd_risk2", "sdcMicro dRiskRMD risk2: risk1's records whose nearest other masked record is > rmd_k2 away")
_register("rmd_wrisk1", "sdcMicro dRiskRMD wrisk1: #risk1 records x their summed rmd / n")
_register("rmd_wrisk2", "sdcMicro dRiskRMD wrisk2: #risk2 records x their summed rmd / n")
