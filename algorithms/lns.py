"""LNS — large-neighbourhood search with an exact sub-solver (improver of any partition).

Repeatedly takes a group and its nearest groups by centroid (a region of at most ``region``
records), re-partitions the region OPTIMALLY into groups of k..2k−1 records (bit-mask dynamic
programming over the region's subsets, :mod:`mabench.kernels.improve.lns`), and keeps the new groups when
the total SSE falls; a pass visits every group once in a random order, passes repeat until one
changes nothing. Optional perturbation restarts around the best partition (as ``ls``/``icsm``,
003_58f0e37d459aa4df.txt §5.3) alternate with the LNS descent. The idea of exact re-optimisation of
parts follows Castro, Gentile & Spagnolo-Arrizabalaga (PSD 2022: decompose, solve parts exactly,
then local search); the neighbourhood (nearest groups by centroid) and the DP sub-solver are this
harness's choices (docs/algorithms/lns.md). Start: ``init=`` any constructive plugin, or
``start=`` a partition file (CSV with header ``group``, e.g. a registry/best_known entry).
"""

import time

import numpy as np

from mabench import discovery, partition
from mabench.errors import UserError
from mabench.kernels.improve import lns as L
from mabench.kernels.improve import search
from mabench.plugin import Algorithm, Param, linear_bytes


def _start(Z, k, params, rng):
    if params["start"]:
        return partition.read_labels(params["start"], Z.shape[0], k)
    labels, _ = discovery.initial_partition(Z, k, params["init"], params["init_params"], rng)
    return labels


def run(Z, k, params, rng):
    top = L.region_limit(k)  # large k: two-group regions split by enumeration
    rmax = int(params["region"]) or L.default_region(k)
    if params["region"] and not 2 * k <= rmax <= top:
        fix = "give one in that range or drop region= for the default" if 2 * k <= top else \
            f"no region holds two groups at k={k}; drop region= (the default then keeps the start partition)"
        raise UserError(f"lns region={rmax} (your setting) must lie in [2k, {top}] = [{2 * k}, {top}] for k={k}; {fix}")
    regions = 2 * k <= rmax  # default region at k >= 12: no two groups fit, the region descent is skipped
    kmax = 2 * k - 1
    labels = _start(Z, k, params, rng)
    if np.bincount(labels).max() > kmax:
        raise UserError(f"lns needs a start with groups of at most 2k−1 = {kmax} records (use e.g. init_params=tail=2k)")
    st, tr, il_init = search.begin(Z, labels, k)
    scratch = L.scratch(Z.shape[1], min(rmax, L.RMAX))
    deadline = tr.start + params["budget"] if params["budget"] > 0 else None
    changes = search.lns_descent(st, rng, rmax, scratch, tr, deadline) if regions else 0
    done = 0
    if params["restarts"] or params["budget"] > 0:
        touched_now = []

        def local(s, touched):
            search.descent(s, params["neighbours"], start=touched)
            touched_now[:] = [touched]

        def improve(s):  # the regions around the perturbed records only (a full pass costs c regions)
            if regions:
                    search.lns_descent(s, rng, rmax, scratch, None, deadline, seeds=touched_now[0])

        remaining = 0.0 if deadline is None else max(1e-9, deadline - time.perf_counter())
        done = search.restarts(st, improve, params, rng, tr, remaining, local)
    return search.summary(st, tr, il_init, changes, done)


ALGORITHM = Algorithm(
    name="lns",
    time="O(2^r·r) per region of r ≤ 16 records (subset DP; two-group regions of ≤ 22 records: O(2^r)), "
         "× regions per sweep, sweeps until no improvement, × restarts; plus init's cost",
    memory="O(n·d) (plus 2^r per region)",
    memory_bytes=lambda n, d, k, p: linear_bytes(n, d),  # the DP's 2^r table is at most 32 MB
    title="Large-neighbourhood search, regions re-partitioned exactly (DP), with perturbation restarts",
    citation="Castro, Gentile & Spagnolo-Arrizabalaga, PSD 2022 (exact re-optimisation of parts); "
             "003_58f0e37d459aa4df.txt §5.3 (restarts); docs/algorithms/lns.md",
    run=run,
    check=discovery.check_init,
    params={
        **discovery.init_params("any constructive plugin"),
        "start": Param("", "optional partition file (CSV, header `group`) to start from instead of init",
                       sized=True),
        "region": Param(0, "records per region (0 = min(16, 4k) for k ≤ 4, min(16, 3k) for k ≤ 8, 22 for "
                           "k ≤ 11; at k ≥ 12 no region of two groups fits and the default skips the region "
                           "descent); at most 16, or 22 when 2k > 16 (two-group regions)", min=0, max=22),
        **search.restart_params("perturbation and the seeded descent use this many nearest groups",
                                " after the first descent"),
    },
    deterministic=False,  # a pass visits the groups in rng order (search.lns_descent): the cell seed shows
    notes="regions hold at most 16 records (the DP is exponential in them); for k ≥ 9 a region is two groups "
          "of at most 22 records together, split exactly by enumeration; time budgets make the stopping point "
          "machine-dependent",
)
