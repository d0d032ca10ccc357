"""A uniform grid of cubic cells over records in a few dimensions, with deletions: the alive records
nearest to a point.

In one to four dimensions a k-nearest question about a record answers from the cells around it,
without the k-d tree's build, rebuilds and box tests (kernels/spatial/kdtree.py). Cells are cubes of
one side h, chosen so that a cell holds about ``OCCUPANCY`` records on average over the bounding box;
a record's cell is floor((x − min) / h) per attribute. Each cell's alive records are stored together
(rows copied in cell order); a deletion swaps the record with its cell's last alive one.

Exactness: a candidate's distance is the pass kernels' arithmetic (the squared differences added in
attribute order from 0.0) and ties go to the lowest record id, whatever order the cells are read
in. Cells are skipped only when a lower bound on every distance in them — the gap between the point
and the cell's box, shrunk by far more than rounding can move a record across a cell border — exceeds
the k-th best so far, so the answer is the full pass's answer (tests/kernels/test_grid.py).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from mabench.kernels.core.select import keep_smallest_ranked
from mabench.kernels.spatial.kdtree import TINY

OCCUPANCY = 4.0   # records per cell over the bounding box (EMAD's Sim-1/2/3 subsets, d = 1-4: 4 fastest of 1-8)
REACH = 2         # the cells within this many cells of the point's are read in order of their least gap
GAP_SLACK = 1e-6  # relative slack on the squared gap bounds (rounding moves a record by ~1e-16 of its value)
CELLS_PER_RECORD = 4  # at most this many cells per record (a wide attribute would otherwise ask for millions)

CellGrid = namedtuple("CellGrid", "lo h m stride cell start end rec slot G")
CellGrid.__doc__ = """Records in cubic cells of side h (:func:`grid_build`). lo (d,) the per-attribute
minimum, m (d,) cells per attribute, stride (d,) the flat index's strides; cell (n,) each record's flat
cell; start (cells + 1,) where each cell's slots begin, end (cells,) one past its last alive slot; rec
(n,) the record id per slot, slot (n,) the slot per record id, G (n, d) the rows in slot order."""


@njit(cache=True)
def _cell_side(lo, hi, n, occupancy):
    """The side h of cubes holding ``occupancy`` records on average over the attributes with a
    spread (1.0 when none has one), widened until there are at most CELLS_PER_RECORD·n + 16 cells."""
    d = lo.size
    logv = 0.0
    spread = 0
    for j in range(d):
        if hi[j] > lo[j]:
            logv += np.log(hi[j] - lo[j])
            spread += 1
    h = 1.0 if spread == 0 else np.exp((logv + np.log(occupancy / n)) / spread)
    while True:
        cells = 1.0
        for j in range(d):
            cells *= np.floor((hi[j] - lo[j]) / h) + 1.0
        if cells <= CELLS_PER_RECORD * n + 16:
            return h
        h *= 1.5


@njit(cache=True)
def grid_build(Z, occupancy):
    """The :class:`CellGrid` over every record of Z, all alive; within a cell, records in id order.

    Parameters
    ----------
    Z : (n, d) float64 — the records (n >= 1).
    occupancy : float — records per cell wanted on average over the bounding box.

    Returns
    -------
    CellGrid
    """
    n, d = Z.shape
    lo = Z[0].copy()
    hi = Z[0].copy()
    for i in range(1, n):
        for j in range(d):
            lo[j] = min(lo[j], Z[i, j])
            hi[j] = max(hi[j], Z[i, j])
    h = _cell_side(lo, hi, n, occupancy)
    m = np.empty(d, dtype=np.int64)
    stride = np.empty(d, dtype=np.int64)
    cells = 1
    for j in range(d - 1, -1, -1):
        m[j] = np.int64((hi[j] - lo[j]) / h) + 1
        stride[j] = cells
        cells *= m[j]
    cell = np.empty(n, dtype=np.int64)
    start = np.zeros(cells + 1, dtype=np.int64)
    for i in range(n):
        f = 0
        for j in range(d):
            f += min(np.int64((Z[i, j] - lo[j]) / h), m[j] - 1) * stride[j]
        cell[i] = f
        start[f + 1] += 1
    for c in range(cells):
        start[c + 1] += start[c]
    end = start[:-1].copy()
    rec = np.empty(n, dtype=np.int64)
    slot = np.empty(n, dtype=np.int64)
    G = np.empty((n, d))
    for i in range(n):
        s = end[cell[i]]
        end[cell[i]] = s + 1
        rec[s] = i
        slot[i] = s
        for j in range(d):
            G[s, j] = Z[i, j]
    return CellGrid(lo, h, m, stride, cell, start, end, rec, slot, G)


@njit(cache=True)
def grid_crowding(grid):
    """The mean number of records in a record's own cell (Σ over cells of size², over n): about
    OCCUPANCY on spread-out data, near n when a few outliers stretch the box over a dense core.

    Parameters
    ----------
    grid : CellGrid

    Returns
    -------
    float
    """
    start = grid.start
    s = 0.0
    for c in range(start.size - 1):
        t = start[c + 1] - start[c]
        s += t * t
    return s / grid.rec.size


@njit(cache=True, inline="always")
def grid_delete(grid, r):
    """Take record ``r`` (alive) out of the grid: its cell's last alive record moves into its slot.

    Parameters
    ----------
    grid : CellGrid — updated.
    r : int — a record id.

    Returns
    -------
    None
    """
    rec, slot, G, end = grid.rec, grid.slot, grid.G, grid.end
    c = grid.cell[r]
    s = slot[r]
    last = end[c] - 1
    if s != last:
        q = rec[last]
        rec[s] = q
        slot[q] = s
        for j in range(G.shape[1]):
            G[s, j] = G[last, j]
        rec[last] = r
        slot[r] = last
    end[c] = last


@njit(cache=True)
def reach_offsets(d):
    """The cell offsets within REACH cells in every attribute, by increasing least gap to a point of
    the centre cell, in cells (√Σ max(|o_j| − 1, 0)²), ties in enumeration order.

    Parameters
    ----------
    d : int — attributes.

    Returns
    -------
    offsets : ((2·REACH + 1)^d, d) int64; least : their least gaps (float64, ascending).
    """
    w = 2 * REACH + 1
    total = w ** d
    offsets = np.empty((total, d), dtype=np.int64)
    least = np.empty(total)
    for t in range(total):
        q = t
        s = 0.0
        for j in range(d - 1, -1, -1):
            o = q % w - REACH
            q //= w
            offsets[t, j] = o
            a = max(abs(o) - 1, 0)
            s += a * a
        least[t] = np.sqrt(s)
    order = np.argsort(least, kind="mergesort")
    return offsets[order], least[order]


@njit(cache=True, inline="always")
def _read_cell(start, end, G, rec, f, p, want, top_d, top_i, cnt):
    """Offer the alive records of flat cell f (squared distances to p, the pass's arithmetic)."""
    for s in range(start[f], end[f]):
        x = 0.0
        for j in range(p.size):
            u = G[s, j] - p[j]
            x += u * u
        if cnt < want or x <= top_d[want - 1]:
            cnt = keep_smallest_ranked(top_d, top_i, cnt, want, x, s, rec)
    return cnt


@njit(cache=True, inline="always")
def _beyond(gap, margin, tol, kth):
    """Whether every record at least ``gap`` away (less ``margin`` for rounding) is farther than kth."""
    g = max(gap - margin, 0.0)
    return g * g * (1.0 - GAP_SLACK) - tol > kth


@njit(cache=True)
def grid_nearest_k(grid, p, want, top_d, top_i, offsets, least, cp, frac, ring):
    """The ``want`` alive records nearest to p, by (squared distance, record id), into top_d / top_i
    (record ids); returns how many (fewer only when fewer are alive).

    The cells within REACH of p's are read by increasing least gap (``offsets``), each skipped when
    its gap bound exceeds the k-th best; then, if needed, whole rings of cells farther out, until
    the ring's distance exceeds the k-th best.

    Parameters
    ----------
    grid : CellGrid — alive records only are read.
    p : (d,) float64 — the point.
    want : int — how many (>= 1).
    top_d : (want,) float64, top_i : (want,) int64 — filled.
    offsets, least : :func:`reach_offsets` of d.
    cp, ring : (d,) int64, frac : (d,) float64 — scratch.

    Returns
    -------
    int — how many were found.
    """
    d = p.size
    if want <= 0:
        return 0
    h, m, stride, start, end, G, rec = grid.h, grid.m, grid.stride, grid.start, grid.end, grid.G, grid.rec
    pp = 0.0
    margin = 0.0  # how far rounding can move a record across a cell border, with a wide room
    for j in range(d):
        c = min(np.int64((p[j] - grid.lo[j]) / h), m[j] - 1)
        cp[j] = c
        frac[j] = p[j] - (grid.lo[j] + c * h)
        pp += p[j] * p[j]
        margin = max(margin, 1e-9 * (abs(grid.lo[j]) + (m[j] + 1) * h))
    tol = TINY * (pp + 1.0)
    cnt = 0
    for t in range(offsets.shape[0]):
        if cnt == want and _beyond(least[t] * h, margin, tol, top_d[want - 1]):
            break
        f = 0
        g2 = 0.0
        for j in range(d):
            o = offsets[t, j]
            c = cp[j] + o
            if c < 0 or c >= m[j]:
                f = -1
                break
            f += c * stride[j]
            g = 0.0 if o == 0 else (o * h - frac[j] if o > 0 else frac[j] + (-o - 1) * h)
            g = max(g - margin, 0.0)
            g2 += g * g
        if f >= 0 and not (cnt == want and g2 * (1.0 - GAP_SLACK) - tol > top_d[want - 1]):
            cnt = _read_cell(start, end, G, rec, f, p, want, top_d, top_i, cnt)
    last = 0
    for j in range(d):
        last = max(last, cp[j], m[j] - 1 - cp[j])
    for R in range(REACH + 1, last + 1):
        # every cell not read yet is at least R cells from p's along some attribute
        if cnt == want and _beyond((R - 1) * h, margin, tol, top_d[want - 1]):
            break
        cnt = _read_ring(start, end, G, rec, m, stride, cp, R, p, want, top_d, top_i, cnt, ring)
    for t in range(cnt):
        top_i[t] = rec[top_i[t]]
    return cnt


@njit(cache=True)
def _read_ring(start, end, G, rec, m, stride, cp, R, p, want, top_d, top_i, cnt, off):
    """Read every cell exactly R cells from cp's along some attribute (and at most R along all)."""
    d = p.size
    for j in range(d):
        off[j] = max(-R, -cp[j])
    while True:
        on = False
        f = 0
        for j in range(d):
            on = on or off[j] == R or off[j] == -R
            f += (cp[j] + off[j]) * stride[j]
        if on:
            cnt = _read_cell(start, end, G, rec, f, p, want, top_d, top_i, cnt)
        j = d - 1
        while j >= 0:
            if off[j] < R and cp[j] + off[j] < m[j] - 1:
                off[j] += 1
                break
            off[j] = max(-R, -cp[j])
            j -= 1
        if j < 0:
            return cnt
