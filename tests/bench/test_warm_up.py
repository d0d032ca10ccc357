"""A cell's time never includes compiling: the warm-up compiles the kernel the real size will use, and
the tree kernels' two-thread code only when the run will use it (a one-thread run never compiles it).

Each case runs in a fresh interpreter (with its own thread count): in this test process the kernels
may already be compiled, which would make a check pass whatever the warm-up does."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support import DISPATCHER_SIGNATURES, safety_net

PROBE = """
from mabench import discovery
from mabench.kernels.methods import mdav
algo = discovery.algorithm("mdav")
algo.warm(N, 10, 3, dict(algo.resolve({})))
print(len(mdav.mdav_labels_tree.signatures), len(mdav.mdav_labels.signatures))
"""


@pytest.mark.parametrize("n, tree, scan", [(100_000, 1, 0), (500, 0, 1)])
def test_warm_up_compiles_the_kernel_index_auto_will_pick(n, tree, scan):
    out = subprocess.run([sys.executable, "-c", PROBE.replace("warm(N,", f"warm({n},")], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(tree), str(scan)]


# A run's warm-up then its cells, in a fresh process: the kernels that gained a signature in the cells
# (compiled, or loaded from the cache: either way the warm-up did not reach them).
CELLS_AFTER_WARM_UP = r"""
import json, sys
import numpy as np
from mabench import discovery
from mabench.bench import runner
""" + DISPATCHER_SIGNATURES + r"""
def compiled_in_cells(algo, own, X, ks):
    runner.warm_ks(algo, own, X.shape[0], X.shape[1], ks, None)  # as a run over the k values ks warms up
    before = signatures()
    for k in ks:
        runner.call_run(algo, X, k, own, np.random.default_rng(0), raw=X)
    return sorted(f for f, c in signatures().items() if c > before.get(f, 0))
"""

RUN = CELLS_AFTER_WARM_UP + r"""
from mabench.kernels.methods import cbfs, mdav

name, n, d, params, ks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), json.loads(sys.argv[4]), json.loads(sys.argv[5])
algo = discovery.algorithm(name)
own, _ = runner.split_aggregation(algo.resolve(params))
Z = np.ascontiguousarray(np.random.default_rng(3).standard_normal((n, d)))
new = compiled_in_cells(algo, own, Z, ks)
# the type of the tree kernel's ``pair`` argument in each compiled (or cache-loaded) specialization
kernel, at = {"mdav": (mdav.mdav_labels_tree, 3), "cbfs": (cbfs.cbfs_labels_tree, 4)}.get(name, (None, 0))
pair = sorted({str(sig[at]) for sig in kernel.signatures}) if kernel is not None else []
print(json.dumps({"new": new, "pair": pair}))
"""


def _run(name, n, d, threads, params=None, ks=(3,)):
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads)}
    out = subprocess.run([sys.executable, "-c", RUN, name, str(n), str(d), json.dumps(params or {}), json.dumps(list(ks))],
                         capture_output=True, text=True,
                         timeout=safety_net(600), env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", ["mdav", "cbfs"])
@pytest.mark.parametrize("threads, pair", [(1, ["none"]), (2, ["bool"])])
def test_warm_up_compiles_what_the_tree_run_uses(name, threads, pair):
    """One thread: only the specialization without the two-thread code (pair=None); two threads at
    30,000 records (from index_choice.PAIR_FROM): only the one with it. Nothing compiles in the run."""
    result = _run(name, 30_000, 10, threads)  # d = 10 from 30,000 records: the tree (index_choice.TREE_FROM)
    assert result["new"] == []
    assert result["pair"] == pair


def test_warm_up_of_emad_compiles_the_kernels_its_subsets_use():
    """EMAD's MAT runs on column subsets of c = 3 of the 13 columns, where ``index=auto`` takes
    CBFS-fixed's grid (up to cbfs_grid.GRID_MAX_D columns): a warm-up that chose the kernel by all 13
    columns compiled the pass instead, and the workflow's first EMAD cell of a batch spent about 10 s
    compiling the grid."""
    assert _run("emad", 300, 13, 1)["new"] == []


def test_warm_up_of_mdst_compiles_the_kernels_its_sub_trees_use():
    """M-c splits each sub-tree of at least 2k records with CBFS, whose ``index=auto`` picks by the
    sub-tree's size: at 10,000 records in 10 dimensions the whole data would take the k-d tree
    (index_choice.TREE_FROM), the sub-trees the pass."""
    assert _run("mdst", 10_000, 10, 1, {"split": "c"})["new"] == []


def test_warm_up_of_rmd_compiles_the_mcd_a_run_uses():
    """rmd's robust distances come from the MCD, whose h-subset search runs only when n > d + 1: a
    warm-up on 3k + 1 = 10 records in 13 columns (Tarragona's) skipped it, and the workflow's first
    rmd cell spent about 20 s compiling it."""
    assert _run("rmd", 300, 13, 1)["new"] == []


@pytest.mark.parametrize("name", ["clustpppca", "clustmcdpca"])
def test_warm_up_of_clusterwise_methods_compiles_the_scores_of_a_cluster(name):
    """A cluster-wise method scores each cluster of at least d records: on the tiny problem (29 records
    in 13 columns at k = 3) the clusters can all be smaller, so the warm-up scores one cluster itself,
    read-only as a run's clusters are (a writable copy compiled the score kernels once more, in the
    workflow's first clustpppca cell)."""
    assert _run(name, 300, 13, 1)["new"] == []


def test_warm_up_of_a_run_over_several_k_compiles_the_largest_ks_kernels():
    """LNS at k = 3 re-partitions regions by the DP, at k = 10 by the two-group enumeration
    (lns.region_limit): warming up at the smallest k alone left the enumeration to be compiled in the
    workflow's first LNS cell at k = 10."""
    assert _run("lns", 200, 4, 1, ks=(3, 10))["new"] == []


EVERY_METHOD = CELLS_AFTER_WARM_UP + r"""
n, d, ks = 300, 6, [2, 3, 10]
Z = np.ascontiguousarray(np.random.default_rng(3).standard_normal((n, d)))
builtin = discovery.builtin_folder("algorithms")
checked, missed = [], {}
for name, algo in sorted(discovery.algorithms().items()):
    if discovery.algorithm_path(name).parent != builtin:
        continue
    given = {"projection": "zs"} if "projection" in algo.params else {}  # the univariate methods: a projection
    own, _ = runner.split_aggregation(algo.resolve(given), algo.params)
    X = np.ascontiguousarray(Z[:, :algo.max_columns]) if algo.max_columns is not None else Z
    new = compiled_in_cells(algo, own, X, ks)
    checked.append(name)
    if new:
        missed[name] = new
print(json.dumps({"checked": checked, "missed": missed}))
"""


def test_no_built_in_method_compiles_in_its_cells_after_the_warm_up():
    """Every built-in method at its default parameters (the univariate ones with projection=zs), a run
    over k = 2, 3 and 10 on 300 × 6 records warmed up as a workflow batch warms it (runner.warm_ks):
    no kernel gains a signature in the cells, one method after another in one fresh process. A kernel
    an earlier method loaded cannot show as a later method's miss, so this sweep is a floor; the cases
    above check the size-dependent warm-ups one method at a time."""
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", EVERY_METHOD], capture_output=True, text=True,
                         timeout=safety_net(120), env=env)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert {"mdav", "lns", "clustpppca", "kw", "emad"} <= set(result["checked"])
    assert result["missed"] == {}
