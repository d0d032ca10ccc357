"""FastMCD without BLAS: the Minimum Covariance Determinant estimator (Rousseeuw & Van Driessen 1999)
in Numba with sums in a fixed order, so that its result is the same bytes on every machine, at any
thread count and with any numpy/scipy version (docs/algorithms/sdcmicro.md, "The MCD kernel").

Everything a concentration step needs is here and written out: mean and covariance of a subset
(sums over the records in index order), a symmetric eigendecomposition (cyclic Jacobi, fixed sweep
order) for the log-determinant and the (pseudo-)inverse, squared Mahalanobis distances, and the h
smallest of them (ties to the lower record index). The random starts come from a SplitMix64 stream
seeded by one integer drawn from the cell's generator, never from numpy's generators, whose streams
numpy does not promise to keep across versions.

:func:`fit` is the entry point; it returns an :class:`MCD` with the raw and the reweighted estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from mabench.errors import UserError
from mabench.plugin import read_only
from mabench.kernels.core.linalg import eigh_jacobi, inverse_logdet
from mabench.kernels.methods.chi_square import chi2_isf, consistency
from mabench.kernels.methods.mcd_steps import below, distances, mean_cov, shuffle_prefix, smallest

# R&VD 1999 §3-4 (the numbers robustbase's covMcd uses: nsamp, nmini, kmini).
TRIALS = 500  # random (p+1)-subsets in all
SUBSET_SIZE = 300  # records per subset when the data are split (nmini)
MAX_SUBSETS = 5  # at most this many disjoint subsets (kmini); their union is the merged set
KEEP = 10  # candidates kept after each stage
START_STEPS = 2  # C-steps from each random start (and on the merged set)
FULL_STEPS = 100  # C-steps on the full data at most (k3), up to n·p = 10^5; they stop on no decrease
FULL_KEEP_UP_TO = 5000  # above this n only the best candidate goes to the full data
QUANTILE = 0.975  # reweighting: records with corrected distance below chi2_p(0.975) keep weight 1


# ----------------------------------------------------------------------------- concentration


@numba.njit(cache=True)
def concentrate(X, rows, h, loc, cov, steps, chosen, dist, s_loc, s_cov, s_chosen, precision, values,
                vectors, work, sel_work) -> float:
    """C-steps (R&VD 1999, Theorem 1) from the estimate (``loc``, ``cov``) on the records ``rows``:
    the h records of smallest distance give the next mean and covariance; at most ``steps`` times,
    stopping when the determinant does not decrease (a rise, possible only by rounding, is undone)
    or the covariance is singular (an exact fit: nothing is lower). ``loc``, ``cov``, ``chosen``
    (over ``rows``) hold the result; returns its log-determinant.

    Parameters
    ----------
    X : (n, p) float64 — the records.
    rows : (m,) int64 — the records the C-steps run on.
    h : int — the subset size.
    loc, cov : (p,), (p, p) float64 — the start estimate; the result.
    steps : int — at most this many C-steps.
    chosen : (m,) bool — the result's h-subset.
