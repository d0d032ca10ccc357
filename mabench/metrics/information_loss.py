"""IL = 100 · SSE / SST on the standardized data (the IL every seed prints)."""

from __future__ import annotations

import numpy as np

from mabench.kernels import sse
from mabench.metrics import EvalContext, metric


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


@metric("il", doc="information loss, 100·SSE/SST on z-scores (%)")
def il(ctx: EvalContext) -> float:
    # SST is the SSE of the one-group partition, summed by the same kernel in the same order: the
    # whole data set as one group (k = n) gives exactly 100, and rounding can never push IL above it.
    z = ctx.z
    sst = sse(z, np.zeros(z.shape[0], dtype=np.int64), 1)
    return 100.0 * min(1.0, _sse(z, ctx) / sst)


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
    return 100.0 * min(1.0, _sse(x, ctx) / sst)
