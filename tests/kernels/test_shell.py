"""The shell order's farthest-record scan and its compaction (mabench/kernels/spatial/shell.py)
against a plain NumPy pass: the remaining record farthest from a point, its squared distance summed
attribute by attribute as the pass kernel sums it, ties to the lowest record id. Compaction moves
grouped records out of the stretch a scan reads; it must never change an answer, from the new head
or from any head a caller kept from before."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from mabench.kernels.spatial.shell import COMPACT_AFTER, SHELL_BLOCK, shell_compact, shell_farthest, shell_order
from support import as_run


def _farthest(Z, labels, p, skip=-1):
    """The pass's answer: the largest squared distance (added in attribute order), lowest id on ties."""
    dist = np.zeros(Z.shape[0])
    for j in range(Z.shape[1]):
        dist = dist + (Z[:, j] - p[j]) * (Z[:, j] - p[j])
    alive = (labels == -1) & (np.arange(Z.shape[0]) != skip)
    if not alive.any():
        return -1
    best = dist[alive].max()
    return int(np.flatnonzero(alive & (dist == best))[0])


def _data(rng, n, d, tied):
    if tied:  # a few distinct values: equal radii and equal distances
        return as_run(rng.integers(0, 3, size=(n, d)).astype(np.float64))
    return as_run(rng.standard_normal((n, d)))


def _group_the_rim(rng, Z, c0, share):
    """Labels with ``share`` of the records grouped, mostly the outermost ones (where MDAV and CBFS take
    their groups, so where a scan meets them), a few anywhere."""
    n = Z.shape[0]
    labels = np.full(n, -1, dtype=np.int64)
    outer = np.argsort(-((Z - c0) ** 2).sum(axis=1), kind="stable")
    m = int(share * n)
    labels[outer[:m][rng.random(m) < 0.8]] = 0
    labels[rng.integers(0, n, max(1, n // 50))] = 0
    return labels


def _check_layout(shell, head, labels):
    """What the scan relies on: every remaining record at or after ``head``; the radii never rise from
    the head's block on; slots before the head hold grouped records."""
    ids, a = shell.ids, shell.radius
    first = head // SHELL_BLOCK * SHELL_BLOCK
    assert np.all(np.diff(a[first:]) <= 0)
    assert np.all(labels[ids[:head]] != -1)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(1, 700), d=st.integers(1, 6), share=st.floats(0.0, 1.0), tied=st.booleans(),
       seed=st.integers(0, 2**32 - 1))
def test_compaction_keeps_the_remaining_records_in_order_and_every_answer(n, d, share, tied, seed):
    rng = np.random.default_rng(seed)
    Z = _data(rng, n, d, tied)
    c0 = Z.mean(axis=0)
    shell = shell_order(Z, np.full(n, -1, dtype=np.int64), c0)
    labels = _group_the_rim(rng, Z, c0, share)
    before = [i for i in shell.ids.tolist() if labels[i] == -1]
    radius = dict(zip(shell.ids.tolist(), shell.radius.tolist()))
    stop = int(rng.integers(0, n + 1))
    head = shell_compact(shell, 0, stop, labels)
    _check_layout(shell, head, labels)
    assert [i for i in shell.ids[head:].tolist() if labels[i] == -1] == before  # same records, same order
    for t in range(head, n):
        assert shell.radius[t] == radius[int(shell.ids[t])]
    assert np.isnan(shell.rows.transpose(0, 2, 1).reshape(-1, d)[:head]).all()
    for p in (c0, Z[int(rng.integers(0, n))], rng.standard_normal(d) * 3):
        want = _farthest(Z, labels, p)
        assert shell_farthest(shell, head, c0, labels, p)[0] == want
        assert shell_farthest(shell, 0, c0, labels, p)[0] == want  # a head kept from before the compaction
        skip = want
        assert shell_farthest(shell, head, c0, labels, p, skip)[0] == _farthest(Z, labels, p, skip)


def test_a_scan_that_meets_many_grouped_records_compacts_what_it_read():
    """The records farthest from a point grouped, as CBFS groups the farthest from its centroid while
    the centroid drifts from the shell's pivot: the scan from that point meets them (farther than any
    remaining record, so each beats the best so far), so it compacts its stretch; the next scan
    starts past them with the same answers."""
    rng = np.random.default_rng(3)
    n, d = 20_000, 3
    Z = _data(rng, n, d, tied=False)
    c0 = Z.mean(axis=0)
    shell = shell_order(Z, np.full(n, -1, dtype=np.int64), c0)
    p = c0 + 0.05  # off the pivot: its distance order differs from the shell order
    labels = np.full(n, -1, dtype=np.int64)
    labels[np.argsort(-((Z - p) ** 2).sum(axis=1), kind="stable")[: n // 10]] = 0
    first_alive = int(np.flatnonzero(labels[shell.ids] == -1)[0])
    r, head = shell_farthest(shell, 0, c0, labels, p)
    assert r == _farthest(Z, labels, p)
    assert head > first_alive  # the grouped slots among the first remaining ones moved before the head
    _check_layout(shell, head, labels)
    for q in (p, Z[r], -Z[r]):
        assert shell_farthest(shell, head, c0, labels, q)[0] == _farthest(Z, labels, q)
