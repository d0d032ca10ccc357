"""kWD — k-Ward Diagonal (Fayyoumi & Oommen 2006).

Source: 001_26cfb99743cbb1f3.txt Ch. 3 §3.4.1 (Algorithm 3, Theorems 1–2),
Table 3.3 (IL and times against kW), Table 3.10 (projections).
Pseudocode, choices and evidence: docs/algorithms/kward.md.

kW with the pair search restricted to the "diagonal" of the sorted group
matrix: a group with fewer than k records is compared only with its right
neighbour; a group with k or more records with the first group to its right
that has fewer than k records (the row traversal of Algorithm 3). Theorem 2
claims the same output as kW; on tie-free data it is (tests/methods/test_kward.py).

Choices where the thesis is silent: the merged group keeps the position of
the left group; ties go to the leftmost candidate; the row search runs right
only (upper triangle); ``projection`` as for ``kw``.

Speed: candidates live in a heap, so a merge costs O(log n) plus the
candidates it invalidates, against kW's O(n) per merge here (O(n²) in the
thesis's implementation): one power of n less, as in the thesis.
"""

from mabench.kernels.methods.kward import univariate

ALGORITHM = univariate(
    "kwd", diagonal=True, recursive=False,
    time="O(n log n) (univariate, heap of diagonal candidates)",
    memory="O(n)",
    title="kWD (k-Ward Diagonal)",
    citation="001_26cfb99743cbb1f3.txt Ch. 3 §3.4.1 (Algorithm 3); docs/algorithms/kward.md",
)
