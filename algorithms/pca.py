"""pca — sdcMicro's projection method: sort by the first principal component, groups of k.

Source: sdcMicro's ``microaggregation(method = "pca")`` (help page; R/microaggregation.R
``micro_pca``: ``princomp(scale(x))``, scores of component 1); projection onto the first principal
component, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2 ("Single axis ... principal component").
Docs: docs/algorithms/sdcmicro.md.

The records are sorted ascending by their score on the first principal component of the
correlation matrix (eigenvector's first element made non-negative, R's ``princomp(fix_sign =
TRUE)``; equal scores keep record order) and cut into consecutive groups of k.
"""

from mabench.kernels.methods.sdcmicro_family import pca_scores, projection
from mabench.plugin import covariance_memory

ALGORITHM = projection(
    "pca", pca_scores,
    time="O(n·d² + d³ + n log n) (first principal component, one sort)",
    memory_bytes=covariance_memory,
    title="pca (sdcMicro: sort by the first principal component, groups of k)",
    deterministic=True,
    notes="PCA of the correlation matrix (scale-free: z-scores or original values give the same order up to "
          "rounding). Sign: first loading >= 0 (R's princomp fix_sign), which decides which end of the order "
          "gets the larger last group. Constant columns contribute 0 (R would stop). Eigenvectors from "
          "numpy.linalg.eigh (LAPACK), R uses eigen(): equal to rounding.",
)
