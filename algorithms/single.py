"""single — sdcMicro's single-axis microaggregation: sort by one variable, groups of k.

Source: sdcMicro's ``microaggregation(method = "single", varsort = 1)`` (help page;
R/microaggregation.R ``micro_single``); single-axis ranking by a particular variable,
001_26cfb99743cbb1f3.txt §2.6.3.1 ("Single axis"). Docs: docs/algorithms/sdcmicro.md.

The records are sorted ascending by variable ``varsort`` (1-based; equal values keep record
order, as R's stable ``sort(index.return = TRUE)``) and cut into consecutive groups of k, the
last one taking the remainder.
"""

from mabench.errors import UserError
from mabench.kernels.methods import sdcmicro as S
from mabench.kernels.methods.sdcmicro_family import citation
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng, raw=None):
    X = S.values(Z, raw)
    j = int(params["varsort"])
    if not 1 <= j <= X.shape[1]:
        raise UserError(f"algorithm single: varsort={j} is not a column number in 1..{X.shape[1]}")
    return S.chunk_labels(S.stable_order(X[:, j - 1]), k)


ALGORITHM = Algorithm(
    name="single",
    time="O(n log n + n·d) (one sort)",
    title="single (sdcMicro: sort by one variable, groups of k)",
    citation=citation("micro_single"),
    run=run,
    params={"varsort": Param(1, "the variable to sort by (1-based column number; sdcMicro's varsort)", min=1)},
    deterministic=True,
    uses_raw=True,
    notes="Sorted on the original values (z-scores would only add rounding ties); equal values keep "
          "record order (stable). Cut as sdcMicro's indexMicro: the last group takes the remainder. "
          "k <= n < 2k is one group (sdcMicro refuses).",
)
