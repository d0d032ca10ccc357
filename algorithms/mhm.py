"""MHM — multivariate Hansen–Mukherjee (Domingo-Ferrer et al. 2006).

Source: 004_d1273daa16c98592.txt §IV ("MHM ... first uses various heuristics,
such as nearest point next (NPN), maximum distance (MD) or MDAV to order the
multivariate records. Steps similar to the HM method are then applied to
generate clusters based on this ordering") and Tables I-III (rows NPN-MHM,
MD-MHM, MDAV-MHM, CBFS-MHM); 003_58f0e37d459aa4df.txt §2 and Table 3
(complexities), §4 (its "procedure like MDAV-MHM": groups chained by NPN).
Pseudocode, every choice and the evidence: docs/algorithms/hm_mst.md §2.

1. Order the records (``order``):
   * ``npn``: nearest point next — each next record is the unvisited one
     nearest to the last. ``start`` picks the first record: ``opposite``
     (default) = the record farthest from the record that is farthest from the
     centroid (MDAV's s); ``centroid`` = the record farthest from the centroid.
   * ``mdav`` / ``md`` / ``cbfs``: run that fixed-size method (MDAV-generic, the
     ``md`` plugin, the ``cbfs`` plugin with its defaults) and read its groups
     as a sequence, members in record order (``sequence``):
     - ``ends`` (default): the groups of each pair step go to opposite ends of
       the sequence (0, 2, 4, ..., 5, 3, 1);
     - ``creation``: groups in the order the method made them;
     - ``chain``: from the group holding the record farthest from the
       centroid, always the unvisited group with the nearest centroid next.
2. Cut the sequence optimally into contiguous groups of k..2k-1 records: the HM
   shortest path (``mabench.kernels.methods.hm``, O(n·k)).

The seeds do not say where NPN starts or how a fixed-size method's groups
become a sequence ([OPEN]); the defaults are the readings nearest to the
published rows (hm_mst.md §2). With ``order=mdav|md|cbfs`` the method's own
groups are contiguous in the sequence and have k..2k-1 records, so MHM is never
worse than the method it orders with. Ties: lowest record index; on
equal-cost paths the smallest last group.
"""

import numpy as np

from mabench import kernels as K
from mabench import discovery
from mabench.plugin import Algorithm, Param, tree_memory

_SEQ = {"creation": K.SEQ_CREATION, "ends": K.SEQ_ENDS, "chain": K.SEQ_CHAIN}


def ordering(Z, k, params, rng):
    """The record sequence MHM cuts (a permutation of 0..n-1)."""
    how = params["order"]
    if how == "npn":
        first = K.farthest_from_centroid(Z)
        if params["start"] == "opposite":
            first = K.farthest_from_record(Z, first)
        return K.npn_order(Z, first)
    if how == "mdav":
        labels = K.mdav_partition(Z, k, K.TAIL_3K, params["index"])
    elif how == "cbfs":  # the cbfs plugin's defaults: tail=nearest, centroid=remaining
        labels = K.cbfs_labels(Z, k, False, False, params["index"])
    else:
        other = discovery.algorithm(how)
        labels = np.asarray(other.run(Z, k, other.resolve({}), rng), dtype=np.int64)
    return K.sequence_of_groups(Z, labels, int(labels.max()) + 1, _SEQ[params["sequence"]])


def run(Z, k, params, rng):
    labels, _ = K.hm_labels(Z, ordering(Z, k, params, rng), k)
    return labels


ALGORITHM = Algorithm(
    name="mhm",
    time="ordering's cost (mdav/cbfs O(n²·d/k), npn O(n²·d), md more) + O(n·k·d) shortest path",
    memory_bytes=tree_memory,
    title="MHM (multivariate Hansen-Mukherjee over an NPN / MDAV / MD / CBFS ordering)",
    citation="004_d1273daa16c98592.txt §IV (MHM) and Tables I-III; 003_58f0e37d459aa4df.txt §2, §4, Table 3; "
    "docs/algorithms/hm_mst.md §2",
    run=run,
    warm_up=K.tree_warm_up(run),
    params={
        "order": Param("npn", "record ordering: npn, mdav (MDAV-generic), md or cbfs", ("npn", "mdav", "md", "cbfs")),
        "start": Param("opposite", "order=npn: first record = farthest from the farthest-from-centroid record "
                       "(opposite) or farthest from the centroid (centroid)", ("opposite", "centroid")),
        "sequence": Param("ends", "order=mdav|md|cbfs: groups as a sequence: pair groups at opposite ends, "
                          "creation order, or chained by nearest centroid", ("ends", "creation", "chain")),
        "index": K.index_param("order=mdav|cbfs: "),
    },
    deterministic=True,
)
