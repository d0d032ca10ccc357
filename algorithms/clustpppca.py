"""clustpppca — sdcMicro's cluster-wise projection-pursuit PCA method.

Source: sdcMicro's ``microaggregation(method = "clustpppca", nc = 8, clustermethod = "clara")``
(help page: "clustering observations before applying microaggregation"; R/microaggregation.R
``micro_clustpppca``); CLARA/PAM (Kaufman & Rousseeuw 1990); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2. Docs: docs/algorithms/sdcmicro.md.

Cluster the records; order each cluster by the first projection-pursuit robust component of its
records (a cluster with fewer records than variables: by variable 1); concatenate the clusters in
order and cut into consecutive groups of k (a group can span two clusters).
"""

from mabench.kernels.methods.sdcmicro_family import clusterwise, pppca_scores

ALGORITHM = clusterwise(
    "clustpppca", pppca_scores, time="O(m²·d) per cluster of m records",
    title="clustpppca (sdcMicro: clusters, each sorted by its first projection-pursuit component, groups of k)",
    notes="Per cluster: projection pursuit as in pppca (MAD index, Croux & Ruiz-Gazen 2005) on the original values; "
          "Fewer records than variables: sorted by variable 1 (sdcMicro's varsort).",
)