dist, s_loc, s_cov, s_chosen, precision, values, vectors, work, sel_work : arrays — scratch of shapes (m,), (p,), (p,
        p), (m,), (p, p), (p,), (p, p), (p, p), (m,) int64.

    Returns
    -------
    float — log det of the resulting covariance (-inf for an exact fit).
    """
    p = X.shape[1]
    m = rows.shape[0]
    previous = np.inf
    logdet = inverse_logdet(cov, precision, values, vectors, work)
    for step in range(steps):
        if logdet == -np.inf and step > 0:
            break
        distances(X, rows, loc, precision, dist[:m])
        for i in range(m):
            s_chosen[i] = chosen[i]
        for a in range(p):
            s_loc[a] = loc[a]
            for b in range(p):
                s_cov[a, b] = cov[a, b]
        smallest(dist[:m], h, chosen[:m], sel_work)
        mean_cov(X, rows, chosen, loc, cov)
        logdet = inverse_logdet(cov, precision, values, vectors, work)
        if step > 0 and not logdet < previous:
            if logdet > previous:
                for i in range(rows.shape[0]):
                    chosen[i] = s_chosen[i]
                for a in range(p):
                    loc[a] = s_loc[a]
                    for b in range(p):
                        cov[a, b] = s_cov[a, b]
                logdet = previous
            break
        previous = logdet
    return logdet


@numba.njit(cache=True)
def random_start(X, rows, h, state, pool, loc, cov, chosen, precision, values, vectors, work) -> None:
    """R&VD 1999 §3: mean and covariance of p + 1 random records of ``rows``; while that covariance
    is singular, more random records, up to h. R&VD add one at a time; here the subset doubles,
    so that discrete data (Census: most small subsets singular) need log2(h/(p+1)) checks, not h
    (one at a time cost 45-50 s per Census fit).

    Parameters
    ----------
    X : (n, p) float64 — the records.
    rows : (m,) int64 — the records drawn from.
    h : int — the largest subset.
    state : (1,) uint64 — the random stream's state (advanced).
    pool : (m,) int64 — scratch.
    loc, cov : (p,), (p, p) float64 — filled: the start estimate.
    chosen : (m,) bool — filled: the subset drawn.
    precision, values, vectors, work : arrays — scratch for :func:`~mabench.kernels.core.linalg.inverse_logdet`.

    Returns
    -------
    None
    """
    m = rows.shape[0]
    p = X.shape[1]
    for i in range(m):
        pool[i] = i
        chosen[i] = False
    size = min(p + 1, h)
    shuffle_prefix(state, pool[:m], size)
    for i in range(size):
        chosen[pool[i]] = True
    mean_cov(X, rows, chosen, loc, cov)
    while size < h and inverse_logdet(cov, precision, values, vectors, work) == -np.inf:
        grown = min(2 * size, h)
        for i in range(size, grown):
            j = i + below(state, m - i)
            t = pool[i]
            pool[i] = pool[j]
            pool[j] = t
            chosen[pool[i]] = True
        size = grown
        mean_cov(X, rows, chosen, loc, cov)


@numba.njit(cache=True)
def _best(logdets: np.ndarray, count: int, keep: int) -> np.ndarray:
    """Indices of the ``keep`` lowest of ``logdets[:count]``, lowest first, earlier on ties."""
    order = np.argsort(logdets[:count], kind="mergesort")
    return order[:min(keep, count)].copy()


@numba.njit(cache=True)
def fast_mcd(X: np.ndarray, h: int, seed: np.uint64, trials: int, subset_size: int, max_subsets: int,
             keep: int, start_steps: int, full_keep: int, full_steps: int, loc: np.ndarray, cov: np.ndarray,
             support: np.ndarray) -> float:
    """The raw MCD of ``X`` (n, p >= 2): ``loc``, ``cov`` (divided by h) and ``support`` (n) of the
    h-subset of lowest covariance determinant found; returns its log-determinant.

    R&VD 1999 §3-4: n < 2·subset_size: ``trials`` random starts with ``start_steps`` C-steps each on
    all records; else up to ``max_subsets`` disjoint random subsets of ``subset_size`` records,
    trials/subsets starts on each (h scaled to the subset), the ``keep`` best of each subset taken
    through ``start_steps`` C-steps on their union (the merged set). Then the ``full_keep`` best so
    far through at most ``full_steps`` C-steps on all records (fewer when the determinant stops
    decreasing); the lowest wins (earlier candidate on ties).

    Parameters
    ----------
    X : (n, p) float64 — the records (p >= 2).
    h : int — the subset size.
    seed : uint64 — the random stream's seed.
    trials, subset_size, max_subsets, keep, start_steps, full_keep, full_steps : int — the search's sizes, as above.
    loc : (p,) float64 — filled: the raw location.
    cov : (p, p) float64 — filled: the raw covariance.
    support : (n,) bool — filled: the h-subset.

    Returns
    -------
    float — the log-determinant of ``cov``.
    """
    n, p = X.shape
    state = np.empty(1, dtype=np.uint64)
    state[0] = seed
    # scratch, sized for the largest record set used (all n)
    dist = np.empty(n)
    sel_work = np.empty(n, dtype=np.int64)
    pool = np.empty(n, dtype=np.int64)
    chosen = np.zeros(n, dtype=np.bool_)
    s_chosen = np.zeros(n, dtype=np.bool_)
    s_loc = np.empty(p)
    s_cov = np.empty((p, p))
    precision = np.empty((p, p))
    values = np.empty(p)
    vectors = np.empty((p, p))
    work = np.empty((p, p))
    all_rows = np.arange(n)

    if n < 2 * subset_size:
        groups = 1
        size = n
        perm = all_rows
    else:
        groups = min(max_subsets, n // subset_size)
        size = subset_size
        perm = np.arange(n)
        shuffle_prefix(state, perm, groups * size)
    per_group = max(1, trials // groups)
    cand = groups * min(keep, per_group)
    c_loc = np.empty((cand, p))
    c_cov = np.empty((cand, p, p))
    c_det = np.empty(cand)
    t_loc = np.empty((per_group, p))
    t_cov = np.empty((per_group, p, p))
    t_det = np.empty(per_group)
    filled = 0
    for g in range(groups):
        rows = np.sort(perm[g * size:(g + 1) * size]) if groups > 1 else all_rows
        hg = h if groups == 1 else int(math.ceil(size * h / n))
        for t in range(per_group):
            random_start(X, rows, hg, state, pool, loc, cov, chosen, precision, values, vectors, work)
            t_det[t] = concentrate(X, rows, hg, loc, cov, start_steps + 1, chosen, dist, s_loc, s_cov,
                                   s_chosen, precision, values, vectors, work, sel_work)
            t_loc[t] = loc
            t_cov[t] = cov
        for t in _best(t_det, per_group, keep):
            c_loc[filled] = t_loc[t]
            c_cov[filled] = t_cov[t]
            c_det[filled] = t_det[t]
            filled += 1
    if groups > 1:
        merged = np.sort(perm[:groups * size])
        hm = int(math.ceil(merged.shape[0] * h / n))
        for t in range(filled):
            loc[:] = c_loc[t]
            cov[:] = c_cov[t]
            c_det[t] = concentrate(X, merged, hm, loc, cov, start_steps, chosen, dist, s_loc, s_cov,
                                   s_chosen, precision, values, vectors, work, sel_work)
            c_loc[t] = loc
            c_cov[t] = cov
    best_det = np.inf
    best_loc = np.empty(p)
    best_cov = np.empty((p, p))
    first = True
    for t in _best(c_det, filled, full_keep):
        loc[:] = c_loc[t]
        cov[:] = c_cov[t]
        det = concentrate(X, all_rows, h, loc, cov, full_steps, chosen, dist, s_loc, s_cov, s_chosen,
                          precision, values, vectors, work, sel_work)
        if first or det < best_det:
            first = False
            best_det = det
            best_loc[:] = loc
            best_cov[:] = cov
            support[:] = chosen[:n]
    loc[:] = best_loc
    cov[:] = best_cov
    return best_det


@numba.njit(cache=True)
def univariate_mcd(x: np.ndarray, h: int, support: np.ndarray) -> tuple:
    """The exact MCD for one variable (R&VD 1999 §2, after Rousseeuw & Leroy 1987): of the n - h + 1
    runs of h consecutive sorted values, the one of least variance (the first on ties); sums of the
    values centred on the median, updated as the run moves. Returns (mean, variance / h).

    Parameters
    ----------
    x : (n,) float64 — the values.
    h : int — the subset size.
    support : (n,) bool — filled: the h values of the chosen run.

    Returns
    -------
    (float, float) — the mean and the variance divided by h.
    """
    n = x.shape[0]
    order = np.argsort(x, kind="mergesort")
    y = np.empty(n)
    for i in range(n):
        y[i] = x[order[i]]
    centre = y[(n - 1) // 2]
    s1 = 0.0
    s2 = 0.0
    for i in range(h):
        v = y[i] - centre
        s1 += v
        s2 += v * v
    best = 0
    best_ss = s2 - s1 * s1 / h
    for start in range(1, n - h + 1):
        out = y[start - 1] - centre
        inn = y[start + h - 1] - centre
        s1 += inn - out
        s2 += inn * inn - out * out
        ss = s2 - s1 * s1 / h
        if ss < best_ss:
            best_ss = ss
            best = start
    for i in range(n):
        support[i] = False
    mean = 0.0
    for i in range(best, best + h):
        support[order[i]] = True
    for i in range(n):
        if support[i]:
            mean += x[i]
    mean /= h
    var = 0.0
    for i in range(n):
        if support[i]:
            var += (x[i] - mean) * (x[i] - mean)
    return mean, var / h


@dataclass(frozen=True)
class MCD:
    """A fitted MCD. ``raw_*``: the h-subset's mean and covariance (divided by h, uncorrected) and
    its records; ``raw_factor``: the consistency factor c(p, h/n) (:func:`~mabench.kernels.methods.chi_square.consistency`) that
    the raw covariance is multiplied by before the reweighting; ``location``, ``covariance``,
    ``support``: the reweighted estimate (the records whose distance under the corrected raw
    estimate is below chi2_p(0.975)), its covariance divided by the count and multiplied by
    ``reweight_factor`` = c(p, m/n) for the m records kept (robustbase's covMcd does both;
    scikit-learn >= 1.9 the first, and c(p, 0.975) for the second)."""

    raw_location: np.ndarray
    raw_covariance: np.ndarray
    raw_support: np.ndarray
    raw_factor: float
    location: np.ndarray
    covariance: np.ndarray
    support: np.ndarray
    reweight_factor: float
    h: int

    def mahalanobis(self, X: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distances of the rows of ``X`` under the reweighted estimate
        (pseudo-inverse when it is singular)."""
        return robust_distances(read_only(np.ascontiguousarray(X, dtype=np.float64)), self.location, self.covariance)


