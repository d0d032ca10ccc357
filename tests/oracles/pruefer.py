"""Plain-Python reference for the thesis_ch6 generator's tree (datasets/thesis_ch6.py, ``pruefer_tree``):
the textbook O(d²) decoding of a Prüfer sequence, the smallest leaf found by a scan at each step
(test oracle; slow is fine)."""

from __future__ import annotations


def pruefer_edges(seq, d):
    """The d − 1 edges (leaf, parent) of the tree of d vertices whose Prüfer sequence is ``seq`` (d − 2
    integers in [0, d)); [] for d < 2."""
    if d < 2:
        return []
    degree = [1] * d
    for v in seq:
        degree[v] += 1
    edges = []
    for v in seq:
        leaf = min(u for u in range(d) if degree[u] == 1)
        edges.append((leaf, v))
        degree[leaf] -= 1
        degree[v] -= 1
    edges.append(tuple(x for x in range(d) if degree[x] == 1))
    return edges
