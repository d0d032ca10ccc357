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


def test_the_gap_to_the_certified_bound_sits_next_to_the_gap_to_best_known(tmp_path):
    best = pd.DataFrame([{"dataset": "tarragona", "k": 3, "il": 14.5}])
    bounds = pd.DataFrame([{"dataset": "tarragona", "k": 3, "il_bound": 12.0}])
    board = leaderboard.write(_results(), tmp_path, best, bounds)
    mdav = board[board.algo_id == "mdav"].iloc[0]
    assert mdav["gap_bound"] == 17.43 - 12.0 and mdav["gap_bound"] > mdav["gap_best_known"]
    md = (tmp_path / "leaderboard.md").read_text()
    assert "| gap to best-known | gap to bound | draws |" in md
    assert "| 2.9300 | 5.4300 | 2 |" in md  # mdav: 17.43 − 14.5 and 17.43 − 12.0
    assert leaderboard.table(_results(), best)["gap_bound"].isna().all()  # no bounds: no gap, no error


def test_the_shipped_references_give_a_bound_for_a_catalog_cell():
    best, bounds = leaderboard.references()
    assert bounds is not None and {"dataset", "k", "il_bound"} <= set(bounds.columns)
    board = leaderboard.table(_results(), best, bounds)
    assert board["gap_bound"].notna().all() and (board["gap_bound"] >= board["gap_best_known"]).all()


def test_the_html_page_has_a_figure_per_data_set_and_highlights_the_users_methods(tmp_path):
    from mabench.report import pages

    frame = pd.concat([_results(), _results().assign(dataset="census", dataset_id="census"),
                       _results().assign(k=5, il=lambda f: f["il"] + 3)])
    page = pages.write_leaderboard(frame, tmp_path).read_text()
    assert page.count('data-figure="leaderboard_') == 2  # census and tarragona
    assert "Your methods (★, from MABENCH_HOME): <b>pc1cut</b>" in page
    assert page.count('<tr class="user">') == 3 and "gap to bound" in page
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == ["leaderboard_0.png", "leaderboard_1.png"]


def test_a_user_config_gets_no_pages_of_tables_it_never_ran(tmp_path):
    """Only the published tables with a computed number appear (no "1247 not run"); the leaderboard
    leads the HTML index."""
    from mabench.report import pages, published, tables

    registry = published.load()
    results = _results().assign(params="tail=3k")  # tarragona k=3 of mdav[tail=3k] (cbfs, pc1cut): a few published cells
    compared, left_out = tables.run_tables(published.compare(registry, results))
    assert len(compared) and left_out > 0
    assert not (compared.groupby(["source", "table"])["verdict"]
                .apply(lambda v: v.isin(["not run", "not implemented"]).all())).any()
    pages.write_report(results, tmp_path / "report", registry)
    index = (tmp_path / "report" / "index.html").read_text()
    assert index.index("leaderboard.html") < index.index("reproduction reports</h1>")
    assert f"{left_out} table(s) of the registry whose cells this configuration does not run are left out" in index
    every = published.compare(registry, results)
    assert f"{int((every['verdict'] == 'not run').sum())} not run" not in index
    tables.write_tables(results, tmp_path / "tables", registry)
    md = (tmp_path / "tables" / "index.md").read_text()
    assert f"{left_out} table(s) whose cells this configuration does not run are left out" in md
    written = {p.stem for p in (tmp_path / "tables").glob("*.md")}
    assert {tables.slug(s, t) for s, t in compared[["source", "table"]].drop_duplicates().itertuples(index=False)} \
        <= written
    assert len(written) < 2 + len(registry[["source", "table"]].drop_duplicates())


def test_report_only_leaderboard_writes_that_page_alone(tmp_path, capsys):
    from mabench import cli

    path = tmp_path / "results.parquet"
    _results().to_parquet(path)
    status = cli.main(["report", "--results", str(path), "--out-dir", str(tmp_path / "r"), "--only", "leaderboard"])
    assert status == 0, capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["figures", "leaderboard.html"]


def test_the_report_is_the_same_bytes_from_one_process_or_several(tmp_path):
    """The pages are built in worker processes when cores allow: every page and figure file the same
    bytes as one process writes, and the same list of pages."""
    from mabench.report import pages, published

    registry = published.load()
    results = _results().assign(params="tail=3k")
    one = pages.write_report(results, tmp_path / "one", registry, workers=1)
    two = pages.write_report(results, tmp_path / "two", registry, workers=2)
    assert [p.relative_to(tmp_path / "one") for p in one] == [p.relative_to(tmp_path / "two") for p in two]
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path / "two") for p in (tmp_path / "two").rglob("*") if p.is_file())
    assert len(files) > len(one)  # figure files too
    for rel in files:
        assert (tmp_path / "one" / rel).read_bytes() == (tmp_path / "two" / rel).read_bytes(), rel
