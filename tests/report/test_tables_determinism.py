"""The tables stage is a function of the results and the registry (docs/contract.md, "Reliability").

Two results tables with the same cells, differing only in what describes the run rather than its
results (the checkout's commit, the session, the machine, the measured times) and in the order of
their rows, give byte-identical `mabench tables` outputs, but for the measured cost
(leaderboard_cost.*). The workflow's fault-injection test
(tests/bench/test_fault_injection.py) failed whenever a commit landed in the checkout between its
undisturbed run and its re-run: every table page was stamped with the commit that aggregated the
results.
"""

from __future__ import annotations

import pandas as pd

from mabench.report import leaderboard
from support import main_in_process as main

EXACT = dict(algorithm="mdav", params="tail=3k", dataset="census", dataset_params="", dataset_id="census",
             algo_id="mdav", k=3, seed=0, il=5.69221)
DRAWS = [dict(algorithm="cbfs", params="centroid=remaining,tail=group", dataset="normal",
              dataset_params="d=16,n=2400", dataset_id="normal2400", algo_id="cbfs", k=3, seed=s, il=il)
         for s, il in enumerate([26.91, 26.97, 26.94])]


def _results(commit: str, session: str, seconds: float, order: list[int]) -> pd.DataFrame:
    rows = [EXACT, *DRAWS]
    frame = pd.DataFrame([dict(rows[i], seconds=seconds * (i + 1), max_rss_mb=100.0 + seconds) for i in order])
    frame["git_commit"] = commit
    frame["session"] = session
    frame["machine_platform"] = f"Linux-{session}"
    return frame


def _tables(capsys, tmp_path, name: str, results: pd.DataFrame) -> dict[str, bytes]:
    path = tmp_path / f"{name}.parquet"
    results.to_parquet(path)
    out = tmp_path / name
    proc = main(capsys, "tables", "--results", path, "--out-dir", out)
    assert proc.returncode == 0, proc.stderr
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name not in leaderboard.COST_FILES}


def test_tables_do_not_depend_on_the_checkout_the_session_or_the_row_order(tmp_path, capsys):
    first = _tables(capsys, tmp_path, "first", _results("7fc36bb", "s1", 0.5, [0, 1, 2, 3]))
    again = _tables(capsys, tmp_path, "again", _results("3e9b55b-dirty", "s2", 2.5, [3, 1, 0, 2]))
    assert len(first) > 10 and "index.md" in first and "leaderboard.md" in first
    differ = sorted(name for name in first if first[name] != again.get(name))
    assert sorted(first) == sorted(again) and differ == [], differ
    # the cells did reach the tables (not a comparison of empty pages)
    assert b"5.6922" in first["chettri_table-2.md"]
