"""influence — sdcMicro's cluster-wise single-axis method.

Source: sdcMicro's ``microaggregation(method = "influence", nc = 8, clustermethod = "clara")``
(help page; R/microaggregation.R ``micro_influence`` and ``clust``); CLARA/PAM of Kaufman &
Rousseeuw (1990, Finding Groups in Data); single-axis ranking, 001_26cfb99743cbb1f3.txt §2.6.3.1.
Docs: docs/algorithms/sdcmicro.md.

Cluster the records into ``nc`` clusters; in each cluster sort the records by the variable with the
largest value in the cluster's centre (medoid); put cluster 1's records first, then cluster 2's, ...,
and cut that order into consecutive groups of k (a group can span two clusters, as in sdcMicro).
"""

import numpy as np

from mabench.kernels.methods import sdcmicro as S
from mabench.kernels.methods.sdcmicro_family import RANDOMIZED_CLUSTERING, citation
from mabench.plugin import Algorithm, linear_bytes



def run(Z, k, params, rng, raw=None):
    X = S.values(Z, raw)
    labels, centres = S.clusters(X, int(params["nc"]), params["clustermethod"], rng, "influence")
    nc = centres.shape[0]
    top = np.argmax(centres, axis=1)  # first variable on equal centre values

    def order_within(members, c):
        return S.stable_order(X[members, top[c]])

    return S.chunk_labels(S.concatenated_order(labels, nc, order_within), k)


ALGORITHM = Algorithm(
    name="influence",
    time="O(n·d·nc) for CLARA or k-means (PAM: O(n²·d)), then one sort per cluster",
    memory="O(n·d) (clustermethod=pam: O(n²), the dissimilarity matrix)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d) + (8 * n * n if p.get("clustermethod") == "pam" else 0),
    title="influence (sdcMicro: clusters, each sorted by its centre's largest variable, groups of k)",
    citation=citation("micro_influence, clust"),
    run=run,
    params={"nc": S.NC, "clustermethod": S.CLUSTER},
    deterministic=False,
    test_params=RANDOMIZED_CLUSTERING,  # CLARA never uses the rng; k-means does
    uses_raw=True,
    notes="Clustered on the ORIGINAL values, like sdcMicro (its clust() computes a log transform but passes "
          "the untransformed data to the clustering). clara: our CLARA (5 samples of 40+2nc records, R's "
          "defaults) over kmedoids' PAM, random state from the cell seed (R's clara has its own generator); "
          "pam: kmedoids' PAM on all records; kmeans: scikit-learn KMeans, one start (R: Hartigan-Wong). "
          "Clusters numbered by their first record, as R numbers them. Largest centre value: "
          "first variable on ties (sdcMicro would fail on a tie).",
)
