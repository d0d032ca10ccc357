"""clustmcdpca — sdcMicro's cluster-wise robust (MCD) PCA method.

Source: sdcMicro's ``microaggregation(method = "clustmcdpca", nc = 8, clustermethod = "clara")``
(help page: "clustering observations before applying microaggregation"; R/microaggregation.R
``micro_clustmcdpca``); CLARA/PAM (Kaufman & Rousseeuw 1990); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2. Docs: docs/algorithms/sdcmicro.md.

Cluster the records; order each cluster by the first eigenvector of the MCD covariance of its
records (a cluster with fewer records than variables: by variable 1); concatenate the clusters in
order and cut into consecutive groups of k (a group can span two clusters).
"""

from mabench.kernels.methods.sdcmicro_family import clusterwise, mcdpca_scores

ALGORITHM = clusterwise(
    "clustmcdpca", mcdpca_scores, time="FastMCD per cluster",
    title="clustmcdpca (sdcMicro: clusters, each sorted by its first MCD principal component, groups of k)",
    notes="Per cluster: MCD (mabench's BLAS-free FastMCD, seeded from the cell) covariance of the original values, "
          "first loading >= 0 (sdcMicro: MASS::cov.mcd). Fewer records than variables: sorted by variable 1 (sdcMicro's varsort).",
)
