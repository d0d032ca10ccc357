"""Plain-Python brute force: the optimal partition of a tiny set into groups of k..kmax records.

Enumerates every set partition by recursion (the first unassigned record opens a group with every
choice of its companions), so it shares nothing with the bit-mask DP of mabench.kernels.improve.lns.
Exponential: use n ≤ 10.
"""

from __future__ import annotations

import itertools

import numpy as np


def group_sse(Z: np.ndarray, members) -> float:
    G = Z[list(members)]
    return float(((G - G.mean(axis=0)) ** 2).sum())


def optimum(Z: np.ndarray, k: int, kmax: int) -> float:
    """Minimum total SSE over partitions of all rows of Z with every group size in [k, kmax]
    (inf when none exists)."""
    n = Z.shape[0]

    def rec(rest: tuple) -> float:
        if not rest:
            return 0.0
        first, others = rest[0], rest[1:]
        best = float("inf")
        for size in range(k, kmax + 1):
            for comp in itertools.combinations(others, size - 1):
                left = tuple(x for x in others if x not in comp)
                if left and len(left) < k:
                    continue
                best = min(best, group_sse(Z, (first,) + comp) + rec(left))
        return best

    return rec(tuple(range(n)))
