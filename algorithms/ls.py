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
from mabench.plugin import Algorithm, Param


def run(Z, k, params, rng):
    labels, _ = discovery.initial_partition(Z, k, params["init"], params["init_params"], rng)
    st, tr, il_init = search.begin(Z, labels, k)
    changes = search.descent(st, params["neighbours"])
    tr.add(st.sse)
    done = 0
    if params["restarts"] or params["budget"] > 0:
        def improve(s):
            pass  # the seeded descent below is the whole improvement

        def local(s, touched):
            search.descent(s, params["neighbours"], start=touched)

        _, _, done = search.iterate(st, improve, params["restarts"], params["budget"], params["perturb"],
                                    params["neighbours"], rng, tr, local)
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
        "neighbours": Param(8, "moves and swaps go into this many nearest groups (by centroid)", min=1),
        "restarts": Param(0, "random-perturbation restarts; 0 = none", min=0),
        "perturb": Param(20, "at most this many records are perturbed per restart", min=1),
        "budget": Param(0.0, "optional time budget in seconds (0 = stop by restarts only)", min=0.0, max=1e7),
    },
    deterministic=True,
    notes="time budgets (budget > 0) make the stopping point machine-dependent",
)
