"""Progress of `mabench run` on stderr (mabench/bench/progress.py): phases, heartbeat, terminal line."""

from __future__ import annotations

import io
import json
import time

import pytest

from support import assert_user_error, group_under, run_cli
from mabench.bench import progress as P


def test_progress_lines_name_every_phase_and_leave_stdout_alone():
    proc = run_cli("run", "mdav", "census", "-k", "3,4", "--metrics", "il,dld", "--progress", "0.05")
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["k"] for r in records] == [3, 4]
    done = [line for line in proc.stderr.splitlines() if ": done in " in line]
    phases = [line.split(": done in ")[0].removeprefix("mabench: ") for line in done]
    assert phases == ["loading census", "standardizing 1080 x 13", "compiling mdav",
                      "mdav k=3 on 1080 records", "k=3 metric il (1 of 2)", "k=3 metric dld (2 of 2)",
                      "mdav k=4 on 1080 records", "k=4 metric il (1 of 2)", "k=4 metric dld (2 of 2)"]
    assert all(line.startswith("mabench: ") for line in proc.stderr.splitlines())


def test_without_progress_a_non_terminal_gets_nothing():
    proc = run_cli("run", "mdav", "census", "-k", "3")
    assert proc.returncode == 0 and proc.stderr == ""


@pytest.mark.parametrize("seconds", ["0", "-1", "nan", "1e-300", "inf", "1e300"])
def test_bad_interval_is_a_user_error(seconds, cli_main):
    """1e-300 printed 2,572 lines in 0.2 s (F20); inf and 1e300 overflowed the heartbeat's timer (F7)."""
    proc = cli_main("run", "mdav", "census", "-k", "3", "--progress", seconds)
    assert_user_error(proc, "--progress", "finite number >= 0.01 and <= 86400")


def test_heartbeat_while_a_phase_runs_with_count_rate_and_time_left():
    out = io.StringIO()
    p = P.Progress(stream=out, interval=0.02)
    p.start("k=3 metric dld", total=4)
    p.step(2)
    time.sleep(0.15)
    p.end()
    p.close()
    lines = out.getvalue().splitlines()
    beats = [line for line in lines if line.endswith("(running)")]
    assert len(beats) >= 2, lines
    assert "(2/4, " in beats[-1] and "/s, about " in beats[-1] and " left)" in beats[-1]
    assert lines[-1].startswith("mabench: k=3 metric dld: done in ")


def test_terminal_line_is_rewritten_in_place_only_after_the_delay(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(P, "DELAY", 0.0)
    p = P.Progress(stream=out, live=True)
    p.start("mdav k=3 on 1000000 records")
    time.sleep(0.7)
    p.end()
    p.close()
    text = out.getvalue()
    assert "\n" not in text and text.startswith("\r") and "mabench: mdav k=3 on 1000000 records: " in text
    assert text.endswith("\r") and text.rsplit("\r", 2)[-2].strip() == ""  # tqdm's bar is cleared at the end

    monkeypatch.setattr(P, "DELAY", 60.0)
    quiet = io.StringIO()
    p = P.Progress(stream=quiet, live=True)
    p.start("short")
    time.sleep(0.6)
    p.close()
    assert quiet.getvalue() == ""  # a short run on a terminal shows nothing


def test_heartbeat_counts_the_records_a_grouping_kernel_has_grouped():
    """MDAV's kernel releases the GIL and stores [records grouped, records] as it goes, so the
    heartbeat during the algorithm phase shows the count, the rate and the time left."""
    out = io.StringIO()
    group_under(P.Progress(stream=out, interval=0.02))
    beats = [line for line in out.getvalue().splitlines() if line.endswith("(running)")]
    counted = [line for line in beats if "/20,000 records grouped" in line]
    assert counted, beats
    grouped = [int(line.split(" (")[1].split("/")[0].replace(",", "")) for line in counted]
    assert grouped == sorted(grouped) and 0 < grouped[-1] < 20_000
    assert len(set(grouped)) >= 2  # seen while the kernel ran, not only once it had finished
    assert "/s, about " in counted[-1]
