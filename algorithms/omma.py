"""OMMA — Object Migrating Micro-aggregated Automaton (Fayyoumi thesis, Algorithm 6).

Source: 001_26cfb99743cbb1f3.txt Ch. 4 §4.3 (the automaton, Eq. 4.1, the
similarity list and θ; Algorithms 6–10: learning cycle, reward, the three
penalty cases) and §4.5 (M = 5, experiments). Pseudocode in our own words,
the choices and the evidence are in docs/algorithms/omma_iamat.md.

OMMA is a fixed-structure learning automaton for *fixed-size* groups: h = n/k
actions (groups), M states per group (depth 1 = most certain .. M = boundary).

* Start: a random equi-partition (``rng.permutation``), every record at the
  boundary of its group.
* Similarity list L: every pair i < j whose Euclidean distance (z-scores) is
  at most θ = ½(max D − min D), walked in row-major order (i, then j).
* One learning cycle walks L once. Same group: reward (both one state
  deeper). Different groups, neither at the boundary: both one state towards
  their boundary. One at the boundary (R_b in v, the other R_a in u): the best
  exchange of R_b with a member x ≠ R_a of u is made if it does not increase
  SSE_u + SSE_v (x and R_b then sit at their new groups' boundaries);
  otherwise the pair is deleted from L for good. Both at the boundary: the
  better of "R_j into R_i's group" and "R_i into R_j's group" (each with its
  best partner; ties favour the first) is made if it does not increase the
  SSE; the pair is never deleted.
* Stop after the first cycle that leaves the IL unchanged; its index is the
  thesis's "Converge" column and goes into the run record as
  ``converge_cycle`` (with ``pairs``, the initial |L|, and ``theta``).

Every migration is a one-for-one exchange, so every group has exactly k
records and the SSE never increases (Theorem 4).

Speed, not a choice: most pairs join two groups so far apart that no exchange
can be made; a bound from the groups' sums and radii proves that in O(d)
(kernels/methods/swap_bound.py) and the pair is decided without evaluating the
k exchanges — the same decision, so the same partition.

Choices where the thesis is ambiguous (each a parameter where it changes results):

* ``depth`` (default 5 = the thesis's M, §4.5): states per group.
* ``accept=le`` (default): a swap is made when the SSE does not increase, as
  in Algorithms 9–10; ``accept=lt`` requires a strict decrease (the prose of
  §4.3 and the caption of Figure 4.4).
* ``theta_min=offdiag`` (default): min D is over pairs i ≠ j; ``theta_min=zero``
  includes the zero diagonal (θ = max D / 2).
* ``leftover=central`` (default) for n not a multiple of k (§4.3: "remove a
  few elements", then add them "to the appropriate partitions"): hold out the
  n mod k records nearest to the centroid (ties: lower index first), run OMMA
  on the rest, then add each held-out record to the group with the nearest
  centroid (centroids frozen; groups of k..2k−1). ``leftover=farthest`` holds
  out the farthest records instead (much worse on Tarragona, whose outliers
  then land in a group they do not fit: k = 4 IL about 21 vs. 17.8);
  ``leftover=refuse`` raises an error. Every thesis experiment has k | n.
* The group test uses (group, depth) pairs, not Algorithm 6's 1-based
  ``ζ div M`` (which misplaces the boundary state); the random start and the
  output step of Algorithm 6 happen once, not per cycle.
* The list is not shuffled between cycles; among equally good swap partners
  the lowest record index wins. SSE changes within 1e-9 of each other (or of
  0) count as equal, so rounding noise decides nothing. Convergence:
  SSE_new >= SSE_old − 1e-10·SST.

Memory: L is held as a CSR list of int32 partners (4 bytes per pair, deleted
pairs overwritten in place), never as an n×n matrix. On real data almost all
pairs qualify (Census 93 %, Tarragona 98 %), so the largest n that fits in
8 GB is about 63,000 (n²/2 · 4 B); a list above MAX_PAIRS (1.5·10⁹ pairs,
6 GB) is refused before it is allocated.
"""

import numpy as np
from numba import njit

from mabench import kernels as K
from mabench.kernels.methods import swap
from mabench.plugin import Algorithm, Param, linear_bytes
from mabench.errors import UserError

MAX_PAIRS = 1_500_000_000  # 6 GB of int32 partners


