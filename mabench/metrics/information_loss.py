"""IL = 100 · SSE / SST on the standardized data (the IL every seed prints)."""

from __future__ import annotations

import numpy as np

from ..kernels import sse
from . import EvalContext, metric


@metric("il", doc="information loss, 100·SSE/SST on z-scores (%)")
def il(ctx: EvalContext) -> float:
    z = ctx.z
    sst = float(((z - z.mean(axis=0)) ** 2).sum())
    return 100.0 * sse(z, ctx.labels, ctx.n_groups) / sst


@metric("il_raw", doc="information loss, 100·SSE/SST on the original (unstandardized) values (%)")
def il_raw(ctx: EvalContext) -> float:
    """IL on the raw scale: each column weighs by its variance, so large-valued columns dominate.

    Not comparable with ``il``; it is the scale some papers evidently computed on
    (see docs/metrics.md#il_raw).
    """
    x = np.ascontiguousarray(ctx.original, dtype=np.float64)
    sst = float(((x - x.mean(axis=0)) ** 2).sum())
    if sst == 0.0:
        return 0.0
    return 100.0 * sse(x, ctx.labels, ctx.n_groups) / sst
