"""Fayyoumi's information-loss measures M1..M5 and G_IL (thesis Table 4.1, Eq. 4.2).

Source: 001_26cfb99743cbb1f3.txt Ch. 4.4 (Table 4.1, Eq. 4.2, footnote 5);
docs/metrics.md (m1…m5 and g_il). All five are computed on ORIGINAL units: X is
the original file, X' the masked file (each record replaced by its group mean
in original units; the groups themselves were found on z-scores).

* M1 = Σ_ij |x_ij − x'_ij| / |x_ij| ÷ (n·d)
* M2 = Σ_j |x̄_j − x̄'_j| / |x̄_j| ÷ d
* M3 = Σ_j |v_jj − v'_jj| / |v_jj| ÷ d
* M4 = Σ_{i≤j} |v_ij − v'_ij| / |v_ij| ÷ (d(d+1)/2)
* M5 = Σ_{i<j} |r_ij − r'_ij| ÷ (d(d−1)/2)   (0 when d = 1)
* G_IL = 100·(M1 + M2 + M3 + M4 + M5)/5

Zero rule (footnote 5) for every mean-variation term (M1..M4): if the
original value is 0 and the masked one is not, divide by the masked value's
magnitude; if both are 0 the term is skipped, and the denominator (n·d, d,
d(d+1)/2) is NOT reduced (the literal reading). Covariances use 1/n (the
choice cancels in every ratio). A masked column with zero variance (a single
group) has variance exactly 0 and correlation 0 with every other column.
"""

from __future__ import annotations

import numpy as np

from mabench.metrics.context import EvalContext, metric
from mabench.metrics.common import cached
from mabench.metrics.information_loss import warm_groups


def mean_variation_terms(orig: np.ndarray, masked: np.ndarray) -> np.ndarray:
    """|a − a'| / |a| elementwise with footnote 5's zero rule (skipped terms are 0)."""
    orig = np.asarray(orig, dtype=np.float64)
    masked = np.asarray(masked, dtype=np.float64)
    num = np.abs(orig - masked)
    den = np.where(orig != 0, np.abs(orig), np.abs(masked))
    out = np.zeros(np.broadcast(orig, masked).shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _cov(x: np.ndarray) -> np.ndarray:
    """Covariance (1/n); a constant column (e.g. every record in one group) gets exactly 0,
    not the rounding residue of ``x - mean(x)``."""
    xc = x - x.mean(axis=0)
    v = (xc.T @ xc) / x.shape[0]
    flat = np.ptp(x, axis=0) == 0
    v[flat, :] = 0.0
    v[:, flat] = 0.0
    return v


def _corr(v: np.ndarray) -> np.ndarray:
    sd = np.sqrt(np.diag(v))
    scale = np.outer(sd, sd)
    r = np.zeros_like(v)
    np.divide(v, scale, out=r, where=scale > 0)
    return r


def components(x: np.ndarray, xm: np.ndarray) -> tuple[float, float, float, float, float]:
    """(M1, M2, M3, M4, M5) of original ``x`` and masked ``xm`` (both (n, d), original units)."""
    n, d = x.shape
    m1 = mean_variation_terms(x, xm).sum() / (n * d)
    m2 = mean_variation_terms(x.mean(axis=0), xm.mean(axis=0)).sum() / d
    v, vm = _cov(x), _cov(xm)
    m3 = mean_variation_terms(np.diag(v), np.diag(vm)).sum() / d
    iu = np.triu_indices(d)  # i <= j
    m4 = mean_variation_terms(v[iu], vm[iu]).sum() / (d * (d + 1) / 2)
    if d > 1:
        iu1 = np.triu_indices(d, 1)  # i < j
        m5 = np.abs(_corr(v)[iu1] - _corr(vm)[iu1]).sum() / (d * (d - 1) / 2)
    else:
        m5 = 0.0
    return float(m1), float(m2), float(m3), float(m4), float(m5)


def _components(ctx: EvalContext):
    return cached(ctx, "m1..m5", lambda: components(ctx.original, ctx.masked))


_COMPONENTS = (
    ("m1", "M1, mean variation of the data, original units (thesis Table 4.1)"),
    ("m2", "M2, mean variation of the column means, original units (thesis Table 4.1)"),
    ("m3", "M3, mean variation of the variances, original units (thesis Table 4.1)"),
    ("m4", "M4, mean variation of the covariances i<=j, original units (thesis Table 4.1)"),
    ("m5", "M5, mean absolute error of the correlations i<j (thesis Table 4.1)"),
)
for _i, (_name, _doc) in enumerate(_COMPONENTS):
    metric(_name, doc=_doc)(lambda ctx, i=_i: _components(ctx)[i])


def g_il_value(ctx: EvalContext) -> float:
    return cached(ctx, "g_il", lambda: 100.0 * sum(_components(ctx)) / 5.0)


@metric("g_il", doc="G_IL = 100·(M1+…+M5)/5, original units (thesis Eq. 4.2) (%)", warm=warm_groups)
def g_il(ctx: EvalContext) -> float:
    return g_il_value(ctx)
