"""Shared Numba kernels, one module per primitive.

* :mod:`.buffer` — the work buffer of remaining records (compaction, running centroid sums, scratch);
* :mod:`.distances` — distance passes and the farthest remaining record;
* :mod:`.nearest` — a record with its k−1 nearest remaining records;
* :mod:`.select` — argmin / m nearest among the alive slots, moving one record into a growing group;
* :mod:`.groups` — centroids, SSE, leftovers to the nearest group;
* :mod:`.mdav` — the MDAV family's main loop.

Algorithm plugins import what they need from here (``from mabench import kernels as K``).
"""

import os

# Threads that wait for work sleep instead of spinning: a spinning thread takes a core from the
# other processes of a shared machine (and from our own other thread when it is descheduled).
# Read by the OpenMP runtime when the threading layer starts, so it is set before.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from numba.np.ufunc.parallel import _launch_threads  # noqa: E402

# Start Numba's threading layer before any cached kernel is loaded. A cached
# kernel that calls a parallel one references the scheduler's symbols
# (allocate_sched, ...), which exist only once the layer is up; loading it
# first aborts with "LLVM ERROR: Symbol not found" (seen in a cold-cache run,
# tests/test_jit_cache.py replays it).
_launch_threads()

from .buffer import BLOCK, PARALLEL_MIN, UNASSIGNED, centroid, compact, forget, scratch, work_buffer  # noqa: E402
from .distances import argmax_alive, distances_from, load_point, sqdist  # noqa: E402
from .groups import assign_leftovers, close_tail, group_means, sse  # noqa: E402
from .mdav import TAIL_2K, TAIL_3K, TAIL_MDAV1, mdav_labels  # noqa: E402
from .nearest import farthest_group, group_around, label_rest, take_nearest  # noqa: E402
from .select import add_member, argmin_alive, nearest_slots  # noqa: E402

__all__ = [
    "BLOCK", "PARALLEL_MIN", "UNASSIGNED", "TAIL_2K", "TAIL_3K", "TAIL_MDAV1",
    "add_member", "argmax_alive", "argmin_alive", "assign_leftovers", "centroid", "close_tail", "compact", "distances_from", "farthest_group",
    "forget", "group_around", "group_means", "label_rest", "load_point", "mdav_labels", "nearest_slots", "scratch", "sqdist",
    "sse", "take_nearest", "work_buffer",
]
