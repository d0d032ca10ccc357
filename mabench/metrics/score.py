"""Composite scores of the thesis: G_DR (Eq. 4.3) and SI (Eq. 4.4).

Source: 001_26cfb99743cbb1f3.txt Ch. 4.4, Eqs. 4.3 and 4.4; docs/metrics.md
(g_dr and si). Both reuse the already computed parts of the same
evaluation (rld, id, g_il are computed once per context).

* G_DR = (RLD + ID)/2
* SI = x·G_IL + (1 − x)·G_DR, x = option ``si_x`` (default 0.5). Lower is better.
"""

from __future__ import annotations

from mabench.metrics.context import EvalContext, metric, option
from mabench.metrics.common import number_option
from mabench.metrics.disclosure import RLD_OPTIONS, id_value, rld_value, warm_rld
from mabench.metrics.utility import g_il_value


def g_dr_value(ctx: EvalContext) -> float:
    return (rld_value(ctx) + id_value(ctx)) / 2.0


@metric("g_dr", doc="G_DR = (RLD + ID)/2 (thesis Eq. 4.3) (%)", needs_key_variables=True, warm=warm_rld,
        options=(*RLD_OPTIONS, "id_p"))
def g_dr(ctx: EvalContext) -> float:
    return g_dr_value(ctx)


@metric("si", doc="SI = x·G_IL + (1−x)·G_DR, x = option si_x (default 0.5) (thesis Eq. 4.4)",
        needs_key_variables=True, warm=warm_rld, options=(*RLD_OPTIONS, "id_p", option("si_x", "weight x of G_IL in SI = x*G_IL + (1-x)*G_DR")))
def si(ctx: EvalContext) -> float:
    x = number_option(ctx, "si_x", 0.5, 0.0, 1.0, example="0.5")
    return x * g_il_value(ctx) + (1.0 - x) * g_dr_value(ctx)
