"""Disclosure risk: DLD (distance linkage), RLD (thesis record linkage), ID (interval disclosure).

Definitions, tie rules and sources: docs/metrics.md. In short:

* ``dld`` — Chettri et al. (002_81f9d5b914b1df78.txt §5, Eq. 5 and
  Table 4): for each masked record the nearest and second-nearest original
  records (Euclidean on z-scores: masked_z vs z, all variables); linked if
  either is the record itself; DLD = 100·linked/n.
* ``rld`` — Fayyoumi (001_26cfb99743cbb1f3.txt line 2317, footnote 7, lines
  2458/2890; §4.4): the same linkage restricted to a
  subset of the S key variables, averaged over all C(S, C) subsets of each
  size C and then over C = 1..S.
* ``id`` — Fayyoumi (001_26cfb99743cbb1f3.txt §4.4, line 2321, footnote 8): rank-interval
  disclosure over all variables, averaged over P = 1..10 %.
"""

from __future__ import annotations

import math

import numpy as np

from mabench.errors import UserError
from mabench.partition import canonical_labels
from mabench.metrics.context import EvalContext, metric
from mabench.metrics.common import cached, choice_option, group_centroids, is_number
from mabench.metrics import available, linkage
from mabench.metrics.linkage import (SEARCHES, TIES_INCLUSIVE, TIES_INDEX, group_members, linked_per_group,
                                     subset_linked_counts)

MAX_KEY_VARIABLES = 16  # 2^16 - 1 subsets; more is not a scenario anyone can enumerate
_TIES = {"index": TIES_INDEX, "inclusive": TIES_INCLUSIVE}


def _ties(ctx: EvalContext) -> int:
    return _TIES[choice_option(ctx, "linkage_ties", "index", tuple(_TIES))]


def _warm_search(options: dict) -> str:
    """The linkage_search a warm-up compiles for; a bad value is left for the metric to refuse."""
    search = options.get("linkage_search", "auto")
    return search if search in SEARCHES else "auto"


def warm_dld(n: int, d: int, k: int, options: dict) -> None:
    """dld's kernels for n × d at group size k (mabench.metrics.warm)."""
    linkage.warm(n, d, k, _warm_search(options))


def warm_rld(n: int, d: int, k: int, options: dict) -> None:
    """rld's kernels (its subset counts, and the nearest-two search of its rerun reading)."""
    linkage.warm(n, d, k, _warm_search(options), subsets=True)


# --------------------------------------------------------------------------- DLD


SCALES = ("original", "own")


def masked_points(centroids: np.ndarray, labels: np.ndarray, scale: str) -> np.ndarray:
    """The groups' published points in the linkage space.

    ``centroids`` are group means of z-scores, i.e. the masked file standardized
    with the ORIGINAL file's mean and sd (``scale="original"``). ``scale="own"``
    standardizes the masked file with its OWN mean and sd (population sd, over
    the n masked records; a constant masked column becomes 0) — "both files are
    standardized" (thesis footnote 7).
    """
    if scale == "original":
        return np.ascontiguousarray(centroids)
    per_record = centroids[labels]
    mu = per_record.mean(axis=0)
    sd = per_record.std(axis=0)
    out = np.zeros_like(centroids)
    np.divide(centroids - mu, sd, out=out, where=sd > 0)
    return np.ascontiguousarray(out)


def linked_count(z: np.ndarray, labels: np.ndarray, n_groups: int, ties: int = TIES_INDEX,
                 scale: str = "original", centroids: np.ndarray | None = None, search: str = "auto") -> int:
    """Records linked to themselves (rank 1 or 2) when each group's masked point is matched against ``z``.

    ``centroids`` are the group means of ``z`` when the caller already has them.
    """
    from mabench.kernels import group_means

    z = np.ascontiguousarray(z, dtype=np.float64)
    if centroids is None:
        centroids, _ = group_means(z, labels, n_groups)
    starts, members = group_members(labels, n_groups)
    points = masked_points(centroids, labels, scale)
    return int(linked_per_group(z, points, starts, members, ties, search).sum())


def dld_value(ctx: EvalContext) -> float:
    def compute():
        if ctx.observed is not None:
            return available.dld(ctx)
        scale = choice_option(ctx, "dld_scale", "original", SCALES)
        search = choice_option(ctx, "linkage_search", "auto", SEARCHES)
        return 100.0 * linked_count(ctx.z, ctx.labels, ctx.n_groups, _ties(ctx), scale,
                                    ctx.centroids_z, search) / ctx.z.shape[0]

    return cached(ctx, "dld", compute)


# The options rld reads (g_dr and si read them through it).
RLD_OPTIONS = ("key_variables", "key_variables_rule", "n_key_variables", "linkage_ties", "linkage_search", "rld_scale",
               "rld_mode", "rld_sizes")


@metric("dld", doc="DLD, % of masked records whose own original is their nearest or 2nd-nearest (z-scores; "
        "with missing values over the attributes both observe, scaled by d/m)",
        warm=warm_dld, options=("linkage_ties", "linkage_search", "dld_scale"))
