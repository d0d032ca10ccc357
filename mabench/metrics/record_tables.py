"""Per-record outputs of sdcMicro's measures: dRiskRMD's risk index of each record and
recordLinkage's pair table (docs/metrics.md#per-record-outputs).

Each table comes from the same computation as its metrics (``rmd_risk1``.., ``rl_rate``), cached on
the evaluation context, and goes through :func:`mabench.metrics.evaluate` first, so a table is
refused exactly where its metric is (options, missing values, magnitudes) and never disagrees with it.
``Result.risk()`` / ``Result.linkage_pairs()`` (API) and ``mabench run --risk-out`` /
``--rl-pairs-out`` (CLI) call :func:`record_table`.
"""

from __future__ import annotations

from mabench.metrics.context import EvalContext

def _risk(ctx: EvalContext):
    import pandas as pd

    from mabench.metrics.sdcmicro_risk import context_rmd_risk

    risk = context_rmd_risk(ctx)
    return pd.DataFrame({"rmd": risk["rmd"], "rmd_risk1": risk["riskvec1"], "rmd_risk2": risk["riskvec2"]})


def _rl_pairs(ctx: EvalContext):
    from mabench.metrics.record_linkage import context_linkage

    return context_linkage(ctx)["matches"].copy()


# table name -> (the metric whose checks and cached computation it shares, the table's builder)
_BUILD = {"risk": ("rmd_risk1", _risk), "rl_pairs": ("rl_rate", _rl_pairs)}
TABLES = tuple(_BUILD)


def record_table(ctx: EvalContext, name: str):
    """The per-record table ``name`` of a context, as a DataFrame:

    * ``risk``: one row per record, in input order: ``rmd`` (0.05 · robust Mahalanobis distance),
      ``rmd_risk1`` and ``rmd_risk2`` (sdcMicro's ``riskvec1``/``riskvec2``: rmd where the record is
      at risk at that level, else 0); options ``rmd_k``, ``rmd_k2``, ``rmd_seed``;
    * ``rl_pairs``: one row per link of the least-cost one-to-one assignment: ``x_row``, ``y_row``
      (1-based rows of the original and the masked file), ``x_id``, ``y_id``, ``distance``,
      ``correct_match``, ``n_best`` (masked records at the least distance); options ``rl_*``.
    """
    from mabench.metrics import evaluate

    metric, build = _BUILD[name]
    evaluate(ctx, [metric])  # the metric's checks and its cached computation
    return build(ctx)