def robust_distances(X: np.ndarray, loc: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Squared Mahalanobis distances of the rows of ``X`` (pseudo-inverse for a singular ``cov``).

    Parameters
    ----------
    X : (n, p) ndarray of float — the records.
    loc : (p,) ndarray of float — the centre.
    cov : (p, p) ndarray of float — the covariance.

    Returns
    -------
    (n,) float64
    """
    p = cov.shape[0]
    precision = np.empty((p, p))
    inverse_logdet(np.ascontiguousarray(cov), precision, np.empty(p), np.empty((p, p)), np.empty((p, p)))
    out = np.empty(X.shape[0])
    distances(X, np.arange(X.shape[0]), np.ascontiguousarray(loc), precision, out)
    return out


def full_steps(n: int, p: int) -> int:
    """C-steps on the full data at most, by the size n·p: FULL_STEPS up to 10^5, then 10, 9, ... 2 for
    each further 10^5, 1 above 10^6 (R&VD's FASTMCD program, kept in robustbase's Fortran: on large
    data the merged set's candidates are already near their fixed point).

    Parameters
    ----------
    n, p : int — records and variables.

    Returns
    -------
    int — at most this many C-steps.
    """
    size = n * p
    if size <= 100_000:
        return FULL_STEPS
    return max(1, 12 - -(-size // 100_000))


def support_size(n: int, p: int) -> int:
    """h = ceil((n + p + 1) / 2) (scikit-learn's default; robustbase's floor differs when n + p is
    even), at most n.

    Parameters
    ----------
    n, p : int — records and variables.

    Returns
    -------
    int — h.

    Examples
    --------
    >>> support_size(10, 2)
    7
    """
    return min(n, (n + p + 2) // 2)


def fit(X: np.ndarray, seed: int) -> MCD:
    """Reweighted FastMCD of the rows of ``X`` with random starts from ``seed`` (an int >= 0).

    Degenerate data have a defined result, never an exception: a singular h-subset (an exact fit,
    common on discrete data) has the lowest possible determinant and wins, its distances use the
    pseudo-inverse; when at least h records coincide the raw covariance is 0, its pseudo-inverse 0,
    every raw distance 0, and the reweighting keeps every record (the classical mean and
    covariance); with h >= n (n <= p + 1) the raw estimate is the classical one.

    Parameters
    ----------
    X : (n, p) array_like of float — the records (finite).
    seed : int — the random starts' seed.

    Returns
    -------
    MCD — the raw and reweighted location, covariance and support.

    Raises
    ------
    UserError — an empty table or a NaN/inf value.
    """
    # read-only whatever the caller passes (a run's data, or a projection it made): one compile of each kernel
    X = read_only(np.ascontiguousarray(X, dtype=np.float64))
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise UserError(f"the MCD needs a table of at least one record and one variable, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise UserError("the MCD needs finite values; remove or impute the NaN/inf cells first")
    n, p = X.shape
    h = support_size(n, p)
    loc = np.empty(p)
    cov = np.empty((p, p))
    support = np.zeros(n, dtype=np.bool_)
    if h >= n:
        support[:] = True
        mean_cov(X, np.arange(n), support, loc, cov)
    elif p == 1:
        mean, var = univariate_mcd(np.ascontiguousarray(X[:, 0]), h, support)
        loc[0], cov[0, 0] = mean, var
    else:
        fast_mcd(X, h, np.uint64(seed), TRIALS, SUBSET_SIZE, MAX_SUBSETS, KEEP, START_STEPS,
                 KEEP if n <= FULL_KEEP_UP_TO else 1, full_steps(n, p), loc, cov, support)
    raw_factor = consistency(p, h / n)
    raw_dist = robust_distances(X, loc, cov) / raw_factor
    keep = raw_dist < chi2_isf(1.0 - QUANTILE, p)
    r_loc = np.empty(p)
    r_cov = np.empty((p, p))
    mean_cov(X, np.arange(n), keep, r_loc, r_cov)
    factor = consistency(p, float(keep.sum()) / n)
    return MCD(raw_location=loc, raw_covariance=cov, raw_support=support, raw_factor=raw_factor,
               location=r_loc, covariance=r_cov * factor, support=keep, reweight_factor=factor, h=h)


def first_component(X: np.ndarray, cov: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Scores of the rows of ``X`` - ``center`` on the eigenvector of the largest eigenvalue of
    ``cov`` (the first such on ties), its first non-zero element made non-negative (R's
    ``princomp(fix_sign = TRUE)``); Jacobi and ordered sums, no BLAS.

    Parameters
    ----------
    X : (n, p) array_like of float — the records.
    cov : (p, p) array_like of float — the covariance whose first eigenvector is used.
    center : (p,) array_like of float — the centre subtracted.

    Returns
    -------
    (n,) float64 — the scores.
    """
    p = cov.shape[0]
    values, vectors = np.empty(p), np.empty((p, p))
    eigh_jacobi(np.ascontiguousarray(cov, dtype=np.float64), values, vectors, np.empty((p, p)))
    v = vectors[:, int(np.argmax(values))].copy()
    nonzero = np.flatnonzero(v)
    if nonzero.size and v[nonzero[0]] < 0:
        v = -v
    return _scores(np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(center, dtype=np.float64), v)


@numba.njit(cache=True)
def _scores(X: np.ndarray, center: np.ndarray, v: np.ndarray) -> np.ndarray:
    n, p = X.shape
    out = np.empty(n)
    for i in range(n):
        s = 0.0
        for c in range(p):
            s += (X[i, c] - center[c]) * v[c]
        out[i] = s
    return out
