"""``index=scan|tree`` on the methods that run the MDAV family or CBFS: the same labels either way.

The kernels' own equality is tested in tests/kernels/test_mdav_tree.py; here every plugin that
takes ``index`` passes it through (MDAV-2's re-split, EMAD's MAT runs, MHM's orderings, M-c's
splits), on random and tie-heavy data. ``index`` never enters the record's params string.
"""

from __future__ import annotations

import numpy as np
import pytest

from mabench import discovery, partition
from mabench.plugin import call_run, split_output

CASES = [
    ("mdav", {"tail": "3k"}), ("mdav", {"tail": "2k"}), ("mdav1", {}), ("mdav2", {}),
    ("mdav2", {"order": "reverse"}),
    ("cbfs", {}), ("cbfs", {"tail": "group"}), ("cbfs", {"centroid": "fixed"}),
    ("cbfs", {"tail": "group", "centroid": "fixed"}),
    ("emad", {"mat": "cbfs_fixed"}), ("emad", {"mat": "cbfs"}), ("emad", {"mat": "mdav"}),
    ("mhm", {"order": "mdav"}), ("mhm", {"order": "cbfs"}),
    ("mdst", {"split": "c"}),
]


def _data():
    rng = np.random.default_rng(17)
    normal = rng.standard_normal((700, 4))
    grid = rng.integers(0, 3, size=(700, 4)).astype(np.float64)
    dup = normal[rng.integers(0, 60, 700)]
    return {"normal": normal, "grid": (grid - grid.mean(0)) / grid.std(0), "duplicates": dup}


DATA = _data()


@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}-{','.join(f'{k}={v}' for k, v in p.items())}" for n, p in CASES])
def test_scan_and_tree_give_the_same_labels(name, params):
    algo = discovery.algorithm(name)
    for kind, Z in DATA.items():
        for k in (3, 5):
            got = {}
            for index in ("scan", "tree"):
                resolved = algo.resolve({**params, "index": index})
                labels, _ = split_output(call_run(algo, Z, k, resolved, np.random.default_rng(0)))
                partition.check(labels, len(Z), k, algo.max_group_size(k, resolved), who=name)
                got[index] = labels
            assert np.array_equal(got["scan"], got["tree"]), (kind, k)


def test_index_is_not_part_of_the_params_string():
    algo = discovery.algorithm("mdav")
    for index in ("auto", "tree", "scan"):
        assert algo.record_params(algo.resolve({"index": index})) == "tail=3k"
    mdav1 = discovery.algorithm("mdav1")
    assert mdav1.record_params(mdav1.resolve({"index": "tree"})) == ""
