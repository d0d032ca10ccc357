"""The run-cost summary of `make reproduce` (mabench.bench.timing)."""

import json
import subprocess
import sys

import pandas as pd


def test_summary_counts_jobs_and_the_share_beyond_the_cells(tmp_path):
    results = tmp_path / "results.parquet"
    pd.DataFrame({"seconds": [0.5, 0.25], "metric_seconds": [0.25, 0.0]}).to_parquet(results)
    burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<1.0: pass\nprint('7 of 7 steps (100%) done')"
    out = tmp_path / "timing.json"
    proc = subprocess.run([sys.executable, "-m", "mabench.bench.timing", "--out", str(out), "--results", str(results),
                           "--append", str(tmp_path / "t.csv"), "--", sys.executable, "-c", burn],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "7 of 7 steps" in proc.stdout
    row = json.loads(out.read_text())
    assert row["jobs"] == 7 and row["cells"] == 2
    assert row["cpu_seconds"] >= 0.9 and row["wall_seconds"] >= 0.9
    # the cells claim 1.0 s of algorithm + metric time; the rest of the CPU time is overhead
    assert abs(row["overhead_share"] - (1 - 1.0 / row["cpu_seconds"])) < 0.06
    assert pd.read_csv(tmp_path / "t.csv")["jobs"].tolist() == [7]
    # the machine's speed beside the run: the calibration's CPU seconds (a value, not a verdict on it)
    assert row["calibration_seconds"] > 0
    assert pd.read_csv(tmp_path / "t.csv")["calibration_seconds"].tolist() == [row["calibration_seconds"]]


def test_the_share_counts_the_cells_cpu_time_where_records_have_it(tmp_path):
    """Wall seconds of a cell grow when other processes share the cores; its CPU seconds do not, so
    the share is computed from them where the records carry them."""
    from mabench.bench import timing

    results = tmp_path / "results.parquet"
    pd.DataFrame({"seconds": [3.0, 3.0], "metric_seconds": [1.0, 1.0], "cpu_seconds": [1.0, 1.5],
                  "metric_cpu_seconds": [0.5, 0.0]}).to_parquet(results)
    row = timing.summary(results, wall=10.0, cpu=4.0, jobs=3, config="c.yaml")
    assert row["algorithm_seconds"] == 2.5 and row["metric_seconds"] == 0.5
    assert row["overhead_share"] == 0.25
    pd.DataFrame({"seconds": [1.0], "metric_seconds": [1.0]}).to_parquet(results)  # older records: wall seconds
    assert timing.summary(results, wall=10.0, cpu=4.0, jobs=3, config="c.yaml")["overhead_share"] == 0.5


def test_a_failing_command_fails_and_writes_nothing(tmp_path):
    out = tmp_path / "timing.json"
    proc = subprocess.run([sys.executable, "-m", "mabench.bench.timing", "--out", str(out), "--", sys.executable, "-c",
                           "raise SystemExit(3)"], capture_output=True, text=True)
    assert proc.returncode == 3 and not out.exists()


def test_the_cpu_time_splits_by_stage_from_the_processes_log(tmp_path):
    """Each mabench process logs its command and CPU seconds; what none logged is Snakemake's own
    scheduling, counted with compiling and the batches' start-up as start-up and scheduling."""
    from mabench.bench import timing

    results = tmp_path / "results.parquet"
    pd.DataFrame({"seconds": [9.0], "metric_seconds": [9.0], "cpu_seconds": [5.0],
                  "metric_cpu_seconds": [1.0]}).to_parquet(results)
    log = tmp_path / "cpu.jsonl"
    log.write_text("".join(json.dumps({"command": c, "cpu_seconds": s}) + "\n" for c, s in
                           [("prepare", 1.0), ("compile", 2.0), ("batch", 4.0), ("batch", 3.0), ("tables", 0.5),
                            ("report", 1.5)]))
    row = timing.summary(results, wall=20.0, cpu=15.0, jobs=6, config="c.yaml", cpu_log=log)
    assert row["data_seconds"] == 1.0 and row["output_seconds"] == 2.0
    # compile 2 + batches beyond their cells (7 - 6) + unlogged (15 - 12) = 6
    assert row["startup_seconds"] == 6.0 and row["startup_share"] == 0.4
    assert row["overhead_share"] == 0.6
    assert timing.summary(results, wall=20.0, cpu=15.0, jobs=6, config="c.yaml")["startup_share"] is None


def test_a_mabench_process_logs_its_command_and_cpu_when_asked(tmp_path):
    import os

    log = tmp_path / "cpu.jsonl"
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "mabench.cli", "list", "datasets"], capture_output=True, text=True,
                              env={**os.environ, "MABENCH_CPU_LOG": str(log)})
        assert proc.returncode == 0, proc.stderr
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["command"] for e in entries] == ["list", "list"] and all(e["cpu_seconds"] > 0 for e in entries)


def test_an_older_csv_header_is_rewritten_with_the_new_columns(tmp_path):
    from mabench.bench import timing

    path = tmp_path / "t.csv"
    path.write_text("date,jobs\n2026-01-01,3\n")
    timing.append({"date": "2026-01-02", "jobs": 4, "startup_share": 0.1}, path)
    frame = pd.read_csv(path)
    assert list(frame.columns) == timing.FIELDS and frame["jobs"].tolist() == [3, 4]
    assert frame["startup_share"].isna().tolist() == [True, False]
    timing.append({"date": "2026-01-03", "jobs": 5}, path)
    assert pd.read_csv(path)["jobs"].tolist() == [3, 4, 5]


def test_the_calibration_is_a_fixed_farthest_record_chain():
    """The calibration's work is fixed: its kernel follows the farthest-record chain a plain NumPy
    loop follows (ties to the lowest id), on fixed data."""
    import numpy as np

    from mabench.bench.calibration import calibration_data, farthest_chain

    X = calibration_data(rows=500)
    assert np.array_equal(X, calibration_data(rows=500))
    cur = 0
    for rounds in range(1, 6):
        cur = int(np.argmax(((X - X[cur]) ** 2).sum(axis=1)))
        assert farthest_chain(X, rounds) == cur
    X[[3, 7]] = X[1] + 100.0  # two equally farthest records: the lower id wins
    assert farthest_chain(X, 1) == 3
