"""Plain-NumPy references of sdcMicro's microaggregation() methods, written from its documented
procedure (R/microaggregation.R: indexMicro, blowup, micro_* functions) step by step, without the
plugins' helpers: lists of record indices, Python sorts with explicit (value, index) keys, the
whole distance matrix as sdcMicro builds it. Each returns the masked values (n, d) in original
units, the group means sdcMicro publishes.
"""

from __future__ import annotations

import numpy as np


def index_micro(n: int, k: int) -> list[list[int]]:
    """indexMicro: positions 0..n-1 in groups of k; if k does not divide n, the last two
    "starts" merge: floor(n/k) - 1 full groups and one group of the rest."""
    if n % k == 0:
        return [list(range(s, s + k)) for s in range(0, n, k)]
    starts = list(range(0, n, k))
    groups = [list(range(s, s + k)) for s in starts[:-2]]
    groups.append(list(range(starts[-2], n)))
    return groups


def masked_from_order(x: np.ndarray, order: list[int], k: int) -> np.ndarray:
    """Cut ``order`` into indexMicro's groups and give every record its group's column means."""
    out = np.empty_like(x, dtype=float)
    for positions in index_micro(len(order), k):
        rows = [order[p] for p in positions]
        out[rows] = x[rows].mean(axis=0)
    return out


def ascending(values) -> list[int]:
    """R's order(): ascending, equal values by index."""
    return sorted(range(len(values)), key=lambda i: (values[i], i))


def simple(x, k):
    return masked_from_order(x, list(range(len(x))), k)


def single(x, k, varsort=1):
    return masked_from_order(x, ascending(x[:, varsort - 1]), k)


def onedims(x, k):
    out = np.empty_like(x, dtype=float)
    for j in range(x.shape[1]):
        out[:, j] = masked_from_order(x[:, [j]], ascending(x[:, j]), k)[:, 0]
    return out


def _first_vector_sign_fixed(matrix):
    values, vectors = np.linalg.eig(matrix)  # general solver, not the plugins' eigh
    v = np.real(vectors[:, int(np.argmax(np.real(values)))])
    lead = next((a for a in v if a != 0), 0.0)
    return v if lead >= 0 else -v


def pca_scores(x):
    """princomp(scale(x)): correlation-matrix PCA, first component's scores (a constant column
    standardizes to 0 and takes no part)."""
    sd = x.std(axis=0, ddof=1)
    y = np.zeros_like(x, dtype=float)
    live = sd > 0
    y[:, live] = (x[:, live] - x[:, live].mean(axis=0)) / sd[live]
    v = _first_vector_sign_fixed(y.T @ y / (len(x) - 1))
    return y @ v


def pca(x, k):
    return masked_from_order(x, ascending(list(pca_scores(x))), k)


def _r_mad(values):
    med = np.median(values)
    return 1.4826 * np.median(np.abs(values - med))


def pppca_scores(x):
    """prcompRob's first component: candidate directions = median-centred records of length 1,
    the one with the largest MAD of projections (the last of equal ones), its first element >= 0."""
    centred = x - np.median(x, axis=0)
    best, best_s = None, -np.inf
    for i in range(len(x)):
        norm = np.sqrt(np.sum(centred[i] ** 2))
        if norm == 0:
            continue
        s = _r_mad(x @ (centred[i] / norm))
        if s >= best_s:
            best, best_s = i, s
    v = centred[best] / np.sqrt(np.sum(centred[best] ** 2))
    v = v if v[0] >= 0 else -v
    return centred @ v


def pppca(x, k):
    return masked_from_order(x, ascending(list(pppca_scores(x))), k)


def rmd(x, k, md):
    """micro_rmd with given robust distances ``md``: the full distance matrix with removed records
    blanked (NaN), which.max / which.min taking the first index."""
    y = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    n = len(x)
    dist = np.sqrt(((y[:, None, :] - y[None, :, :]) ** 2).sum(axis=2))
    md = md.astype(float).copy()
    out = np.empty_like(x, dtype=float)
    for _ in range(n // k - 1):
        s = int(np.nanargmax(md))
        column = dist[:, s].copy()
        chosen = []
        for _ in range(k):
            w = int(np.nanargmin(column))
            chosen.append(w)
            column[w] = np.nan
        dist[chosen, :] = np.nan
        md[chosen] = np.nan
        out[chosen] = x[chosen].mean(axis=0)
    rest = [i for i in range(n) if not np.isnan(dist[i, 0])]
    out[rest] = x[rest].mean(axis=0)
    return out


def clustered(x, k, cluster_of, order_in_cluster):
    """The cluster-wise methods: clusters 1, 2, ... (numbered by first record) one after another,
    each in its own order, then one cut of the whole sequence."""
    numbering = []
    for c in cluster_of:
        if c not in numbering:
            numbering.append(c)
    order = []
    for c in numbering:
        members = [i for i in range(len(x)) if cluster_of[i] == c]
        order += [members[p] for p in order_in_cluster(x[members], c)]
    return masked_from_order(x, order, k)


def clustpca(x, k, cluster_of):
    def within(rows, c):
        if len(rows) < x.shape[1]:
            return ascending(list(rows[:, 0]))
        return ascending(list(pca_scores(rows)))
    return clustered(x, k, cluster_of, within)


def clustpppca(x, k, cluster_of):
    def within(rows, c):
        if len(rows) < x.shape[1]:
            return ascending(list(rows[:, 0]))
        return ascending(list(pppca_scores(rows)))
    return clustered(x, k, cluster_of, within)


def influence(x, k, cluster_of, centres):
    """centres[c]: the centre of cluster c; each cluster sorted by its centre's largest variable."""
    return clustered(x, k, cluster_of, lambda rows, c: ascending(list(rows[:, int(np.argmax(centres[c]))])))
