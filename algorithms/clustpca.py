"""clustpca — sdcMicro's cluster-wise PCA method.

Source: sdcMicro's ``microaggregation(method = "clustpca", nc = 8, clustermethod = "clara")``
(help page: "clustering observations before applying microaggregation"; R/microaggregation.R
``micro_clustpca``); CLARA/PAM (Kaufman & Rousseeuw 1990); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2. Docs: docs/algorithms/sdcmicro.md.

Cluster the records; order each cluster by the first principal component of its own standardized
records (a cluster with fewer records than variables: by variable 1); concatenate the clusters in
order and cut into consecutive groups of k (a group can span two clusters).
"""

from mabench.kernels.methods.sdcmicro_family import clusterwise, pca_scores

ALGORITHM = clusterwise(
    "clustpca", pca_scores, time="PCA per cluster",
    title="clustpca (sdcMicro: clusters, each sorted by its first principal component, groups of k)",
    notes="Per cluster: PCA of its correlation matrix, first loading >= 0; a column constant within a cluster "
          "contributes 0 (R would stop). Fewer records than variables: sorted by variable 1 (sdcMicro's varsort).",
)
