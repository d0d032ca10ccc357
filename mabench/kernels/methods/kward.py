"""The univariate k-Ward family on a 1-D score: projections and the shared run step.

kW, kWD, kWR and kWDR (001_26cfb99743cbb1f3.txt Ch. 3, Algorithms 2–4) work on
one sorted variable. Data with several columns are first projected on one
axis (Ch. 3 §3.5.4): ``zs`` = the sum of the z-scores, ``fpc`` = the scores on
the first principal component of the z-scores (the correlation matrix), with
the sign fixed so that the loading of largest magnitude is positive. The
partition found on the projection is evaluated on all (standardized)
columns by the runner. See docs/algorithms/kward.md.
"""

from __future__ import annotations

import time

import numpy as np

from mabench.plugin import Algorithm, Param, tiny_run
from mabench.errors import UserError
from mabench.kernels.methods.ward import kward_sorted, kwr_sorted

PROJECTIONS = ("none", "zs", "fpc")
PROJECTION = Param("none", "1-D axis for multi-column data: none | zs (sum of z-scores) | "
                           "fpc (first principal component)", PROJECTIONS)
THETA = Param("dynamic", "split threshold: a positive number (fixed) or dynamic")


def univariate(name: str, *, diagonal: bool, recursive: bool, time: str, memory: str, title: str,
               citation: str) -> Algorithm:
    """The declaration of a univariate k-Ward method (kW, kWD and their recursive forms kWR, kWDR):
    :func:`run_univariate` with these switches on the original values (one column) or a projection;
    the recursive ones also take ``theta``.

    Parameters
    ----------
    name : str — the plugin's name (kw, kwd, kwr, kwdr).
    diagonal, recursive : bool — the method's switches (:func:`run_univariate`).
    time, memory, title, citation : str — the plugin declaration's fields.

    Returns
    -------
    mabench.plugin.Algorithm — the declaration a plugin file assigns to ``ALGORITHM``.
    """

    def run(Z, k, params, rng, raw=None):
        return run_univariate(Z, k, params, name, diagonal=diagonal, recursive=recursive, raw=raw)

    def warm_up(n, d, k, params):
        # without a projection the method takes one column, whatever the warm-up's d
        tiny_run(algo, 1 if params["projection"] == "none" else d, k, params)

    algo = Algorithm(name=name, time=time, memory=memory, title=title, citation=citation, run=run,
                     params={"projection": PROJECTION, **({"theta": THETA} if recursive else {})},
                     deterministic=True, uses_raw=True, warm_up=warm_up)
    return algo


def project(Z: np.ndarray, how: str, who: str, raw: np.ndarray | None = None) -> np.ndarray:
    """The 1-D score the univariate method sorts on.

    One column is used in its original units when ``raw`` is given: univariate
    IL does not depend on the scale, but z-scoring rounds, and on data with
    many tied values (Census) the rounding changes which equal Ward increases
    tie and so the partition (Census Var10: 0.00349 raw vs 0.00352 on z-scores).

    Parameters
    ----------
    Z : (n, d) ndarray of float — the records (z-scores).
how : {"none", "zs", "fpc"} — the projection: the one column, the sum of z-scores, or the first principal component.
    who : str — the method's name, for the error message.
    raw : (n, d) ndarray, optional — the original values (used with ``how="none"``).

    Returns
    -------
    (n,) float64 — the score of each record.

    Raises
    ------
    UserError — ``how="none"`` on more than one column.
    """
    n, d = Z.shape
    if how == "none":
        if d != 1:
            raise UserError(f"{who} is univariate but the data have {d} columns; give --param projection=zs "
                            "(sum of z-scores) or projection=fpc (first principal component), or select one "
                            "column, e.g. 'tarragona[columns=3]'")
        return np.ascontiguousarray((Z if raw is None else raw)[:, 0], dtype=np.float64)
    if how == "zs":
        return Z.sum(axis=1)
    if how == "fpc":
        return Z @ first_component(Z)
    raise UserError(f"{who}: unknown projection {how!r}; choose one of: {', '.join(PROJECTIONS)}")


