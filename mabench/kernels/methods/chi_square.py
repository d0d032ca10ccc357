"""The chi-square distribution's tail and quantile for whole degrees of freedom, in closed form (no
SciPy, no BLAS), and the MCD consistency factor built on them (kernels/methods/mcd.py)."""

from __future__ import annotations

import math

def chi2_sf(x: float, dof: int) -> float:
    """P(chi2_dof > x) for a whole number of degrees of freedom, in closed form (Abramowitz &
    Stegun 26.4.4-26.4.5): a finite sum, with erfc for odd dof.

    Parameters
    ----------
    x : float — the quantile.
    dof : int — degrees of freedom (>= 1).

    Returns
    -------
    float

    Examples
    --------
    >>> round(chi2_sf(2.0, 2), 12)  # exp(-1)
    0.367879441171
    """
    if x <= 0.0:
        return 1.0
    half = 0.5 * x
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, dof // 2):
            term *= half / j
            total += term
        return math.exp(-half) * total
    total = 0.0
    if dof > 1:
        term = math.sqrt(2.0 * x / math.pi) * math.exp(-half)
        total = term
        for j in range(1, (dof - 1) // 2):
            term *= x / (2 * j + 1)
            total += term
    return math.erfc(math.sqrt(half)) + total


def chi2_isf(q: float, dof: int) -> float:
    """The x with P(chi2_dof > x) = q, by bisection to the last bit.

    Parameters
    ----------
    q : float — the upper tail probability, 0 < q < 1.
    dof : int — degrees of freedom.

    Returns
    -------
    float
    """
    lo, hi = 0.0, float(dof) + 1.0
    while chi2_sf(hi, dof) > q:
        hi *= 2.0
    while True:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            return hi
        if chi2_sf(mid, dof) > q:
            lo = mid
        else:
            hi = mid


def consistency(p: int, fraction: float) -> float:
    """robustbase's ``.MCDcons(p, alpha)``: the factor that makes the covariance of the fraction
    ``alpha`` of normal records nearest the centre consistent, alpha / P(chi2_{p+2} <= chi2_p(alpha)).

    Parameters
    ----------
    p : int — the number of variables.
    fraction : float — alpha = h / n.

    Returns
    -------
    float — the factor (1 when ``fraction`` >= 1).
    """
    if fraction >= 1.0:
        return 1.0
    q = chi2_isf(1.0 - fraction, p)
    return fraction / (1.0 - chi2_sf(q, p + 2))


# ----------------------------------------------------------------------------- the estimator
