"""`mabench bench FILE --methods … -k … --strata COL --weights COL --out DIR`: the leaderboard
(md/csv/tex/HTML) and the masked files of a user's own file, through the plan's checks and the cell
cache (a second run resumes: nothing computed)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from mabench import cli


def _file(tmp_path, n=120):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.gamma(2.0, size=n), "region": np.where(
        rng.random(n) < 0.5, "north", "south"), "w": rng.uniform(1, 3, size=n)})
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _bench(capsys, *argv):
    status = cli.main(["bench", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_bench_writes_the_leaderboard_and_the_masked_files_and_resumes(tmp_path, capsys):
    path, frame = _file(tmp_path)
    out = tmp_path / "out"
    argv = [path, "--methods", "mdav,cbfs", "-k", "3,5", "--strata", "region", "--weights", "w", "--out", out]
    status, stdout, err = _bench(capsys, *argv)
    assert status == 0, err
    assert json.loads(stdout) == {"cells": 4, "computed": 4, "leaderboard": str(out / "leaderboard.html"),
                                  "masked": str(out / "masked")}
    board = pd.read_csv(out / "leaderboard.csv")
    assert sorted(zip(board["k"], board["algo_id"])) == [(3, "cbfs"), (3, "mdav"), (5, "cbfs"), (5, "mdav")]
    assert set(board["rank"]) <= {1, 2} and board["il"].gt(0).all() and "dld" in board
    for name in ("leaderboard.md", "leaderboard.tex", "leaderboard_cost.md", "leaderboard_cost.csv"):
        assert (out / name).stat().st_size > 0
    assert 'data-figure="leaderboard_0"' in (out / "leaderboard.html").read_text()
    results = pd.read_parquet(out / "results.parquet")
    assert results["params"].str.contains("sampling_weights=w,strata=region").all()
    for algo in ("mdav", "cbfs"):
        for k in (3, 5):
            masked = pd.read_csv(out / "masked" / f"{algo}_k{k}.csv")
            assert list(masked.columns) == list(frame.columns)
            assert masked["region"].equals(frame["region"]) and np.allclose(masked["w"], frame["w"])
            assert not np.allclose(masked["a"], frame["a"])
            for _, part in masked.groupby("region"):  # groups never cross a stratum; each of ≥ k records
                assert part.groupby(["a", "b"]).size().min() >= k
    before = (out / "leaderboard.csv").read_bytes()
    status, stdout, err = _bench(capsys, *argv)  # again: every cell from the cache
    assert status == 0 and json.loads(stdout)["computed"] == 0
    assert (out / "leaderboard.csv").read_bytes() == before


@pytest.mark.parametrize("args, message", [
    (["--methods", "mdav,nosuch"], "nosuch"),
    (["--methods", "mdav,mdav"], "give each method once"),
    (["--methods", "mdav", "--strata", "nosuchcol"], "nosuchcol"),
])
def test_bench_refuses_bad_input_in_one_line(tmp_path, capsys, args, message):
    path, _ = _file(tmp_path)
    status, stdout, err = _bench(capsys, path, "-k", "3", "--out", tmp_path / "out", *args)
    assert status == 2 and stdout == "" and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "out").exists()
