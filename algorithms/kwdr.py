"""kWDR — recursive k-Ward Diagonal: kWR whose base method is kWD (Fayyoumi & Oommen 2006).

Source: 001_26cfb99743cbb1f3.txt Ch. 3 §3.4.3, Tables 3.8 (fixed θ,
Tarragona), 3.9 (dynamic θ, Census), 3.10 (projections, dynamic θ).
Pseudocode, choices and evidence: docs/algorithms/kward.md.

Same recursion, threshold, split rule and run-record fields as ``kwr``
(``theta=`` a number or ``dynamic``; J = 2, equal-count halves); the leaves
are micro-aggregated by kWD instead of kW.
"""

from mabench.kernels.methods.kward import univariate

ALGORITHM = univariate(
    "kwdr", diagonal=True, recursive=True,
    time="O(n log n) (recursive halves, kWD on each leaf)",
    memory="O(n)",
    title="kWDR (recursive k-Ward Diagonal, J = 2)",
    citation="001_26cfb99743cbb1f3.txt Ch. 3 §3.4.3; docs/algorithms/kward.md",
)
