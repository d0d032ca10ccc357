"""A kernel that passes an array it made itself to a shared kernel takes the shared kernel's read-only
compile (mabench/kernels/core/readonly.py) instead of compiling it once more for a writable array."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
from numba import njit

from mabench.kernels.core.readonly import as_read_only
from support import ROOT, safety_net


def test_as_read_only_is_the_same_array_typed_read_only():
    @njit(cache=False)
    def total(Z):
        return Z.sum()

    @njit(cache=False)
    def made_here(n):
        a = np.arange(n * 2.0).reshape(n, 2)
        before = total(as_read_only(a))
        a[0, 0] = 100.0  # still the caller's writable array: no copy was made
        return before, total(as_read_only(a))

    z = np.arange(6.0).reshape(3, 2)
    z.flags.writeable = False  # as a run's data (plugin.call_run)
    assert total(z) == 15.0
    assert made_here(3) == (15.0, 115.0)
    # one compile of the callee, for the read-only type, shared by both callers
    assert len(total.signatures) == 1 and not total.signatures[0][0].mutable


# A fresh process with an empty Numba cache of its own: every kernel MDAV and MDAV-2 (whose
# dissolve step re-splits large groups by MDAV-1 on arrays it builds) call is compiled and seen.
COMPILES = """
import json, sys
import numba.core.event as ev
import numpy as np
seen = []
class Seen(ev.Listener):
    def on_start(self, event):
        f = event.data["dispatcher"].py_func
        if f.__module__.startswith("mabench."):
            seen.append([f"{f.__module__}.{f.__qualname__}", [str(a) for a in event.data["args"]]])
    def on_end(self, event):
        pass
ev.register("numba:compile", Seen())
from mabench import discovery
from mabench.plugin import tiny_run
for name in ("mdav", "mdav2"):
    algo = discovery.algorithm(name)
    tiny_run(algo, 2, 3, {**algo.resolve({}), "index": "scan"} if "index" in algo.params else algo.resolve({}))
print(json.dumps(seen))
"""


def test_mdav2_resplit_compiles_no_shared_kernel_again_for_writable_arrays(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "NUMBA_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", COMPILES], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=safety_net(600))
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    names = {name for name, _ in seen}
    assert "mabench.kernels.methods.mdav.mdav_labels" in names
    assert "mabench.kernels.methods.refine.dissolve_reassign" in names
    by_types: dict = {}
    for name, args in seen:
        # the same kernel and argument types but for an array's read-only flag: a second compile
        loose = tuple(a.removeprefix("readonly ") for a in args)
        by_types.setdefault((name, loose), set()).add(tuple(args))
    twice = sorted(name for (name, _), variants in by_types.items() if len(variants) > 1)
    assert twice == []
