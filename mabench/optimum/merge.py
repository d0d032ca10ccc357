"""Set-partitioning recombination (``merge``): pool the groups of many local optima, pick the best
exact cover of the records by an integer program, polish.

* :class:`Pool` — every distinct group (its sorted record ids) met in the partitions handed to
  :meth:`Pool.add`, with its SSE; the incumbent's groups are protected (never evicted), so the
  integer program always has the incumbent as a feasible solution.
* :func:`solve` — min Σ_j SSE_j x_j subject to A x = 1 (every record in exactly one chosen group),
  x ∈ {0, 1}, by ``scipy.optimize.milp`` (HiGHS branch and cut; its MIP solver runs on one thread).
  Every pooled group has k..2k−1 records, so every cover is a valid partition.
* :func:`search` — rounds of: diversified perturbation chains from the incumbent (each restart's
  local optimum goes into the pool, accepted or not), the integer program over the pool, ICSM and LNS
  on the regions of the records the program moved; the incumbent is replaced only when the SSE falls.
* :func:`region_search` — no pool and no randomness: the integer program over one large region (the
  costliest groups and their neighbours), with every group a region record forms with some of its
  nearest region records as a column.

Deterministic for a seed when the chains stop by restart counts and HiGHS proves optimality within
its time limit; with time budgets the stopping points (and so the pool) depend on the machine.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from mabench import kernels as K

POOL_CAP = 60000  # groups kept; beyond it the oldest unprotected ones are dropped
DIVERSIFY = 40  # chain c > 0 starts after max(perturb·c, c·n/DIVERSIFY) record exchanges
REGION_SHARE = 0.99  # region_search: the costliest groups holding this share of the SSE ...
REGION_NEAR = 3  # ... each with this many nearest groups (by centroid)
REGION_COLUMNS = 3_000_000  # most candidate groups a region program may enumerate (memory: ~1 GB)


def group_members(labels: np.ndarray) -> list[np.ndarray]:
    """Per group of ``labels`` (consecutive ids 0..G−1): its record ids, ascending."""
    labels = np.asarray(labels, dtype=np.int64)
    order = np.argsort(labels, kind="stable")  # records ascending within each group
    bounds = np.concatenate(([0], np.cumsum(np.bincount(labels))))
    return [order[bounds[g]:bounds[g + 1]] for g in range(bounds.size - 1)]


def group_key(ids: np.ndarray) -> bytes:
    """A group's identity: its sorted record ids as bytes."""
    return ids.astype(np.int32).tobytes()


