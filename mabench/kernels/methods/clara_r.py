"""CLARA exactly as R's ``cluster::clara(x, k)`` runs it with its defaults (Euclidean, ``samples`` = 5,
``sampsize`` = min(n, 40 + 2k), ``rngR = FALSE``, ``pamLike = FALSE``), the clustering sdcMicro's
``clustermethod = "clara"`` calls (docs/algorithms/sdcmicro.md#clara).

Kaufman & Rousseeuw (1990, ch. 3) leave the subsample draw open; R's cluster package (2.1.4,
``src/clara.c``) fixes it, and this module follows that description step by step:

* Draws: a 16-bit linear congruential generator, ``state <- (5761·state + 999) mod 65536``, state 0 at
  the start of every call, uniform ``state/65536``, record ``1 + floor(n·u)`` (1-based).
* Sample 1: ``sampsize`` distinct records, drawn one after another (a repeat is drawn again), kept in
  increasing order. Each later sample starts from the best medoids so far and is filled up the same
  way. When the sample is more than half the data (n < 2·sampsize), the draws pick the records left
  OUT (n − sampsize of them, never the best medoids after the first sample).
* On each sample: BUILD (the unselected object with the largest gain, the LAST of equal gains) and
  SWAP (the first improving (candidate, medoid) pair of least change, candidates outer, medoids inner;
  the pre-``pamLike`` swap gain, which differs from PAM's when an object's nearest medoid is swapped)
  on the sample's Euclidean distances.
* Every record is assigned to the medoid of least squared distance (a medoid to itself; the first
  medoid of equal distance); the sample's cost is the sum of the distances; a later sample replaces
  the best only if its cost is strictly smaller. Medoids are ordered by the first record assigned to
  them, and so are the clusters.
* Final clustering: each record to its nearest medoid (Euclidean, first of equal distance).
"""

from __future__ import annotations

import numba
import numpy as np

from mabench.kernels.core.distances import sq_between

LCG_MULT, LCG_ADD, LCG_MASK = 5761, 999, 0xFFFF


@numba.njit(cache=True)
def _draw(state: int, n: int):
    """(new state, 1-based record) of clara's own generator."""
    state = (state * LCG_MULT + LCG_ADD) & LCG_MASK
    k = 1 + int(n * (state / 65536.0))
    return state, min(k, n)


@numba.njit(cache=True)
def _draw_sample(n: int, nsam: int, state: int, best: np.ndarray, have_best: bool):
    """(state, 1-based sorted sample of nsam records) as clara.c's sampling loop draws it."""
    large = n < 2 * nsam
    n_draw = n - nsam if large else nsam
    sel = np.empty(max(n_draw, 1) + best.size, dtype=np.int64)
    ntt = 0
    if have_best and not large:
        for j in range(best.size):
            sel[j] = best[j]
        sel[:best.size].sort()
        ntt = best.size
    else:
        while True:
            state, r = _draw(state, n)
            clash = False
            if have_best:
                for j in range(best.size):
                    if best[j] == r:
                        clash = True
            if not clash:
                break
        sel[0] = r
        ntt = 1
    while ntt < n_draw:
        state, r = _draw(state, n)
        if have_best and large:
            clash = False
            for j in range(best.size):
                if best[j] == r:
                    clash = True
            if clash:
                continue
        pos = ntt
        dup = False
        for a in range(ntt):
            if sel[a] >= r:
                dup = sel[a] == r
                pos = a
                break
        if dup:
            continue
        for a in range(ntt, pos, -1):
            sel[a] = sel[a - 1]
        sel[pos] = r
        ntt += 1
    if not large:
        return state, sel[:nsam].copy()
    out = np.empty(nsam, dtype=np.int64)
    jk = 0
    js = 0
    for j in range(1, n + 1):
        if jk < n_draw and sel[jk] == j:
            jk += 1
        else:
            out[js] = j
            js += 1
    return state, out