def dld(ctx: EvalContext) -> float:
    return dld_value(ctx)


# --------------------------------------------------------------------------- key variables


def _where(ctx: EvalContext) -> str:
    return f"data set {ctx.dataset}" if ctx.dataset else "the data set"


def _fewest_repeats(ctx: EvalContext, rule, count) -> list[int]:
    d = ctx.original.shape[1]
    if rule != "fewest_repeats":
        raise UserError(f"option key_variables_rule={rule!r} is not allowed; the only rule is fewest_repeats")
    if not (isinstance(count, int) and not isinstance(count, bool) and 1 <= count <= d):
        raise UserError(f"option n_key_variables={count!r} must be an integer in 1..{d} (the number of key variables to pick)")
    n = ctx.original.shape[0]
    repeats = [n - np.unique(ctx.original[:, j]).size for j in range(d)]
    chosen = sorted(range(d), key=lambda j: (repeats[j], j))[:count]
    return sorted(chosen)


def key_variables(ctx: EvalContext) -> list[int]:
    """0-based positions of the key variables, ascending (the summation order of distances).

    ``key_variables``: list of column names and/or 1-based positions, ``"all"``, or a dict
    ``{"key_variables_rule": "fewest_repeats", "n_key_variables": N}``; without it the
    top-level options ``key_variables_rule`` / ``n_key_variables`` are used.
    """
    opts = ctx.options
    spec = opts.get("key_variables")
    d = ctx.original.shape[1]
    if isinstance(spec, dict):
        return _fewest_repeats(ctx, spec.get("key_variables_rule", spec.get("rule")),
                               spec.get("n_key_variables", spec.get("n")))
    if spec is None:
        if "key_variables_rule" in opts or "n_key_variables" in opts:
            return _fewest_repeats(ctx, opts.get("key_variables_rule"), opts.get("n_key_variables"))
        raise UserError(
            f"rld needs key variables and {_where(ctx)} defines none; pass --option key_variables=[1,2,5] "
            "(column names or 1-based positions), key_variables=all, or key_variables_rule=fewest_repeats "
            "with n_key_variables=N"
        )
    if spec == "all":
        return list(range(d))
    items = spec if isinstance(spec, list) else [spec]
    if not items:
        raise UserError("option key_variables is empty; give at least one column name or 1-based position")
    out = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            if not 1 <= item <= d:
                raise UserError(f"key variable position {item} is out of range; {_where(ctx)} has columns 1..{d}")
            pos = item - 1
        elif isinstance(item, str) and item in ctx.columns:
            pos = ctx.columns.index(item)
        else:
            shown = ", ".join(ctx.columns[:20]) + (", ..." if d > 20 else "")
            raise UserError(f"key variable {item!r} is not a column of {_where(ctx)}; "
                            f"use a column name ({shown}) or a 1-based position")
        if pos in out:
            raise UserError(f"key variable {item!r} is listed twice in option key_variables; list each once")
        out.append(pos)
    return sorted(out)


def _subset_sizes(ctx: EvalContext, S: int) -> list[int]:
    value = ctx.options.get("rld_sizes")
    if value is None:
        return list(range(1, S + 1))
    items = value if isinstance(value, list) else [value]
    ok = items and all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= S for c in items)
    if not ok or len(set(items)) != len(items):
        raise UserError(f"option rld_sizes={value!r} must be a list of distinct integers in 1..{S} "
                        f"(how many of the {S} key variables the intruder knows), e.g. [1,2,3]")
    return sorted(items)


# --------------------------------------------------------------------------- RLD


def _rld_from_counts(counts: dict[int, int], S: int, sizes: list[int], n: int) -> float:
    """100 · mean over C of (mean over the C(S, C) subsets of linked/n)."""
    per_size = []
    for c in sizes:
        total = sum(v for mask, v in counts.items() if bin(mask).count("1") == c)
        per_size.append(total / (math.comb(S, c) * n))
    return 100.0 * sum(per_size) / len(per_size)


RLD_MAX_WORK = 2 * 10**11  # distance terms of the literal RLD pass: about a few minutes on 2 cores


def check_rld_size(n: int, n_groups: int, S: int) -> None:
    """The literal RLD streams every masked point against every record for each key-variable subset:
    g·n·2^S terms, quadratic in n. Refuse up front what would run for hours (docs/metrics.md#rld)."""
    work = n_groups * n * (1 << S)
    if work > RLD_MAX_WORK:
        per = max(1.0, n / n_groups)  # records per group
        fits = int(math.sqrt(RLD_MAX_WORK * per / (1 << S)))
        raise UserError(
            f"metric rld (also inside g_dr and si) is quadratic: n={n} records, {S} key variables need "
            f"{work:.1e} distance terms, over the limit of {RLD_MAX_WORK:.0e} (about {fits} records here); "
            "leave it out, e.g. --metrics il,dld,id,g_il, or evaluate a sample of the file")


