"""The declarations of sdcMicro's projection methods, shared: ``pca``, ``pppca`` and ``mcdpca`` sort
the records by a score and cut groups of k (:func:`projection`); ``clustpca``, ``clustpppca`` and
``clustmcdpca`` cluster first and sort each cluster by the same scores (:func:`clusterwise`). A plugin
file names its score function and what is its own (complexity, title, notes); everything the family
shares — parameters, the original values (``uses_raw``), the citation's form, the clustering's memory —
is said here once.

A score function is ``scores(X, rng) -> (n,) float64`` on the original values ``X``.
"""

from __future__ import annotations

import numpy as np

from mabench.kernels.methods import sdcmicro as S
from mabench.plugin import Algorithm, linear_bytes, linear_memory, read_only, tiny_problem, tiny_run

# `mabench check` runs k-means too: with the default CLARA (R's own draws) the rng is never used, so
# only a randomized clustering shows that the declared randomness is real.
RANDOMIZED_CLUSTERING = ({"clustermethod": "kmeans"},)
CLUSTER_NOTE = "Clustering as in influence (original values; clara/pam/kmeans; clusters numbered by first record). "


def citation(source: str, seed: str = S.SEED_UNIVARIATE) -> str:
    """A plugin's citation: sdcMicro's function ``source``, the seed section the method stands in, our docs.

    Parameters
    ----------
    source : str — sdcMicro's function(s), e.g. ``"micro_simple"``.
    seed : str — the seed file and section.

    Returns
    -------
    str

    Examples
    --------
    >>> citation("micro_simple").split("; ")[1]
    '001_26cfb99743cbb1f3.txt §2.6.3.1 (single axis, individual ranking)'
    """
    return f"{S.SDC_DOC} ({source}); {seed}; {S.CITE_DOC}"


def projection(name: str, scores, *, time: str, title: str, notes: str, deterministic: bool, memory: str = "",
               memory_bytes=linear_memory, source: str = "") -> Algorithm:
    """sdcMicro's ``microaggregation(method = name)``: records sorted by ``scores`` (equal scores keep
    record order), cut into consecutive groups of k.

    Parameters
    ----------
    name : str — the algorithm id (sdcMicro's method name).
    scores : callable — ``scores(X, rng)`` -> (n,) score per record.
    time, memory, title, notes, source : str — the plugin's declared texts.
    deterministic : bool — whether the scores use no randomness.
    memory_bytes : callable — the memory estimate.

    Returns
    -------
    Algorithm
    """

    def run(Z, k, params, rng, raw=None):
        return S.chunk_labels(S.stable_order(scores(S.values(Z, raw), rng)), k)

    return Algorithm(name=name, time=time, memory=memory, memory_bytes=memory_bytes, title=title,
                     citation=citation(source or f"micro_{name}", S.SEED_PROJECTION), run=run, deterministic=deterministic,
                     uses_raw=True, notes=notes)


def clusterwise(name: str, scores, *, time: str, title: str, notes: str) -> Algorithm:
    """sdcMicro's ``microaggregation(method = name, nc, clustermethod)``: clusters (S.clusters), each
    ordered by ``scores`` of its own records, concatenated and cut into groups of k. Randomized: the
    k-means, c-means, bagged and mixture clusterings draw from the rng (CLARA and PAM do not).

    Parameters
    ----------
    name : str — the algorithm id.
    scores : callable — ``scores(rows, rng)`` -> a score per row of a cluster.
    time, title, notes : str — the plugin's declared texts.

    Returns
    -------
    Algorithm
    """

    def run(Z, k, params, rng, raw=None):
        return S.cluster_order(S.values(Z, raw), k, params, rng, name, lambda rows: scores(rows, rng))

    def warm_up(n, d, k, params):
        tiny_run(algo, d, k, params)  # the clustering
        # a tiny problem's clusters can all have fewer records than columns, and those are ordered by
        # their first variable without a score: score one cluster's rows (read-only, as a run's are)
        scores(read_only(tiny_problem(k, d)), np.random.default_rng(0))

    algo = Algorithm(
        name=name, time=f"O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then {time}",
        memory="O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix)",
        memory_bytes=lambda n, d, k, p: linear_bytes(n, d) + (8 * n * n if p.get("clustermethod") == "pam" else 0),
        title=title, citation=citation(f"micro_{name}", S.SEED_PROJECTION), run=run, params={"nc": S.NC, "clustermethod": S.CLUSTER},
        deterministic=False, uses_raw=True, notes=CLUSTER_NOTE + notes, test_params=RANDOMIZED_CLUSTERING,
        warm_up=warm_up)
    return algo


def pca_scores(X, rng):
    """:func:`~mabench.kernels.methods.sdcmicro.pca_scores` with the scores' common signature.

    Parameters
    ----------
    X, rng — the records (n, d) and the cell's generator (unused).

    Returns
    -------
    (n,) float64 — the correlation matrix's first component.
    """
    return S.pca_scores(X)


def pppca_scores(X, rng):
    """:func:`~mabench.kernels.methods.sdcmicro.pppca_scores` with the scores' common signature.

    Parameters
    ----------
    X, rng — the records (n, d) and the cell's generator (unused).

    Returns
    -------
    (n,) float64 — projection pursuit's first robust component.
    """
    return S.pppca_scores(X)


def mcdpca_scores(X, rng):
    """:func:`~mabench.kernels.methods.sdcmicro.mcdpca_scores` with the scores' common signature.

    Parameters
    ----------
    X, rng — the records (n, d) and the cell's generator (the MCD's random starts).

    Returns
    -------
    (n,) float64 — the MCD covariance's first component.
    """
    return S.mcdpca_scores(X, rng)
