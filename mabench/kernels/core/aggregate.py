"""The value a group publishes for each variable: its mean, weighted mean, median, trimmed mean or
one-step estimate (sdcMicro's ``measure``; docs/metrics.md#aggregation-measures).

Definitions follow sdcMicro's ``microaggregation()`` (R/microaggregation.R, function ``means``) and
R's own estimators, computed per group and per column:

* ``mean``: the arithmetic mean; with weights ``w`` the weighted mean Σ w·x / Σ w.
* ``median``: R's ``median`` (the middle value, or the mean of the two middle values); with weights,
  sdcMicro's ``weightedMedian``: sort the values, accumulate w/Σw and take the first value whose
  cumulative share reaches 1/2; if the share equals 1/2 exactly, the mean of it and the next value.
  R sums in long double (``cumsum``, ``sum``); the sums here are compensated, so the share is the
  quotient of the correctly rounded sums, as R's is whenever long double rounds them correctly.
* ``trim``: R's ``mean(x, trim=t)``: drop ⌊n·t⌋ values at each end of the sorted group and average the
  rest; t ≥ 0.5 gives the median.
* ``onestep``: clip each value to median ± (3/1.486)·MAD (MAD = 1.4826·median|x − median|, R's ``mad``),
  then average the clipped values. (1.486 is sdcMicro's constant as written.)

Every group is sorted in a scratch buffer of the largest group's size (insertion sort: groups are small).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MEASURES = ("mean", "median", "trim", "onestep")
MEAN, MEDIAN, TRIM, ONESTEP = range(4)
MAD_SCALE = 1.4826  # R's mad() constant (consistency with the normal sd)
ONESTEP_LIMIT = 3.0 / 1.486  # sdcMicro's clipping constant


@njit(cache=True)
def _sort_prefix(buf, m):
    """Insertion sort of buf[:m] in place."""
    for i in range(1, m):
        v = buf[i]
        j = i - 1
        while j >= 0 and buf[j] > v:
            buf[j + 1] = buf[j]
            j -= 1
        buf[j + 1] = v


@njit(cache=True)
def _sort_pairs(vals, wts, m):
    """Insertion sort of vals[:m] carrying wts[:m] along (stable: equal values keep their order)."""
    for i in range(1, m):
        v = vals[i]
        w = wts[i]
        j = i - 1
        while j >= 0 and vals[j] > v:
            vals[j + 1] = vals[j]
            wts[j + 1] = wts[j]
            j -= 1
        vals[j + 1] = v
        wts[j + 1] = w


@njit(cache=True)
def _two_sum(a, b):
    """a + b as (rounded sum, exact rounding error) (Knuth's TwoSum; no fastmath, so not reassociated)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True)
def _exact_sum(buf, m):
    """Σ buf[:m] compensated (TwoSum, then the errors added back): the correctly rounded sum of a few
    weights, as R's long-double sum() and cumsum() give it; a plain double sum of (1/6, 1/3, 1/6, 1/6,
    1/6) is 1 + 2^-52, which puts the cumulative share 1/2 at 0.49999999999999994 and picks the wrong
    weighted median (docs/findings.md#weighted-median-share)."""
    hi = 0.0
    lo = 0.0
    for t in range(m):
        hi, err = _two_sum(hi, buf[t])
        lo += err
    return hi + lo


@njit(cache=True)
def _median_sorted(buf, m):
    half = m // 2
    if m % 2 == 1:
        return buf[half]
    return (buf[half - 1] + buf[half]) / 2.0


@njit(cache=True)
def _mean(buf, lo, hi):
    """Mean of buf[lo:hi] with R's second-pass correction (mean + mean of the residuals)."""
    m = hi - lo
    s = 0.0
    for i in range(lo, hi):
        s += buf[i]
    mu = s / m
    r = 0.0
    for i in range(lo, hi):
        r += buf[i] - mu
    return mu + r / m


@njit(cache=True)
def group_statistic(X, starts, members, measure, trim, weights, use_weights):
    """(n_groups, d) statistic of each group's values; groups in CSR layout (starts, members).

    Parameters
    ----------
    X : (n, d) float64 — the values, in the units published.
starts : (n_groups + 1,) int64 — group g's members are ``members[starts[g]:starts[g + 1]]`` (:func:`group_layout`).
    members : (n,) int64 — record ids, group by group.
    measure : int — ``MEAN``, ``MEDIAN``, ``TRIM`` or ``ONESTEP`` (the index into ``MEASURES``).
    trim : float — the fraction trimmed at each end (``TRIM`` only).
    weights : (n,) float64 — sampling weights (read only when ``use_weights``; may be empty otherwise).
    use_weights : bool — whether ``mean`` and ``median`` are weighted.

    Returns
    -------
    (n_groups, d) float64 — each group's statistic per column, as defined in the module docstring.
    """
    n_groups = starts.size - 1
    d = X.shape[1]
    out = np.empty((n_groups, d))
    largest = 0
    for g in range(n_groups):
        largest = max(largest, starts[g + 1] - starts[g])
    block = np.empty((largest, d))  # the group's rows, copied once (rows are contiguous in X)
    vals = np.empty(largest)
    wts = np.empty(largest)
    dev = np.empty(largest)
    for g in range(n_groups):
        lo = starts[g]
        m = starts[g + 1] - lo
        for t in range(m):
            row = members[lo + t]
            for j in range(d):
                block[t, j] = X[row, j]
        for j in range(d):
            for t in range(m):
                vals[t] = block[t, j]
                wts[t] = weights[members[lo + t]] if use_weights else 1.0
            if measure == MEAN:
                if use_weights:
                    sw = 0.0
                    swx = 0.0
                    for t in range(m):
                        sw += wts[t]
                        swx += wts[t] * vals[t]
                    out[g, j] = swx / sw
                else:
                    out[g, j] = _mean(vals, 0, m)
            elif measure == MEDIAN:
                if use_weights:
                    _sort_pairs(vals, wts, m)
                    total = _exact_sum(wts, m)
                    acc_hi = 0.0
                    acc_lo = 0.0
                    share = 0.0
                    pick = m - 1
                    for t in range(m):
                        acc_hi, err = _two_sum(acc_hi, wts[t])
                        acc_lo += err
                        share = (acc_hi + acc_lo) / total
                        if share >= 0.5:
                            pick = t
                            break
                    if share == 0.5 and pick + 1 < m:
                        out[g, j] = (vals[pick] + vals[pick + 1]) / 2.0
                    else:
                        out[g, j] = vals[pick]
                else:
                    _sort_prefix(vals, m)
                    out[g, j] = _median_sorted(vals, m)
            elif measure == TRIM:
                _sort_prefix(vals, m)
                if trim >= 0.5:
                    out[g, j] = _median_sorted(vals, m)
                else:
                    cut = int(np.floor(m * trim))
                    out[g, j] = _mean(vals, cut, m - cut)
            else:  # ONESTEP
                _sort_prefix(vals, m)
                med = _median_sorted(vals, m)
                for t in range(m):
                    dev[t] = abs(vals[t] - med)
                _sort_prefix(dev, m)
                limit = ONESTEP_LIMIT * MAD_SCALE * _median_sorted(dev, m)
                for t in range(m):
                    vals[t] = min(max(vals[t], med - limit), med + limit)
                out[g, j] = _mean(vals, 0, m)
    return out


@njit(cache=True)
def group_layout(labels, n_groups):
    """CSR layout of a partition by a counting sort: members[starts[g]:starts[g+1]] = records of g, ascending.

    Parameters
    ----------
    labels : (n,) int64 — each record's group, 0..n_groups-1.
    n_groups : int — how many groups.

    Returns
    -------
    starts : (n_groups + 1,) int64 — offsets into ``members``.
    members : (n,) int64 — record ids, group by group, ascending inside a group.

    Examples
    --------
    >>> import numpy as np
    >>> starts, members = group_layout(np.array([1, 0, 1, 0]), 2)
    >>> starts.tolist(), members.tolist()
    ([0, 2, 4], [1, 3, 0, 2])
    """
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    for i in range(labels.size):
        starts[labels[i] + 1] += 1
    for g in range(n_groups):
        starts[g + 1] += starts[g]
    fill = starts[:-1].copy()
    members = np.empty(labels.size, dtype=np.int64)
    for i in range(labels.size):
        members[fill[labels[i]]] = i
        fill[labels[i]] += 1
    return starts, members


def aggregate(X: np.ndarray, labels: np.ndarray, n_groups: int, measure: str = "mean", trim: float = 0.0,
              weights: np.ndarray | None = None) -> np.ndarray:
    """Each group's published values (n_groups, d) in the units of ``X``.

    Parameters
    ----------
    X : (n, d) array_like of float — the values, in the units published (not z-scores).
    labels : (n,) array_like of int — each record's group, 0..n_groups-1.
    n_groups : int — how many groups.
    measure : {"mean", "median", "trim", "onestep"}, default "mean" — sdcMicro's ``measure`` (module docstring).
    trim : float, default 0.0 — with ``"trim"``: the fraction dropped at each end.
    weights : (n,) array_like of float, optional — sampling weights for the weighted mean and median.

    Returns
    -------
    (n_groups, d) float64 — row g is the value group g publishes.

    Examples
    --------
    >>> import numpy as np
    >>> aggregate(np.array([[1.0], [2.0], [10.0], [4.0]]), np.array([0, 0, 1, 1]), 2).ravel().tolist()
    [1.5, 7.0]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    starts, members = group_layout(labels, n_groups)
    use_weights = weights is not None
    w = np.ascontiguousarray(weights if use_weights else np.ones(0), dtype=np.float64)
    return group_statistic(X, starts, members, MEASURES.index(measure), float(trim), w, use_weights)
