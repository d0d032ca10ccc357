"""`mabench compile --jobs N`: the workflow's compile stage split over worker processes warms up every
algorithm of the plan exactly once, the same runs as one process does, and a worker that fails is an
error, never a hang."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from mabench.bench import batch
from support import safety_net

ALGORITHMS = ["mdav", "md", "cbfs", "vmdav", "kward"]


def _plan(tmp_path, algorithms):
    path = tmp_path / "data.csv"
    pd.DataFrame(np.random.default_rng(0).standard_normal((40, 3)), columns=["a", "b", "c"]).to_csv(path, index=False)
    return {"metrics": ["il"], "runs": [{"algorithm": name, "params": {}, "draws": [[0, str(path)]], "k": [3, 5]}
                                        for name in algorithms]}


def _compiled(err: str) -> list[str]:
    return sorted(line.split()[1] for line in err.splitlines() if line.startswith("compiled "))


@pytest.mark.parametrize("jobs", [3])
def test_workers_warm_every_algorithm_once_as_one_process_does(tmp_path, capfd, jobs):
    plan = _plan(tmp_path, ALGORITHMS)
    one = batch.compile_plan(plan, jobs=1)
    assert _compiled(capfd.readouterr().err) == sorted(ALGORITHMS)
    assert batch.compile_plan(plan, jobs=jobs) == one == 2 * len(ALGORITHMS)  # at k = 3 and k = 5 each
    assert _compiled(capfd.readouterr().err) == sorted(ALGORITHMS)  # the workers' lines: each algorithm once


@pytest.mark.parametrize("algorithms", [["mdav", "no-such-method", "md"], ["no-such-method", "mdav", "md"]])
def test_a_failing_worker_is_an_error_not_a_hang(tmp_path, algorithms):
    """Also when the first algorithm, which the other workers wait for, fails."""
    plan = json.dumps(_plan(tmp_path, algorithms))
    code = f"from mabench.bench import batch; import json; batch.compile_plan(json.loads({plan!r}), jobs=2)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=safety_net(180))  # a hang fails
    assert out.returncode != 0
    assert "RuntimeError: compile worker" in out.stderr


def test_compile_plan_writes_its_progress_in_the_plans_order(tmp_path):
    """The file the lead job follows (mabench/bench/handoff.py, tests/bench/test_handoff.py)."""
    path = tmp_path / "p.json"
    plan = _plan(tmp_path, ["mdav", "md", "mdav"])
    assert batch.compile_plan(plan, progress_out=str(path)) == 4  # mdav and md, each at k = 3 and k = 5
    assert json.loads(path.read_text()) == {"done": 3, "finished": True}
    batch.compile_plan(plan, jobs=2, progress_out=str(path))
    assert json.loads(path.read_text())["finished"]  # several processes: nothing to follow, marked finished at once

