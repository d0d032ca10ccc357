"""The clusterings sdcMicro's ``clustermethod`` names besides clara, pam and kmeans
(docs/algorithms/sdcmicro.md#clustermethod): fuzzy c-means, bagged clustering and a Gaussian mixture.

Each returns (labels 0..c-1 per record, centres (c, d)); :func:`mabench.kernels.methods.sdcmicro.clusters`
renumbers the clusters by their first record, as it does for the others. Every random choice comes
from the cell's generator.

* ``cmeans``: fuzzy c-means (Bezdek 1981) as e1071's ``cmeans(x, nc)`` defaults it: fuzzifier m = 2,
  Euclidean distances, initial centres ``nc`` distinct records drawn at random, at most 100 iterations,
  stopping when the objective changes by less than sqrt(machine epsilon) relative (e1071's loop,
  ``cmeans_from``: equal to e1071's centres from the same start, fixture cmeans.json); each record in the cluster of its
  largest membership (the first on ties), centres the fuzzy centres. (sdcMicro's own cmeans branch
  stops with an error: docs/findings.md#sdcmicro-clustermethod-cmeans-stops-mclust-is-not-there.)
* ``bclust``: bagged clustering (Leisch 1999) as e1071's ``bclust(x, nc)`` defaults it: 10 bootstrap
  samples, k-means with 20 centres on each (scikit-learn, one start each), average-linkage hierarchical
  clustering of the 200 centres cut into ``nc`` clusters, each record in the cluster of its nearest
  centre; centres the means of each cluster's base centres.
* ``gmm``: a Gaussian mixture of ``nc`` full-covariance components by EM (scikit-learn's
  ``GaussianMixture``, k-means initialisation, one start) on the z-scores, each record in its most
  probable component, centres the component means in original units;
  the model sdcMicro's help page calls Mclust, without Mclust's choice among covariance models by BIC.
"""

from __future__ import annotations

import numpy as np

from mabench.errors import UserError

FUZZIFIER = 2.0
CMEANS_MAX_ITER = 100
CMEANS_RELTOL = float(np.sqrt(np.finfo(np.float64).eps))  # e1071: sqrt(.Machine$double.eps)
BCLUST_ITER_BASE = 10
BCLUST_BASE_CENTERS = 20


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**31 - 1))


def _memberships(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Fuzzy memberships u_ic ∝ d_ic^(−2/(m−1)); a record on a centre belongs to it (shared equally
    among coinciding centres)."""
    d2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
    exact = d2 == 0.0
    on = exact.any(axis=1)
    u = np.empty_like(d2)
    u[on] = exact[on] / exact[on].sum(axis=1, keepdims=True)
    inv = d2[~on] ** (-1.0 / (FUZZIFIER - 1.0))
    u[~on] = inv / inv.sum(axis=1, keepdims=True)
    return u


def cmeans(X: np.ndarray, nc: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Fuzzy c-means from ``nc`` distinct records drawn at random (e1071's ``cmeans(x, nc)``).

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.
    nc : int — the number of clusters.
    rng : numpy.random.Generator — the cell's generator.

    Returns
    -------
    labels : (n,) int64 — each record's cluster (largest membership, first on ties).
    centres : (nc, d) float64
    """
    n = X.shape[0]
    return cmeans_from(X, X[rng.choice(n, nc, replace=False)].copy())


def cmeans_from(X: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fuzzy c-means iterated from the given starting ``centres``, as e1071's C ``cmeans`` loops
    (src/cmeans.c): memberships of the start, then per iteration new centres, new memberships and
    the objective Σ u^m d² with those memberships; stop when it changes by less than
    ``reltol·(old + reltol)`` or after ``CMEANS_MAX_ITER`` iterations.

    Parameters
    ----------
    X : (n, d) ndarray of float — the records.
    centres : (nc, d) ndarray of float — the start.

    Returns
    -------
    (labels, centres) — as :func:`cmeans` returns them.
    """
    def objective(u, c):
        return float((u ** FUZZIFIER * ((X[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)).sum())

    u = _memberships(X, centres)
    previous = objective(u, centres)
    for _ in range(CMEANS_MAX_ITER):
        um = u ** FUZZIFIER
        centres = (um.T @ X) / um.sum(axis=0)[:, None]
        u = _memberships(X, centres)
        value = objective(u, centres)
        if abs(previous - value) < CMEANS_RELTOL * (previous + CMEANS_RELTOL):
            break
        previous = value
    return np.argmax(u, axis=1).astype(np.int64), centres


def bclust(X: np.ndarray, nc: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Bagged clustering as e1071's ``bclust(x, nc)`` defaults it (module docstring).

    Parameters
    ----------
    X, nc, rng — as for :func:`cmeans`.

    Returns
    -------
    labels : (n,) int64 — each record's cluster (that of its nearest centre).
    centres : (nc, d) float64 — the means of each cluster's base centres.
    """
    import warnings

    from scipy.cluster.hierarchy import fcluster, linkage
    from sklearn.cluster import KMeans

    n = X.shape[0]
    base = []
    for _ in range(BCLUST_ITER_BASE):
        sample = X[rng.integers(0, n, n)]
        centres = min(BCLUST_BASE_CENTERS, len(np.unique(sample, axis=0)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a bootstrap sample with few distinct rows
            base.append(KMeans(n_clusters=centres, n_init=1, random_state=_seed(rng)).fit(sample).cluster_centers_)
    allcentres = np.vstack(base)
    tree = linkage(allcentres, method="average", metric="euclidean")
    of_centre = fcluster(tree, t=min(nc, len(allcentres)), criterion="maxclust") - 1
    nearest = np.argmin(((X[:, None, :] - allcentres[None, :, :]) ** 2).sum(axis=2), axis=1)
    labels = of_centre[nearest].astype(np.int64)
    centres = np.vstack([allcentres[of_centre == c].mean(axis=0) for c in range(int(of_centre.max()) + 1)])
    return labels, centres


def gmm(X: np.ndarray, nc: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A Gaussian mixture of ``nc`` full-covariance components on the z-scores (module docstring).

    Parameters
    ----------
    X, nc, rng — as for :func:`cmeans` (nc: the number of components).

    Returns
    -------
    labels : (n,) int64 — each record's most probable component.
    centres : (nc, d) float64 — the component means in the units of X.

    Raises
    ------
    UserError — a component collapsed.
    """
    from sklearn.mixture import GaussianMixture

    # Fitted on z-scores: a full-covariance mixture is affine-equivariant, and scikit-learn's
    # covariance regularisation (1e-6 on the diagonal) is then the same for every variable's units.
    mean, sd = X.mean(axis=0), X.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    z = (X - mean) / sd
    try:
        fit = GaussianMixture(n_components=nc, covariance_type="full", random_state=_seed(rng)).fit(z)
    except ValueError:
        raise UserError(f"clustermethod=gmm: a component of the {nc}-component Gaussian mixture collapsed on these "
                        "data (too few distinct records per component); use fewer clusters (nc) or another "
                        "clustermethod") from None
    return fit.predict(z).astype(np.int64), fit.means_ * sd + mean


BY_NAME = {"cmeans": cmeans, "bclust": bclust, "gmm": gmm}
