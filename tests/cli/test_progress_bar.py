"""The tqdm bar on a terminal (issue 42 item 8): strata and records counted, drawn only on a terminal
and only once a phase has lasted DELAY seconds, nothing when quiet; the results never depend on it
(mabench/bench/progress.py)."""

from __future__ import annotations

import io
import sys
import threading
import time

import numpy as np
import pandas as pd

import mabench
from mabench.bench import progress as P
from support import group_under, main_in_process


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _until(shown, seconds: float = 60.0) -> None:
    """Wait until ``shown()`` is true (the display's thread has drawn it), at most ``seconds``: a slow
    machine only makes it wait longer."""
    end = time.monotonic() + seconds
    while not shown() and time.monotonic() < end:
        time.sleep(0.05)


def _frames(text: str) -> list[str]:
    """What the bar showed, one drawing after another (tqdm rewrites its line after a carriage return)."""
    return [f for f in text.split("\r") if f.strip()]


def test_the_bar_counts_strata_and_the_records_of_the_strata_done(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    out = _Terminal()
    p = P.Progress(stream=out, live=True)
    p.start("mdav k=3 on 120 records in 12 strata", 12, " strata", records=120)
    p.step(5, 50)
    _until(lambda: "50/120 records" in out.getvalue())  # a beat (every 0.5 s) draws the count
    p.step(12, 120)
    p.end()
    p.close()
    frames = _frames(out.getvalue())
    assert "\n" not in out.getvalue()
    assert any("mabench: mdav k=3 on 120 records in 12 strata:" in f and " 5/12 " in f and "50/120 records" in f
               for f in frames), frames
    assert " 12/12 " in frames[-1] and "120/120 records" in frames[-1] and "strata/s" in frames[-1]


def test_in_a_stratum_the_kernels_records_grouped_add_to_the_strata_done(monkeypatch):
    """A long stratum: MDAV's kernel counts its records (kernels/core/counter.py) while it runs; the
    bar adds them to the records of the strata already done."""
    from mabench import kernels as K

    monkeypatch.setattr(P, "DELAY", 0.0)
    Z = np.random.default_rng(1).standard_normal((20_000, 4))
    K.mdav_partition(Z[:500], 3, K.TAIL_3K, "scan")  # compiled before the bar starts
    out = _Terminal()
    p = P.Progress(stream=out, live=True)
    p.start("mdav k=3 on 30000 records in 2 strata", 2, " strata", records=30_000)
    p.step(1, 10_000)
    worker = threading.Thread(target=K.mdav_partition, args=(Z, 3, K.TAIL_3K, "scan"))
    worker.start()
    worker.join()
    grouped = P.counter.read()[0]  # the kernel's last store (its count of records grouped)
    p.end()
    p.close()
    counted = [int(f.split("/30,000 records")[0].rsplit(" ", 1)[1].replace(",", ""))
               for f in _frames(out.getvalue()) if "/30,000 records" in f]
    assert counted and counted == sorted(counted) and counted[-1] == 10_000 + grouped > 29_000, counted
    assert all(c >= 10_000 for c in counted)


def test_a_grouping_phase_counts_records_in_the_bar(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    out = _Terminal()
    group_under(P.Progress(stream=out, live=True))
    assert any("/20000 " in f and "records/s" in f for f in _frames(out.getvalue())), _frames(out.getvalue())


def _survey() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(120, 2)), columns=["a", "b"])
    df["region"] = np.repeat([f"r{i}" for i in range(12)], 10)
    return df


def _on_a_terminal(call):
    real, sys.stderr = sys.stderr, _Terminal()
    try:
        result = call()
        return result, sys.stderr.getvalue()
    finally:
        sys.stderr = real


