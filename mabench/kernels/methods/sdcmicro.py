"""The building blocks of sdcMicro's ``microaggregation()`` methods (docs/algorithms/sdcmicro.md).

sdcMicro (sdcTools/sdcMicro 5.8.1, ``R/microaggregation.R``) forms most of its groups the same way:
put the records in one order (a projection, a variable, clusters one after another) and cut that
order into consecutive groups of ``aggr`` records, the last group taking the remainder
(``indexMicro``). This module holds that cut (:func:`chunk_labels`), the orderings, the greedy
loop of ``rmd`` and the projection-pursuit direction of ``pppca`` (Numba), the robust estimator's
entry (mabench's own FastMCD, mabench/kernels/methods/mcd.py) and thin wrappers around the libraries that
supply the clusterings (``kmedoids``' PAM, scikit-learn's KMeans). The libraries are imported on first use, so the core
install works without them; a missing one is a one-line :class:`UserError` naming the extra.
"""

from __future__ import annotations

import numba
import numpy as np

from mabench.errors import UserError
from mabench.kernels.methods import mcd
from mabench.kernels.spatial.kdtree import kd_delete, kd_nearest_k, kd_remaining, kd_scratch, tree_pays
from mabench.kernels.spatial.index_choice import TREE_FROM
from mabench.kernels.spatial.treegroups import REBUILD
from mabench.plugin import Param, read_only

EXTRA_HINT = "pip install 'mabench[sdcmicro]'"
R_MAD = 1.4826  # R's mad() consistency constant, used by sdcMicro's projection pursuit


