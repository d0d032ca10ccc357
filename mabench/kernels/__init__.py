"""Shared Numba kernels, grouped by role (docs/architecture.md), one module per primitive.

* ``core/`` — :mod:`~.core.buffer` (the work buffer of remaining records: compaction, running
  centroid sums, scratch), :mod:`~.core.distances` (distance passes, the farthest remaining record),
  :mod:`~.core.nearest` (a record with its k−1 nearest remaining records), :mod:`~.core.select` (the
  m nearest among the alive slots; the one insertion step of every "k smallest so far" list), :mod:`~.core.groups` (centroids, SSE, leftovers to the nearest
  group), :mod:`~.core.aggregate` (the value a group publishes), :mod:`~.core.counter` (progress);
* ``spatial/`` — :mod:`~.spatial.kdtree` (a static k-d tree with deletions, :class:`KDTree`),
  :mod:`~.spatial.treegroups` (the MDAV family's and CBFS's group steps answered by the tree),
  :mod:`~.spatial.index_choice` (which of the pass and tree kernels a method runs),
  :mod:`~.spatial.knn_tree` (nearest two of many query points), :mod:`~.spatial.farpair` (the most
  distant remaining pair), :mod:`~.spatial.pairs` (record pairs closer than a threshold),
  :mod:`~.spatial.mst` (Prim's minimum spanning tree, nearest-point-next);
* ``methods/`` — one main loop per family: :mod:`~.methods.mdav`, :mod:`~.methods.cbfs`,
  :mod:`~.methods.density` (DBA-1), :mod:`~.methods.tfrp`, :mod:`~.methods.hm` (Hansen–Mukherjee),
  :mod:`~.methods.ward` and :mod:`~.methods.kward` (the k-Ward family), :mod:`~.methods.refine`
  (dissolve-and-reassign), :mod:`~.methods.swap` (OMMA's migrations) with :mod:`~.methods.swap_bound` (a proof that none can be made), :mod:`~.methods.sdcmicro`,
  :mod:`~.methods.mcd` with :mod:`~.methods.mcd_steps` and :mod:`~.methods.chi_square` (FastMCD);
* ``improve/`` — :mod:`~.improve.localsearch` (group state, exact move/swap costs, descent,
  perturbation), :mod:`~.improve.icsm` and :mod:`~.improve.icsm_tour` (ICSM's steps), :mod:`~.improve.lns` (exact re-partition of
  a region), :mod:`~.improve.search` (the drivers the ``icsm``, ``ls`` and ``lns`` plugins call);
* ``lowerbound/`` — :mod:`~.lowerbound.bounds` (pair and cover bounds), :mod:`~.lowerbound.colgen`
  (column generation for the LP bound).

Algorithm plugins import what they need from here (``from mabench import kernels as K``).

Counters and sentinels that kernels pass on to other kernels start as ``np.int64(0)`` /
``np.int64(-1)``, not ``0`` / ``-1``: Numba compiles a callee once more for every literal constant
it is called with, which made the workflow's compile step about a fifth longer.
"""

import os

# Threads that wait for work sleep instead of spinning: a spinning thread takes a core from the
# other processes of a shared machine (and from our own other thread when it is descheduled).
# Read by the OpenMP runtime when the threading layer starts, so it is set before.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402
from numba.np.ufunc.parallel import _launch_threads  # noqa: E402

from mabench.codehash import numba_cache_dir  # noqa: E402

# Compiled kernels are cached per hash of the engine's sources (mabench/codehash.py says why); set before
# any kernel is decorated, since Numba reads it then.
numba.config.CACHE_DIR = numba_cache_dir()

# ... and filed by module name, not by the folder mabench is installed in (jit_cache says why).
from mabench.kernels.core import jit_cache  # noqa: E402

jit_cache.install()

# Start Numba's threading layer before any cached kernel is loaded. A cached
# kernel that calls a parallel one references the scheduler's symbols
# (allocate_sched, ...), which exist only once the layer is up; loading it
# first aborts with "LLVM ERROR: Symbol not found" (seen in a cold-cache run,
# tests/kernels/test_jit_cache.py replays it).
_launch_threads()

