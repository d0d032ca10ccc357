"""kWR — recursive k-Ward (Fayyoumi & Oommen 2006).

Source: 001_26cfb99743cbb1f3.txt Ch. 3 §3.4.2 (Algorithm 4, Theorem 3),
Tables 3.4–3.7 (fixed and dynamic threshold), Table 3.10 (projections).
Pseudocode, choices and evidence: docs/algorithms/kward.md.

A sorted set of at least 2·J·k values (J = 2) is cut into J subsets and
r = Σ SST(subset) / SST(set) is computed; if θ > r the set goes to kW whole,
otherwise each subset is processed recursively; smaller sets go to kW.

Choices where the thesis is silent or garbled:
* the split is into two contiguous halves of equal count (the first half takes
  the odd record): the only rule of the three tried that makes θ = 0.8 split
  Tarragona as the thesis reports;
* the test is read literally (θ > r → stop), as the text and the complexity
  proof say;
* ``theta=dynamic``: the root always splits and each child uses its parent's
  r as θ; ``theta=<number>`` is the fixed threshold (0.8 for Tarragona);
* a constant set (SST = 0) is a leaf;
* the run record gets ``splits`` (number of splitting calls) and
  ``structure`` ("(" + children + ")" for a split, "()" for a leaf).
"""

from mabench.kernels.methods.kward import univariate

ALGORITHM = univariate(
    "kwr", diagonal=False, recursive=True,
    time="O(n²) worst (kW on the largest leaf of the recursion)",
    memory="O(n)",
    title="kWR (recursive k-Ward, J = 2)",
    citation="001_26cfb99743cbb1f3.txt Ch. 3 §3.4.2 (Algorithm 4); docs/algorithms/kward.md",
)
