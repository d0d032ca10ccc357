"""IL = 100 · SSE / SST on the standardized data (the IL every seed prints)."""

from __future__ import annotations

import numpy as np

from mabench.kernels import sse
from mabench.metrics import EvalContext, metric


@metric("il", doc="information loss, 100·SSE/SST on z-scores (%)")
def il(ctx: EvalContext) -> float:
    # SST is the SSE of the one-group partition, summed by the same kernel in the same order: the
    # whole data set as one group (k = n) gives exactly 100, and rounding can never push IL above it.
    z = ctx.z
    sst = sse(z, np.zeros(z.shape[0], dtype=np.int64), 1)
    if ctx.published is not None:
        return 100.0 * published_sse(z, ctx.masked_z) / sst
    return 100.0 * min(1.0, sse(z, ctx.labels, ctx.n_groups) / sst)


def published_sse(x: np.ndarray, masked: np.ndarray) -> float:
    """Σ ||x_i − x'_i||² for published values other than the group means (median, trimmed mean,
    one-step, weighted mean). The group mean minimises this sum within each group, so such an IL is
    never below the same partition's mean IL, and may exceed 100 (docs/metrics.md#aggregation-measures)."""
    diff = np.asarray(x, dtype=np.float64) - masked
    return float(np.einsum("ij,ij->", diff, diff))


@metric("il_raw", doc="information loss, 100·SSE/SST on the original (unstandardized) values (%)")
def il_raw(ctx: EvalContext) -> float:
    """IL on the raw scale: each column weighs by its variance, so large-valued columns dominate.

    Not comparable with ``il``; it is the scale some papers evidently computed on
    (see docs/metrics.md#il_raw). SST is summed like ``il``'s (one-group SSE), so k = n gives 100.
    """
    x = np.ascontiguousarray(ctx.original, dtype=np.float64)
    sst = sse(x, np.zeros(x.shape[0], dtype=np.int64), 1)
    if sst == 0.0:
        return 0.0
    if ctx.published is not None:
        return 100.0 * published_sse(x, ctx.masked) / sst
    return 100.0 * min(1.0, sse(x, ctx.labels, ctx.n_groups) / sst)
