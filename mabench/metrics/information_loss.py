"""IL = 100 · SSE / SST on the standardized data (the IL every seed prints)."""

from __future__ import annotations

import numpy as np

from mabench.kernels import group_means, sse, sst
from mabench.metrics.context import EvalContext, metric


def warm_groups(n: int, d: int, k: int, options: dict) -> None:
    """The group kernels of il, il_raw and g_il (sse, sst, group_means; mabench.metrics.warm)."""
    x = np.zeros((2, d))
    labels = np.zeros(2, dtype=np.int64)
    sse(x, labels, 1)
    sst(x)
    group_means(x, labels, 1)


def _sse(x: np.ndarray, ctx: EvalContext) -> float:
    """Within-group SSE of ``x``: of the partition, or summed variable by variable over a
    per-variable partition (each column against its own groups' means)."""
    if ctx.column_labels is None:
        return sse(x, ctx.labels, ctx.n_groups)
    total = 0.0
    for j in range(x.shape[1]):
        lab = np.ascontiguousarray(ctx.column_labels[:, j])
        total += sse(np.ascontiguousarray(x[:, j:j + 1]), lab, int(lab.max()) + 1)
    return total


@metric("il", doc="information loss, 100·SSE/SST on z-scores (%)", warm=warm_groups)
def il(ctx: EvalContext) -> float:
    z = ctx.z
    total = sst(z)
    if ctx.published is not None:
        return 100.0 * published_sse(z, ctx.masked_z) / total
    return 100.0 * min(1.0, _sse(z, ctx) / total)


def published_sse(x: np.ndarray, masked: np.ndarray) -> float:
    """Σ ||x_i − x'_i||² for published values other than the group means (median, trimmed mean,
    one-step, weighted mean). The group mean minimises this sum within each group, so such an IL is
    never below the same partition's mean IL, and may exceed 100 (docs/metrics.md#aggregation-measures)."""
    diff = np.asarray(x, dtype=np.float64) - masked
    return float(np.einsum("ij,ij->", diff, diff))


@metric("il_raw", doc="information loss, 100·SSE/SST on the original (unstandardized) values (%)",
        warm=warm_groups)
def il_raw(ctx: EvalContext) -> float:
    """IL on the raw scale: each column weighs by its variance, so large-valued columns dominate.

    Not comparable with ``il``; it is the scale some papers evidently computed on
    (see docs/metrics.md#il_raw). SST is summed like ``il``'s (one-group SSE), so k = n gives 100.
    """
    x = np.ascontiguousarray(ctx.original, dtype=np.float64)
    total = sst(x)
    if total == 0.0:
        return 0.0
    if ctx.published is not None:
        return 100.0 * published_sse(x, ctx.masked) / total
    return 100.0 * min(1.0, _sse(x, ctx) / total)
