"""What a workflow run cost: wall time, CPU time, jobs, and how much of it was the algorithms' own work.

``python -m mabench.bench.timing --out results/timing.json -- snakemake ...`` runs the
command, passes its output through, and writes a summary: wall and CPU seconds
of the whole run (the command and every process it started), the number of
Snakemake jobs, the cells of ``results/results.parquet`` with the sum of their
algorithm and metric CPU seconds (wall seconds for records older than the
``cpu_seconds`` field), and the share of the CPU time that went
to anything else (process start-up, imports, JIT loading, scheduling, I/O,
tables, figures), and ``calibration_seconds``: the CPU time of a fixed piece of work
(mabench.bench.calibration; the median of three runs before the command and three after), which
tells a slow hour of the machine from a slow change. ``--append FILE`` adds the summary as a row of a tracked CSV
(``docs/workflow-time.csv``), so a later change can see what it costs.

Every ``mabench`` process of the run adds its command and CPU seconds to a log (``MABENCH_CPU_LOG``,
set here), so the CPU time also splits by stage: ``data_seconds`` (fetch, prepare),
``output_seconds`` (aggregate, tables, figures, report, best-known table) and ``startup_seconds`` —
compiling the kernels, each batch process's start-up beyond its cells, and Snakemake's own
scheduling (the CPU of the run that no ``mabench`` process logged). ``startup_share`` is that last
part's share of the CPU; ``overhead_share`` stays everything but the cells.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

FIELDS = ["date", "git_commit", "config", "jobs", "cells", "wall_seconds", "cpu_seconds", "algorithm_seconds",
          "metric_seconds", "overhead_share", "machine", "data_seconds", "output_seconds", "startup_seconds",
          "startup_share", "calibration_seconds"]
STAGES = {"fetch": "data", "prepare": "data", "aggregate": "output", "tables": "output", "figures": "output",
          "report": "output", "best-known": "output", "compile": "startup", "batch": "batch"}
_STEPS = re.compile(r"^(\d+) of (\d+) steps")


def run(cmd: list[str], cpu_log: Path | None = None) -> tuple[int, float, float, int]:
    """Run ``cmd``; return (exit status, wall seconds, CPU seconds of it and its children, jobs done).
    ``cpu_log``: where its ``mabench`` processes log their CPU seconds (:func:`stages`)."""
    import os

    env = {**os.environ, "MABENCH_CPU_LOG": str(cpu_log)} if cpu_log is not None else None
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    jobs = 0
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1, env=env)
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        m = _STEPS.match(line.strip())
        if m:
            jobs = int(m.group(1))
    status = proc.wait()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return status, wall, cpu, jobs


def stages(cpu_log: Path | None) -> dict[str, float]:
    """CPU seconds per stage from the processes' log: data, output, startup (compile) and batch."""
    out = {"data": 0.0, "output": 0.0, "startup": 0.0, "batch": 0.0}
    if cpu_log is None or not cpu_log.exists():
        return out
    for line in cpu_log.read_text().splitlines():
        entry = json.loads(line)
        out[STAGES.get(entry["command"], "output")] += float(entry["cpu_seconds"])
    return out


def summary(results: Path, wall: float, cpu: float, jobs: int, config: str, cpu_log: Path | None = None,
            calibration: float | None = None) -> dict:
    import pandas as pd

    from mabench.bench import provenance

    frame = pd.read_parquet(results) if results.exists() else pd.DataFrame()
    # CPU seconds of the cells where the records have them (wall seconds of a cell grow with the load
    # of other processes, which would make the share meaningless on a shared machine)
    by_cpu = "cpu_seconds" in frame and "metric_cpu_seconds" in frame
    algo_col, metric_col = ("cpu_seconds", "metric_cpu_seconds") if by_cpu else ("seconds", "metric_seconds")
    algo = float(frame[algo_col].sum()) if algo_col in frame else float("nan")
    metric = float(frame[metric_col].sum()) if metric_col in frame else 0.0
    by_stage = stages(cpu_log)
    logged = sum(by_stage.values())
    # start-up and scheduling: compiling, batch processes beyond their cells, and what no mabench
    # process logged (Snakemake itself, shells); None when the processes did not log
    startup = (by_stage["startup"] + (by_stage["batch"] - algo - metric) + (cpu - logged)) if logged else None
    return {
        "date": _dt.date.today().isoformat(),
        "git_commit": provenance.git_commit(),
        "config": config,
        "jobs": jobs,
        "cells": int(len(frame)),
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "algorithm_seconds": round(algo, 1),
        "metric_seconds": round(metric, 1),
        "overhead_share": round(1 - (algo + metric) / cpu, 3) if cpu > 0 else float("nan"),
        "machine": f"{provenance.machine()['machine']}, {provenance.machine()['cpus']} cpus",
        "data_seconds": round(by_stage["data"], 1) if logged else None,
        "output_seconds": round(by_stage["output"], 1) if logged else None,
        "startup_seconds": round(startup, 1) if startup is not None else None,
        "startup_share": round(startup / cpu, 3) if startup is not None and cpu > 0 else None,
        "calibration_seconds": round(calibration, 3) if calibration is not None else None,
    }


def append(row: dict, path: Path) -> None:
    """Add ``row`` to the CSV; a file with an older header is rewritten with the current one (the
    older rows get empty new columns)."""
    rows = []
    if path.exists():
        with path.open(newline="") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames != FIELDS:
                rows = list(reader)
    mode = "w" if rows or not path.exists() else "a"
    with path.open(mode, newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        if mode == "w":
            writer.writeheader()
            writer.writerows({k: (r.get(k) or "") for k in FIELDS} for r in rows)
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in FIELDS})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m mabench.bench.timing", description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="write the summary (JSON) here")
    p.add_argument("--results", default="results/results.parquet")
    p.add_argument("--config", default="config/config.yaml", help="the configuration run (recorded)")
    p.add_argument("--append", help="also append the summary to this CSV (e.g. docs/workflow-time.csv)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command to run")
    args = p.parse_args(argv)
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        p.error("give the command to time after --")
    import statistics
    import tempfile

    from mabench.bench.calibration import calibration_times

    times = calibration_times()
    with tempfile.TemporaryDirectory() as tmp:
        cpu_log = Path(tmp) / "cpu.jsonl"
        status, wall, cpu, jobs = run(cmd, cpu_log)
        if status != 0:
            return status
        row = summary(Path(args.results), wall, cpu, jobs, args.config, cpu_log,
                      calibration=statistics.median(times + calibration_times()))
    from mabench import io

    io.write_text(args.out, json.dumps(row, indent=1) + "\n")
    if args.append:
        append(row, Path(args.append))
    sys.stdout.write(f"timing: {json.dumps(row)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
