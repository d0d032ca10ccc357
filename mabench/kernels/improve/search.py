"""Search drivers shared by the improvement methods (``icsm``, ``ls``) and the best-known registry.

* :func:`icsm` — ICSM's loop (003_58f0e37d459aa4df.txt §4.1, Algorithm 2) over the kernels of
  :mod:`mabench.kernels.improve.icsm`;
* :func:`descent` — plain move/swap local search (:func:`mabench.kernels.move_swap_descent`);
* :func:`iterate` — random-perturbation restarts (ICSM §5.3, Table 4): perturb up to
  ``perturb`` records of the best partition, improve again, keep the better one.

Every driver records an anytime trace: (seconds since start, IL) each time the best partition
improves. The stopping rule is deterministic (iterations / restarts); a time budget in seconds
is an option and makes the stopping point depend on the machine.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np

from mabench import kernels as K
from mabench.kernels.core import counter, groups
from mabench.plugin import Param


@dataclass
class Trace:
    """(elapsed seconds, IL) at each improvement; ``sst`` turns SSE into IL = 100·SSE/SST."""

    sst: float
    start: float = field(default_factory=time.perf_counter)
    points: list = field(default_factory=list)

    def il(self, sse: float) -> float:
        return 100.0 * sse / self.sst

    def add(self, sse: float) -> None:
        self.points.append((round(time.perf_counter() - self.start, 6), self.il(sse)))

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


PROGRESS_SECONDS = 10.0  # a long search says what it is doing this often (stderr)
NOTE_SECONDS = 0.5  # how often it hands the progress display its state (the display redraws as often)


class Progress:
    """A line on stderr every PROGRESS_SECONDS while a search runs, so a long run is never silent;
    under a progress display its state goes to the display instead, and nowhere when told to be quiet
    (``mabench.kernels.core.counter.HEARTBEAT``)."""

    def __init__(self, what: str):
        self.what = what
        self.start = self.last = time.perf_counter()

    def tick(self, text) -> None:
        mode = counter.HEARTBEAT[0]
        now = time.perf_counter()
        if mode == "quiet" or now - self.last < (NOTE_SECONDS if mode == "display" else PROGRESS_SECONDS):
            return
        self.last = now
        line = f"{self.what}: {text() if callable(text) else text}, {now - self.start:.0f} s so far"
        if mode == "display":
            counter.note(line)
        else:
            sys.stderr.write(f"mabench: {line}\n")
            sys.stderr.flush()


def auto_rounds(n: int) -> int:
    """The round cap of ICSM when none is given (max_iterations=0): max(1000, n). ICSM stops at a local
    optimum long before this on the benchmark data (Tarragona k=3: 42 improving rounds); the cap only
    makes the default run finite on any input the size limits allow.

    Parameters
    ----------
    n : int — records.

    Returns
    -------
    int

    Examples
    --------
    >>> auto_rounds(10), auto_rounds(5000)
    (1000, 5000)
    """
    return max(1000, int(n))


def sst(Z: np.ndarray) -> float:
    """The total sum of squares that IL divides by (:func:`mabench.kernels.core.groups.sst`).

    Parameters
    ----------
    Z : (n, d) array_like of float — the records.

    Returns
    -------
    float
    """
    return float(groups.sst(np.ascontiguousarray(Z, dtype=np.float64)))


class State:
    """A partition with its group sizes, centroids and member lists (see kernels.localsearch)."""

    def __init__(self, Z, labels, k, kmax):
        self.Z = Z
        self.k = k
        self.kmax = kmax
        self.set(labels)

    def set(self, labels):
        from mabench.partition import canonical_labels

        labels = np.ascontiguousarray(canonical_labels(labels), dtype=np.int64)
        cap = max(self.kmax, int(np.bincount(labels).max())) + 1
        self.labels = labels
        self.sizes, self.means, self.members, self.pos = K.group_state(self.Z, labels, cap)
        self.sse = K.total_sse(self.Z, labels, self.means)

    def copy_labels(self):
        return self.labels.copy()

    def resync(self):
        """Recompute centroids and SSE from scratch (incremental updates drift by ~1e-13)."""
        self.set(self.labels)


def descent(st: State, neighbours: int, start=None, max_changes: int = 0) -> int:
    """Move/swap descent to a local optimum; returns the number of changes.

    Parameters
    ----------
    st : State — the partition (updated).
    neighbours : int — how many nearest groups a record may move or swap into.
    start : (m,) array_like of int, optional — the records queued first (default: all).
    max_changes : int, default 0 — 0 = no limit.

    Returns
    -------
    int
    """
    n = st.Z.shape[0]
    if start is None:
        start = np.arange(n, dtype=np.int64)
    changes, _ = K.move_swap_descent(st.Z, st.k, st.kmax, neighbours, st.labels, st.sizes, st.means,
                                     st.members, st.pos, np.ascontiguousarray(start, dtype=np.int64),
                                     len(start), max_changes)
    if changes:
        st.resync()
    return int(changes)


def icsm(st: State, pool_n: int = 100, pool: str = "best", max_iterations: int = 0, complex_sources: str = "score",
         tour2assignment: bool = True, trace: Trace | None = None, deadline: float | None = None,
         use_complex: bool = True) -> int:
    """ICSM (Algorithm 2) from the partition in ``st``; returns the number of improving rounds.

    Inner loop: Tour → Tour2Assignment (kept only if it lowers SSE) → SimpleHeuristic, until a
    round changes nothing. Outer loop: ComplexHeuristic, until it finds no negative cycle and
    the inner loop nothing. ``max_iterations`` (0 = no limit) caps the rounds of both loops
    together; the count returned is the rounds that improved (the paper's "Iterations").

    Seed: 003_58f0e37d459aa4df.txt §4.1-4.2 (Algorithms 2-5).

    Parameters
    ----------
    st : State — the partition (updated).
    pool_n : int, default 100 — simpleHeuristic's pool size.
    pool : {"best", "first"}, default "best" — which candidates the pool keeps.
    max_iterations : int, default 0 — the round cap (0: none).
    complex_sources : {"score", "all"}, default "score" — complexHeuristic's sources.
    tour2assignment : bool, default True — whether the inner loop runs Tour2Assignment.
    trace : Trace, optional — the anytime trace (appended to).
    deadline : float, optional — a ``time.perf_counter()`` value to stop at.
    use_complex : bool, default True — whether the outer loop runs ComplexHeuristic.

    Returns
    -------
    int
    """
    Z, k, kmax = st.Z, st.k, st.kmax
    improving = 0
    rounds = 0
    if not max_iterations:
        max_iterations = auto_rounds(Z.shape[0])
    progress = Progress("icsm")

    def out_of_rounds():
        progress.tick(lambda: f"round {rounds}, SSE {st.sse:.6g}")
        return (max_iterations and rounds >= max_iterations) or (deadline is not None and time.perf_counter() >= deadline)

    while True:
        inner_changed_any = False
        while True:
            before = st.sse
            if tour2assignment:
                path = K.tour(Z, st.labels, st.sizes, st.members)
                labels, sse_new = K.tour2assignment(Z, path, k, kmax)
                if sse_new < st.sse - K.EPS:
                    st.set(labels)
            applied, _ = K.simple_heuristic(Z, k, kmax, st.labels, st.sizes, st.means, st.members, st.pos,
                                            pool_n, pool == "best")
            if applied:
                st.resync()
            rounds += 1
            changed = st.sse < before - K.EPS
            if changed:
                improving += 1
                inner_changed_any = True
                if trace is not None:
                    trace.add(st.sse)
            if not changed or out_of_rounds():
                break
        if out_of_rounds() or not use_complex:
            break
        before = st.sse
        moved, _ = K.complex_heuristic(Z, k, kmax, st.labels, st.sizes, st.means, st.members, st.pos,
                                       complex_sources == "all")
        rounds += 1
        if moved:
            st.resync()
        if st.sse < before - K.EPS:
            improving += 1
            if trace is not None:
                trace.add(st.sse)
        elif not inner_changed_any:
            break
        if out_of_rounds() or (st.sse >= before - K.EPS):
            break
    return improving


def iterate(st: State, improve, restarts: int, budget: float, perturb: int, neighbours: int,
            rng: np.random.Generator, trace: Trace | None = None, local=None,
            dissolve: float = 0.0) -> tuple[np.ndarray, float, int]:
    """Random-perturbation restarts around the best partition found so far.

    Each restart: copy the best partition, exchange m ~ U{1..perturb} random records with
    records of their ``neighbours`` nearest groups (sizes unchanged, so the partition stays
    valid), run ``local`` (a cheap descent seeded with the touched records; optional) and then
    ``improve``; keep the result if its SSE is lower. Stops after ``restarts`` restarts, or
    once ``budget`` seconds have passed (``budget > 0``; ``restarts = 0`` then means no limit).
    With probability ``dissolve`` a restart instead dissolves a random group into the nearest
    groups with room (the number of groups drops by one; the descent may then split others).
    Returns (best labels, best SSE, restarts done).

    Parameters
    ----------
    st : State — the partition (updated to the best).
    improve : callable — ``improve(st)``, the improver run after each perturbation.
    restarts : int — how many restarts (0 with a budget: no limit).
    budget : float — seconds (0: none).
    perturb : int — the most records exchanged per restart.
    neighbours : int — how many nearest groups.
    rng : numpy.random.Generator — the cell's generator.
    trace : Trace, optional — the anytime trace.
    local : callable, optional — ``local(st, touched)``, a cheap descent before ``improve``.
    dissolve : float, default 0.0 — the probability that a restart dissolves a group instead.

    Returns
    -------
    labels : (n,) int64 — the best partition.
    sse : float — its SSE.
    restarts_done : int
    """
    best = st.copy_labels()
    best_sse = st.sse
    n = st.Z.shape[0]
    start = time.perf_counter()
    done = 0
    progress = Progress("restarts")
    while True:
        progress.tick(lambda: f"{done} of {restarts or 'unlimited'} done, best SSE {best_sse:.6g}")
        if restarts and done >= restarts:
            break
        if budget > 0 and time.perf_counter() - start >= budget:
            break
        if not restarts and budget <= 0:
            break
        st.set(best)
        if dissolve > 0 and rng.random() < dissolve and st.sizes.size > 1:
            g = int(rng.integers(st.sizes.size))
            touched = K.dissolve(st.Z, g, st.kmax, st.labels, st.sizes, st.means, st.members, st.pos)
            if len(touched) < int(np.bincount(best)[g]):  # no room: nothing or part moved; start over
                done += 1
                continue
        else:
            m = int(rng.integers(1, perturb + 1))
            picks = rng.choice(n, size=min(m, n), replace=False).astype(np.int64)
            partners = rng.random(len(picks))
            touched = K.perturb(st.Z, st.labels, st.sizes, st.means, st.members, st.pos, len(picks), neighbours,
                                picks, partners)
        st.resync()
        if local is not None:
            local(st, touched)
        improve(st)
        done += 1
        if st.sse < best_sse - K.EPS:
            best = st.copy_labels()
            best_sse = st.sse
            if trace is not None:
                trace.add(best_sse)
    st.set(best)
    return best, best_sse, done


def restart_params(neighbours: str, restarts: str = "", stop: str = "restarts") -> dict[str, Param]:
    """The parameters :func:`restarts` reads, declared once for the plugins that restart: ``neighbours``'
    help text, what the restarts follow (``restarts``, e.g. " after ICSM") and what else stops them.

    Parameters
    ----------
    neighbours, restarts, stop : str — the plugin's own words in the help texts.

    Returns
    -------
    dict[str, Param]
    """
    return {"neighbours": Param(8, neighbours, min=1),
            "restarts": Param(0, f"random-perturbation restarts{restarts}; 0 = none", min=0),
            "perturb": Param(20, "at most this many records are perturbed per restart", min=1),
            "budget": Param(0.0, f"optional time budget in seconds (0 = stop by {stop} only)", min=0.0, max=1e7)}


def restarts(st: State, improve, params: dict, rng: np.random.Generator, trace: Trace, budget: float,
             local=None) -> int:
    """The restart phase of the ``ls``, ``icsm`` and ``lns`` plugins: :func:`iterate` with their
    parameters ``restarts``, ``perturb`` and ``neighbours``; ``local`` by default a descent over the
    ``neighbours`` nearest groups seeded with the perturbed records.

    Parameters
    ----------
    st, improve, rng, trace, local : as for :func:`iterate`; params : dict — the plugin's resolved parameters.
    budget : float — the seconds left (0: none).

    Returns
    -------
    int — restarts done.
    """
    if local is None:
        def local(s, touched):
            descent(s, params["neighbours"], start=touched)
    return iterate(st, improve, params["restarts"], budget, params["perturb"], params["neighbours"], rng, trace,
                   local)[2]


def trace_points(trace: Trace) -> list:
    """The trace as a list of [seconds, IL] (kept in the run record's ``info``; the results table
    stores ``info`` as JSON text).

    Parameters
    ----------
    trace : Trace

    Returns
    -------
    list of [float, float]
    """
    return [[t, round(il, 10)] for t, il in trace.points]


def begin(Z: np.ndarray, labels: np.ndarray, k: int) -> tuple:
    """(state, trace, initial IL) of an improver started from ``labels``: groups of k..2k−1 records,
    the start as the trace's first point. Every improver (icsm, ls, lns) begins so.

    Parameters
    ----------
    Z : (n, d) float64 — the standardized records.
    labels : (n,) int64 — the starting partition (groups of k..2k−1 records).
    k : int — the minimum group size.

    Returns
    -------
    (State, Trace, float) — the search state, the anytime trace holding the start, and the start's IL (%).
    """
    tr = Trace(sst(Z))
    st = State(Z, labels, k, 2 * k - 1)
    il_init = tr.il(st.sse)
    tr.add(st.sse)
    return st, tr, il_init


def summary(st, tr: Trace, il_init: float, iterations: int, restarts_done: int) -> tuple:
    """What an improver returns: its labels and the run record's ``info`` (iterations, restarts,
    the initial IL, the gain over it in %, the anytime trace).

    Parameters
    ----------
    st : State — the final partition.
    tr : Trace — the anytime trace.
    il_init : float — the starting IL.
    iterations, restarts_done : int — the counts reported.

    Returns
    -------
    (labels, info) — (n,) int64 and a dict.
    """
    il = tr.il(st.sse)
    return st.labels, {"iterations": int(iterations), "restarts_done": int(restarts_done), "il_init": il_init,
                       "gain": 100.0 * (1.0 - il / il_init) if il_init > 0 else 0.0,
                       "trace": trace_points(tr)}


def lns_descent(st: State, rng: np.random.Generator, rmax: int, scratch, trace: Trace | None = None,
                deadline: float | None = None, max_passes: int = 0, seeds=None, remember: bool = True) -> int:
    """Large-neighbourhood descent: for each group in a random order, take it and its nearest groups
    (by centroid) while they hold ≤ ``rmax`` records, re-partition those records optimally
    (:func:`mabench.kernels.improve.lns.region_optimum`) and keep the result when the total SSE falls.
    Passes repeat until one changes nothing (or ``max_passes``/``deadline``); returns the changes.
    With ``seeds`` (record ids, e.g. those a perturbation touched) one pass visits only their groups.
    ``remember=False`` solves every region it visits again (the same result, slower: for tests).

    Seed: Castro, Gentile & Spagnolo-Arrizabalaga, PSD 2022 (exact re-optimisation of parts; the ``lns`` plugin's citation).

    Parameters
    ----------
    st : State — the partition (updated).
    rng : numpy.random.Generator — orders the groups.
    rmax : int — the largest region.
    scratch : tuple — :func:`mabench.kernels.improve.lns.scratch`.
    trace : Trace, optional
    deadline : float, optional — a ``time.perf_counter()`` value to stop at.
    max_passes : int, default 0 — 0 = no limit.
    seeds : array_like of int, optional — record ids whose groups one pass visits.
    remember : bool, default True — skip regions already solved.

    Returns
    -------
    int
    """
    from mabench.kernels.improve import lns

    Z, k, kmax = st.Z, st.k, st.kmax
    n, d = Z.shape
    sums, sqsum, best, choice = scratch
    pair = rmax > lns.RMAX  # large k: two-group regions split exactly by enumeration
    out = np.empty(rmax, dtype=np.int64)
    idx = np.empty(rmax, dtype=np.int64)
    region = np.empty(rmax, dtype=np.int64)
    changes = 0
    passes = 0
    settled = set()  # regions (record ids, group sizes) whose optimum gained nothing
    while True:
        c = st.sizes.size
        order_g = np.empty(c, dtype=np.int64)
        order_d = np.empty(c)
        region_groups = np.empty(c, dtype=np.int64)
        changed = False
        visit = rng.permutation(c) if seeds is None else np.unique(st.labels[np.asarray(seeds, dtype=np.int64)])
        for g0 in visit:
            if g0 >= st.sizes.size:
                continue
            r, ng = lns.pick_region(Z, st.labels, st.sizes, st.means, st.members, int(g0), rmax, order_g, order_d,
                                    region, region_groups)
            ids = region[:r].copy()
            # A region's answer is a function of its records and their groups: one that gained nothing is
            # not solved again until one of its groups changes (the last pass then costs no solves).
            key = (ids.tobytes(), st.sizes[region_groups[:ng]].tobytes())
            if remember and key in settled:
                continue
            Zr = np.ascontiguousarray(Z[ids])
            old = float(((Zr - st.means[st.labels[ids]]) ** 2).sum())
            if pair:
                if r >= 3 * k:
                    continue
                Zc = Zr - Zr.mean(axis=0)  # centred: less cancellation in Σx² − ‖Σx‖²/m
                new, gnew = lns.pair_optimum(Zc, k, kmax, idx, out)
            else:
                new, gnew = lns.region_optimum(Zr, k, kmax, sums, sqsum, best, choice, out)
            if not new < old - 1e-9:
                settled.add(key)
                continue
            labels = st.labels.copy()
            fresh = list(region_groups[:ng]) + list(range(st.sizes.size, st.sizes.size + max(0, gnew - ng)))
            labels[ids] = np.asarray(fresh, dtype=np.int64)[out[:r]]
            before = st.sse
            keep = st.copy_labels()
            st.set(labels)
            if st.sse < before - K.EPS:
                changes += 1
                changed = True
                if trace is not None:
                    trace.add(st.sse)
                order_g = np.empty(st.sizes.size, dtype=np.int64)
                order_d = np.empty(st.sizes.size)
                region_groups = np.empty(st.sizes.size, dtype=np.int64)
            else:
                st.set(keep)
            if deadline is not None and time.perf_counter() >= deadline:
                return changes
        passes += 1
        if not changed or seeds is not None or (max_passes and passes >= max_passes):
            return changes
