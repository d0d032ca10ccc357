"""clustpppca — sdcMicro's cluster-wise projection-pursuit PCA method.

Source: sdcMicro's ``microaggregation(method = "clustpppca", nc = 8, clustermethod = "clara")``
(help page: "clustering observations before applying microaggregation"; R/microaggregation.R
``micro_clustpppca``); CLARA/PAM (Kaufman & Rousseeuw 1990); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2. Docs: docs/algorithms/sdcmicro.md.

Cluster the records; order each cluster by the first projection-pursuit robust component of its
records (a cluster with fewer records than variables: by variable 1); concatenate the clusters in
order and cut into consecutive groups of k (a group can span two clusters).

Scaling: time O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then O(m²·d) per cluster of m records; memory O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix).
"""

from mabench.kernels.methods import sdcmicro as S
from mabench.plugin import Algorithm, linear_bytes


def run(Z, k, params, rng, raw=None):
    return S.cluster_order(S.values(Z, raw), k, params, rng, "clustpppca", S.pppca_scores)


ALGORITHM = Algorithm(
    name="clustpppca",
    time="O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then O(m²·d) per cluster of m records",
    memory="O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d) + (8 * n * n if p.get("clustermethod") == "pam" else 0),
    title="clustpppca (sdcMicro: clusters, each sorted by its first projection-pursuit component, groups of k)",
    citation=f"{S.SDC_DOC} (micro_clustpppca); {S.SEED_PROJECTION}; {S.CITE_DOC}",
    run=run,
    params={"nc": S.NC, "clustermethod": S.CLUSTER},
    deterministic=False,
    uses_raw=True,
    notes="Clustering as in influence (original values; clara/pam/kmeans; clusters numbered by first record). "
          "Per cluster: projection pursuit as in pppca (MAD index, Croux & Ruiz-Gazen 2005) on the original values; "
          "Fewer records than variables: sorted by variable 1 (sdcMicro's varsort).",
)
