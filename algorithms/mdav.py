"""MDAV — Maximum Distance to Average Vector, two groups per iteration.

Implements MDAV-generic (Domingo-Ferrer & Torra 2005), the MDAV of μ-ARGUS and
sdcMicro, as summarized in 004_d1273daa16c98592.txt (P-S paper, §IV "Previous
microaggregation methods", MDAV) and 002_81f9d5b914b1df78.txt (CV-MDAV paper, §3, Algorithm
MDAV); pseudocode and choices in docs/algorithms/mdav.md.

Each iteration: c = centroid of the remaining records; r = record farthest
from c; s = record farthest from r; group r with its k-1 nearest remaining
records, then s with its k-1 nearest of what is left.

``tail`` selects the end game, where the seeds differ:

* ``3k`` (default, MDAV-generic): pairs while >= 3k records remain; with 2k..3k-1
  left, one more group around the farthest record and the rest (k..2k-1) form
  the last group; with fewer than 2k left they form one group. This reproduces
  the MDAV rows the papers print (Tarragona 16.9326 at k=3).
* ``2k`` (as worded in the P-S paper §IV, CV-MDAV §3 and ICSM §4.1 Alg. 1, 003_58f0e37d459aa4df.txt): pairs while
  >= 2k remain; k..2k-1 left form one group, fewer than k go one by one to the
  group with the nearest centroid.

Choices where the sources are silent: distances are Euclidean on z-scores;
ties go to the lowest record index; s is taken before r's group is removed
(if every remaining record is equidistant from r and s lands in r's group,
the farthest survivor is used); leftovers see centroids frozen before any of
them is added.

``index`` only chooses how the farthest and nearest records are found (kernels/methods/mdav.py): a full
pass per question (``scan``, O(n²·d)) or a k-d tree with a shell order (``tree``); the partition is
the same (tests/kernels/test_mdav_tree.py). ``auto`` picks by n and d (docs/scaling.md).
"""

from mabench import kernels
from mabench.plugin import Algorithm, Param, raw_scale, scale_param, tree_memory

_TAILS = {"3k": kernels.TAIL_3K, "2k": kernels.TAIL_2K}


def run(Z, k, params, rng):
    return kernels.mdav_partition(Z, k, _TAILS[params["tail"]], params["index"])


ALGORITHM = Algorithm(
    name="mdav",
    time="O(n²·d/k) with index=scan (farthest and k nearest by passes); with the k-d tree (index=auto at large n, d ≤ 12) measured n^1.5 at d = 10 and n^1.2 at d = 3 (docs/scaling.md)",
    memory_bytes=tree_memory,
    title="MDAV (MDAV-generic; 2k-tail variant by parameter)",
    citation="004_d1273daa16c98592.txt §IV (MDAV); 002_81f9d5b914b1df78.txt §3 (MDAV); "
    "docs/algorithms/mdav.md",
    run=run,
    warm_up=kernels.tree_warm_up(run),
    params={"tail": Param("3k", "end game: 3k = MDAV-generic, 2k = the papers' wording", ("3k", "2k")),
            "index": kernels.index_param(),
            "scale": scale_param("decide on z-scores (standardized) or on the original values (raw): "
                                 "the raw-scale baseline of the P-S tables (docs/metrics.md#il_raw)")},
    raw_input=raw_scale,
    deterministic=True,
)
