"""mcdpca — sdcMicro's robust projection: first principal component of the MCD covariance.

Source: sdcMicro's ``microaggregation(method = "mcdpca")`` (help page; R/microaggregation.R
``micro_mcdpca``: ``princomp(covmat = MASS::cov.mcd(x))``); the Minimum Covariance Determinant
estimator (Rousseeuw & Van Driessen 1999, FastMCD); the robust methods of Templ & Meindl (PSD 2008,
LNCS 5262); projection onto one axis, 001_26cfb99743cbb1f3.txt §2.6.3.1-2.6.3.2.
Docs: docs/algorithms/sdcmicro.md.

The records are sorted by their score on the first eigenvector of the MCD covariance of the
ORIGINAL (unscaled) values — princomp reads ``$cov``, not ``$cor`` — and cut into groups of k.
"""

from mabench.kernels.methods.sdcmicro_family import mcdpca_scores, projection
from mabench.plugin import covariance_memory

ALGORITHM = projection(
    "mcdpca", mcdpca_scores,
    time="O(n·d²) per FastMCD iteration (subsets and C-steps), then O(n log n)",
    memory_bytes=covariance_memory,
    title="mcdpca (sdcMicro: sort by the first robust (MCD) principal component, groups of k)",
    deterministic=False,
    notes="MCD: mabench's BLAS-free reweighted FastMCD (mabench/kernels/methods/mcd.py, h = ceil((n+d+1)/2)), random "
          "starts from the cell seed; "
          "sdcMicro uses MASS::cov.mcd (a different random search and no reweighting), so the direction and "
          "hence the partition can differ slightly. Covariance of the original values, as sdcMicro. "
          "Sign: first loading >= 0.",
)
