"""Fault injection in the workflow (issue 7): every disturbed run is repaired by the next one.

A tiny configuration (two data sets, two algorithms, two k) runs once undisturbed; then, in one
working folder, in order:

1. a disk that fills up while the batch jobs write (simulated ENOSPC on one cell file) — the run
   fails with one clear line in the job's log and leaves no partial cell;
2. a batch job SIGKILLed after it committed its first cell — the run fails;
3. a plain re-run — it finishes, and its tables are byte-identical to the undisturbed run's;
4. one intermediate of each kind deleted and one of each kind corrupted (cell record, cell
   partition, data draw, benchmark table, cell-cache entry) — the next run redoes exactly the jobs
   that produce them (recomputing only the cell whose cache entry was damaged) and again ends with
   identical tables.

The faults are injected into the job processes by a ``sitecustomize`` module on PYTHONPATH that
wraps mabench's output layer (mabench itself has no test hooks). A real full disk (a small tmpfs)
is tested too when the machine allows mounting one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
import yaml
from support import ROOT, safety_net

from mabench.report import leaderboard

SNAKEFILE = ROOT / "Snakefile"
PROFILE = ROOT / "workflow" / "profiles" / "default"

pytestmark = pytest.mark.slow

CONFIG = {
    "root_seed": 7,
    "k": [2, 3],
    "metrics": ["il"],
    "threads_per_run": 1,
    "algorithms": {"mdav": {"algorithm": "mdav"}, "md": {"algorithm": "md"}},
    "datasets": {
        "simA": {"spec": "sim1[n=40,d=3]", "draws": 2},
        "simB": {"spec": "uniform[n=30,d=2]"},
    },
}

# Wraps mabench.io.Outputs in the job processes only (argv: mabench batch ...).
SITECUSTOMIZE = textwrap.dedent('''
    import os, sys
    if len(sys.argv) > 1 and sys.argv[1] == "batch" and os.path.basename(sys.argv[0]) == "mabench":
        import errno, signal
        from mabench import io
        mode = os.environ.get("MABENCH_FAULT", "")
        if mode == "kill":  # SIGKILL right after the first cell was committed
            commit = io.Outputs.commit
            def killing_commit(self):
                commit(self)
                os.kill(os.getpid(), signal.SIGKILL)
            io.Outputs.commit = killing_commit
        elif mode == "enospc":  # the disk is full when the third file of the job is written
            path = io.Outputs.path
            count = [0]
            def full_path(self, target):
                count[0] += 1
                if count[0] == 3:
                    raise io.os_error(OSError(errno.ENOSPC, "No space left on device"), target)
                return path(self, target)
            io.Outputs.path = full_path
''')


# What the checks read: every cell (with `all`'s redo of missing or damaged cells of finished batches)
# and the tables stage with the results table it reads. The figures, the HTML report and the best-known
# table are functions of the results table or of the registry alone (tests/bench/test_workflow.py runs
# them); leaving them out saves ~15 s of CPU per full run here.
TARGETS = ("cells", "results/tables/index.md")


def snakemake(workdir: Path, *args: str, fault: str = "", timeout: float = safety_net(600)):
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir),
           "--workflow-profile", str(PROFILE), "--configfile", str(workdir / "config.yaml"), "--cores", "2",
           *TARGETS]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    if fault:
        env["PYTHONPATH"] = os.pathsep.join([str(workdir / "inject"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        env["MABENCH_FAULT"] = fault
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=timeout, env=env)


def setup_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    (folder / "inject").mkdir(exist_ok=True)
    (folder / "inject" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return folder


def tables(folder: Path) -> dict[str, bytes]:
    """Everything the tables stage wrote, plus the deterministic columns of the results table."""
    out = {str(p.relative_to(folder)): p.read_bytes() for p in sorted((folder / "results" / "tables").rglob("*"))
           if p.name not in leaderboard.COST_FILES}  # measured time and memory: a re-run measures anew
    frame = pd.read_parquet(folder / "results" / "results.parquet")
    keep = ["dataset_id", "algo_id", "seed", "k", "n", "n_groups", "min_group", "max_group", "il"]
    out["results"] = frame[keep].to_csv(index=False).encode()
    return out


def jobs_run(proc) -> dict[str, int]:
    text = proc.stdout + proc.stderr
    table = re.search(r"Job stats:\n(.*?)\n\n", text, flags=re.S)
    if not table:
        return {}
    return {name: int(n) for name, n in re.findall(r"^(\S+)\s+(\d+)$", table.group(1), flags=re.M)
            if name not in ("job", "total")}


def cells(folder: Path) -> list[Path]:
    return sorted((folder / "results" / "cells").rglob("k*.*"))


@pytest.fixture(scope="module")
def undisturbed(tmp_path_factory):
    folder = setup_folder(tmp_path_factory.mktemp("undisturbed"))
    proc = snakemake(folder)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return tables(folder)


def test_faults_are_repaired_and_tables_are_identical(undisturbed, tmp_path):
    folder = setup_folder(tmp_path / "disturbed")

    # 1. Disk full while a batch writes its second cell: the job fails with one line, no partial cell.
    proc = snakemake(folder, fault="enospc")
    assert proc.returncode != 0
    logs = "".join(p.read_text() for p in (folder / "results" / "logs" / "run").rglob("*.log"))
    assert re.search(r"^mabench: error: cannot write '.*': no space left on the device", logs, flags=re.M), logs
    assert "Traceback" not in logs
    assert not list((folder / "results").rglob("*.tmp")), "a temporary file was left behind"
    for part in (folder / "results" / "cells").rglob("k*.csv"):  # what is there is whole (pairs)
        assert part.with_suffix(".json").exists()

    # 2. A batch job SIGKILLed after its first committed cell: the run fails.
    proc = snakemake(folder, fault="kill")
    assert proc.returncode != 0

    # 3. A plain re-run finishes with the undisturbed tables.
    proc = snakemake(folder)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert tables(folder) == undisturbed
    assert not list((folder / "results").rglob("*.tmp"))

    # 4. One intermediate of each kind deleted, one of each kind corrupted.
    res = folder / "results"
    (res / "cells" / "simA" / "md").joinpath(sorted(os.listdir(res / "cells" / "simA" / "md"))[0], "k2.json").unlink()
    next((res / "data" / "simB").glob("seed*.parquet")).unlink()
    (res / "benchmarks" / "simA" / "part0.tsv").unlink()
    seed_dirs = sorted((res / "cells" / "simA" / "mdav").iterdir())
    (seed_dirs[0] / "k3.csv").write_text("group\n0\n1\n")  # truncated partition
    (seed_dirs[1] / "k2.json").write_text('{"algorithm": "mdav", "k": ')  # truncated record
    data = sorted((res / "data" / "simA").glob("seed*.parquet"))[0]
    data.write_bytes(data.read_bytes()[: len(data.read_bytes()) // 2])  # half a Parquet file
    cache_entries = sorted((res / "cache" / "cells").rglob("*.csv"))
    assert cache_entries
    cache_entries[0].write_text("garbage\n")  # a damaged cache entry: its cell is recomputed
    proc = snakemake(folder)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "removing damaged" in proc.stderr
    ran = jobs_run(proc)
    # the two data draws that were deleted or damaged are prepared again (every generated draw is written
    # by one job); every batch that reads them or lost a file runs again (from the cache); each data
    # set's algorithms share one job.
    assert ran.get("prepare_generated") == 1, ran
    assert set(k for k in ran if k.startswith("run__")) == {"run__simA__part0", "run__simB__part0"}, ran
    assert ran.get("aggregate") == 1 and ran.get("tables") == 1, ran
    computed = 0
    for log in (res / "logs" / "run").rglob("*.log"):
        text = log.read_text()
        computed += len(re.findall(r"^\[\d+/\d+\] .*: il=", text, flags=re.M))
    assert computed == 1, "exactly the cell whose cache entry was damaged is recomputed"
    assert tables(folder) == undisturbed
    assert not list(res.rglob("*.tmp"))


def _can_mount_tmpfs(where: Path) -> bool:
    where.mkdir(parents=True, exist_ok=True)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True).returncode
    if ok == 0:
        subprocess.run(["umount", str(where)], capture_output=True)
    return ok == 0


def test_a_really_full_disk_is_one_line_and_no_partial_file(tmp_path):
    """A 64 kB tmpfs: `mabench run` writing a 100,000-line partition fills it."""
    disk = tmp_path / "disk"
    if os.geteuid() != 0 or shutil.which("mount") is None or not _can_mount_tmpfs(disk):
        pytest.skip("cannot mount a small tmpfs here (the simulated ENOSPC above covers the workflow)")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], check=True)
    try:
        proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", "md", "uniform[n=20000,d=2]", "-k", "2",
                               "--out", str(disk / "p.csv"), "--json-out", str(disk / "r.json")],
                              capture_output=True, text=True, timeout=safety_net(300))
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and "no space left" in proc.stderr and proc.stdout == ""
        assert os.listdir(disk) == []
    finally:
        subprocess.run(["umount", str(disk)], check=True)
