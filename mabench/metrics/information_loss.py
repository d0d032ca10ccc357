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
