"""The smoke workflow through a real SLURM cluster gives the same results as a local run.

Needs a running SLURM cluster with the Snakemake SLURM executor plugin installed (`make slurm-test`
starts a one-node cluster on this machine with workflow/slurm/local-cluster.sh and runs this file);
skipped otherwise. Every batch is one SLURM job; the partitions must be byte-identical and every
metric equal to the local run's.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, safety_net

from mabench.report import leaderboard

SMOKE = ROOT / "config" / "smoke.yaml"
# how the run went, not what it computed (the record's own seal covers these too)
RUN_FIELDS = {"seconds", "metric_seconds", "cpu_seconds", "metric_cpu_seconds", "threads", "max_rss_mb", "record_sha256"}

pytestmark = pytest.mark.slurm


def _cluster_problem() -> str | None:
    if shutil.which("sinfo") is None:
        return "no SLURM client (sinfo) on this machine; run `make slurm-test` to set up a local cluster"
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        return "the Snakemake SLURM executor plugin is not installed (`make slurm-test` installs it)"
    proc = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True)
    if proc.returncode != 0 or not any(s.startswith(("idle", "mix", "alloc")) for s in proc.stdout.split()):
        return f"no SLURM node is up (sinfo: {proc.stdout.strip() or proc.stderr.strip()}); run `make slurm-test`"
    return None


def _snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(SMOKE), *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    return subprocess.run(cmd, capture_output=True, text=True, timeout=safety_net(1500), env=env)


def _cells(workdir: Path) -> dict[str, object]:
    out = {}
    for path in sorted((workdir / "results" / "cells").rglob("*")):
        if path.suffix == ".csv":
            out[str(path.relative_to(workdir))] = path.read_bytes()
        elif path.suffix == ".json":
            record = json.loads(path.read_text())
            out[str(path.relative_to(workdir))] = {k: v for k, v in record.items() if k not in RUN_FIELDS}
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    problem = _cluster_problem()
    if problem:
        pytest.skip(problem)
    slurm, local = tmp_path_factory.mktemp("slurm"), tmp_path_factory.mktemp("local")
    proc = _snakemake(slurm, "--workflow-profile", str(ROOT / "workflow" / "profiles" / "slurm"),
                      "--slurm-init-seconds-before-status-checks", "5", "--seconds-between-status-checks", "5")
    assert proc.returncode == 0, f"SLURM run failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}"
    proc2 = _snakemake(local, "--workflow-profile", str(ROOT / "workflow" / "profiles" / "default"))
    assert proc2.returncode == 0, f"local run failed:\n{proc2.stderr[-6000:]}"
    return slurm, local, proc.stdout + proc.stderr


def test_every_batch_ran_as_a_slurm_job(runs):
    slurm, _, log = runs
    submitted = [line for line in log.splitlines() if "has been submitted with SLURM jobid" in line]
    batches = list((slurm / "results" / "logs" / "run").rglob("*.log"))
    assert batches and sum("rule_run__" in line for line in submitted) == len(batches), log[-3000:]
    assert any("rule_prepare" in line for line in submitted)


def test_slurm_results_equal_the_local_run(runs):
    slurm, local, _ = runs
    a, b = _cells(slurm), _cells(local)
    assert a.keys() == b.keys() and len(a) > 0
    for key in a:
        assert a[key] == b[key], key
    for table in sorted((local / "results" / "tables").glob("*.md")):
        if table.name in leaderboard.COST_FILES:  # measured time and memory: a re-run measures anew
            continue
        assert (slurm / "results" / "tables" / table.name).read_bytes() == table.read_bytes(), table.name
