"""pppca — sdcMicro's projection-pursuit PCA: sort by the first robust component, groups of k.

Source: sdcMicro's ``microaggregation(method = "pppca")`` (help page: "robust ... fast ... provide
almost everytime the best results"; R/microaggregation.R ``micro_pppca`` and ``prcompRob``);
projection pursuit of Croux & Ruiz-Gazen (2005, J. Multivariate Analysis 95) with the MAD as
projection index; projection onto one axis, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2.
Docs: docs/algorithms/sdcmicro.md.

Candidate directions are the median-centred records scaled to length 1; the direction whose
projections of all records have the largest MAD is the first robust component. The records are
sorted by their (median-centred) score on it and cut into groups of k. O(n²·d) (Numba).
"""

from mabench.kernels.methods.sdcmicro_family import pppca_scores, projection

ALGORITHM = projection(
    "pppca", pppca_scores,
    time="O(n²·d) (every median-centred record is a candidate direction, each scored over all records)",
    title="pppca (sdcMicro: sort by the first projection-pursuit robust component, groups of k)",
    source="micro_pppca, prcompRob",
    deterministic=True,
    notes="Deterministic, like sdcMicro's prcompRob: original values, column medians, MAD with R's 1.4826, "
          "equal MADs to the LAST candidate (R's order(s)[n]), first loading >= 0. A record equal to the "
          "median in every column is no candidate (sdcMicro would divide by 0 and fail).",
)