from mabench.kernels.core.buffer import BLOCK, PARALLEL_MIN, UNASSIGNED, centroid, compact, forget, scratch, transposed, work_buffer  # noqa: E402
from mabench.kernels.core.distances import argmax_alive, argmin_alive, distances_from, farthest_first, farthest_from_mean, load_point, lowest_alive, next_unassigned, rows_mean, sq_between, sqdist, sqdist_rows  # noqa: E402
from mabench.kernels.core.groups import assign_leftovers, close_tail, group_means, sse, sst  # noqa: E402
from mabench.kernels.methods.hm import SEQ_CHAIN, SEQ_CREATION, SEQ_ENDS, hm_labels, path_labels, prefix_sums, segment_sse, sequence_of_groups, shortest_path  # noqa: E402
from mabench.kernels.spatial.mst import farthest_from_centroid, farthest_from_record, npn_order, prim_mst  # noqa: E402
from mabench.kernels.methods.mdav import TAIL_2K, TAIL_3K, TAIL_MDAV1, mdav_labels, mdav_labels_tree, mdav_partition  # noqa: E402
from mabench.kernels.spatial.index_choice import INDEX_HELP, INDEXES, index_param, tree_warm_up, use_tree  # noqa: E402
from mabench.kernels.methods.cbfs import cbfs_labels, cbfs_labels_scan, cbfs_labels_tree  # noqa: E402
from mabench.kernels.methods.cbfs_grid import cbfs_fixed_grid, cbfs_fixed_labels, takes_grid  # noqa: E402
from mabench.kernels.core.nearest import farthest_group, group_around, label_rest, take_nearest  # noqa: E402
from mabench.kernels.improve.localsearch import (EPS, apply_move, best_change, dissolve, group_state, move_swap_descent,  # noqa: E402
                          nearest_groups, perturb, r1, r2, r3, swap_cost, total_sse)
from mabench.kernels.improve.icsm import complex_heuristic, group_scores, group_scores_fast, simple_heuristic  # noqa: E402
from mabench.kernels.improve.icsm_tour import grow_update, slide_update, tour, tour2assignment, window_costs  # noqa: E402
from mabench.kernels.spatial.farpair import far_partners, far_refresh, max_far_slot, most_distant_pair, pair_start  # noqa: E402
from mabench.kernels.methods.tfrp import reference_points, two_reference_labels  # noqa: E402
from mabench.kernels.methods.density import density_labels, knn_spread  # noqa: E402
from mabench.kernels.methods.refine import RESPLIT, dissolve_reassign, reassign_bound, reassign_stage  # noqa: E402
from mabench.kernels.spatial.kdtree import KDTree, kd_build, kd_delete, kd_nearest_k, kd_nearest_to_group, kd_remaining, kd_scratch  # noqa: E402
from mabench.kernels.spatial.pairs import count_close_pairs, distance_range, fill_close_pairs  # noqa: E402
from mabench.kernels.methods.swap import apply_swap, best_swap, fixed_groups, member_sums, members_sse, swap_delta  # noqa: E402
from mabench.kernels.methods.swap_bound import bound_slack, far_apart, group_radii, no_gain, refresh_group, sum_gap  # noqa: E402
from mabench.kernels.methods.ward import kward_sorted, kwr_sorted, split_until_small, ward_increase, ward_merge, ward_merge_diagonal  # noqa: E402
from mabench.kernels.core.select import add_member, nearest_slots  # noqa: E402

__all__ = [
    "BLOCK", "PARALLEL_MIN", "UNASSIGNED", "TAIL_2K", "TAIL_3K", "TAIL_MDAV1",
    "add_member", "argmax_alive", "farthest_first", "next_unassigned", "assign_leftovers", "centroid", "close_tail", "compact", "distances_from", "farthest_group",
    "forget", "group_around", "group_means", "label_rest", "load_point", "mdav_labels", "nearest_slots", "scratch", "sqdist",
    "sse", "sst", "take_nearest", "work_buffer",
    "mdav_labels_tree", "mdav_partition", "INDEX_HELP", "INDEXES", "index_param", "tree_warm_up", "use_tree", "cbfs_labels", "cbfs_labels_scan", "cbfs_labels_tree", "cbfs_fixed_grid", "cbfs_fixed_labels", "takes_grid",
    "kd_nearest_k",
    "SEQ_CHAIN", "SEQ_CREATION", "SEQ_ENDS", "hm_labels", "path_labels", "prefix_sums", "segment_sse", "sequence_of_groups", "shortest_path",
    "farthest_from_centroid", "farthest_from_record", "npn_order", "prim_mst",
    "EPS", "apply_move", "best_change", "dissolve", "group_state", "move_swap_descent", "nearest_groups", "perturb",
    "r1", "r2", "r3", "swap_cost", "total_sse",
    "complex_heuristic", "grow_update", "group_scores", "group_scores_fast", "simple_heuristic", "slide_update", "tour", "tour2assignment",
    "window_costs",
    "far_partners", "far_refresh", "max_far_slot", "most_distant_pair", "pair_start", "reference_points", "two_reference_labels",
    "density_labels", "knn_spread", "dissolve_reassign", "RESPLIT", "reassign_bound", "reassign_stage",
    "argmin_alive", "farthest_from_mean", "lowest_alive", "rows_mean", "sqdist_rows", "KDTree", "kd_build", "kd_delete", "kd_nearest_to_group", "kd_remaining", "kd_scratch",
    "count_close_pairs", "distance_range", "fill_close_pairs", "transposed",
    "apply_swap", "best_swap", "fixed_groups", "member_sums", "members_sse", "swap_delta",
    "kward_sorted", "kwr_sorted", "split_until_small", "ward_increase", "ward_merge", "ward_merge_diagonal",
]
