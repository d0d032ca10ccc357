"""The building blocks of FastMCD's concentration steps (kernels/methods/mcd.py), each with its sums
in a fixed order: the SplitMix64 stream of the random starts (seeded by one integer from the cell's
generator, never numpy's generators, whose streams numpy does not promise to keep across versions),
the mean and covariance of a subset, squared Mahalanobis distances, and the h smallest of them (ties
to the lower record index)."""

from __future__ import annotations

import numba
import numpy as np

from mabench.kernels.core.select import select_by_key

@numba.njit(cache=True)
def next_u64(state: np.ndarray) -> np.uint64:
    """SplitMix64 (Steele, Lea & Flood 2014): the stream's next 64-bit word.

    Parameters
    ----------
    state : (1,) uint64 — the stream's state (advanced).

    Returns
    -------
    uint64
    """
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(cache=True)
def below(state: np.ndarray, m: int) -> int:
    """An integer in [0, m): 53 random bits as a fraction of 1, times m (bias < m / 2^53).

    Parameters
    ----------
    state : (1,) uint64 — the stream's state (advanced).
    m : int — the bound (>= 1).

    Returns
    -------
    int
    """
    u = np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return np.int64(u * m)


@numba.njit(cache=True)
def shuffle_prefix(state: np.ndarray, pool: np.ndarray, count: int) -> None:
    """Fisher-Yates on the first ``count`` places: ``pool[:count]`` becomes a uniform random sample
    (in random order) of ``pool``'s values.

    Parameters
    ----------
    state : (1,) uint64 — the stream's state (advanced).
    pool : (m,) int64 — permuted in place.
    count : int — how many places to draw (<= m).

    Returns
    -------
    None
    """
    m = pool.shape[0]
    for i in range(count):
        j = i + below(state, m - i)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t


@numba.njit(cache=True)
def mean_cov(X: np.ndarray, rows: np.ndarray, chosen: np.ndarray, loc: np.ndarray, cov: np.ndarray) -> None:
    """Mean and covariance (divided by the count, as scikit-learn's) of the records ``rows[i]`` with
    ``chosen[i]``, summed in the order of ``rows``.

    Parameters
    ----------
    X : (n, p) float64 — the records.
    rows : (m,) int64 — record ids.
    chosen : (m,) bool — which of ``rows`` count.
    loc : (p,) float64 — filled: the mean.
    cov : (p, p) float64 — filled: the covariance.

    Returns
    -------
    None
    """
    p = X.shape[1]
    m = 0
    for c in range(p):
        loc[c] = 0.0
    for i in range(rows.shape[0]):
        if chosen[i]:
            m += 1
            for c in range(p):
                loc[c] += X[rows[i], c]
    for c in range(p):
        loc[c] /= m
    for a in range(p):
        for b in range(p):
            cov[a, b] = 0.0
    for i in range(rows.shape[0]):
        if chosen[i]:
            r = rows[i]
            for a in range(p):
                da = X[r, a] - loc[a]
                for b in range(a, p):
                    cov[a, b] += da * (X[r, b] - loc[b])
    for a in range(p):
        for b in range(a, p):
            cov[a, b] /= m
            cov[b, a] = cov[a, b]


@numba.njit(cache=True)
def distances(X: np.ndarray, rows: np.ndarray, loc: np.ndarray, precision: np.ndarray, out: np.ndarray) -> None:
    """Squared Mahalanobis distance of each record ``rows[i]`` to ``loc`` under ``precision``:
    sum over a, b of d_a·P_ab·d_b, a then b in column order.

    Parameters
    ----------
    X : (n, p) float64 — the records.
    rows : (m,) int64 — record ids.
    loc : (p,) float64 — the centre.
    precision : (p, p) float64 — the inverse covariance.
    out : (m,) float64 — filled: the distances.

    Returns
    -------
    None
    """
    p = X.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        s = 0.0
        for a in range(p):
            t = 0.0
            for b in range(p):
                t += precision[a, b] * (X[r, b] - loc[b])
            s += (X[r, a] - loc[a]) * t
        out[i] = s


@numba.njit(cache=True)
def smallest(dist: np.ndarray, h: int, chosen: np.ndarray, work: np.ndarray) -> None:
    """``chosen[i]`` for the h smallest ``dist[i]``; equal distances at the cut go to lower i.

    Parameters
    ----------
    dist : (m,) float64 — the distances.
    h : int — how many to choose (1 <= h <= m).
    chosen : (m,) bool — filled: the h chosen.
    work : (>= m,) int64 — scratch.

    Returns
    -------
    None
    """
    m = dist.shape[0]
    for i in range(m):
        work[i] = i
    select_by_key(dist, work, 0, m, h - 1)
    cut = dist[work[h - 1]]
    below = 0
    for i in range(m):
        chosen[i] = dist[i] < cut
        if chosen[i]:
            below += 1
    for i in range(m):
        if below == h:
            break
        if dist[i] == cut:
            chosen[i] = True
            below += 1
