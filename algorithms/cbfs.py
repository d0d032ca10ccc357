"""CBFS — centroid-based fixed-size microaggregation (Laszlo & Mukherjee 2005).

Source: 004_d1273daa16c98592.txt §IV ("Centroid based Fixed size
microaggregation ... builds only one cluster during each iteration");
pseudocode, choices and evidence in docs/algorithms/cbfs.md (the thesis's
variant: 001_26cfb99743cbb1f3.txt Ch. 4 §4.5, Ch. 5 §5.4; docs/findings.md).

    while at least k (tail=group: 2k) records remain:
        c = centroid of the remaining records (centroid=fixed: of the whole data set)
        r = the remaining record farthest from c
        r and its k-1 nearest remaining records form a group
    tail=nearest: the fewer-than-k leftovers join the group with the nearest centroid
    tail=group:   the last k..2k-1 records form one group

* ``tail=nearest`` (default, the P-S wording); leftovers see centroids frozen before they are added.
* ``tail=group``: with ``centroid=remaining`` this is what the Fayyoumi thesis
  (001_26cfb99743cbb1f3.txt, Ch. 4–5 tables, "MDAV", Dr. Sebé's code) calls
  MDAV: it reproduces every MDAV IL of its Table 4.3 to 4 decimals.
* ``centroid=remaining`` (default) recomputes the centroid of the remaining
  records each iteration; ``centroid=fixed`` uses the centroid of the whole data
  set throughout (the P-S wording "current centroid of the dataset" allows both).
* ``index`` only chooses how the farthest and nearest records are found (kernels/methods/cbfs.py): a full
  pass per question (``scan``, O(n²·d)) or a k-d tree (``tree``); the partition is the same.

Ties go to the lowest record index; distances are Euclidean on z-scores.
"""

from mabench import kernels as K
from mabench.plugin import Algorithm, Param, tree_memory


def run(Z, k, params, rng):
    return K.cbfs_labels(Z, k, params["tail"] == "group", params["centroid"] == "fixed", params["index"])


ALGORITHM = Algorithm(
    name="cbfs",
    time="O(n²·d/k) with index=scan (a pass per group); with the shell order and k-d tree (index=auto at large n, d ≤ 12) measured n^1.4 at d = 10 and n^1.3 at d = 3 (docs/scaling.md)",
    memory_bytes=tree_memory,
    title="CBFS (centroid-based fixed size; the thesis's 'MDAV' with tail=group)",
    citation="004_d1273daa16c98592.txt §IV (CBFS); 001_26cfb99743cbb1f3.txt Ch. 4 §4.5 and Ch. 5 §5.4 "
    "(the MDAV baseline); docs/algorithms/cbfs.md",
    run=run,
    warm_up=K.tree_warm_up(run),
    params={
        "tail": Param("nearest", "leftovers: nearest = to nearest groups; group = last k..2k-1 form one group",
                      ("nearest", "group")),
        "centroid": Param("remaining", "centroid of the remaining records, or of the whole data set",
                          ("remaining", "fixed")),
        "index": K.index_param(),
    },
    deterministic=True,
)
