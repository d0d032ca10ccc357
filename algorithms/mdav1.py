"""MDAV-1 of Lin, Wen, Hsieh & Chang (2010), as described in the P-S paper.

Source: 004_d1273daa16c98592.txt §IV (Lin et al.'s MDAV-1 and MDAV-2); it
reproduces all 12 MDAV-1 cells of that paper's Tables I–III (§VI) to 8
decimals. Pseudocode, choices and evidence: docs/algorithms/mdav.md,
docs/findings.md.

MDAV's pair step while at least 2k records remain; then, if k..2k-1 remain,
one group of k around the record farthest from their centroid (instead of
"the rest form one group"), and the fewer-than-k leftovers join, one by one,
the group with the nearest centroid (centroids frozen before the leftovers
are added; sequential updating gave identical results on every published
cell). Ties go to the lowest record index. ``index`` (scan | tree | auto) only chooses how the
farthest and nearest records are found; the partition is the same (kernels/methods/mdav.py).
"""

from mabench import kernels
from mabench.plugin import Algorithm, tree_memory


def run(Z, k, params, rng):
    return kernels.mdav_partition(Z, k, kernels.TAIL_MDAV1, params["index"])


ALGORITHM = Algorithm(
    name="mdav1",
    time="O(n²·d/k) with index=scan (farthest and k nearest by passes); with the k-d tree (index=auto at large n, d ≤ 12) measured n^1.5 at d = 10 and n^1.2 at d = 3 (docs/scaling.md)",
    memory_bytes=tree_memory,
    title="MDAV-1 (Lin et al. 2010)",
    citation="004_d1273daa16c98592.txt §IV (MDAV-1), Tables I–III; docs/algorithms/mdav.md",
    run=run,
    warm_up=kernels.tree_warm_up(run),
    params={"index": kernels.index_param()},
    deterministic=True,
)
