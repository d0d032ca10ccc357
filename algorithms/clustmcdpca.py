"""clustmcdpca — sdcMicro's cluster-wise robust (MCD) PCA method.

Source: sdcMicro's ``microaggregation(method = "clustmcdpca", nc = 8, clustermethod = "clara")``
(help page: "clustering observations before applying microaggregation"; R/microaggregation.R
``micro_clustmcdpca``); CLARA/PAM (Kaufman & Rousseeuw 1990); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2. Docs: docs/algorithms/sdcmicro.md.

Cluster the records; order each cluster by the first eigenvector of the MCD covariance of its
records (a cluster with fewer records than variables: by variable 1); concatenate the clusters in
order and cut into consecutive groups of k (a group can span two clusters).

Scaling: time O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then FastMCD per cluster; memory O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix).
"""

from mabench.kernels.methods import sdcmicro as S
from mabench.plugin import Algorithm, linear_bytes


def run(Z, k, params, rng, raw=None):
    return S.cluster_order(S.values(Z, raw), k, params, rng, "clustmcdpca", lambda rows: S.mcdpca_scores(rows, rng))


ALGORITHM = Algorithm(
    name="clustmcdpca",
    time="O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then FastMCD per cluster",
    memory="O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d) + (8 * n * n if p.get("clustermethod") == "pam" else 0),
    title="clustmcdpca (sdcMicro: clusters, each sorted by its first MCD principal component, groups of k)",
    citation=f"{S.SDC_DOC} (micro_clustmcdpca); {S.SEED_PROJECTION}; {S.CITE_DOC}",
    run=run,
    params={"nc": S.NC, "clustermethod": S.CLUSTER},
    deterministic=False,
    uses_raw=True,
    notes="Clustering as in influence (original values; clara/pam/kmeans; clusters numbered by first record). "
          "Per cluster: MCD (mabench's BLAS-free FastMCD, seeded from the cell) covariance of the original values, "
          "first loading >= 0 (sdcMicro: MASS::cov.mcd). Fewer records than variables: sorted by variable 1 (sdcMicro's varsort).",
)
