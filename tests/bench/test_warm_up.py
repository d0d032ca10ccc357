"""A cell's time never includes compiling: the warm-up compiles the kernel the real size will use."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
from mabench import discovery
from mabench.bench.runner import _warm_up
from mabench.kernels import mdav
algo = discovery.algorithm("mdav")
_warm_up(algo, 3, 10, dict(algo.resolve({})), N)
print(len(mdav.mdav_labels_tree.signatures), len(mdav.mdav_labels.signatures))
"""


@pytest.mark.parametrize("n, tree, scan", [(100_000, 1, 0), (500, 0, 1)])
def test_warm_up_compiles_the_kernel_index_auto_will_pick(n, tree, scan):
    out = subprocess.run([sys.executable, "-c", PROBE.replace("N)", f"{n})")], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [str(tree), str(scan)]