@njit(cache=True)
def learn(Z, members, grp, pos, ptr, partner, M, strict, max_cycles):
    """Learning cycles until the IL stops decreasing; returns (converge cycle, SSE per cycle)."""
    n, d = Z.shape
    h, k = members.shape
    sums = np.empty((h, d))
    buf = np.empty(d + k)
    offset = np.empty(n)  # each record's distance from its group's centroid (the exchange bound's input)
    radius = np.empty(h)  # each group's largest offset
    slack = K.bound_slack(Z, k)
    eps = swap.EPS
    depth = np.full(n, M - 1, dtype=np.int64)  # 0 = most internal, M-1 = boundary
    bound = M - 1
    sst = 0.0
    for t in range(d):
        mu = 0.0
        for i in range(n):
            mu += Z[i, t]
        mu /= max(n, 1)
        for i in range(n):
            u = Z[i, t] - mu
            sst += u * u
    tol = 1e-10 * sst
    history = np.empty(max_cycles + 1)
    old = np.inf
    cycle = 0
    while cycle < max_cycles:
        cycle += 1
        K.member_sums(Z, members, sums)  # fresh sums each cycle: no drift
        K.group_radii(Z, members, sums, offset, radius)
        for i in range(n):
            for t in range(ptr[i], ptr[i + 1]):
                j = np.int64(partner[t])  # the pair list is int32; kernels take int64
                if j < 0:
                    continue
                gi = grp[i]
                gj = grp[j]
                if gi == gj:  # reward (Algorithm 7)
                    if depth[i] > 0:
                        depth[i] -= 1
                    if depth[j] > 0:
                        depth[j] -= 1
                elif depth[i] < bound and depth[j] < bound:  # Case 1 (Algorithm 8)
                    depth[i] += 1
                    depth[j] += 1
                elif depth[i] < bound or depth[j] < bound:  # Case 2 (Algorithm 9)
                    a = i if depth[i] < bound else j  # unbound, in u
                    b = j if a == i else i  # at the boundary, in v
                    u = grp[a]
                    v = grp[b]
                    gap = K.sum_gap(sums, u, v)
                    if (K.far_apart(gap, offset[b], radius[u], k, d, slack)
                            or K.no_gain(Z, sums, radius, k, u, v, b, gap, slack)):
                        partner[t] = -1  # best_swap would find no exchange: delete the tuple from L
                        continue
                    dl, x = K.best_swap(Z, members, sums, u, v, b, a, buf)
                    if x >= 0 and (dl < -eps or (dl <= eps and not strict)):
                        K.apply_swap(Z, members, grp, pos, sums, x, b)
                        K.refresh_group(Z, members, sums, u, offset, radius)
                        K.refresh_group(Z, members, sums, v, offset, radius)
                        depth[x] = bound
                        depth[b] = bound
                    else:
                        partner[t] = -1  # delete the tuple from L
                else:  # Case 3 (Algorithm 10): both at the boundary
                    gap = K.sum_gap(sums, gi, gj)
                    if ((K.far_apart(gap, offset[j], radius[gi], k, d, slack)
                         or K.no_gain(Z, sums, radius, k, gi, gj, j, gap, slack))
                            and (K.far_apart(gap, offset[i], radius[gj], k, d, slack)
                                 or K.no_gain(Z, sums, radius, k, gj, gi, i, gap, slack))):
                        continue  # neither direction has an exchange to make
                    d1, x1 = K.best_swap(Z, members, sums, gi, gj, j, i, buf)  # R_j into R_i's group
                    d2, x2 = K.best_swap(Z, members, sums, gj, gi, i, j, buf)  # R_i into R_j's group
                    x = -1
                    if d1 <= d2 + eps:
                        if x1 >= 0 and (d1 < -eps or (d1 <= eps and not strict)):
                            K.apply_swap(Z, members, grp, pos, sums, x1, j)
                            depth[x1] = bound
                            depth[j] = bound
                            x = x1
                    elif x2 >= 0 and (d2 < -eps or (d2 <= eps and not strict)):
                        K.apply_swap(Z, members, grp, pos, sums, x2, i)
                        depth[x2] = bound
                        depth[i] = bound
                        x = x2
                    if x >= 0:
                        K.refresh_group(Z, members, sums, gi, offset, radius)
                        K.refresh_group(Z, members, sums, gj, offset, radius)
        new = K.members_sse(Z, members)
        history[cycle - 1] = new
        if new >= old - tol:
            break
        old = new
    return cycle, history[:cycle].copy(), sst


