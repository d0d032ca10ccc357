"""sdcMicro's utility measures of continuous variables, on sdcMicro's scale. docs/metrics.md#eigen.

Source: sdcMicro 5.8.1 (sdcTools/sdcMicro cf32510) ``R/dUtility.R``:

* ``eigen`` (``dUtility(x, xm, method = "eigen")``): Σ_j |e_j − e'_j| / e_j over the eigenvalues,
  largest first, of the covariance of ``scale(x)`` and of ``scale(xm)`` (= the two correlation
  matrices).
* ``robeigen`` (``method = "robeigen"``): the same with the MCD covariances of ``scale(x)`` and
  ``scale(xm)`` (robustbase ``covMcd`` in sdcMicro; mabench's MCD here, see
  :func:`mabench.metrics.sdcmicro_risk.robust_covariance`).
* ``il_correl`` (``IL_correl(x, xm)``): with ``r`` and ``r'`` the diagonals of the inverse correlation
  matrices, ‖r/‖r‖ − r'/‖r'‖‖ / √2.
* ``il_variables`` (``IL_variables(x, xm)``, numeric variables): Σ_ij (2/π)·atan|x_ij − x'_ij| / (n·d).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from mabench.kernels.methods.sdcmicro import standardized_sample
from mabench.metrics import available
from mabench.metrics.context import EvalContext, metric
from mabench.metrics.common import number_option
from mabench.metrics.sdcmicro_risk import robust_covariance


def _eigen_change(c1: np.ndarray, c2: np.ndarray) -> float:
    e1 = np.linalg.eigvalsh(c1)[::-1]  # R's eigen(symmetric): values in decreasing order
    e2 = np.linalg.eigvalsh(c2)[::-1]
    return float(np.sum(np.abs(e1 - e2) / e1))


def _sample_cov(z: np.ndarray) -> np.ndarray:
    return np.atleast_2d(np.cov(z, rowvar=False, ddof=1))


def eigen_change(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro dUtility(method = "eigen")."""
    return _eigen_change(_sample_cov(standardized_sample(x)), _sample_cov(standardized_sample(xm)))


def robeigen_change(x: np.ndarray, xm: np.ndarray, seed: int = 0, covs=None) -> float:
    """sdcMicro dUtility(method = "robeigen"); ``covs`` = (MCD cov of scale(x), of scale(xm)) to use
    given estimates (e.g. robustbase's) instead of mabench's MCD."""
    if covs is None:
        covs = (robust_covariance(standardized_sample(x), seed), robust_covariance(standardized_sample(xm), seed))
    return _eigen_change(np.asarray(covs[0]), np.asarray(covs[1]))


def il_correl(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro IL_correl (its variables in sorted name order; the value does not depend on the order)."""
    def diags(a):
        return np.diag(np.linalg.inv(np.atleast_2d(np.corrcoef(a, rowvar=False))))

    r, rm = diags(x), diags(xm)
    return float(np.sqrt(np.sum((r / np.sqrt(np.sum(r ** 2)) - rm / np.sqrt(np.sum(rm ** 2))) ** 2)) / np.sqrt(2.0))


def il_variables(x: np.ndarray, xm: np.ndarray) -> float:
    """sdcMicro IL_variables for numeric variables (complete data; missing values: metrics/available.py)."""
    n, d = x.shape
    return float(np.sum((2.0 / np.pi) * np.arctan(np.abs(x - xm))) / (n * d))


@metric("eigen", doc="sdcMicro dUtility eigen: Σ|e−e'|/e over the eigenvalues of cor(x) and cor(x') (missing "
        "values: pairwise-complete correlations)", opt_in=True)
def eigen(ctx: EvalContext) -> float:
    if ctx.observed is not None:
        return _eigen_change(*available.correlations(ctx, "eigen"))
    return eigen_change(ctx.original, ctx.masked)


@metric("robeigen", doc="sdcMicro dUtility robeigen: eigen with MCD covariances of scale(x), scale(x') (rmd_seed)",
        opt_in=True, options=("rmd_seed",))
def robeigen(ctx: EvalContext) -> float:
    seed = int(number_option(ctx, "rmd_seed", 0, 0, example="0"))
    return robeigen_change(ctx.original, ctx.masked, seed)


def _complete_or_available(complete, available_case, ctx: EvalContext) -> float:
    """A measure with a complete-data form ``complete(original, masked)`` and an available-case form
    ``available_case(ctx)`` for data with missing values."""
    if ctx.observed is not None:
        return available_case(ctx)
    return complete(ctx.original, ctx.masked)


metric("il_correl", doc="sdcMicro IL_correl: change of the normalized diagonal of the inverse correlation matrix "
       "(missing values: pairwise-complete correlations)",
       opt_in=True)(partial(_complete_or_available, il_correl, available.il_correl))
metric("il_variables", doc="sdcMicro IL_variables: mean of (2/π)·atan|x−x'| over all cells (missing values: over "
       "the observed cells), original units",
       opt_in=True)(partial(_complete_or_available, il_variables, available.il_variables))
