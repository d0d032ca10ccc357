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
