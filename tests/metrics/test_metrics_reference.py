"""Every metric against an independent, plain-NumPy brute-force implementation.

The references below are written from the definitions in docs/metrics.md
(thesis Table 4.1 / Eqs. 4.2-4.4 / footnotes 5, 7, 8; Chettri Eq. 5; sdcMicro
dRisk / dUtility) with explicit loops: per masked RECORD (not per group), one
full distance vector per record, np.lexsort for (distance, index) ranks. They
share nothing with the Numba kernels (no group trick, no subset DFS, no
chunked scans), so agreement checks the kernels and the bookkeeping.

Counts are compared exactly (every linkage/interval metric is a ratio of
integer counts); IL-type values to 1e-12 relative.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from mabench.errors import UserError
from mabench.metrics import REGISTRY, EvalContext, evaluate
from mabench.partition import canonical_labels
from mabench.data.standardize import zscore

# --------------------------------------------------------------------------- references


def ref_masked(x, labels):
    """Each record replaced by its group mean (explicit loop over groups)."""
    out = np.empty_like(x, dtype=np.float64)
    for g in np.unique(labels):
        idx = np.flatnonzero(labels == g)
        out[idx] = x[idx].sum(axis=0) / len(idx)
    return out


def ref_mv(a, b):
    """Footnote 5 mean-variation term for scalars."""
    if a != 0:
        return abs(a - b) / abs(a)
    if b != 0:
        return abs(a - b) / abs(b)
    return 0.0


def ref_components(x, xm):
    n, d = x.shape
    m1 = sum(ref_mv(x[i, j], xm[i, j]) for i in range(n) for j in range(d)) / (n * d)
    mean, mmean = x.mean(axis=0), xm.mean(axis=0)
    m2 = sum(ref_mv(mean[j], mmean[j]) for j in range(d)) / d

    def cov(data, mu):  # 1/n; a constant column has exactly zero (co)variance (docs/metrics.md)
        flat = [len(set(data[:, j].tolist())) == 1 for j in range(d)]
        return np.array([[0.0 if flat[a] or flat[b] else np.mean((data[:, a] - mu[a]) * (data[:, b] - mu[b]))
                          for b in range(d)] for a in range(d)])

    v, vm = cov(x, mean), cov(xm, mmean)
    m3 = sum(ref_mv(v[j, j], vm[j, j]) for j in range(d)) / d
    m4 = sum(ref_mv(v[i, j], vm[i, j]) for j in range(d) for i in range(j + 1)) / (d * (d + 1) / 2)

    def corr(c, i, j):
        s = math.sqrt(c[i, i] * c[j, j])
        return c[i, j] / s if s > 0 else 0.0

    pairs = [(i, j) for j in range(d) for i in range(j)]
    m5 = sum(abs(corr(v, i, j) - corr(vm, i, j)) for i, j in pairs) / len(pairs) if pairs else 0.0
    return m1, m2, m3, m4, m5


def ref_linked(orig, masked_records, ties="index"):
    """Per masked record: distances to every original (column-ordered sum), ranks by (distance, index)."""
    n, d = orig.shape
    linked = 0
    for i in range(n):
        dist = np.zeros(n)
        for j in range(d):
            dist += (masked_records[i, j] - orig[:, j]) ** 2
        order = np.lexsort((np.arange(n), dist))
        if ties == "index":
            linked += int(i in order[:2])
        else:
            linked += int(dist[i] <= (dist[order[1]] if n > 1 else np.inf))
    return linked


def ref_scaled(masked_z, scale):
    if scale == "original":
        return masked_z
    mu, sd = masked_z.mean(axis=0), masked_z.std(axis=0)
    return np.where(sd > 0, (masked_z - mu) / np.where(sd > 0, sd, 1.0), 0.0)


def ref_dld(z, labels, ties="index", scale="original"):
    return 100.0 * ref_linked(z, ref_scaled(ref_masked(z, labels), scale), ties) / len(z)


def ref_rld(z, labels, keys, ties="index", scale="own", sizes=None, rerun=None):
    S = len(keys)
    sizes = sizes or list(range(1, S + 1))
    per_size = []
    for c in sizes:
        rates = []
        for sub in itertools.combinations(sorted(keys), c):
            zs = z[:, list(sub)]
            lab = labels if rerun is None else canonical_labels(np.asarray(rerun(zs)))
            masked = ref_scaled(ref_masked(zs, lab), scale)
            rates.append(ref_linked(zs, masked, ties) / len(z))
        per_size.append(sum(rates) / len(rates))
    return 100.0 * sum(per_size) / len(per_size)


def ref_id(x, xm, ps):
    n, d = x.shape
    total = 0
    for p in ps:
        m = math.floor(p * n / 100)
        for r in range(n):
            ok = True
            for j in range(d):
                order = sorted(range(n), key=lambda i: (xm[i, j], i))  # ties -> record order
                pos = order.index(r)
                lb = xm[order[max(0, pos - m)], j]
                ub = xm[order[min(n - 1, pos + m)], j]
                ok = ok and lb <= x[r, j] <= ub
            total += ok
    return 100.0 * total / (len(ps) * n)


def ref_sdid(x, xm, p=0.05):
    n, d = x.shape
    at_risk = 0
    for r in range(n):
        inside = True
        for j in range(d):
            sd = math.sqrt(sum((xm[i, j] - xm[:, j].mean()) ** 2 for i in range(n)) / (n - 1))
            inside = inside and (xm[r, j] - p * sd) <= x[r, j] <= (xm[r, j] + p * sd)
        at_risk += inside
    return 100.0 * at_risk / n


def ref_il1s(x, xm):
    n, d = x.shape
    total = 0.0
    for j in range(d):
        sd = math.sqrt(sum((x[i, j] - x[:, j].mean()) ** 2 for i in range(n)) / (n - 1))
        total += sum(abs(x[i, j] - xm[i, j]) for i in range(n)) / (sd * math.sqrt(2))
    return total


def ref_fewest_repeats(x, count):
    n, d = x.shape
    repeats = [n - len(set(x[:, j].tolist())) for j in range(d)]
    return sorted(sorted(range(d), key=lambda j: (repeats[j], j))[:count])


# --------------------------------------------------------------------------- cases


def ctx_for(x, labels, options=None, rerun=None, columns=None):
    x = np.ascontiguousarray(x, dtype=np.float64)
    columns = columns or [f"v{j + 1}" for j in range(x.shape[1])]
    return EvalContext(x, zscore(x), canonical_labels(np.asarray(labels)), columns, "test", dict(options or {}), rerun)


def random_partition(rng, n, min_size=1, max_size=5):
    labels = np.empty(n, dtype=np.int64)
    order = rng.permutation(n)
    pos, g = 0, 0
    while pos < n:
        size = int(rng.integers(min_size, max_size + 1))
        if n - pos - size < min_size:
            size = n - pos
        labels[order[pos:pos + size]] = g
        pos += size
        g += 1
    return labels


def cases():
    """(name, x, labels): continuous data, integer data with repeats, duplicates, one group, singletons."""
    rng = np.random.default_rng(20260501)
    out = []
    for t in range(4):
        n, d = int(rng.integers(8, 40)), int(rng.integers(1, 5))
        out.append((f"normal{t}", rng.normal(5, 2, (n, d)), random_partition(rng, n)))
    x = rng.integers(1, 6, (30, 3)).astype(float)  # many exact ties, including duplicate records
    out.append(("ints", x, random_partition(rng, 30, 2, 4)))
    x = rng.normal(0, 1, (12, 3))
    x = np.vstack([x, x[:5], x[:2]])  # duplicated records (ties at distance 0)
    out.append(("duplicates", x, random_partition(rng, len(x), 1, 3)))
    x = rng.normal(3, 1, (10, 3))
    x[2, 1] = 0.0  # a zero original (footnote 5)
    out.append(("zero", x, random_partition(rng, 10, 2, 3)))
    out.append(("onegroup", rng.normal(2, 1, (9, 3)), np.zeros(9, dtype=np.int64)))
    out.append(("singletons", rng.normal(2, 1, (9, 3)), np.arange(9)))
    return out


CASES = cases()
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_m1_to_m5_g_il(name, x, labels):
    ctx = ctx_for(x, labels)
    got = evaluate(ctx, ["m1", "m2", "m3", "m4", "m5", "g_il"])
    want = ref_components(x, ref_masked(x, labels))
    for key, w in zip(["m1", "m2", "m3", "m4", "m5"], want):
        assert got[key] == pytest.approx(w, rel=1e-9, abs=1e-12), key
    assert got["g_il"] == pytest.approx(100 * sum(want) / 5, rel=1e-9, abs=1e-10)


def test_zero_rule_terms():
    from mabench.metrics.utility import mean_variation_terms

    got = mean_variation_terms(np.array([0.0, 0.0, 2.0, -4.0]), np.array([3.0, 0.0, 1.0, -2.0]))
    assert got.tolist() == [1.0, 0.0, 0.5, 0.5]


@pytest.mark.parametrize("ties", ["index", "inclusive"])
@pytest.mark.parametrize("scale", ["original", "own"])
@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_dld(name, x, labels, ties, scale):
    ctx = ctx_for(x, labels, {"linkage_ties": ties, "dld_scale": scale})
    assert evaluate(ctx, ["dld"])["dld"] == pytest.approx(ref_dld(ctx.z, ctx.labels, ties, scale), rel=1e-12)


@pytest.mark.parametrize("ties", ["index", "inclusive"])
@pytest.mark.parametrize("scale", ["original", "own"])
@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_rld_literal(name, x, labels, ties, scale):
    d = x.shape[1]
    keys = list(range(d))[::-1][: max(1, d - 1)]  # listed out of order on purpose: summation is column order
    opts = {"key_variables": [k + 1 for k in keys], "linkage_ties": ties, "rld_scale": scale}
    ctx = ctx_for(x, labels, opts)
    want = ref_rld(ctx.z, ctx.labels, keys, ties, scale)
    assert evaluate(ctx, ["rld"])["rld"] == pytest.approx(want, rel=1e-12)


def chunk_sort_rerun(k):
    """A small deterministic stand-in algorithm: sort by the first column, cut into groups of k."""

    def rerun(z):
        order = np.lexsort((np.arange(len(z)), z[:, 0]))
        labels = np.empty(len(z), dtype=np.int64)
        labels[order] = np.minimum(np.arange(len(z)) // k, max(len(z) // k - 1, 0))
        return labels

    return rerun


@pytest.mark.parametrize("ties", ["index", "inclusive"])
@pytest.mark.parametrize("name,x,labels", CASES[:6], ids=IDS[:6])
def test_rld_rerun(name, x, labels, ties):
    rerun = chunk_sort_rerun(3)
    keys = list(range(x.shape[1]))
    opts = {"key_variables": "all", "rld_mode": "rerun", "linkage_ties": ties}
    ctx = ctx_for(x, labels, opts, rerun=rerun)
    want = ref_rld(ctx.z, ctx.labels, keys, ties, "own", rerun=rerun)
    assert evaluate(ctx, ["rld"])["rld"] == pytest.approx(want, rel=1e-12)


def test_rld_sizes_and_named_keys():
    name, x, labels = CASES[1]
    cols = [f"c{j}" for j in range(x.shape[1])]
    ctx = ctx_for(x, labels, {"key_variables": cols[:3], "rld_sizes": [2, 3]}, columns=cols)
    assert evaluate(ctx, ["rld"])["rld"] == pytest.approx(ref_rld(ctx.z, ctx.labels, [0, 1, 2], sizes=[2, 3]), rel=1e-12)


@pytest.mark.parametrize("name,x,labels", CASES[4:6], ids=IDS[4:6])
def test_rld_fewest_repeats_rule(name, x, labels):
    x = x.copy()
    x[:, 0] = np.round(x[:, 0])  # make column 1 the most repetitive
    ctx_top = ctx_for(x, labels, {"key_variables_rule": "fewest_repeats", "n_key_variables": 2})
    ctx_nested = ctx_for(x, labels, {"key_variables": {"key_variables_rule": "fewest_repeats", "n_key_variables": 2}})
    keys = ref_fewest_repeats(x, 2)
    want = ref_rld(ctx_top.z, ctx_top.labels, keys)
    assert evaluate(ctx_top, ["rld"])["rld"] == pytest.approx(want, rel=1e-12)
    assert evaluate(ctx_nested, ["rld"])["rld"] == pytest.approx(want, rel=1e-12)


def test_fewest_repeats_ties_go_to_the_lower_position():
    from mabench.metrics.disclosure import key_variables

    x = np.array([[1, 1, 5, 7], [1, 2, 6, 8], [2, 3, 7, 9], [2, 3, 8, 9]], dtype=float)  # repeats 2, 1, 0, 1
    ctx = ctx_for(x, [0, 0, 1, 1], {"key_variables_rule": "fewest_repeats", "n_key_variables": 2})
    assert key_variables(ctx) == [1, 2]  # col 3 (0 repeats), then col 2 beats col 4 (1 repeat each)
    assert key_variables(ctx) == ref_fewest_repeats(x, 2)


@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_id(name, x, labels):
    ps = [1, 5, 10, 25, 50]
    ctx = ctx_for(x, labels, {"id_p": ps})
    assert evaluate(ctx, ["id"])["id"] == pytest.approx(ref_id(x, ref_masked(x, labels), ps), rel=1e-12)


def test_id_default_p_is_1_to_10():
    name, x, labels = CASES[4]
    ctx = ctx_for(x, labels)
    assert evaluate(ctx, ["id"])["id"] == pytest.approx(ref_id(x, ref_masked(x, labels), range(1, 11)), rel=1e-12)


@pytest.mark.parametrize("p", [0.05, 0.5, 2.0])
@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_sdid(name, x, labels, p):
    ctx = ctx_for(x, labels, {"sdid_p": p})
    assert evaluate(ctx, ["sdid"])["sdid"] == pytest.approx(ref_sdid(x, ref_masked(x, labels), p), rel=1e-12)


@pytest.mark.parametrize("name,x,labels", CASES, ids=IDS)
def test_il1s(name, x, labels):
    ctx = ctx_for(x, labels)
    assert evaluate(ctx, ["il1s"])["il1s"] == pytest.approx(ref_il1s(x, ref_masked(x, labels)), rel=1e-9, abs=1e-12)


def test_il1s_and_sdid_hand_example():
    """Two groups {1,3} and {5,9} in one column (worked by hand).

    masked = 2, 2, 7, 7; sd(x) = sqrt(((1-4.5)^2+(3-4.5)^2+(5-4.5)^2+(9-4.5)^2)/3) = sqrt(35/3);
    IL1s = (1+1+2+2)/(sqrt(35/3)*sqrt(2)) = 6/sqrt(70/3) = 1.2421180...
    sd(masked) = sqrt(4*2.5^2/3) = 2.886751...; with p = 0.5 the half-width is 1.443376:
    |1-2|, |3-2| <= 1.44 (inside), |5-7|, |9-7| > 1.44 (outside) -> 2 of 4 at risk = 50 %.
    """
    ctx = ctx_for(np.array([[1.0], [3.0], [5.0], [9.0]]), [0, 0, 1, 1], {"sdid_p": 0.5})
    out = evaluate(ctx, ["il1s", "sdid"])
    assert out["il1s"] == pytest.approx(6 / math.sqrt(70 / 3), rel=1e-12)
    assert out["sdid"] == 50.0


@pytest.mark.parametrize("name,x,labels", CASES[:5], ids=IDS[:5])
def test_g_dr_and_si_compose_their_parts(name, x, labels):
    opts = {"key_variables": "all", "si_x": 0.3}
    ctx = ctx_for(x, labels, opts)
    out = evaluate(ctx, ["g_il", "rld", "id", "g_dr", "si"])
    rld = ref_rld(ctx.z, ctx.labels, list(range(x.shape[1])))
    idv = ref_id(x, ref_masked(x, labels), range(1, 11))
    assert out["g_dr"] == pytest.approx((rld + idv) / 2, rel=1e-12)
    assert out["si"] == pytest.approx(0.3 * out["g_il"] + 0.7 * (rld + idv) / 2, rel=1e-12)
    default = evaluate(ctx_for(x, labels, {"key_variables": "all"}), ["si"])["si"]
    assert default == pytest.approx(0.5 * out["g_il"] + 0.5 * out["g_dr"], rel=1e-12)


def test_every_metric_has_a_one_line_doc():
    for name in ["m1", "m2", "m3", "m4", "m5", "g_il", "dld", "rld", "id", "g_dr", "si", "sdid", "il1s"]:
        assert name in REGISTRY and REGISTRY[name].doc and "\n" not in REGISTRY[name].doc


# --------------------------------------------------------------------------- tie conventions, explicitly


def test_dld_duplicates_lower_index_wins():
    """Three identical records, each its own group: the query of each hits all three at distance 0.

    Strict ranks (ties -> lower index): records 0 and 1 are linked, record 2 is not (rank 3).
    Inclusive: all three are linked.
    """
    x = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [5.0, 2.0], [3.0, 7.0]])
    labels = np.arange(5)
    assert evaluate(ctx_for(x, labels), ["dld"])["dld"] == pytest.approx(100 * 4 / 5)
    assert evaluate(ctx_for(x, labels, {"linkage_ties": "inclusive"}), ["dld"])["dld"] == 100.0


def test_dld_at_most_two_per_group_under_strict_ranks():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 3))
    labels = np.repeat(np.arange(10), 6)
    assert evaluate(ctx_for(x, labels), ["dld"])["dld"] <= 100 * 2 * 10 / 60


def test_id_uses_each_records_own_sorted_position():
    """Masked column 2,2,2 (one group) then 10: with m = 1 the three tied records sit at positions 0,1,2.

    x = [1, 2, 3, 10], n = 4, P = 25 -> m = 1. Sorted masked s = [2, 2, 2, 10].
    record 0 (pos 0): [2, 2] ∌ 1; record 1 (pos 1): [2, 2] ∋ 2; record 2 (pos 2): [2, 10] ∋ 3;
    record 3 (pos 3): [2, 10] ∋ 10 -> 3 of 4 = 75 %.
    """
    x = np.array([[1.0], [2.0], [3.0], [10.0]])
    assert evaluate(ctx_for(x, [0, 0, 0, 1], {"id_p": [25]}), ["id"])["id"] == 75.0


def test_id_depends_on_record_order_within_a_group():
    """The thesis's tie rule (a record's own position among equal masked values, in record order)
    makes ID depend on the order of the records inside a group: reversing the same data gives 2 of 4."""
    x = np.array([[3.0], [2.0], [1.0], [10.0]])  # same group {1,2,3}, listed in reverse order
    assert evaluate(ctx_for(x, [0, 0, 0, 1], {"id_p": [25]}), ["id"])["id"] == 50.0


# --------------------------------------------------------------------------- option errors (function level)

BAD_OPTIONS = [
    ({"key_variables": ["nope"]}, "rld", "not a column"),
    ({"key_variables": [0]}, "rld", "out of range"),
    ({"key_variables": [1, 1]}, "rld", "listed twice"),
    ({"key_variables": []}, "rld", "empty"),
    ({}, "rld", "needs key variables"),
    ({"key_variables_rule": "most_repeats", "n_key_variables": 1}, "rld", "key_variables_rule"),
    ({"key_variables_rule": "fewest_repeats", "n_key_variables": 9}, "rld", "n_key_variables"),
    ({"key_variables": "all", "rld_mode": "rerun"}, "rld", "mabench run"),
    ({"key_variables": "all", "rld_mode": "fast"}, "rld", "rld_mode"),
    ({"key_variables": "all", "rld_sizes": [0]}, "rld", "rld_sizes"),
    ({"key_variables": "all", "rld_scale": "raw"}, "rld", "rld_scale"),
    ({"linkage_ties": "random"}, "dld", "linkage_ties"),
    ({"dld_scale": 1}, "dld", "dld_scale"),
    ({"id_p": []}, "id", "id_p"),
    ({"id_p": [101]}, "id", "id_p"),
    ({"id_p": "ten"}, "id", "id_p"),
    ({"si_x": 2}, "si", "si_x"),
    ({"si_x": "half"}, "si", "si_x"),
    ({"sdid_p": -1}, "sdid", "sdid_p"),
]


@pytest.mark.parametrize("options,name,needle", BAD_OPTIONS, ids=[f"{b[1]}-{i}" for i, b in enumerate(BAD_OPTIONS)])
def test_bad_options_raise_one_line_user_errors(options, name, needle):
    x = np.random.default_rng(0).normal(size=(12, 3))
    ctx = ctx_for(x, np.repeat(np.arange(4), 3), {"key_variables": "all", **options} if name == "si" else options)
    with pytest.raises(UserError) as err:
        evaluate(ctx, [name])
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_too_many_key_variables_is_a_user_error():
    x = np.random.default_rng(0).normal(size=(20, 17))
    with pytest.raises(UserError, match="at most 16"):
        evaluate(ctx_for(x, np.repeat(np.arange(5), 4), {"key_variables": "all"}), ["rld"])
