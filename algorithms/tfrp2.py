"""TFRP-2 — Two Fixed Reference Points with its enhancement stage (Chang, Li & Huang 2007).

Source: 004_d1273daa16c98592.txt §IV ("When all clusters are generated, TFRP
applies a enhancement step to determine whether a cluster should be retained
or decomposed and added to other clusters") and §V ("TFRP-2 is similar to
the DBA-2 but disallows merging a record to a group of size over (4k-1)");
003_58f0e37d459aa4df.txt §2. Pseudocode and evidence: docs/algorithms/tfrp_dba.md.

TFRP-1 (``ref`` as in tfrp1), then the dissolve-and-reassign refinement of
``kernels.dissolve_reassign``: each group in turn is dissolved if sending
each of its records to the nearest other group (by centroid) lowers the SSE,
where a group may receive records only while its size stays <= 4k-1; then
(``resplit``) every group of more than 2k-1 records is re-split by MDAV-1,
as in DBA-2.

Choices where the sources are silent (none reproduces all 12 published
values; the defaults come closest, see docs/algorithms/tfrp_dba.md):

* ``order=forward`` (default): groups are visited in creation order;
  ``reverse`` is DBA's order.
* ``cap=4k-1`` (default; the P-S wording: a receiving group stays <= 4k-1);
  ``none`` drops the limit.
* ``resplit=true`` (default; as in DBA-2): the final MDAV-1 re-split of groups
  larger than 2k-1. With ``resplit=false`` groups can reach the cap.
"""

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    g1, g2 = K.reference_points(Z, params["ref"] == "vector")
    return K.reassign_stage(Z, K.two_reference_labels(Z, k, g1, g2), k, params)


ALGORITHM = Algorithm(
    name="tfrp2",
    time="O(n²·d/k) (TFRP-1, then dissolve-and-reassign O(n·g·d))",
    title="TFRP-2 (TFRP-1 + dissolve-and-reassign enhancement)",
    citation="004_d1273daa16c98592.txt §IV, §V (TFRP-2); 003_58f0e37d459aa4df.txt §2; docs/algorithms/tfrp_dba.md",
    run=run,
    max_group_size=K.reassign_bound,
    params={
        "ref": Param("scalar", "reference points of the first stage (see tfrp1)", ("scalar", "vector")),
        "order": Param("forward", "order in which groups are checked: creation order or its reverse",
                       ("forward", "reverse")),
        "cap": Param("4k-1", "largest size a group may reach by receiving records", ("4k-1", "none")),
        "resplit": K.RESPLIT,
    },
    deterministic=True,
)
