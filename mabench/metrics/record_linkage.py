"""sdcMicro's ``recordLinkage``: one-to-one distance-based record linkage of the masked file to the
original. docs/metrics.md#rl_rate.

Source: sdcMicro 5.8.1 (sdcTools/sdcMicro cf32510) ``R/recordLinkage.R``: the cost of linking
original record i to masked record j is ``cluster::daisy``'s distance over the chosen variables, with
per-variable weights w:

* ``gower``:     Σ_f w_f |x_if − x'_jf| / R_f / Σ_f w_f, R_f the range of variable f over both files
  together (a constant variable contributes 0);
* ``euclidean``: sqrt(Σ_f w_f (x_if − x'_jf)²);
* ``manhattan``: Σ_f w_f |x_if − x'_jf|.

Missing values (``missing=available``; x' NaN wherever x is): daisy's sums run over the variables both
records observe; ``gower`` divides by the weights of those variables (R_f over the observed values),
``euclidean`` and ``manhattan`` scale the sum by p/m (p variables, m observed by both) before the
square root. A pair with no variable in common has no distance, which sdcMicro refuses ("Non-finite
entries found in the pairwise distance matrix"), and so does mabench, in one line.

The one-to-one assignment of least total cost (sdcMicro: ``clue::solve_LSAP``; here SciPy's
``linear_sum_assignment``) links every original to one masked record; a link is correct iff the two
ids are equal (default ids: the row numbers). ``rl_rate`` is the share of correct links.

Ties: a microaggregated file publishes k identical records per group, so many assignments share the
least cost and which of them a solver returns decides how many links are "correct" (identical
original records tie the same way). The least total cost is the same for every solver, and
sdcMicro's pairs are least-cost under these distances too; the rate equals sdcMicro's only where the
least-cost assignment is unique (measured differences: docs/metrics.md#rl_rate).
"""

from __future__ import annotations

import numpy as np

from mabench.errors import UserError
from mabench.metrics.context import EvalContext, metric
from mabench.metrics.common import cached, choice_option

DISTANCES = ("gower", "euclidean", "manhattan")
MAX_RECORDS = 20_000  # the cost matrix is n x n doubles (3.2 GB at this n) and the assignment O(n^3)


def linkage_cost(x: np.ndarray, xm: np.ndarray, distance: str = "gower", weights=None) -> np.ndarray:
    """(n, n) cost matrix: row i original record i, column j masked record j (cluster::daisy's distances)."""
    x = np.asarray(x, dtype=np.float64)
    xm = np.asarray(xm, dtype=np.float64)
    d = x.shape[1]
    w = np.ones(d) if weights is None else np.asarray(weights, dtype=np.float64)
    if np.isnan(x).any() or np.isnan(xm).any():
        return _available_cost(x, xm, distance, w)
    cost = np.zeros((x.shape[0], xm.shape[0]))
    if distance == "gower":
        both = np.vstack([x, xm])
        spread = both.max(axis=0) - both.min(axis=0)
        for f in range(d):
            if spread[f] > 0:
                cost += w[f] * np.abs(x[:, f, None] - xm[None, :, f]) / spread[f]
        return cost / w.sum()
    for f in range(d):
        delta = x[:, f, None] - xm[None, :, f]
        cost += w[f] * (delta * delta if distance == "euclidean" else np.abs(delta))
    return np.sqrt(cost) if distance == "euclidean" else cost


def _available_cost(x: np.ndarray, xm: np.ndarray, distance: str, w: np.ndarray) -> np.ndarray:
    """daisy's distances with NA (module docstring); NaN for a pair with no variable in common."""
    d = x.shape[1]
    cost = np.zeros((x.shape[0], xm.shape[0]))
    shared = np.zeros_like(cost)  # gower: Σ w_f over the shared variables; else their count
    spread = np.nanmax(np.vstack([x, xm]), axis=0) - np.nanmin(np.vstack([x, xm]), axis=0)
    for f in range(d):
        both = ~np.isnan(x[:, f, None]) & ~np.isnan(xm[None, :, f])
        delta = np.where(both, x[:, f, None] - xm[None, :, f], 0.0)
        if distance == "gower":
            shared += w[f] * both
            if spread[f] > 0:
                cost += w[f] * np.abs(delta) / spread[f]
        else:
            shared += both
            cost += w[f] * (delta * delta if distance == "euclidean" else np.abs(delta))
    out = np.full_like(cost, np.nan)
    if distance == "gower":
        np.divide(cost, shared, out=out, where=shared > 0)
        return out
    np.multiply(cost, d / np.where(shared > 0, shared, 1.0), out=out, where=shared > 0)
    return np.sqrt(out) if distance == "euclidean" else out


