"""kW — univariate k-Ward microaggregation (Domingo-Ferrer & Mateo-Sanz 2002).

Source: 001_26cfb99743cbb1f3.txt Ch. 3 §3.2–3.3 (Algorithm 2, "k-Ward_MAT"),
Table 3.3; §3.5.4 and Table 3.10 for multivariate data through a projection.
Pseudocode, choices and evidence: docs/algorithms/kward.md.

On the sorted values: the k smallest and the k largest form two seed groups,
every other value is a singleton; Ward merges (smallest SSE increase
n_i n_j/(n_i+n_j)·(mean_i − mean_j)²) never join two groups that both have
>= k records and stop when every group has >= k; a group of 2k or more
records is processed again on its own. Group sizes end in [k, 2k−1].

Choices where the thesis is silent:
* ties between equal increases go to the first pair in row-major order of the
  (sorted) group matrix — this reproduces all 26 IL values of Table 3.3;
* fewer than 2k records form one group;
* ``projection`` (none | zs | fpc): multi-column data must be projected on one
  axis first (sum of z-scores, or first principal component of the z-scores
  with the largest loading made positive); without it the method refuses.
  IL is then computed on all standardized columns (reproduces Table 3.10).

Speed: the thesis scans the whole group matrix at each merge (O(n³) overall);
the kernel keeps each row's best partner and gives the same partition.
"""

from mabench.kernels.methods.kward import univariate

ALGORITHM = univariate(
    "kw", diagonal=False, recursive=False,
    time="O(n²) (univariate Ward, a row scan per merge)",
    memory="O(n)",
    title="kW (univariate k-Ward; multivariate data through a projection)",
    citation="001_26cfb99743cbb1f3.txt Ch. 3 §3.2-3.3 (Algorithm 2), §3.5.4; docs/algorithms/kward.md",
)
