"""Numba compiles mabench's kernels at LLVM -O1 (mabench/optlevel.py) unless the user set a level, the
cache folder names the level, and a kernel compiled at Numba's default -O3 returns the same partition
and the same IL to the last bit."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from support import ROOT

LEVEL = """
import json, sys
if sys.argv[1] == "numba-first":
    import numba
import mabench.kernels
import numba
print(json.dumps([numba.config.OPT.is_opt_max, int(numba.config.OPT), numba.config.CACHE_DIR]))
"""

RUN = """
import hashlib, json
import numpy as np
import mabench
Z = np.random.default_rng(7).standard_normal((240, 5))
r = mabench.microaggregate(Z, 3, method="mdav", index="scan")
print(json.dumps([r.labels.tolist(), float(r.metrics(["il"])["il"]).hex()]))
"""


def _python(code: str, *args: str, opt: str | None = None) -> str:
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_OPT"}
    if opt is not None:
        env["NUMBA_OPT"] = opt
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_kernels_are_compiled_at_o1_unless_the_user_set_a_level():
    for first in ("mabench-first", "numba-first"):  # Numba imported before mabench: the level still holds
        is_max, level, cache = json.loads(_python(LEVEL, first))
        assert (is_max, level) == (False, 1)
        assert cache.endswith("-O1")
    is_max, level, cache = json.loads(_python(LEVEL, "mabench-first", opt="3"))
    assert (is_max, level) == (False, 3)
    assert cache.endswith("-O3")  # never the -O1 machine code


def test_o3_and_o1_give_the_same_partition_and_il():
    import mabench

    Z = np.random.default_rng(7).standard_normal((240, 5))
    here = mabench.microaggregate(Z, 3, method="mdav", index="scan")
    assert int(os.environ.get("NUMBA_OPT", "1")) == 1  # this process runs the -O1 kernels
    labels, il = json.loads(_python(RUN, opt="3"))
    assert labels == here.labels.tolist()
    assert il == float(here.metrics(["il"])["il"]).hex()