def record_linkage(x: np.ndarray, xm: np.ndarray, distance: str = "gower", weights=None, ids=None) -> dict:
    """sdcMicro's recordLinkage(x, xm, vars, distance, weights): ``correct_match_rate``,
    ``correct_matches``, ``total_distance``, ``mean_distance`` and the pair table ``matches`` (a
    DataFrame: x_row, y_row (1-based), x_id, y_id, distance, correct_match, n_best)."""
    import pandas as pd
    from scipy.optimize import linear_sum_assignment

    n = x.shape[0]
    if n > MAX_RECORDS:
        raise UserError(f"rl_rate links {n} records, more than {MAX_RECORDS} (an n x n cost matrix and a cubic "
                        "assignment); evaluate a sample of the records or a stratum at a time")
    cost = linkage_cost(x, xm, distance, weights)
    if not np.isfinite(cost).all():
        i, j = np.argwhere(~np.isfinite(cost))[0]
        raise UserError(f"rl_rate: original record {i + 1} and masked record {j + 1} observe no linkage variable in "
                        "common, so they have no distance (sdcMicro stops on this too); choose rl_variables both "
                        "observe or leave out the records with nothing observed")
    ids = np.arange(1, n + 1) if ids is None else np.asarray(ids)
    if ids.shape != (n,):
        raise UserError(f"rl_ids has {ids.size} ids for {n} records; give one id per record")
    rows, cols = linear_sum_assignment(cost)
    matched = cost[rows, cols]
    correct = ids[rows] == ids[cols]
    tol = np.sqrt(np.finfo(np.float64).eps)  # sdcMicro's tol for the tied best candidates
    n_best = (np.abs(cost - cost.min(axis=1, keepdims=True)) <= tol).sum(axis=1)
    out = {
        "correct_match_rate": float(correct.mean()),
        "correct_matches": int(correct.sum()),
        "total_distance": float(matched.sum()),
        "mean_distance": float(matched.mean()),
        "matches": pd.DataFrame({"x_row": rows + 1, "y_row": cols + 1, "x_id": ids[rows], "y_id": ids[cols],
                                 "distance": matched, "correct_match": correct, "n_best": n_best}),
    }
    return out


def _variables(ctx: EvalContext) -> list[int]:
    wanted = ctx.options.get("rl_variables")
    if wanted is None:
        return list(range(len(ctx.columns)))
    items = wanted if isinstance(wanted, list) else [wanted]
    picked = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= len(ctx.columns):
            picked.append(item - 1)
        elif isinstance(item, str) and item in ctx.columns:
            picked.append(ctx.columns.index(item))
        else:
            raise UserError(f"rl_variables entry {item!r} is neither a column name nor a 1-based position up to "
                            f"{len(ctx.columns)}; e.g. --option 'rl_variables=[1,2]'")
    if not picked or len(set(picked)) != len(picked):
        raise UserError("rl_variables must name at least one variable, each once; e.g. --option 'rl_variables=[1,2]'")
    return picked


def _weights(ctx: EvalContext, count: int):
    w = ctx.options.get("rl_weights")
    if w is None:
        return None
    ok = (isinstance(w, list) and len(w) == count and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                          and np.isfinite(v) and v >= 0 for v in w) and sum(w) > 0)
    if not ok:
        raise UserError(f"rl_weights must be {count} finite non-negative numbers, not all 0 (one per rl_variables "
                        f"entry); e.g. --option 'rl_weights=[{', '.join(['1'] * count)}]'")
    return np.asarray(w, dtype=np.float64)


def context_linkage(ctx: EvalContext) -> dict:
    """:func:`record_linkage` of a context (options rl_distance, rl_variables, rl_weights, rl_ids)."""
    distance = choice_option(ctx, "rl_distance", "gower", DISTANCES)
    cols = _variables(ctx)
    weights = _weights(ctx, len(cols))
    ids = ctx.options.get("rl_ids")
    # missing values: x' is NaN wherever x is (a filled value has no original to link)
    masked = ctx.masked if ctx.observed is None else np.where(ctx.observed, ctx.masked, np.nan)
    return cached(ctx, f"record_linkage {distance} {cols} {None if weights is None else weights.tolist()} {ids}",
                  lambda: record_linkage(ctx.original[:, cols], masked[:, cols], distance, weights, ids))


@metric("rl_rate", doc="sdcMicro recordLinkage: share of correct one-to-one least-cost links (rl_distance, "
        "rl_variables, rl_weights, rl_ids)", opt_in=True, options={
            "rl_distance": "distance of rl_rate: gower (sdcMicro's default) | euclidean | manhattan",
            "rl_variables": "variables rl_rate links on: column names and/or 1-based positions (default all)",
            "rl_weights": "one non-negative weight per rl_variables entry (default all 1)",
            "rl_ids": "record ids of rl_rate's pairs: a list of n ids (default 1..n; a pair is correct iff ids equal)",
        })
def rl_rate(ctx: EvalContext) -> float:
    return context_linkage(ctx)["correct_match_rate"]
