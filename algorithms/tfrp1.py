"""TFRP-1 — Two Fixed Reference Points, first stage (Chang, Li & Huang 2007).

Source: 004_d1273daa16c98592.txt §IV ("Let N_min and N_max be the minimum and
maximum values over all attributes in the datasets ... one reference point G1
has N_min as its value for all attributes, and another reference point G2 has
N_max as its value for all attributes"); 003_58f0e37d459aa4df.txt §2 (the same
method, worded with per-attribute minimum/maximum vectors). Pseudocode and
evidence: docs/algorithms/tfrp_dba.md.

G1, G2 fixed. Alternately, the remaining record farthest from G1 (then from
G2) and its k-1 nearest remaining records form a group, while at least k
records remain; the fewer-than-k leftovers go one by one to the group with
the nearest centroid (centroids frozen before they are added).

Choices where the sources differ or are silent:

* ``ref=scalar`` (default; the P-S wording): N_min / N_max are the smallest /
  largest value over all attributes of the z-scored data, repeated in every
  coordinate. This reproduces all 12 published TFRP-1 values (P-S Tables I–III)
  at their 3 printed decimals. ``ref=vector`` is ICSM's wording (per-attribute
  minima / maxima); it does not reproduce them.
* The published EIA values need EIA without UTILITYID (10 columns):
  ``eia[drop=UTILITYID]``.
* Distances are Euclidean on z-scores; ties go to the lowest record index.

Group sizes: k, except that groups receiving leftovers grow by at most k-1.
"""

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    g1, g2 = K.reference_points(Z, params["ref"] == "vector")
    return K.two_reference_labels(Z, k, g1, g2)


ALGORITHM = Algorithm(
    name="tfrp1",
    time="O(n²·d/k) (farthest from a fixed point and k nearest, by passes)",
    title="TFRP-1 (two fixed reference points, first stage)",
    citation="004_d1273daa16c98592.txt §IV (TFRP); 003_58f0e37d459aa4df.txt §2 (TFRP); docs/algorithms/tfrp_dba.md",
    run=run,
    params={
        "ref": Param("scalar", "reference points: scalar = global min/max in every coordinate (P-S wording, "
                     "reproduces the published values); vector = per-attribute min/max (ICSM wording)",
                     ("scalar", "vector")),
    },
    deterministic=True,
)
