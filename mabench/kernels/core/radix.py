"""A stable order of float64 values by a least-significant-digit radix sort: the permutation
``np.argsort(-a, kind="mergesort")`` returns for values that are >= 0 or NaN, in linear time.

The shell order (kernels/spatial/shell.py) sorts up to n radii at each of its re-sorts; Numba's merge
sort took 0.19 s of the 0.25 s one re-sort of 10^6 radii costs (one thread, docs/scaling.md).

For a float64 x >= +0.0 the unsigned integer with x's bits grows with x, so sorting the complemented
bits in increasing order sorts the values in decreasing order; the radix passes are stable, so equal
values keep their positions' order, as the merge sort's do. NaN goes last (the merge sort's place for it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DIGIT = 11  # bits per pass: 6 passes over 64 bits, 2,048 counters (they stay in the first-level cache)


@njit(cache=True)
def decreasing_order(a):
    """Positions of ``a`` by decreasing value, equal values by increasing position, NaN last:
    ``np.argsort(-a, kind="mergesort")`` for a >= 0 (+0.0 and −0.0 count as equal).

    Parameters
    ----------
    a : (n,) float64 — the values, each >= 0 or NaN.

    Returns
    -------
    (n,) int64 — the order.
    """
    n = a.size
    top = np.uint64(0xFFFFFFFFFFFFFFFF)
    key = np.empty(n, dtype=np.uint64)
    bits = np.ascontiguousarray(a).view(np.uint64)
    for i in range(n):
        x = a[i]
        if x != x:
            key[i] = top  # NaN last
        elif x == 0.0:
            key[i] = top - np.uint64(1)  # −0.0 as +0.0
        else:
            key[i] = top - np.uint64(1) - bits[i]
    passes = (64 + DIGIT - 1) // DIGIT
    size = 1 << DIGIT
    mask = np.uint64(size - 1)
    hist = np.zeros((passes, size), dtype=np.int64)
    for i in range(n):
        k = key[i]
        for p in range(passes):
            hist[p, (k >> np.uint64(p * DIGIT)) & mask] += 1
    order = np.arange(n)
    key2 = np.empty(n, dtype=np.uint64)
    order2 = np.empty(n, dtype=np.int64)
    for p in range(passes):
        shift = np.uint64(p * DIGIT)
        if n == 0 or hist[p, (key[0] >> shift) & mask] == n:
            continue  # every key has the same digit here: the pass would not move anything
        total = 0
        for b in range(size):
            c = hist[p, b]
            hist[p, b] = total
            total += c
        for i in range(n):
            b = (key[i] >> shift) & mask
            t = hist[p, b]
            hist[p, b] = t + 1
            key2[t] = key[i]
            order2[t] = order[i]
        key, key2 = key2, key
        order, order2 = order2, order
    return order