def need(module: str, method: str):
    """Import a library of the ``sdcmicro`` extra, or raise the one-line install hint.

    Parameters
    ----------
    module : str — the module to import (e.g. ``"sklearn.cluster"``).
    method : str — the algorithm asking, for the message.

    Returns
    -------
    module

    Raises
    ------
    UserError — the package is not installed.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"algorithm {method} needs the package {module.split('.')[0]!r}; "
                        f"install it with {EXTRA_HINT}") from None


def seed_from(rng: np.random.Generator) -> int:
    """An integer random state for a library, drawn from the cell's generator.

    Parameters
    ----------
    rng : numpy.random.Generator — the cell's generator (advanced by one draw).

    Returns
    -------
    int — in [0, 2**31 - 1).
    """
    return int(rng.integers(0, 2**31 - 1))


# ----------------------------------------------------------------------------- the cut


def chunk_labels(order: np.ndarray, k: int) -> np.ndarray:
    """Consecutive groups of ``k`` along ``order``; the last group takes the remainder (k..2k-1).

    sdcMicro's ``indexMicro``: floor(n/k) groups, all of size k except the last. sdcMicro refuses
    n < 2k; here k <= n < 2k gives one group of all records.

    Parameters
    ----------
    order : (n,) ndarray of int — the records in sequence order.
    k : int — the group size.

    Returns
    -------
    (n,) int64 — each record's group, numbered along ``order``.

    Examples
    --------
    >>> import numpy as np
    >>> chunk_labels(np.array([4, 3, 2, 1, 0]), 2).tolist()
    [1, 1, 1, 0, 0]
    """
    n = order.shape[0]
    groups = max(n // k, 1)
    position = np.minimum(np.arange(n) // k, groups - 1)
    labels = np.empty(n, dtype=np.int64)
    labels[order] = position
    return labels


def stable_order(values: np.ndarray) -> np.ndarray:
    """Ascending order, equal values by record index (R's ``order`` / ``sort(index.return=TRUE)``,
    both stable radix sorts for vectors below 2^31 elements).

    Parameters
    ----------
    values : (n,) ndarray — the scores.

    Returns
    -------
    (n,) int64 — record ids in ascending order of ``values``.
    """
    return np.argsort(values, kind="stable")


# ----------------------------------------------------------------------------- projections


def first_pc_scores(X: np.ndarray, cov: np.ndarray, center: np.ndarray) -> np.ndarray:
    """Scores on the first eigenvector of ``cov``; the vector's first element is made non-negative
    (R's ``princomp(fix_sign = TRUE)``); if it is 0 (a constant column), the first non-zero one.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.
    cov : (d, d) ndarray of float — the covariance.
    center : (d,) ndarray of float — the centre subtracted.

    Returns
    -------
    (n,) float64
    """
    _, vectors = np.linalg.eigh(cov)
    v = vectors[:, -1].copy()
    nonzero = np.flatnonzero(v)
    if nonzero.size and v[nonzero[0]] < 0:
        v = -v
    return (X - center) @ v


def standardized_sample(X: np.ndarray) -> np.ndarray:
    """R's ``scale(x)``: centred by the mean, divided by the sample sd (n - 1).

    A constant column (sd 0) becomes 0 instead of R's NaN (which makes princomp stop).

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.

    Returns
    -------
    (n, d) float64
    """
    mean = X.mean(axis=0)
    sd = X.std(axis=0, ddof=1) if X.shape[0] > 1 else np.zeros(X.shape[1])
    out = np.zeros_like(X)
    np.divide(X - mean, sd, out=out, where=sd > 0)
    return out


def pca_scores(X: np.ndarray) -> np.ndarray:
    """``princomp(scale(x))$scores[, 1]``: the first principal component of the correlation matrix.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records (original units).

    Returns
    -------
    (n,) float64 — each record's score on the first component.
    """
    Y = standardized_sample(X)
    n = Y.shape[0]
    center = Y.mean(axis=0)
    cov = (Y - center).T @ (Y - center) / n
    return first_pc_scores(Y, cov, center)


def mcd_fit(X: np.ndarray, rng: np.random.Generator) -> mcd.MCD:
    """Reweighted FastMCD (Rousseeuw & Van Driessen 1999) with h = ceil((n + d + 1)/2), mabench's own
    BLAS-free kernel (mabench/kernels/methods/mcd.py); its random starts come from the cell seed.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records; rng : numpy.random.Generator — the cell's generator.

    Returns
    -------
    mabench.kernels.methods.mcd.MCD — the fit.
    """
    return mcd.fit(X, seed_from(rng))


def mcdpca_scores(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """sdcMicro's mcdpca: the first eigenvector of the MCD covariance of the UNSCALED data
    (``princomp(covmat = cov.mcd(x))`` reads ``$cov``), scores of the MCD-centred records.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records (original units).
    rng : numpy.random.Generator — the cell's generator (the MCD's random starts).

    Returns
    -------
    (n,) float64 — the scores on the MCD covariance's first eigenvector.
    """
    fit = mcd_fit(X, rng)
    return mcd.first_component(X, fit.covariance, fit.location)


@numba.njit(cache=True)
def _median_inplace(buf: np.ndarray) -> float:
    m = buf.shape[0]
    buf.sort()
    half = m // 2
    if m % 2 == 1:
        return buf[half]
    return (buf[half - 1] + buf[half]) / 2.0


@numba.njit(cache=True)
def pp_direction(X: np.ndarray, Xc: np.ndarray) -> int:
    """Index of the candidate direction of largest MAD (Croux & Ruiz-Gazen 2005, as sdcMicro's
    ``prcompRob``): candidates are the median-centred records normalised to length 1; each is
    scored by the MAD of the projections of the records; equal MADs go to the LAST index (R's
    ``order(s)[n]``). Records at the median (length 0) are no candidate; -1 if none is left.

    Parameters
    ----------
    X : (n, d) float64 — the records.
    Xc : (n, d) float64 — the records minus the column medians.

    Returns
    -------
    int — the candidate's record index, or -1.
    """
    n, d = X.shape
    proj = np.empty(n)
    dev = np.empty(n)
    best = -1
    best_s = -1.0
    direction = np.empty(d)
    for i in range(n):
        norm2 = 0.0
        for c in range(d):
            norm2 += Xc[i, c] * Xc[i, c]
        if norm2 == 0.0:
            continue
        norm = np.sqrt(norm2)
        for c in range(d):
            direction[c] = Xc[i, c] / norm
        for j in range(n):
            s = 0.0
            for c in range(d):
                s += direction[c] * X[j, c]
            proj[j] = s
        for j in range(n):
            dev[j] = proj[j]
        med = _median_inplace(dev)
        for j in range(n):
            dev[j] = abs(proj[j] - med)
        mad = R_MAD * _median_inplace(dev)
        if mad >= best_s:
            best_s = mad
            best = i
    return best


def pppca_scores(X: np.ndarray) -> np.ndarray:
    """First robust principal component by projection pursuit (sdcMicro's ``prcompRob``,
    Croux & Ruiz-Gazen 2005): median-centred scores along the candidate direction of largest MAD,
    its first element made non-negative.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records (original units).

    Returns
    -------
    (n,) float64 — the robust scores (all 0 when every record is at the median).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    Xc = np.ascontiguousarray(X - np.median(X, axis=0))
    j = pp_direction(X, Xc)
    if j < 0:  # every record at the median: no direction, keep the record order
        return np.zeros(X.shape[0])
    v = Xc[j] / np.sqrt(np.sum(Xc[j] * Xc[j]))
    if v[0] < 0:
        v = -v
    return Xc @ v