@numba.njit(cache=True)
def _build_swap(dys: np.ndarray, kk: int) -> np.ndarray:
    """clara.c's bswap2 (pamLike = FALSE) on a sample's distance matrix; 0/1 flags of the medoids."""
    m = dys.shape[0]
    s = 0.0
    for i in range(m):
        for j in range(m):
            if dys[i, j] > s:
                s = dys[i, j]
    s = s * 1.1 + 1.0
    rep = np.zeros(m, dtype=np.int64)
    dysma = np.full(m, s)
    dysmb = np.full(m, s)
    for _ in range(kk):
        nmax = -1
        ammax = 0.0
        for i in range(m):
            if rep[i] == 0:
                gain = 0.0
                for j in range(m):
                    cmd = dysma[j] - dys[i, j]
                    if cmd > 0.0:
                        gain += cmd
                if ammax <= gain:
                    ammax = gain
                    nmax = i
        rep[nmax] = 1
        for j in range(m):
            if dysma[j] > dys[nmax, j]:
                dysma[j] = dys[nmax, j]
    if kk == 1:
        return rep
    while True:
        for j in range(m):
            dysma[j] = s
            dysmb[j] = s
            for i in range(m):
                if rep[i]:
                    if dysma[j] > dys[i, j]:
                        dysmb[j] = dysma[j]
                        dysma[j] = dys[i, j]
                    elif dysmb[j] > dys[i, j]:
                        dysmb[j] = dys[i, j]
        dzsky = 1.0
        hbest = -1
        ibest = -1
        for h in range(m):
            if rep[h]:
                continue
            for i in range(m):
                if not rep[i]:
                    continue
                dz = 0.0
                for j in range(m):
                    if dys[i, j] == dysma[j]:
                        small = dys[h, j] if dysmb[j] > dys[i, j] else dysmb[j]
                        dz += small - dysma[j]
                    elif dys[h, j] < dysma[j]:
                        dz += dys[h, j] - dysma[j]
                if dzsky > dz:
                    dzsky = dz
                    hbest = h
                    ibest = i
        if dzsky < 0.0:
            rep[hbest] = 1
            rep[ibest] = 0
        else:
            return rep


@numba.njit(cache=True)
def _assign_cost(X: np.ndarray, medoids: np.ndarray):
    """clara.c's selec: (cost, medoids reordered by first assigned record), both 1-based records."""
    n = X.shape[0]
    kk = medoids.size
    cost = 0.0
    order = np.empty(kk, dtype=np.int64)
    seen = np.zeros(kk, dtype=np.bool_)
    newf = 0
    for i in range(n):
        best = -1
        dnull = 0.0
        for jk in range(kk):
            r = medoids[jk] - 1
            dsum = 0.0
            if r != i:
                dsum = sq_between(X, r, i)  # clara.c squares |x_r - x_i|: the same bits
                if jk != 0 and dsum >= dnull:
                    continue
            dnull = dsum
            best = jk
        cost += np.sqrt(dnull)
        if not seen[best]:
            seen[best] = True
            order[newf] = best
            newf += 1
    # every medoid is assigned at least itself, so newf == kk
    return cost, medoids[order[:newf]]


@numba.njit(cache=True)
def _final_labels(X: np.ndarray, medoids: np.ndarray) -> np.ndarray:
    """clara.c's resul: each record to its nearest medoid (first of equal distance), 0-based labels."""
    n = X.shape[0]
    kk = medoids.size
    labels = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = -1
        dnull = 0.0
        for jk in range(kk):
            r = medoids[jk] - 1
            dsum = np.sqrt(sq_between(X, r, i))
            if jk == 0 or dnull > dsum:
                dnull = dsum
                best = jk
        labels[i] = best
    for jk in range(kk):
        labels[medoids[jk] - 1] = jk
    return labels


@numba.njit(cache=True)
def _clara(X: np.ndarray, kk: int, samples: int, nsam: int):
    n, d = X.shape
    state = np.int64(0)
    best = np.zeros(kk, dtype=np.int64)
    have_best = np.bool_(False)
    best_cost = -1.0
    full = n == nsam
    for _ in range(samples):
        if full:
            sel = np.arange(1, n + 1)
        else:
            state, sel = _draw_sample(n, nsam, state, best, have_best)
        dys = np.zeros((nsam, nsam))
        for a in range(nsam):
            for b in range(a):
                acc = 0.0
                for p in range(d):
                    t = X[sel[a] - 1, p] - X[sel[b] - 1, p]
                    acc += t * t
                dys[a, b] = np.sqrt(acc)
                dys[b, a] = dys[a, b]
        rep = _build_swap(dys, kk)
        medoids = np.empty(kk, dtype=np.int64)
        t = 0
        for j in range(nsam):
            if rep[j]:
                medoids[t] = sel[j]
                t += 1
        cost, ordered = _assign_cost(X, medoids)
        if not have_best or best_cost > cost:
            have_best = True
            best_cost = cost
            best = ordered.copy()
        if full:
            break
    return best, _final_labels(X, best)


def clara_r(X: np.ndarray, k: int, samples: int = 5, sampsize: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(medoids, labels) of R's ``cluster::clara(X, k)`` with its defaults: medoids 0-based record
    indices in R's cluster order, labels 0..k-1 (R's clustering minus 1).

    Parameters
    ----------
    X : (n, d) array_like of float — the records.
    k : int — the number of clusters.
    samples : int, default 5 — R's ``samples``.
    sampsize : int, optional — R's ``sampsize``; default ``min(n, 40 + 2k)``.

    Returns
    -------
    medoids : (k,) int64 — 0-based record ids of the medoids.
    labels : (n,) int64 — each record's cluster, 0..k-1.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    nsam = min(n, 40 + 2 * k) if sampsize is None else int(sampsize)
    medoids, labels = _clara(X, int(k), int(samples), nsam)
    return medoids - 1, labels
