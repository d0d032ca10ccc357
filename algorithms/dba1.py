"""DBA-1 — density-based microaggregation, first stage (Lin, Wen, Hsieh & Chang 2010).

Source: 004_d1273daa16c98592.txt §IV ("repeatedly builds a new cluster using
the k-neighborhood of the record with the highest k-density among all records
that are not yet assigned to any cluster until fewer than k unassigned records
remain. These remaining records are then assigned to their respective nearest
clusters"); 002_81f9d5b914b1df78.txt §2. Pseudocode and evidence:
docs/algorithms/tfrp_dba.md.

The k-neighbourhood of x is x and its k-1 nearest records; its k-density is
1 / (sum of the Euclidean distances from x to them). While at least k records
remain, the remaining record with the highest density and its k-1 nearest
remaining records form a group; the fewer-than-k leftovers go one by one to
the group with the nearest centroid (centroids frozen before they are added).

Choices where the seeds are silent (neither reading reproduces the published
DBA-1 values; the default is the closer one, see docs/algorithms/tfrp_dba.md):

* the density formula (the seeds name k-density without defining it);
* ``density=remaining`` (default; "the highest k-density among all records that
  are not yet assigned"): k-neighbourhoods and densities among the unassigned
  records, recomputed before each group (each record keeps its 4k nearest;
  its k-1 nearest remaining are the first remaining entries of that list, which
  is made afresh only when fewer than k-1 of them remain: the same result as a
  full recomputation);
  ``density=once``: computed once on all records.
* ties (equal density, equal distance) go to the lowest record index.
"""

from mabench import kernels as K
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    return K.density_labels(Z, k, params["density"] == "remaining")


ALGORITHM = Algorithm(
    name="dba1",
    time="O(n²·d) (k-densities of the remaining records by passes)",
    title="DBA-1 (density-based, first stage)",
    citation="004_d1273daa16c98592.txt §IV (DBA); 002_81f9d5b914b1df78.txt §2 (DBA); docs/algorithms/tfrp_dba.md",
    run=run,
    params={
        "density": Param("remaining", "k-densities recomputed among the remaining records before each group, "
                         "or computed once on all records", ("remaining", "once")),
    },
    deterministic=True,
)
