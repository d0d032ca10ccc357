"""IL = 100 · SSE / SST on the standardized data (the IL every seed prints)."""

from __future__ import annotations

import numpy as np

from ..kernels import sse
from . import EvalContext, metric


@metric("il", doc="information loss, 100·SSE/SST on z-scores (%)")
def il(ctx: EvalContext) -> float:
    # SST is the SSE of the one-group partition, summed by the same kernel in the same order: the
    # whole data set as one group (k = n) gives exactly 100, and rounding can never push IL above it.
    z = ctx.z
    sst = sse(z, np.zeros(z.shape[0], dtype=np.int64), 1)
    return 100.0 * min(1.0, sse(z, ctx.labels, ctx.n_groups) / sst)