def test_the_api_draws_the_bar_on_a_terminal_and_the_result_is_the_same(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    shown, err = _on_a_terminal(lambda: mabench.microaggregate(_survey(), k=3, strata="region"))
    frames = _frames(err)
    assert any("mabench: mdav k=3 on 120 records in 12 strata:" in f and " 12/12 " in f and "120/120 records" in f
               for f in frames), frames
    quiet, err = _on_a_terminal(lambda: mabench.microaggregate(_survey(), k=3, strata="region", progress=False))
    assert err == ""  # quiet when asked, even on a terminal (the compiling notice included)
    assert np.array_equal(shown.labels, quiet.labels) and shown.masked.equals(quiet.masked)


def test_the_bar_waits_for_the_delay(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 3600.0)
    _, err = _on_a_terminal(lambda: mabench.microaggregate(_survey(), k=3, strata="region"))
    assert err == ""


def test_the_cli_draws_the_bar_on_a_terminal_and_not_with_no_progress(monkeypatch, capsys):
    monkeypatch.setattr(P, "DELAY", 0.0)
    proc, err = _on_a_terminal(lambda: main_in_process(capsys, "run", "mdav", "census", "-k", "3"))
    assert proc.returncode == 0 and any(f.startswith("mabench: mdav k=3 on 1080 records") for f in _frames(err)), err
    quiet, err = _on_a_terminal(lambda: main_in_process(capsys, "run", "mdav", "census", "-k", "3", "--no-progress"))
    assert quiet.returncode == 0 and err == ""
    assert _same_cell(proc, quiet)


def _same_cell(a, b) -> bool:
    """The same run record but for the times, memory and threads."""
    import json

    drop = {"seconds", "metric_seconds", "cpu_seconds", "metric_cpu_seconds", "max_rss_mb", "threads", "provenance"}
    ra, rb = json.loads(a.stdout), json.loads(b.stdout)
    return {k: v for k, v in ra.items() if k not in drop} == {k: v for k, v in rb.items() if k not in drop}


def test_nothing_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(P, "DELAY", 0.0)  # a bar would be drawn at once
    mabench.microaggregate(_survey(), k=3, strata="region")
    assert capsys.readouterr().err == ""


def _search_heartbeats(monkeypatch, capsys, display: P.Progress) -> tuple[str, str]:
    """(what the search printed on stderr itself, what ``display`` showed) for an ICSM run and
    restarts under ``display``, the search's heartbeat due at every call."""
    from mabench.kernels.improve import search
    from mabench.kernels.improve.search import State

    monkeypatch.setattr(search, "PROGRESS_SECONDS", 0.0)
    monkeypatch.setattr(search, "NOTE_SECONDS", 0.0)
    z = np.random.default_rng(0).standard_normal((60, 2))
    capsys.readouterr()
    display.start("icsm k=3 on 60 records")
    st = State(z, np.arange(60) // 3, 3, 5)
    search.icsm(st)
    if display.interval:  # plain lines: a heartbeat after the search's last note
        _until(lambda: "icsm: round" in display.stream.getvalue())
    display.end()  # a bar draws its last state as its phase ends
    display.close()
    return capsys.readouterr().err, display.stream.getvalue() if display.stream is not sys.stderr else ""


def test_a_searchs_heartbeat_goes_into_the_bar_not_its_own_lines(monkeypatch, capsys):
    monkeypatch.setattr(P, "DELAY", 0.0)
    own, shown = _search_heartbeats(monkeypatch, capsys, P.Progress(stream=_Terminal(), live=True))
    assert own == ""
    assert any("mabench: icsm k=3 on 60 records: " in f and ", icsm: round " in f and "s so far" in f
               for f in _frames(shown)), _frames(shown)
    assert P.counter.HEARTBEAT[0] == "lines"  # restored for the next run without a display


def test_a_searchs_heartbeat_goes_into_the_plain_lines(monkeypatch, capsys):
    own, shown = _search_heartbeats(monkeypatch, capsys, P.Progress(stream=io.StringIO(), interval=0.05))
    assert own == "" and "[icsm: round " in shown and shown.count("\n") >= 2


def test_quiet_silences_a_searchs_heartbeat_and_without_a_display_it_writes_its_lines(monkeypatch, capsys):
    own, _ = _search_heartbeats(monkeypatch, capsys, P.Progress(quiet=True))
    assert own == ""
    own, _ = _search_heartbeats(monkeypatch, capsys, P.Progress())  # not a terminal: a log is never silent
    assert "mabench: icsm: round " in own
