"""rmd — sdcMicro's recommended method: MDAV-like grouping seeded by robust Mahalanobis distances.

Source: sdcMicro's ``microaggregation(method = "rmd")`` (help page: "The recommended method ...
multivariate distances based on robust methods. It is an extension of the well-known method mdav";
R/microaggregation.R ``micro_rmd``); Templ & Meindl, "Robust statistics meets SDC" (PSD 2008,
LNCS 5262, pp. 113-126); MCD: Rousseeuw & Van Driessen (1999); MDAV as summarized in
004_d1273daa16c98592.txt §IV. Docs: docs/algorithms/sdcmicro.md.

On the z-scores (mean, sample sd): compute every record's squared robust Mahalanobis distance to
the MCD centre once. Then floor(n/k) - 1 times: the remaining record of largest such distance and
its k - 1 nearest remaining records (Euclidean) form a group. The rest is the last group.
"""

from mabench.kernels.methods import sdcmicro as S
from mabench.kernels.methods.sdcmicro_family import citation
from mabench.plugin import Algorithm, covariance_memory


def run(Z, k, params, rng, raw=None):
    Y = S.sample_standardized(raw, Z)
    fit = S.mcd_fit(Y, rng)
    md = fit.mahalanobis(Y)
    return S.rmd_partition(Y, md, k)


ALGORITHM = Algorithm(
    name="rmd",
    time="O(n·d²) for the MCD, then O(n²·d/k) (the seed's k − 1 nearest by passes)",
    memory_bytes=covariance_memory,
    title="rmd (sdcMicro's recommended method: robust-Mahalanobis seeds, k nearest, one group per step)",
    citation=citation("micro_rmd", "004_d1273daa16c98592.txt §IV (MDAV)"),
    run=run,
    deterministic=False,
    uses_raw=True,
    notes="MCD: mabench's BLAS-free reweighted FastMCD (mabench/kernels/methods/mcd.py, h = ceil((n+d+1)/2)), random "
          "starts from the cell seed (sdcMicro: robustbase::covMcd, same estimator, its own random subsets). The robust distances are "
          "computed once and never updated (as sdcMicro). Seed: largest distance, first index on ties; group: "
          "the seed and its k-1 nearest remaining (Euclidean on z-scores with the sample sd), lower index on "
          "ties; floor(n/k)-1 such groups, the rest (k..2k-1) is the last group.",
)