def similarity_list(Z, theta_min):
    """(θ, ptr, partner): the pairs i < j with D(i, j) <= θ as a CSR list (kernels.pairs)."""
    W = K.transposed(Z)
    lo, hi = K.distance_range(W)
    if theta_min == "zero":
        lo = 0.0
    theta = 0.5 * (hi - lo)
    ptr = K.count_close_pairs(W, theta)
    total = int(ptr[-1])
    if total > MAX_PAIRS:
        raise UserError(f"omma: the similarity list has {total:,} pairs ({4 * total / 1e9:.1f} GB); "
                        f"the limit is {MAX_PAIRS:,} (about n = 55,000 on real data); use a smaller data set")
    return theta, ptr, K.fill_close_pairs(W, theta, ptr)


def holdout(Z, k, rule="farthest"):
    """Record ids held out when k does not divide n: the n mod k farthest from (or nearest to) the centroid."""
    r = Z.shape[0] % k
    if r == 0:
        return np.empty(0, dtype=np.int64)
    dist = ((Z - Z.mean(axis=0)) ** 2).sum(axis=1)
    key = -dist if rule == "farthest" else dist
    order = np.lexsort((np.arange(Z.shape[0]), key))  # ties: lower index first
    return np.sort(order[:r])


def omma(Z, k, params, rng):
    """Labels and the run-record fields of one OMMA run."""
    n = Z.shape[0]
    held = holdout(Z, k, params["leftover"])
    if held.size and params["leftover"] == "refuse":
        raise UserError(f"omma needs groups of exactly k: k={k} does not divide n={n} "
                        f"(n mod k = {n % k}); choose k among the divisors of n or use leftover=farthest")
    core = np.setdiff1d(np.arange(n), held)
    Zc = np.ascontiguousarray(Z[core])
    order = rng.permutation(core.size)
    members, grp, pos = K.fixed_groups(order, k)
    theta, ptr, partner = similarity_list(Zc, params["theta_min"])
    cycle, history, sst = learn(Zc, members, grp, pos, ptr, partner, int(params["depth"]),
                                params["accept"] == "lt", int(params["max_cycles"]))
    labels = np.full(n, K.UNASSIGNED, dtype=np.int64)
    labels[core] = grp[: core.size]
    if held.size:
        K.assign_leftovers(Z, labels, members.shape[0])
    info = {"converge_cycle": int(cycle), "pairs": int(ptr[-1]), "theta": float(theta),
            "held_out": int(held.size), "capped": bool(cycle >= int(params["max_cycles"]) and history.size > 1
                                                        and history[-1] < history[-2] - 1e-10 * sst)}
    return labels, info, history


def run(Z, k, params, rng):
    if k == 1:
        return np.arange(Z.shape[0], dtype=np.int64), {"converge_cycle": 0}
    if params["depth"] < 1 or params["max_cycles"] < 1:
        raise UserError("omma: depth (M) and max_cycles must be at least 1")
    labels, info, _ = omma(Z, k, params, rng)
    return labels, info


ALGORITHM = Algorithm(
    name="omma",
    time="O(n²·d) to build the similarity list, O(|L|·d) per learning cycle (|L| ≤ n²/2)",
    memory="O(n²) (the int32 pair list: 4 bytes per pair, nearly all n(n−1)/2 pairs qualify on real data)",
    memory_bytes=lambda n, d, k, p: 4 * (n * (n - 1) // 2) + linear_bytes(n, d),
    title="OMMA (object migrating micro-aggregated automaton)",
    citation="001_26cfb99743cbb1f3.txt Ch. 4 §4.3 (Algorithms 6-10, Eq. 4.1) and §4.5 (M = 5); "
    "docs/algorithms/omma_iamat.md",
    run=run,
    max_group_size=lambda k, params: k if params["leftover"] == "refuse" else 2 * k - 1,
    params={
        "depth": Param(5, "M, the number of states per group (memory depth); the thesis uses 5", min=1,
                       max=1_000_000),
        "accept": Param("le", "swap when the SSE does not increase (le, Algorithms 9-10) or only when it "
                        "decreases (lt, the prose)", ("le", "lt")),
        "theta_min": Param("offdiag", "min D in theta = (max D - min D)/2: over pairs i != j, or zero "
                           "(the diagonal)", ("offdiag", "zero")),
        "leftover": Param("central", "n not a multiple of k: hold out the n mod k records nearest to "
                          "(central) or farthest from the centroid and add them to the nearest groups afterwards, "
                          "or refuse", ("central", "farthest", "refuse")),
        "max_cycles": Param(1000, "safety cap on learning cycles (never reached in practice)", min=1, max=10_000_000),
    },
    deterministic=False,
)
