"""Symmetric linear algebra without BLAS: an eigendecomposition by cyclic Jacobi rotations in a fixed
sweep order, and the (pseudo-)inverse and log-determinant built on it. Every sum runs in index order,
so the results are the same bytes on every machine, at any thread count and with any numpy version
(the MCD kernel, ``mabench/kernels/methods/mcd.py``, and mcdpca's direction read them)."""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True)
def eigh_jacobi(A: np.ndarray, values: np.ndarray, vectors: np.ndarray, work: np.ndarray) -> None:
    """Eigenvalues and eigenvectors (columns) of the symmetric ``A`` by cyclic Jacobi rotations
    (Rutishauser's formulation, as Numerical Recipes' ``jacobi``): sweeps over the pairs (i, j),
    i < j, in row order until every off-diagonal element is 0 or negligible next to both diagonal
    elements. ``work`` (p, p) is scratch; ``A`` is left as it is. Values are not sorted.

    Parameters
    ----------
    A : (p, p) float64 — a symmetric matrix (not changed).
    values : (p,) float64 — filled: the eigenvalues, unsorted.
    vectors : (p, p) float64 — filled: the eigenvectors, column i for ``values[i]``.
    work : (p, p) float64 — scratch.

    Returns
    -------
    None

    Examples
    --------
    >>> import numpy as np
    >>> vals, vecs, work = np.empty(2), np.empty((2, 2)), np.empty((2, 2))
    >>> eigh_jacobi(np.array([[2.0, 1.0], [1.0, 2.0]]), vals, vecs, work)
    >>> sorted(np.round(vals, 12).tolist())
    [1.0, 3.0]
    """
    p = A.shape[0]
    for i in range(p):
        for j in range(p):
            work[i, j] = A[i, j]
            vectors[i, j] = 1.0 if i == j else 0.0
    for sweep in range(100):
        off = 0.0
        for i in range(p - 1):
            for j in range(i + 1, p):
                off += abs(work[i, j])
        if off == 0.0:
            break
        for i in range(p - 1):
            for j in range(i + 1, p):
                a = work[i, j]
                if a == 0.0:
                    continue
                g = 100.0 * abs(a)
                if sweep > 3 and abs(work[i, i]) + g == abs(work[i, i]) and abs(work[j, j]) + g == abs(work[j, j]):
                    work[i, j] = 0.0
                    work[j, i] = 0.0
                    continue
                diff = work[j, j] - work[i, i]
                if abs(diff) + g == abs(diff):
                    t = a / diff
                else:
                    theta = 0.5 * diff / a
                    t = 1.0 / (abs(theta) + np.sqrt(1.0 + theta * theta))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / np.sqrt(1.0 + t * t)
                s = t * c
                tau = s / (1.0 + c)
                work[i, i] -= t * a
                work[j, j] += t * a
                work[i, j] = 0.0
                work[j, i] = 0.0
                for r in range(p):
                    if r != i and r != j:
                        gi = work[r, i]
                        gj = work[r, j]
                        work[r, i] = gi - s * (gj + gi * tau)
                        work[i, r] = work[r, i]
                        work[r, j] = gj + s * (gi - gj * tau)
                        work[j, r] = work[r, j]
                for r in range(p):
                    gi = vectors[r, i]
                    gj = vectors[r, j]
                    vectors[r, i] = gi - s * (gj + gi * tau)
                    vectors[r, j] = gj + s * (gi - gj * tau)
    for i in range(p):
        values[i] = work[i, i]


@numba.njit(cache=True)
def inverse_logdet(cov: np.ndarray, precision: np.ndarray, values: np.ndarray, vectors: np.ndarray,
                   work: np.ndarray) -> float:
    """log det(cov), and its inverse into ``precision``. Eigenvalues at or below p·eps·(largest) count
    as 0: the log-determinant is then -inf and ``precision`` the pseudo-inverse (their directions
    dropped, as scikit-learn's ``pinvh``); a zero matrix gives a zero precision.

    Parameters
    ----------
    cov : (p, p) float64 — a symmetric positive semi-definite matrix (not changed).
    precision : (p, p) float64 — filled: the (pseudo-)inverse of ``cov``.
    values, vectors, work : (p,), (p, p), (p, p) float64 — scratch for :func:`eigh_jacobi`.

    Returns
    -------
    float — log det(cov); -inf when ``cov`` is singular (by the cutoff above).
    """
    p = cov.shape[0]
    eigh_jacobi(cov, values, vectors, work)
    top = 0.0
    for i in range(p):
        if values[i] > top:
            top = values[i]
    cutoff = p * 2.220446049250313e-16 * top
    logdet = 0.0
    for i in range(p):
        if values[i] > cutoff and top > 0.0:
            logdet += np.log(values[i])
        else:
            logdet = -np.inf
    for a in range(p):
        for b in range(p):
            s = 0.0
            for i in range(p):
                if values[i] > cutoff and top > 0.0:
                    s += vectors[a, i] * vectors[b, i] / values[i]
            precision[a, b] = s
    return logdet
