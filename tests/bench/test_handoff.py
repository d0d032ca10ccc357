"""The compile step's progress file and the lead job that follows it (mabench/bench/handoff.py):
the lead job waits for exactly the runs the compile step has not done yet, and never for a compile
step that is not there (missing file, stale file, finished). `compile_plan` writing it:
tests/bench/test_compile_plan.py."""

from __future__ import annotations

import json
import os
import threading
import time

from mabench.bench import handoff


def _state(path):
    return json.loads(path.read_text())


def test_progress_counts_the_runs_done_at_the_front_of_the_list(tmp_path):
    path = tmp_path / "p.json"
    progress = handoff.Progress(str(path), 5)
    assert _state(path) == {"done": 0, "finished": False}
    progress.done(1)  # a later run first (the same algorithm on another data set): the front does not move
    assert _state(path)["done"] == 0
    progress.done(0)
    assert _state(path)["done"] == 2
    progress.done(3)
    assert _state(path)["done"] == 2
    progress.finish()
    assert _state(path) == {"done": 2, "finished": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]  # no temporary file left


def _polls(monkeypatch, path: str, run: int) -> int:
    """How often wait_for slept before it returned: 0 is "did not wait" (a count, not a clock)."""
    slept = []
    with monkeypatch.context() as m:
        m.setattr(handoff.time, "sleep", slept.append)
        handoff.wait_for(path, run, time.monotonic())
    return len(slept)


def test_the_lead_job_waits_until_its_run_is_done(tmp_path, monkeypatch):
    path = str(tmp_path / "p.json")
    handoff.write(path, 3)
    assert _polls(monkeypatch, path, 2) == 0  # run 2 is done: no wait

    def compile_step():
        time.sleep(0.4)
        handoff.write(path, 4)

    writer = threading.Thread(target=compile_step)
    writer.start()
    waited = handoff.wait_for(path, 3, time.monotonic())
    writer.join()
    assert waited >= 0.35


def test_a_finished_or_stale_compile_step_is_not_waited_for(tmp_path, monkeypatch):
    path = str(tmp_path / "p.json")
    handoff.write(path, 0, finished=True)  # it stopped early (it failed, or several processes compiled)
    assert _polls(monkeypatch, path, 10) == 0
    handoff.write(path, 0)
    old = time.time() - handoff.STALE - 5  # an earlier workflow run's file, nobody writing it
    os.utime(path, (old, old))
    assert _polls(monkeypatch, path, 10) == 0


def test_a_missing_file_is_waited_for_only_at_the_start(tmp_path, monkeypatch):
    path = str(tmp_path / "none.json")
    monkeypatch.setattr(handoff, "ABSENT", 0.3)
    started = time.monotonic()
    assert 0.2 < handoff.wait_for(path, 0, started) < 2.0
    assert handoff.wait_for(path, 1, started) < 0.2  # past ABSENT since the process started: no more waiting
