"""DBA-2 — density-based microaggregation with its second (fine-tuning) stage (Lin et al. 2010).

Source: 004_d1273daa16c98592.txt §IV ("DBA-2 attempts to fine tune all
clusters by checking whether to decompose a cluster and merge its content with
other clusters ... all clusters are checked ... by the reverse of the order
that they were added ... At the end ... the MDAV-1 algorithm is applied to each
cluster with size above (2k-1)"); 002_81f9d5b914b1df78.txt §2. Pseudocode and
evidence: docs/algorithms/tfrp_dba.md.

DBA-1 (``density`` as in dba1), then ``kernels.dissolve_reassign``: groups in
reverse creation order; a group is dissolved (each record to the other group
with the nearest centroid) when that lowers the SSE; finally every group
larger than 2k-1 is re-split by MDAV-1.

Choices where the seeds are silent: the dissolve rule compares the exact SSE
of the whole partition before and after all of the group's moves (centroids
frozen while the group's records are placed); ``order=reverse`` (default, the
seed's wording) or ``forward``; ``resplit=false`` skips the final MDAV-1
re-split (groups then have no size bound).
"""

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    return K.reassign_stage(Z, K.density_labels(Z, k, params["density"] == "remaining"), k, params)


ALGORITHM = Algorithm(
    name="dba2",
    time="O(n²·d) (DBA-1, then dissolve-and-reassign O(n·g·d), g = n/k)",
    title="DBA-2 (DBA-1 + dissolve-and-reassign + MDAV-1 re-split)",
    citation="004_d1273daa16c98592.txt §IV (DBA); 002_81f9d5b914b1df78.txt §2 (DBA); docs/algorithms/tfrp_dba.md",
    run=run,
    max_group_size=K.reassign_bound,
    params={
        "density": Param("remaining", "k-densities of the first stage (see dba1)", ("remaining", "once")),
        "order": Param("reverse", "order in which groups are checked: reverse creation order (seed) or forward",
                       ("reverse", "forward")),
        "resplit": K.RESPLIT,
    },
    deterministic=True,
)