# ----------------------------------------------------------------------------- rmd


@numba.njit(cache=True)
def rmd_labels(Y: np.ndarray, md: np.ndarray, k: int) -> np.ndarray:
    """sdcMicro's rmd loop: floor(n/k) - 1 times, the remaining record of largest robust
    Mahalanobis distance (first index on ties) and its k - 1 nearest remaining records (Euclidean
    on ``Y``; the seed itself is at distance 0; ties to the lower index) form a group; the rest
    (k..2k-1 records) is the last group. ``md`` is computed once, never updated. Distances are
    compared squared (summed in column order), as :func:`rmd_labels_tree` compares them.

    Seed: sdcMicro's ``micro_rmd``; 004_d1273daa16c98592.txt §IV (MDAV's nearest-group step).

    Parameters
    ----------
    Y : (n, d) float64 — the records the nearest are found on (sample z-scores).
    md : (n,) float64 — each record's robust Mahalanobis distance.
    k : int — the group size.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    n, d = Y.shape
    labels = np.full(n, -1, dtype=np.int64)
    dist = np.empty(n)
    rounds = n // k - 1
    for g in range(rounds):
        s = np.int64(-1)
        for i in range(n):
            if labels[i] < 0 and (s < 0 or md[i] > md[s]):
                s = i
        for i in range(n):
            if labels[i] < 0:
                acc = 0.0
                for c in range(d):
                    diff = Y[i, c] - Y[s, c]
                    acc += diff * diff
                dist[i] = acc
        for _ in range(k):
            best = -1
            for i in range(n):
                if labels[i] < 0 and (best < 0 or dist[i] < dist[best]):
                    best = i
            labels[best] = g
    last = max(rounds, 0)
    for i in range(n):
        if labels[i] < 0:
            labels[i] = last
    return labels


@numba.njit(cache=True)
def rmd_labels_tree(Y: np.ndarray, md: np.ndarray, k: int) -> np.ndarray:
    """:func:`rmd_labels`, the same partition record for record: the seeds in order of decreasing
    ``md`` (stable: first index on ties), each one's k nearest remaining records (itself included)
    from a k-d tree by (squared distance, record id) (kdtree.kd_nearest_k: the pass's arithmetic),
    the tree rebuilt over the remaining records when a quarter of it is gone.

    Parameters
    ----------
    Y, md, k — as for :func:`rmd_labels`.

    Returns
    -------
    (n,) int64 — the labels of :func:`rmd_labels`, bit for bit.
    """
    n, d = Y.shape
    labels = np.full(n, -1, dtype=np.int64)
    order = np.argsort(-md, kind="mergesort")
    pos = np.empty(n, dtype=np.int64)
    T = kd_remaining(Y, labels, np.int64(-1), pos)
    KS = kd_scratch(T)
    top_d = np.empty(k)
    top_i = np.empty(k, dtype=np.int64)
    p = np.empty(d)
    rounds = n // k - 1
    head = 0
    left = n
    built = n
    for g in range(rounds):
        while labels[order[head]] >= 0:
            head += 1
        s = order[head]
        for c in range(d):
            p[c] = Y[s, c]
        cnt = kd_nearest_k(T, p, k, top_d, top_i, KS)
        rec = T[1]
        for t in range(cnt):
            kd_delete(T, top_i[t])
            labels[rec[top_i[t]]] = g
        left -= cnt
        if left < REBUILD * built and g + 1 < rounds:
            T = kd_remaining(Y, labels, np.int64(-1), pos)
            KS = kd_scratch(T)
            built = left
    last = max(rounds, 0)
    for i in range(n):
        if labels[i] < 0:
            labels[i] = last
    return labels


def rmd_partition(Y: np.ndarray, md: np.ndarray, k: int) -> np.ndarray:
    """The rmd loop, from the k-d tree where it was measured faster (index_choice.TREE_FROM: the same
    nearest-remaining question as MDAV's), else by passes; the partition is the same either way.

    Parameters
    ----------
    Y : (n, d) array_like of float — the records.
    md : (n,) array_like of float — robust Mahalanobis distances.
    k : int — the group size.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    Y = np.ascontiguousarray(Y, dtype=np.float64)
    md = np.ascontiguousarray(md, dtype=np.float64)
    if tree_pays(TREE_FROM, Y.shape[0], Y.shape[1]):
        return rmd_labels_tree(Y, md, k)
    return rmd_labels(Y, md, k)


def sample_standardized(raw: np.ndarray | None, Z: np.ndarray) -> np.ndarray:
    """The z-scores sdcMicro's rmd works on (mean, sample sd) from the original values when the
    caller has them, else the given z-scores (a uniform rescaling: same order of distances).

    Parameters
    ----------
    raw : (n, d) ndarray or None — the original values.
    Z : (n, d) ndarray — the z-scores.

    Returns
    -------
    (n, d) float64
    """
    if raw is None:
        return np.ascontiguousarray(Z)
    return np.ascontiguousarray(standardized_sample(np.asarray(raw, dtype=np.float64)))


# ----------------------------------------------------------------------------- clustering

CLUSTER_METHODS = ("clara", "pam", "kmeans", "cmeans", "bclust", "gmm")
# The parameters of the cluster-wise methods (influence, clustpca, clustpppca, clustmcdpca).
NC = Param(8, "number of clusters (sdcMicro's nc)", min=1)
CLUSTER = Param("clara", "clustering: clara (sdcMicro's default), pam, kmeans, cmeans (fuzzy c-means), bclust "
                "(bagged clustering) or gmm (Gaussian mixture, Mclust-like)", CLUSTER_METHODS)


def _pam(X: np.ndarray, nc: int, method: str) -> np.ndarray:
    """Medoid indices of PAM (BUILD + SWAP, Kaufman & Rousseeuw 1990) on Euclidean distances."""
    kmedoids = need("kmedoids", method)
    distance = need("scipy.spatial.distance", method)
    diss = distance.cdist(X, X)
    return np.asarray(kmedoids.pam(diss, nc, init="build").medoids, dtype=np.int64)


def _nearest_medoid(X: np.ndarray, medoids: np.ndarray) -> tuple[np.ndarray, float]:
    d2 = np.zeros((X.shape[0], medoids.size))
    for c in range(X.shape[1]):
        d2 += (X[:, c, None] - X[medoids, c][None, :]) ** 2
    assign = np.argmin(d2, axis=1)  # ties to the medoid listed first
    return assign, float(np.sqrt(d2[np.arange(X.shape[0]), assign]).sum())


def clusters(X: np.ndarray, nc: int, how: str, rng: np.random.Generator, method: str):
    """(labels 0..nc'-1, centres (nc', d)) with clusters numbered as R's cluster::pam/clara number
    them: in order of their first record (cluster 1 holds record 1). Centres: medoids (PAM/CLARA)
    or means (k-means).

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.
    nc : int — clusters wanted (at most n - 1 are made).
    how : str — sdcMicro's ``clustermethod``.
    rng : numpy.random.Generator — the cell's generator.
    method : str — the algorithm, for messages.

    Returns
    -------
    labels : (n,) int64
    centres : (nc', d) float64

    Raises
    ------
    UserError — ``nc`` < 1, an unknown ``how``, or a clustering that fails on these data.
    """
    n = X.shape[0]
    if nc < 1:
        raise UserError(f"algorithm {method}: nc={nc} must be a positive number of clusters; give e.g. nc=8")
    # R's clara/pam need nc < n; so few records (a toy input) are clustered into n - 1 clusters.
    nc = max(1, min(nc, n - 1))
    X = np.ascontiguousarray(X, dtype=np.float64)
    if how == "clara":  # R's clara with its own deterministic draws: sdcMicro's clusters exactly
        from mabench.kernels.methods.clara_r import clara_r

        medoids, raw = clara_r(X, nc)
        centres_raw = X[medoids]
    elif how == "pam":
        medoids = np.sort(_pam(X, nc, method))
        raw, _ = _nearest_medoid(X, medoids)
        centres_raw = X[medoids]
    elif how in ("cmeans", "bclust", "gmm"):
        from mabench.kernels.methods.sdc_clusterings import BY_NAME

        need("sklearn.cluster", method)
        raw, centres_raw = BY_NAME[how](X, nc, rng)
    else:
        cluster_mod = need("sklearn.cluster", method)
        fit = cluster_mod.KMeans(n_clusters=nc, n_init=1, random_state=seed_from(rng)).fit(X)
        raw, centres_raw = fit.labels_, fit.cluster_centers_
    raw = np.asarray(raw, dtype=np.int64)
    present = np.unique(raw)  # an empty cluster (possible for k-means) is dropped
    first = np.array([np.flatnonzero(raw == c)[0] for c in present])
    by_first = present[np.argsort(first, kind="stable")]
    rank = np.full(int(raw.max()) + 1, -1, dtype=np.int64)
    rank[by_first] = np.arange(by_first.size)
    return rank[raw], np.ascontiguousarray(centres_raw[by_first])


def concatenated_order(cluster_labels: np.ndarray, nc: int, order_within) -> np.ndarray:
    """Record order: cluster 0's records in ``order_within(members, c)`` order, then cluster 1's, ...

    Parameters
    ----------
    cluster_labels : (n,) ndarray of int — each record's cluster.
    nc : int — how many clusters.
    order_within : callable — ``order_within(members, c)`` -> the order of cluster c's members.

    Returns
    -------
    (n,) int64 — record ids.
    """
    parts = []
    for c in range(nc):
        members = np.flatnonzero(cluster_labels == c)
        if members.size:
            parts.append(members[order_within(members, c)])
    return np.concatenate(parts)


# ----------------------------------------------------------------------------- plugin glue

SDC_DOC = "sdcMicro 5.8.1 microaggregation() help page and R/microaggregation.R"
SEED_UNIVARIATE = "001_26cfb99743cbb1f3.txt §2.6.3.1 (single axis, individual ranking)"
SEED_PROJECTION = "001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2 (projection onto one axis)"
CITE_DOC = "docs/algorithms/sdcmicro.md"


def values(Z: np.ndarray, raw: np.ndarray | None) -> np.ndarray:
    """The values sdcMicro decides on: the original ones (sdcMicro never standardizes before its
    orderings, clusterings and projections except where it says so), or the z-scores when the
    caller has only those (metric re-runs).

    Parameters
    ----------
    Z : (n, d) ndarray — the z-scores.
    raw : (n, d) ndarray or None — the original values.

    Returns
    -------
    (n, d) float64
    """
    return np.ascontiguousarray(Z if raw is None else raw, dtype=np.float64)


def cluster_order(X: np.ndarray, k: int, params: dict, rng, method: str, within) -> np.ndarray:
    """sdcMicro's cluster-wise methods: cluster, order each cluster (``within(rows) -> order``;
    clusters with fewer records than variables by variable 1, as sdcMicro's ``varsort`` default),
    concatenate the clusters in cluster order and cut into consecutive groups (groups may straddle
    two clusters, as in sdcMicro).

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.
    k : int — the group size.
    params : dict — ``nc`` and ``clustermethod``.
    rng : numpy.random.Generator — the cell's generator.
    method : str — the algorithm, for messages.
    within : callable — ``within(rows)`` -> the order of a cluster's rows.

    Returns
    -------
    (n,) int64 — each record's group label.
    """
    labels, centres = clusters(X, int(params["nc"]), params["clustermethod"], rng, method)
    nc = centres.shape[0]
    d = X.shape[1]

    def order_within(members, c):
        # read-only as the whole data is: the scores' kernels keep the one signature pca, pppca and
        # mcdpca compile (a cluster's copy would be writable and compile them once more)
        rows = read_only(X[members])
        if members.size < d:
            return stable_order(rows[:, 0])
        return stable_order(within(rows))

    return chunk_labels(concatenated_order(labels, nc, order_within), k)
