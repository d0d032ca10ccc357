"""Which kernels the workflow's compile step compiles, against which its cells use (docs/scaling.md,
"Every compile the warm-ups missed, found at once").

Not a test: a script of about eight minutes on two cores (7 min 29 s and 7 min 38 s measured). On a
workflow's ``results/plans.json`` and data files (after ``make reproduce``, or a run stopped once
the data are prepared), two processes start at once. Each has its own empty Numba cache and one
Numba thread, as the workflow's batches do, and a listener on Numba's compile events that records
each compile's function and argument types:

* ``compile``: the workflow's compile step (``batch.compile_plan`` over every run of every job);
* ``cells``: every job's cells (``batch.run_plan``, the records written to a scratch folder) with
  the warm-ups switched off, so that the cells compile every kernel they use.

What only the first compiled is waste: compiled for no cell. What only the second compiled is a
miss: in the workflow it is compiled inside a cell's time, which then counts as algorithm time.
Prints both lists with each compile's CPU seconds (its callees' compiles excluded), and exits
with status 1 when a kernel is missed.

    .venv/bin/python tests/benchmarks/compile_audit.py                 # results/ of this checkout
    .venv/bin/python tests/benchmarks/compile_audit.py --results /path/to/clone/results
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time
from collections import defaultdict
from numba.core import event

mode, out, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
stack = []  # per open compile: [CPU at its start, CPU of the compiles nested in it]
compiles = defaultdict(float)  # "module.function|argument types" -> CPU seconds without nested compiles


class Listener(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, nested = stack.pop()
        spent = time.process_time() - start
        if stack:
            stack[-1][1] += spent
        f = ev.data["dispatcher"].py_func
        compiles[f"{f.__module__}.{f.__qualname__}|{ev.data['args']}"] += spent - nested


event.register("numba:compile", Listener())
from mabench.bench import batch, runner

jobs = json.loads(open("results/plans.json").read())["jobs"]
if mode == "compile":
    batch.compile_plan({"runs": [run for job in jobs.values() for run in job["runs"]]})
else:
    import mabench.metrics.available as available

    runner.warm_k_values = lambda ks: []  # neither the algorithms' warm-ups nor the missing-values one
    runner.warm_metrics = lambda *args, **kwargs: None
    available.warm_dld = lambda: None
    for job in jobs.values():
        for run in job["runs"]:
            run["cells_dir"] = f"{scratch}/{run['cells_dir']}"
        batch.run_plan(job)
json.dump(compiles, open(out, "w"))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", default="results", help="the workflow's results folder (default: results)")
    args = parser.parse_args(argv)
    results = Path(args.results).resolve()
    if not (results / "plans.json").exists():
        print(f"{results}/plans.json not found; run the workflow first (make reproduce)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        children = {}
        for mode in ("compile", "cells"):
            env = {**os.environ, "NUMBA_NUM_THREADS": "1", "NUMBA_CACHE_DIR": f"{tmp}/numba-{mode}"}
            log = open(f"{tmp}/{mode}.log", "w")
            children[mode] = (subprocess.Popen([sys.executable, "-c", CHILD, mode, f"{tmp}/{mode}.json", f"{tmp}/cells"],
                                               cwd=results.parent, env=env, stdout=log, stderr=subprocess.STDOUT), log)
        for mode, (child, log) in children.items():
            if child.wait() != 0:
                log.close()
                print(f"the {mode} process failed:\n" + Path(f"{tmp}/{mode}.log").read_text()[-3000:], file=sys.stderr)
                return 2
            log.close()
        compiled = {mode: json.loads(Path(f"{tmp}/{mode}.json").read_text()) for mode in children}
    step, cells = compiled["compile"], compiled["cells"]
    waste = {key: step[key] for key in step.keys() - cells.keys()}
    missed = {key: cells[key] for key in cells.keys() - step.keys()}
    print(f"compile step: {len(step)} compiles, {sum(step.values()):.1f} s; cells without warm-ups: "
          f"{len(cells)} compiles, {sum(cells.values()):.1f} s")
    for title, found in (("compiled by the compile step for no cell", waste), ("missed: compiled inside cells", missed)):
        print(f"{title}: {len(found)} ({sum(found.values()):.2f} s)")
        for key, seconds in sorted(found.items(), key=lambda item: -item[1]):
            print(f"  {seconds:6.2f} s  {key}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