def rld_counts(ctx: EvalContext) -> tuple[dict[int, int], int, list[int]]:
    """Linked-record count per key-variable subset (bit b of the mask = b-th key variable)."""
    keys = key_variables(ctx)
    S = len(keys)
    if S > MAX_KEY_VARIABLES:
        raise UserError(f"rld with {S} key variables would enumerate {2 ** S - 1} subsets; "
                        f"choose at most {MAX_KEY_VARIABLES} with --option key_variables=[...]")
    sizes = _subset_sizes(ctx, S)
    mode = choice_option(ctx, "rld_mode", "literal", ("literal", "rerun"))
    scale = choice_option(ctx, "rld_scale", "own", SCALES)
    ties = _ties(ctx)
    wanted = [m for m in range(1, 1 << S) if bin(m).count("1") in sizes]
    if mode == "literal":
        check_rld_size(ctx.z.shape[0], ctx.n_groups, S)
        zk = np.ascontiguousarray(ctx.z[:, keys])
        ck = masked_points(group_centroids(ctx)[:, keys], ctx.labels, scale)
        starts, members = group_members(ctx.labels, ctx.n_groups)
        all_counts = subset_linked_counts(zk, ck, starts, members, ties)
        return {m: int(all_counts[m]) for m in wanted}, S, sizes
    if ctx.rerun is None:
        raise UserError("option rld_mode=rerun re-runs the algorithm on each key-variable subset, which "
                        "`mabench evaluate` cannot do; use `mabench run ... --metrics rld --option rld_mode=rerun`")
    n = ctx.z.shape[0]
    counts = {}
    for m in wanted:
        cols = [keys[b] for b in range(S) if m >> b & 1]
        zs = np.ascontiguousarray(ctx.z[:, cols])
        labels = np.asarray(ctx.rerun(zs))
        if labels.ndim == 2 and labels.shape == (n, len(cols)):  # a per-variable method: each record its own point
            from mabench.metrics.context import column_means

            counts[m] = linked_count(zs, np.arange(n, dtype=np.int64), n, ties, scale,
                                     np.ascontiguousarray(column_means(zs, labels.astype(np.int64))))
            continue
        if labels.shape != (n,) or labels.dtype.kind not in "iu" or labels.min() < 0:
            raise RuntimeError(f"rld rerun on columns {cols} returned invalid labels {labels.dtype} {labels.shape}")
        labels = canonical_labels(labels.astype(np.int64))
        counts[m] = linked_count(zs, labels, int(labels.max()) + 1, ties, scale,
                                 search=choice_option(ctx, "linkage_search", "auto", SEARCHES))
    return counts, S, sizes


def rld_value(ctx: EvalContext) -> float:
    def compute():
        counts, S, sizes = rld_counts(ctx)
        return _rld_from_counts(counts, S, sizes, ctx.z.shape[0])

    return cached(ctx, "rld", compute)


@metric("rld", doc="RLD, thesis record linkage over key-variable subsets (z-scores) (%)", needs_key_variables=True,
        warm=warm_rld, options=RLD_OPTIONS)
def rld(ctx: EvalContext) -> float:
    return rld_value(ctx)


# --------------------------------------------------------------------------- ID

DEFAULT_ID_P = list(range(1, 11))


def id_percentages(ctx: EvalContext) -> list[float]:
    value = ctx.options.get("id_p", DEFAULT_ID_P)
    items = value if isinstance(value, list) else [value]
    if not items or not all(is_number(p) and 0 <= p <= 100 for p in items):
        raise UserError(f"option id_p={value!r} must be a non-empty list of percentages in [0, 100], "
                        "e.g. --option id_p=[1,2,3,4,5,6,7,8,9,10]")
    return items


def rank_window(p, n: int) -> int:
    """floor(P·n/100) ranks on each side (exact integer arithmetic for whole-number P)."""
    if float(p).is_integer():
        return int(p) * n // 100
    return math.floor(p * n / 100)


def interval_matches(x: np.ndarray, xm: np.ndarray, percentages) -> int:
    """Σ over P of the records whose every original value lies in its masked rank interval."""
    n, d = x.shape
    order = np.argsort(xm, axis=0, kind="stable")  # ties -> record order
    s = np.take_along_axis(xm, order, axis=0)
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.broadcast_to(np.arange(n)[:, None], (n, d)), axis=0)
    cols = np.arange(d)[None, :]
    total = 0
    for p in percentages:
        m = rank_window(p, n)
        lb = s[np.maximum(pos - m, 0), cols]
        ub = s[np.minimum(pos + m, n - 1), cols]
        total += int(np.count_nonzero(((lb <= x) & (x <= ub)).all(axis=1)))
    return total


def id_value(ctx: EvalContext) -> float:
    def compute():
        ps = id_percentages(ctx)
        if ctx.observed is not None:
            return available.interval_disclosure(ctx, ps, rank_window)
        n = ctx.original.shape[0]
        return 100.0 * interval_matches(ctx.original, ctx.masked, ps) / (len(ps) * n)

    return cached(ctx, "id", compute)


@metric("id", doc="ID, thesis rank-interval disclosure over all variables, mean over P=1..10 % (%; with missing "
        "values each variable ranked over its observed records)", options=("id_p",))
def interval_disclosure(ctx: EvalContext) -> float:
    return id_value(ctx)

