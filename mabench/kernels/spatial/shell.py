"""The shell order: the remaining records sorted by their distance from a pivot, for the farthest
remaining record from a point (MDAV's and CBFS's tree paths, kernels/spatial/treegroups.py).

The answer is the pass kernel's: the same distances, ties to the lowest record id."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from mabench.kernels.core.buffer import UNASSIGNED
from mabench.kernels.core.radix import decreasing_order
from mabench.kernels.spatial.kdtree import SLACK, TINY

# The farthest remaining record from a point p, by the triangle inequality around a pivot c0:
# |x − p| <= |x − c0| + |p − c0|. The remaining records are kept sorted by |x − c0| (descending), with
# their rows copied in that order; a scan from the outside stops once (|x − c0| + |p − c0|)² falls below
# the best distance found. MDAV asks for the farthest from the centroid (c0 is the centroid at the last
# rebuild, so |p − c0| is small and only a thin outer shell is read) and from a record on that shell.
# In many dimensions this reads far fewer records than the k-d tree's boxes would open.
#
# The rows are stored in blocks of SHELL_BLOCK slots, column by column within a block, so that one
# block's distances are computed side by side in vector instructions (each slot's sum still added in
# attribute order from 0.0: the same bits as the pass). A block is read whole: its slots past the
# stopping point have distances below the bound, below the best, so they can neither win nor tie.

SHELL_BLOCK = 64  # the scan alone over a ball of 10^6 x 10, one thread: 2.6-3.3x row by row (16: 2x, 128: the same)
COMPACT_AFTER = 64  # grouped records a scan may meet before it compacts what it read (CBFS at 10^6 x 3 read three
                   # grouped slots for each remaining one without it: docs/scaling.md)

Shell = namedtuple("Shell", "rows ids radius dist")
Shell.__doc__ = """The remaining records in decreasing distance from the pivot c0: rows (blocks, d, SHELL_BLOCK),
column-major per block, padded with NaN (a NaN distance never wins); ids (record id per slot); radius
(|x − c0| per slot); dist (one block's distances, scratch of the one thread that scans)."""


@njit(cache=True)
def shell_order(Z, labels, c0):
    """:class:`Shell` of the remaining records, sorted by decreasing |x − c0|.

    Ties keep record order (a stable sort).

    Parameters
    ----------
    Z : (n, d) float64 — the records.
    labels : (n,) int64 — -1 marks a remaining record.
    c0 : (d,) float64 — the pivot.

    Returns
    -------
    Shell
    """
    d = Z.shape[1]
    rem = np.flatnonzero(labels == UNASSIGNED)
    a = np.empty(rem.size)
    for t in range(rem.size):
        s = 0.0
        for j in range(d):
            u = Z[rem[t], j] - c0[j]
            s += u * u
        a[t] = np.sqrt(s)
    order = decreasing_order(a)  # np.argsort(-a, kind="mergesort")'s order, in linear time
    ids = rem[order]
    B = SHELL_BLOCK
    rows = np.full(((ids.size + B - 1) // B, d, B), np.nan)
    for t in range(ids.size):
        for j in range(d):
            rows[t // B, j, t % B] = Z[ids[t], j]
    return Shell(rows, ids, a[order], np.empty(B))


@njit(cache=True)
def shell_farthest(shell, head, c0, labels, p, skip=-1):
    """Record id of the remaining record farthest from p (squared distance computed as the distance
    pass computes it; ties to the lowest id), and the new head (first position possibly alive).

    The scan stops at the first block whose first slot's bound is below the best (the bounds only
    fall along the order); a slot's label, a random access into an n-long array, is read only when
    its distance would win. Record ``skip`` counts as grouped. When the scan met at least
    ``COMPACT_AFTER`` grouped records that way, the stretch it read is compacted
    (:func:`shell_compact`) before it returns.

    Parameters
    ----------
    shell : Shell — the remaining records in shell order.
    head : int — the first shell position possibly alive.
    c0 : (d,) float64 — the shell's pivot.
    labels : (n,) int64 — -1 marks a remaining record.
    p : (d,) float64 — the point.
    skip : int, default -1 — a record id that counts as grouped (-1: none).

    Returns
    -------
    (int, int) — the record id (-1 when none remains) and the new head.
    """
    rows, ids, a, dist = shell.rows, shell.ids, shell.radius, shell.dist
    d = rows.shape[1]
    B = rows.shape[2]
    q = 0.0
    pp = 0.0
    for j in range(d):
        u = p[j] - c0[j]
        q += u * u
        pp += p[j] * p[j]
    off = np.sqrt(q)
    tol = TINY * (pp + 1.0)
    while head < ids.size and labels[ids[head]] != UNASSIGNED:
        head += 1
    best = -1.0
    best_r = -1
    grouped = 0
    stop = rows.shape[0]
    for b in range(head // B, rows.shape[0]):
        e = a[b * B] + off
        if e * e * (1.0 + SLACK) + tol < best:
            stop = b
            break
        block = rows[b]
        for i in range(B):
            dist[i] = 0.0
        for j in range(d):
            pj = p[j]
            for i in range(B):
                u = block[j, i] - pj
                dist[i] += u * u
        wins = 0
        for i in range(B):
            wins += dist[i] >= best
        if wins == 0:
            continue
        for i in range(B):
            if dist[i] >= best:
                r = ids[b * B + i]
                if labels[r] != UNASSIGNED:
                    grouped += 1
                elif (dist[i] > best or r < best_r) and r != skip:
                    best = dist[i]
                    best_r = r
    if grouped >= COMPACT_AFTER:
        head = shell_compact(shell, head, min(stop * B, ids.size), labels)
    return best_r, head


@njit(cache=True)
def shell_compact(shell, head, stop, labels):
    """Drop the grouped records from slots [head, stop) of the shell order, keeping the order of the
    others: the remaining records move to the end of the stretch, the grouped ones to its front, where
    their rows become NaN (a NaN distance never wins) and their radius the first remaining slot's. So
    the radii still only fall along the order, every slot before the new head holds a grouped record,
    and a scan from any earlier head still finds the same answer.

    Parameters
    ----------
    shell : Shell — changed in place.
    head : int — the first position possibly alive.
    stop : int — the end of the stretch (a position).
    labels : (n,) int64 — -1 marks a remaining record.

    Returns
    -------
    int — the new head: the first slot of the stretch that holds a remaining record (``stop`` if none).
    """
    rows, ids, a = shell.rows, shell.ids, shell.radius
    d = rows.shape[1]
    B = rows.shape[2]
    w = stop  # the remaining records fill [w, stop), last first
    for t in range(stop - 1, head - 1, -1):
        r = ids[t]
        if labels[r] != UNASSIGNED:
            continue
        w -= 1
        if w != t:
            grouped_id = ids[w]
            ids[w] = r
            ids[t] = grouped_id  # slot t is below w from now on: it holds a grouped record
            a[w] = a[t]
            for j in range(d):
                rows[w // B, j, w % B] = rows[t // B, j, t % B]
    top = a[w] if w < ids.size else 0.0
    for t in range(head, w):
        a[t] = top
        for j in range(d):
            rows[t // B, j, t % B] = np.nan
    return w
