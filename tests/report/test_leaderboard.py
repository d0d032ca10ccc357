"""The leaderboard: one row per data set × method × k, ranked by IL, user methods marked, gap to best-known."""

from __future__ import annotations

import pandas as pd

from mabench.report import leaderboard


def _results():
    rows = []
    for algo, il, user in (("mdav", 16.93, None), ("pc1cut", 20.0, "/home/me/algorithms/pc1cut.py"),
                           ("cbfs", 16.93, None)):
        for seed in (0, 1):
            rows.append({"dataset_id": "tarragona", "algo_id": algo, "algorithm": algo, "params": "",
                         "dataset": "tarragona", "dataset_params": "", "k": 3, "seed": seed, "il": il + seed,
                         "dld": 1.0, "seconds": 0.5, "max_rss_mb": 100.0 + seed, "plugin_path": user})
    return pd.DataFrame(rows)


def test_rows_ranks_means_and_the_gap_to_best_known(tmp_path):
    best = pd.DataFrame([{"dataset": "tarragona", "k": 3, "il": 14.5}, {"dataset": "tarragona", "k": 3, "il": 15.0}])
    board = leaderboard.write(_results(), tmp_path, best)
    assert list(board["algo_id"]) == ["cbfs", "mdav", "pc1cut"]  # IL ties share rank 1, then by name
    assert list(board["rank"]) == [1, 1, 3]
    assert board.loc[board.algo_id == "pc1cut", "il"].item() == 20.5  # the mean over the two draws
    assert board.loc[board.algo_id == "mdav", "gap_best_known"].item() == 17.43 - 14.5
    assert board.loc[board.algo_id == "mdav", "max_rss_mb"].item() == 101.0 and (board["draws"] == 2).all()
    md = (tmp_path / "leaderboard.md").read_text()
    assert "| tarragona | 3 | 3 | pc1cut ★ | 20.5000 |" in md and "mdav ★" not in md
    assert pd.read_csv(tmp_path / "leaderboard.csv").shape[0] == 3
    assert r"pc1cut $\star$" in (tmp_path / "leaderboard.tex").read_text()


def test_measured_time_and_memory_are_kept_apart_from_the_deterministic_files(tmp_path):
    leaderboard.write(_results(), tmp_path)
    again = _results().assign(seconds=0.9, max_rss_mb=250.0)  # a re-run: same results, other measurements
    (tmp_path / "again").mkdir()
    leaderboard.write(again, tmp_path / "again")
    for name in ("leaderboard.md", "leaderboard.csv", "leaderboard.tex"):
        assert (tmp_path / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    cost = pd.read_csv(tmp_path / "leaderboard_cost.csv")
    assert list(cost.columns) == ["data", "algo_id", "k", "rank", "seconds", "max_rss_mb"]
    assert list(cost["algo_id"]) == ["cbfs", "mdav", "pc1cut"] and (cost["max_rss_mb"] == 101.0).all()
    assert "| tarragona | 3 | 3 | pc1cut ★ | 0.500 | 101 |" in (tmp_path / "leaderboard_cost.md").read_text()


def test_data_sets_without_a_best_known_partition_have_no_gap(tmp_path):
    frame = _results().assign(dataset="sim1", dataset_params="n=60")
    board = leaderboard.table(frame, pd.DataFrame([{"dataset": "tarragona", "k": 3, "il": 14.5}]))
    assert board["gap_best_known"].isna().all() and set(board["data"]) == {"sim1[n=60]"}