def first_component(Z: np.ndarray) -> np.ndarray:
    """Unit loading vector of the first principal component of the (standardized) columns.

    Sign convention: the loading with the largest absolute value is positive
    (the first such loading when several tie).

    Parameters
    ----------
    Z : (n, d) ndarray of float — the records (standardized).

    Returns
    -------
    (d,) float64 — the unit loading vector.
    """
    cov = (Z.T @ Z) / Z.shape[0]
    _, vecs = np.linalg.eigh(cov)
    v = vecs[:, -1].copy()
    if v[np.argmax(np.abs(v))] < 0:
        v = -v
    return v


def parse_theta(raw: str, who: str) -> float | None:
    """``theta=dynamic`` -> None; otherwise a positive number.

    Parameters
    ----------
    raw : str — the parameter's text.
    who : str — the method's name, for the error message.

    Returns
    -------
    float or None

    Raises
    ------
    UserError — not a positive number nor ``dynamic``.

    Examples
    --------
    >>> parse_theta("dynamic", "kwr"), parse_theta("0.8", "kwr")
    (None, 0.8)
    """
    if str(raw).strip().lower() == "dynamic":
        return None
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) or value <= 0:
        raise UserError(f"{who}: theta={raw!r} must be a positive number (e.g. theta=0.8) or theta=dynamic")
    return value


REPEATS = 3  # timings for the improvement ratio: best of 3 (ms-scale runs on a shared machine are noisy)


def _best_time(fn, repeats=REPEATS):
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def run_univariate(Z, k, params, who: str, diagonal: bool, recursive: bool, raw=None):
    """Sort the projection, run kW/kWD (or their recursive forms), map labels back to records.

    kWD, kWR and kWDR also time kW on the same sorted input in the same
    process (best of 3 runs each) and report ``own_seconds``, ``kw_seconds``
    and ``improvement`` = 100·(1 − own/kW) in the run record's info (the
    thesis's "Improv. (%)": a ratio, never absolute seconds). The runner's
    ``seconds`` therefore covers the repeats and the kW reference runs.

    Seed: 001_26cfb99743cbb1f3.txt Ch. 3 §3.2-3.4 (Algorithms 2-4).

    Parameters
    ----------
    Z : (n, d) ndarray of float — the records.
    k : int — the minimum group size.
    params : dict — the method's parameters (``projection``, ``theta``, ...).
    who : str — the method's name.
    diagonal, recursive : bool — kWD's diagonal merging; kWR's recursion.
    raw : (n, d) ndarray, optional — the original values, for ``projection=none``.

    Returns
    -------
labels or (labels, info) — (n,) int64 group labels; with ``diagonal`` or ``recursive`` also the run record's info
        dict.
    """
    x = project(Z, params["projection"], who, raw)
    order = np.argsort(x, kind="stable")  # ties keep record order
    xs = np.ascontiguousarray(x[order])
    labels = np.empty(x.size, dtype=np.int64)
    if not (diagonal or recursive):
        labels[order] = kward_sorted(xs, k, False)
        return labels
    info = {}
    if recursive:
        theta = parse_theta(params["theta"], who)
        own, (sorted_labels, splits, structure) = _best_time(lambda: kwr_sorted(xs, k, theta, diagonal))
        info.update(splits=splits, structure=structure)
    else:
        own, sorted_labels = _best_time(lambda: kward_sorted(xs, k, True))
    labels[order] = sorted_labels
    kw, _ = _best_time(lambda: kward_sorted(xs, k, False))
    info.update(own_seconds=own, kw_seconds=kw, improvement=100.0 * (1.0 - own / kw) if kw > 0 else float("nan"))
    return labels, info