def group_costs(Z: np.ndarray, labels: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Per group of ``labels`` (consecutive ids 0..G−1): its sorted record ids and its SSE
    (Σ‖x − centroid‖², centroid recomputed from the records)."""
    labels = np.asarray(labels, dtype=np.int64)
    G = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=G).astype(np.float64)
    means = np.empty((G, Z.shape[1]))
    for j in range(Z.shape[1]):
        means[:, j] = np.bincount(labels, weights=Z[:, j], minlength=G) / counts
    dev = ((Z - means[labels]) ** 2).sum(axis=1)
    sse = np.bincount(labels, weights=dev, minlength=G)
    return group_members(labels), sse


class Pool:
    """Distinct groups of size k..kmax with their SSE, keyed by their sorted record ids."""

    def __init__(self, Z: np.ndarray, k: int, kmax: int, cap: int = POOL_CAP):
        self.Z, self.k, self.kmax, self.cap = Z, k, kmax, cap
        self.groups: dict[bytes, tuple[np.ndarray, float]] = {}  # insertion order = age
        self.protected: set[bytes] = set()

    def __len__(self) -> int:
        return len(self.groups)

    def add(self, labels: np.ndarray, protect: bool = False) -> int:
        """Add the groups of a partition; returns how many were new. ``protect``: these groups are
        never evicted (the incumbent's, so the integer program stays feasible)."""
        members, sse = group_costs(self.Z, labels)
        new = 0
        for ids, cost in zip(members, sse):
            if not self.k <= ids.size <= self.kmax:
                continue
            key = group_key(ids)
            if key not in self.groups:
                self.groups[key] = (ids, float(cost))
                new += 1
            if protect:
                self.protected.add(key)
        self._evict()
        return new

    def protect_only(self, labels: np.ndarray) -> None:
        """Protect the groups of ``labels`` (adding them) and release every other protection."""
        self.protected = set()
        self.add(labels, protect=True)

    def _evict(self) -> None:
        if len(self.groups) <= self.cap:
            return
        drop = []
        excess = len(self.groups) - self.cap
        for key in self.groups:
            if len(drop) >= excess:
                break
            if key not in self.protected:
                drop.append(key)
        for key in drop:
            del self.groups[key]

    def columns(self) -> tuple[list[np.ndarray], np.ndarray]:
        """The pooled groups (record ids) and their SSEs, in insertion order."""
        vals = list(self.groups.values())
        return [v[0] for v in vals], np.array([v[1] for v in vals], dtype=np.float64)


def solve(members: list[np.ndarray], costs: np.ndarray, n: int, time_limit: float) -> dict:
    """The minimum-cost exact cover of records 0..n−1 by the given groups (scipy.optimize.milp, HiGHS).

    Returns {"labels": group label per record or None (no cover found), "objective", "status",
    "optimal"}; ``labels`` numbers the chosen groups in column order. The relative MIP gap is 0: HiGHS's
    default (1e-4) would call a cover optimal while missing the 0.01 % gains this search is after."""
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    m = len(members)
    out = {"labels": None, "objective": float("inf"), "status": "no columns", "optimal": False, "columns": m}
    if m == 0:
        return out
    rows = np.concatenate(members)
    cols = np.repeat(np.arange(m), [g.size for g in members])
    A = sp.csc_array((np.ones(rows.size), (rows, cols)), shape=(n, m))
    if np.any(np.bincount(rows, minlength=n) == 0):  # a record no group covers: infeasible
        out["status"] = "a record is in no pooled group"
        return out
    res = milp(np.asarray(costs, dtype=np.float64), constraints=LinearConstraint(A, 1.0, 1.0),
               integrality=np.ones(m), bounds=Bounds(0.0, 1.0),
               options={"time_limit": max(1e-3, float(time_limit)), "disp": False, "mip_rel_gap": 0.0})
    out["status"] = res.message
    out["optimal"] = res.status == 0
    if res.x is None:
        return out
    chosen = np.flatnonzero(res.x > 0.5)
    labels = np.full(n, -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    for g, j in enumerate(chosen):
        labels[members[j]] = g
        count[members[j]] += 1
    if np.any(count != 1):  # not an exact cover (numerical trouble): ignore the answer
        out["status"] = f"{res.message} (rounded solution is not an exact cover)"
        return out
    out["labels"] = labels
    out["objective"] = float(np.asarray(costs)[chosen].sum())
    return out


def _moved_records(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Records whose group (as a set of records) differs between two partitions."""
    keys = {group_key(ids) for ids in group_members(old)}
    out = [ids for ids in group_members(new) if group_key(ids) not in keys]
    return np.sort(np.concatenate(out)) if out else np.empty(0, dtype=np.int64)


def lns_region(k: int) -> int:
    """The region size of the LNS polish and of the LNS chains: the `lns` method's, except 12 (not
    16) at k = 4 — a 16-record region costs ~0.8 s (docs/algorithms/lns.md), too slow for many restarts."""
    from mabench.kernels.improve import lns

    return 12 if k == 4 else lns.default_region(k)


def search(st, rng: np.random.Generator, budget: float = 0.0, rounds: int = 1, chains: int = 4,
           restarts: int = 20, perturb: int = 20, neighbours: int = 8, dissolve: float = 0.2,
           ip_share: float = 0.25, trace=None, pool: Pool | None = None) -> dict:
    """Rounds of pool → integer program → polish from the partition in ``st`` (changed in place to the
    best found; its SSE never rises).

    Stopping rule: with ``budget`` > 0 (seconds), rounds repeat until it is spent — each round gives its
    chains an equal share of (1 − ``ip_share``) of the round's time and the integer program up to
    ``ip_share`` of it (a round lasts max(60 s, budget/4)); with ``budget`` = 0, ``rounds`` rounds of
    ``chains`` chains × ``restarts`` restarts each, and the integer program runs to optimality.
    Chain c of a round starts from the incumbent (c = 0) or from it after max(``perturb``·c, c·n/40) record
    exchanges (diversification), then runs perturbation restarts (:func:`mabench.kernels.improve.search.iterate`) improved
    by ICSM's inner loop (even c) or LNS on the touched regions (odd c); every restart's local optimum
    is pooled, accepted or not. Returns counts for the run record."""
    from mabench.kernels.improve import lns
    from mabench.kernels.improve import search as S

    Z, k, kmax = st.Z, st.k, st.kmax
    n = Z.shape[0]
    rmax = lns_region(k)
    scratch = lns.scratch(Z.shape[1], min(rmax, lns.RMAX))
    pool = pool if pool is not None else Pool(Z, k, kmax)
    pool.protect_only(st.labels)
    start = time.perf_counter()
    deadline = start + budget if budget > 0 else None
    info = {"rounds": 0, "restarts": 0, "ip_better": 0, "ip_optimal": 0, "pool": 0}
    round_len = max(60.0, budget / 4) if budget > 0 else 0.0
    while True:
        now = time.perf_counter()
        if deadline is not None:
            if now >= deadline - 1.0:
                break
        elif info["rounds"] >= rounds:
            break
        r = info["rounds"]
        round_end = min(deadline, now + round_len) if deadline is not None else None
        chain_time = (round_end - now) * (1.0 - ip_share) / chains if round_end is not None else 0.0
        incumbent = st.copy_labels()
        incumbent_sse = st.sse
        for c in range(chains):
            crng = np.random.default_rng([int(rng.integers(2**62)), r, c])
            st.set(incumbent)
            if c > 0:
                m = min(n, max(perturb * c, c * n // DIVERSIFY))
                picks = crng.choice(n, size=m, replace=False).astype(np.int64)
                touched = K.perturb(Z, st.labels, st.sizes, st.means, st.members, st.pos, m, neighbours, picks,
                                    crng.random(m))
                st.resync()
                S.descent(st, neighbours, start=touched)
                S.icsm(st, use_complex=False)
                pool.add(st.labels)
            touched_now = [None]
            use_lns = c % 2 == 1

            def local(s, touched):
                S.descent(s, neighbours, start=touched)
                touched_now[0] = touched

            def improve_fn(s):
                if use_lns:
                    S.lns_descent(s, crng, rmax, scratch, None, round_end, seeds=touched_now[0])
                else:
                    S.icsm(s, use_complex=False)
                pool.add(s.labels)

            _, _, done = S.iterate(st, improve_fn, 0 if deadline is not None else restarts, chain_time, perturb,
                                   neighbours, crng, None, local, dissolve)
            info["restarts"] += int(done)
            pool.add(st.labels)
            if st.sse < incumbent_sse - K.EPS:  # a chain's own best: keep it as the incumbent candidate
                incumbent, incumbent_sse = st.copy_labels(), st.sse
                pool.protect_only(incumbent)
        info["pool"] = max(info["pool"], len(pool))
        members, costs = pool.columns()
        left = (deadline - time.perf_counter()) if deadline is not None else 0.0
        ip_time = max(5.0, min(left, (round_end - time.perf_counter()) if round_end is not None else left)) \
            if deadline is not None else 1e6
        sol = solve(members, costs, n, ip_time)
        info["ip_optimal"] += int(sol["optimal"])
        st.set(incumbent)
        if sol["labels"] is not None and sol["objective"] < incumbent_sse - K.EPS:
            st.set(sol["labels"])
            if st.sse < incumbent_sse - K.EPS:
                info["ip_better"] += 1
            else:
                st.set(incumbent)
        S.icsm(st)
        moved = _moved_records(incumbent, st.labels)
        if moved.size:  # LNS on the regions of the records whose group changed (a full pass costs minutes at k = 5)
            S.lns_descent(st, rng, rmax, scratch, None, deadline, seeds=moved)
        if st.sse > incumbent_sse:  # polish never raises SSE, but guard the invariant anyway
            st.set(incumbent)
        if trace is not None and st.sse < incumbent_sse - K.EPS:
            trace.add(st.sse)
        pool.protect_only(st.labels)
        info["rounds"] += 1
        sys.stderr.write(f"mabench: merge: round {info['rounds']}: pool {len(members)} groups, IP {sol['status']!r} "
                         f"(objective {sol['objective']:.6g}), SSE {incumbent_sse:.6g} -> {st.sse:.6g}, "
                         f"{time.perf_counter() - start:.0f} s so far\n")
        sys.stderr.flush()
    return info


def region_groups(Z: np.ndarray, labels: np.ndarray, share: float = REGION_SHARE, near: int = REGION_NEAR) -> np.ndarray:
    """Group ids (ascending) of the region: the costliest groups, by decreasing SSE, until they hold
    ``share`` of the total, each with its ``near`` nearest other groups by centroid distance.

    Microaggregation's SSE sits in the tails (on EIA at k = 3 the 50 costliest of 1,299 groups hold
    69 %), and a costly group can only get cheaper by trading records with the groups around it."""
    members, sse = group_costs(Z, labels)
    order = np.argsort(-sse, kind="stable")
    costly = order[: int(np.searchsorted(np.cumsum(sse[order]), share * sse.sum())) + 1]
    centres = np.array([Z[m].mean(axis=0) for m in members])
    chosen = set(costly.tolist())
    for g in costly:
        dist = ((centres - centres[g]) ** 2).sum(axis=1)
        dist[g] = np.inf
        chosen.update(np.argsort(dist, kind="stable")[:near].tolist())
    return np.array(sorted(chosen), dtype=np.int64)


def _companion_counts(k: int, kmax: int, near: int) -> range:
    """How many of its ``near`` nearest rows join a row in :func:`neighbourhood_columns`' groups."""
    return range(k - 1, min(kmax - 1, near) + 1)


def column_count(m: int, k: int, kmax: int, neighbours: int) -> int:
    """How many groups :func:`neighbourhood_columns` enumerates for m rows, before duplicates go."""
    from math import comb

    near = min(neighbours, m - 1)
    return m * sum(comb(near, others) for others in _companion_counts(k, kmax, near))


def neighbourhood_columns(X: np.ndarray, k: int, kmax: int, neighbours: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Every group of k..kmax rows of X made of one row and some of its ``neighbours`` nearest other rows
    (squared Euclidean distance, ties to the lower row), once each: (rows ascending, SSE) per group."""
    from itertools import combinations

    from mabench.kernels.lowerbound.bounds import nearest_sq

    m = X.shape[0]
    near = min(neighbours, m - 1)
    _, nearest = nearest_sq(np.ascontiguousarray(X, dtype=np.float64), near)
    members, costs = [], []
    for others in _companion_counts(k, kmax, near):
        pick = np.array(list(combinations(range(near), others)), dtype=np.int64).reshape(-1, others)
        groups = np.concatenate([np.repeat(np.arange(m), len(pick))[:, None],
                                 nearest[:, pick].reshape(-1, others)], axis=1)
        groups = np.unique(np.sort(groups, axis=1), axis=0)
        rows = X[groups]
        sse = ((rows - rows.mean(axis=1, keepdims=True)) ** 2).sum(axis=(1, 2))
        members.extend(groups)
        costs.append(sse)
    return members, np.concatenate(costs) if costs else np.empty(0)


def region_search(st, neighbours: int, time_limit: float, share: float = REGION_SHARE, near: int = REGION_NEAR) -> dict:
    """Re-partition the region (:func:`region_groups`) by the integer program over its
    :func:`neighbourhood_columns` and the incumbent's own region groups (so the incumbent is a feasible
    answer and the SSE never rises); keep the answer when it is lower. Deterministic: no randomness,
    and HiGHS's branch and cut is deterministic when it proves optimality within ``time_limit``.

    Returns the region's size, its SSE before and after, the columns, and whether the program was
    solved to optimality — when it was and nothing changed, the incumbent is optimal over every
    partition of the region into those groups."""
    Z, k, kmax = st.Z, st.k, st.kmax
    members, sse = group_costs(Z, st.labels)
    chosen = region_groups(Z, st.labels, share, near)
    records = np.sort(np.concatenate([members[g] for g in chosen]))
    position = np.full(Z.shape[0], -1, dtype=np.int64)
    position[records] = np.arange(records.size)
    columns, costs = neighbourhood_columns(Z[records], k, kmax, neighbours)
    seen = {group_key(c) for c in columns}
    own = [g for g in chosen if group_key(position[members[g]]) not in seen]
    columns += [position[members[g]] for g in own]
    costs = np.concatenate([costs, sse[own]])
    before = float(sse[chosen].sum())
    sol = solve(columns, costs, records.size, time_limit)
    info = {"region_groups": int(chosen.size), "region_records": int(records.size),
            "region_share": before / float(sse.sum()), "columns": len(columns), "sse_before": before,
            "sse_after": before, "optimal": bool(sol["optimal"]), "improved": False}
    if sol["labels"] is not None and sol["objective"] < before - K.EPS:
        old = st.copy_labels()
        old_sse = st.sse
        labels = old.copy()
        labels[records] = old.max() + 1 + sol["labels"]
        st.set(labels)
        if st.sse < old_sse - K.EPS:
            info.update(sse_after=float(sol["objective"]), improved=True)
        else:  # the program's objective and the recomputed SSE disagree: keep the incumbent
            st.set(old)
    return info
