"""Plain NumPy/SciPy reference for the deterministic parts of FastMCD (Rousseeuw & Van Driessen 1999):
one C-step from a given h-subset, the consistency factor, the reweighting step, the univariate MCD.

Written from the paper and robustbase's covMcd (docs/algorithms/sdcmicro.md, "The MCD kernel"), not
from mabench/kernels/methods/mcd.py: LAPACK's inverse and determinant, scipy's chi-square, sorting for the h
smallest, brute force over the windows. Arithmetic differs from the kernel, so comparisons are to a
tolerance, except the subsets (which records), which must be equal.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import chi2


def mean_cov(X, subset):
    """Mean and covariance divided by the count of the records ``subset`` (bool mask)."""
    Y = X[subset]
    loc = Y.mean(axis=0)
    return loc, (Y - loc).T @ (Y - loc) / len(Y)


def c_step(X, subset, h):
    """R&VD 1999 Theorem 1: the h records nearest (Mahalanobis) the subset's mean and covariance;
    ties to the lower index (stable sort). Returns the new mask and its log-determinant."""
    loc, cov = mean_cov(X, subset)
    diff = X - loc
    dist = np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff)
    new = np.zeros(len(X), dtype=bool)
    new[np.argsort(dist, kind="stable")[:h]] = True
    return new, np.linalg.slogdet(mean_cov(X, new)[1])[1]


def concentrate(X, subset, h, steps=200):
    """C-steps from ``subset`` until the determinant stops decreasing."""
    det = np.linalg.slogdet(mean_cov(X, subset)[1])[1]
    for _ in range(steps):
        new, new_det = c_step(X, subset, h)
        if not new_det < det:
            break
        subset, det = new, new_det
    return subset, det


def consistency(p, alpha):
    """Croux & Haesbroeck (1999) / Pison et al. (2002): alpha / P(chi2_{p+2} <= chi2_p^{-1}(alpha))."""
    return 1.0 if alpha >= 1 else alpha / chi2.cdf(chi2.ppf(alpha, p), p + 2)


def reweight(X, raw_subset, h):
    """robustbase's covMcd after the raw estimate: raw covariance times c(p, h/n), records with
    distance below chi2_p(0.975) kept, their mean and covariance (by count) times c(p, m/n)."""
    n, p = X.shape
    loc, cov = mean_cov(X, raw_subset)
    cov = cov * consistency(p, h / n)
    diff = X - loc
    keep = np.einsum("ij,jk,ik->i", diff, np.linalg.inv(cov), diff) < chi2.ppf(0.975, p)
    r_loc, r_cov = mean_cov(X, keep)
    return keep, r_loc, r_cov * consistency(p, keep.sum() / n)


def univariate(x, h):
    """Exact univariate MCD: the h consecutive sorted values of least variance (first on ties)."""
    order = np.argsort(x, kind="stable")
    y = x[order]
    variances = [np.var(y[i:i + h]) for i in range(len(x) - h + 1)]
    start = int(np.argmin(variances))
    subset = np.zeros(len(x), dtype=bool)
    subset[order[start:start + h]] = True
    return subset, x[subset].mean(), x[subset].var()
