"""LS — plain move/swap local search with random-perturbation restarts (the simple baseline).

Improves the partition of any algorithm (``init=``, default MDAV as in ICSM's Alg. 1,
003_58f0e37d459aa4df.txt §4.1) by first-improvement moves of one record into another group
and exchanges of two records of different groups, each restricted to the ``neighbours``
groups with the nearest centroids, until no such change lowers the SSE. These are exactly
the migrations and exchanges of ICSM's SimpleHeuristic (003_58f0e37d459aa4df.txt §4.1,
Eqs. 3–6) applied one at a time. Restarts follow ICSM §5.3 (Table 4): perturb up to
``perturb`` records of the best partition, descend again, keep the better partition.
Group sizes stay in [k, 2k−1]. Details: docs/algorithms/icsm.md.
"""

from mabench import discovery
from mabench.kernels.improve import search
from mabench.plugin import Algorithm


def run(Z, k, params, rng):
    labels, _ = discovery.initial_partition(Z, k, params["init"], params["init_params"], rng)
    st, tr, il_init = search.begin(Z, labels, k)
    changes = search.descent(st, params["neighbours"])
    tr.add(st.sse)
    done = 0
    if params["restarts"] or params["budget"] > 0:
        def improve(s):
            pass  # the seeded descent (restarts' default local step) is the whole improvement

        done = search.restarts(st, improve, params, rng, tr, params["budget"])
    return search.summary(st, tr, il_init, changes, done)


ALGORITHM = Algorithm(
    name="ls",
    time="O(n·h·k·d) per sweep (h = neighbours), sweeps until no improvement, × restarts; plus init's cost",
    title="Move/swap local search with perturbation restarts (baseline improver)",
    citation="003_58f0e37d459aa4df.txt §4.1 (exchange and migration constraints), §5.3 (Table 4 restarts); docs/algorithms/icsm.md",
    run=run,
    max_group_size=discovery.init_bound,
    check=discovery.check_init,
    params={
        **discovery.init_params(),
        **search.restart_params("moves and swaps go into this many nearest groups (by centroid)"),
    },
    deterministic=True,
    notes="time budgets (budget > 0) make the stopping point machine-dependent",
)
