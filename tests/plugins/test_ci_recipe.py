"""The GitHub Actions recipe in docs/ci/mabench-regress.yml, its shell steps run here as CI would run
them: two jobs (two GITHUB_RUN_IDs) on a user repository. A changed result fails the gate, a speed-only
change passes, an untouched method never fails on time."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from support import ROOT

RECIPE = ROOT / "docs" / "ci" / "mabench-regress.yml"
PLUGIN = '''import time

import numpy as np

from mabench.plugin import Algorithm


def run(Z, k, params, rng):
    n = Z.shape[0]
    {extra}
    order = np.argsort(Z[:, 0], kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, max(n // k, 1) - 1)
    {change}
    return labels


ALGORITHM = Algorithm(name="pc1cut", title="pc1cut", citation="a test", run=run)
'''


def _steps() -> list[tuple[str, str]]:
    job = yaml.safe_load(RECIPE.read_text())["jobs"]["regress"]
    return [(step.get("name", ""), step["run"]) for step in job["steps"] if "run" in step]


def _ci_run(repo: Path, run_id: str, main: bool) -> subprocess.CompletedProcess:
    """The recipe's shell steps in order, as one job: stop at the first failing step (as Actions does)."""
    bindir = Path(sys.executable).parent
    env = {**os.environ, "MABENCH_HOME": str(repo), "GITHUB_RUN_ID": run_id, "GITHUB_JOB": "regress",
           "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    for name, script in _steps():
        if name == "install mabench":
            continue  # installed here already (tests/api/test_install.py installs from a clone)
        if name.startswith("new baseline") and not main:
            continue
        proc = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=1800)
        if proc.returncode != 0:
            return proc
    return proc


@pytest.mark.slow
def test_the_ci_recipe_gates_results_not_speed(tmp_path):
    assert [name for name, _ in _steps()] == ["install mabench", "check the plugins", "regress",
                                              "compare with the baseline", "new baseline (main branch only)"]
    repo = tmp_path / "repo"
    (repo / "algorithms").mkdir(parents=True)
    plugin = repo / "algorithms" / "pc1cut.py"
    plugin.write_text(PLUGIN.format(extra="", change=""))
    (repo / "mabench.yaml").write_text(yaml.safe_dump({
        "k": [3, 5], "algorithms": {"pc1cut": {"algorithm": "pc1cut"}, "mdav": {"algorithm": "mdav"}},
        "datasets": {"tarragona": {"spec": "tarragona"}}}))
    first = _ci_run(repo, "1", main=True)
    assert first.returncode == 0, first.stdout + first.stderr
    assert (repo / "baseline.csv").is_file()
    again = _ci_run(repo, "2", main=False)  # nothing changed: passes (untouched methods never fail on time)
    assert again.returncode == 0 and "**PASS**" in again.stdout, again.stdout + again.stderr
    plugin.write_text(PLUGIN.format(extra="time.sleep(0.2)", change=""))  # slower, the same result
    slower = _ci_run(repo, "3", main=False)
    # passes: the baseline was timed in another job (and its cells are under the 0.05 s timing floor)
    assert slower.returncode == 0 and "**PASS**" in slower.stdout, slower.stdout + slower.stderr
    plugin.write_text(PLUGIN.format(extra="", change="labels[0], labels[-1] = labels[-1], labels[0]"))
    changed = _ci_run(repo, "4", main=False)
    assert changed.returncode == 1 and "IL of 2 deterministic pc1cut cell(s) changed" in changed.stdout, (
        changed.stdout + changed.stderr)
    assert shutil.which("bash")
