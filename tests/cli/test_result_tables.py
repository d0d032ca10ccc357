"""Result tables and the best-known registry from a hostile user (issue 17): `tables`, `figures`,
`report`, `compare`, `regress --config` and `best-known improve` exit 2 with one line on every
malformed input, `compare` refuses duplicate cells, non-integer k and missing metric columns, and
`best-known improve` can add a new entry."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from support import assert_user_error, main_in_process as main

ROW = {"algorithm": "mdav", "params": "tail=3k", "dataset": "tarragona", "dataset_params": "", "k": 3, "seed": 0,
       "n": 834, "d": 13, "il": 16.9, "seconds": 0.1, "dataset_id": "tarragona", "algo_id": "mdav"}


def _parquet(path, rows):
    pd.DataFrame(rows).to_parquet(path)


MALFORMED = {
    "not-parquet": (lambda p: p.write_text("algorithm,k\nmdav,3\n"), "cannot read results table"),
    "empty-file": (lambda p: p.write_bytes(b""), "cannot read results table"),
    "no-rows": (lambda p: _parquet(p, pd.DataFrame(columns=list(ROW))), "has no rows"),
    "no-algorithm-column": (lambda p: _parquet(p, [{c: v for c, v in ROW.items() if c != "algorithm"}]), "lacks column"),
    "no-ids": (lambda p: _parquet(p, [{c: v for c, v in ROW.items() if c != "algo_id"}]), "lacks column"),
    "il-as-text": (lambda p: _parquet(p, [dict(ROW, il="sixteen")]), "column il holds 'sixteen'"),
    "il-inf": (lambda p: _parquet(p, [dict(ROW, il=float("inf"))]), "finite numbers"),
    "k-not-whole": (lambda p: _parquet(p, [dict(ROW, k=2.5)]), "not a whole number"),
}


@pytest.mark.parametrize("command", ["tables", "figures", "report"])
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_results_are_bad_input(tmp_path, capsys, command, case):
    make, needle = MALFORMED[case]
    results = tmp_path / "results.parquet"
    make(results)
    assert_user_error(main(capsys, command, "--results", results, "--out-dir", tmp_path / "out"), needle)
    assert not (tmp_path / "out").exists()


def _csv(path, rows):
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("rows, needle", [
    ([dict(ROW, il=20.0), dict(ROW)], "2 times"),  # a regressed row placed first
    ([dict(ROW, k=2.5)], "not a whole number"),
    ([{c: v for c, v in ROW.items() if c != "il"}], "has no 'il' column"),
    (pd.DataFrame(columns=list(ROW)), "has no rows"),
])
def test_compare_refuses_what_it_cannot_compare(tmp_path, capsys, rows, needle):
    base = _csv(tmp_path / "base.csv", [ROW])
    cur = _csv(tmp_path / "cur.csv", rows)
    assert_user_error(main(capsys, "compare", base, cur, "--published", "none"), needle)
    assert_user_error(main(capsys, "compare", cur, base, "--published", "none"), needle)


@pytest.mark.parametrize("option, value", [("--il-tolerance", "nan"), ("--il-tolerance", "-1"),
                                           ("--time-ratio", "0"), ("--time-ratio", "inf"), ("--min-seconds", "nan")])
def test_compare_options_are_validated(tmp_path, capsys, option, value):
    base = _csv(tmp_path / "base.csv", [ROW])
    assert_user_error(main(capsys, "compare", base, base, "--published", "none", option, value), option)


def test_compare_still_passes_on_good_tables(tmp_path, capsys):
    base = _csv(tmp_path / "base.csv", [ROW, dict(ROW, k=4, il=19.0)])
    proc = main(capsys, "compare", base, base, "--published", "none")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("text, needle", [("", "not a workflow configuration"), ("42\n", "not a workflow configuration"),
                                          ("- a\n- b\n", "not a workflow configuration"),
                                          ("algorithms: {}\ndatasets: {t: 3}\n", "needs a `spec`"),
                                          ("algorithms: {m: {algorithm: icsm, params: {pool_n: -3}}}\n"
                                           "datasets: {t: {spec: tarragona}}\n", "pool_n=-3 is out of range")])
def test_regress_config_must_be_a_configuration(tmp_path, capsys, text, needle):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    assert_user_error(main(capsys, "regress", "--config", cfg, "--out", tmp_path / "r.csv"), needle)
    assert_user_error(main(capsys, "compile", "--config", cfg, "--json-out", tmp_path / "c.json"), needle)
    assert not (tmp_path / "c.json").exists()


def test_compile_needs_the_data_files_of_its_configuration(tmp_path, capsys, monkeypatch):
    """The workflow runs `mabench compile` after the data are prepared; before that it says which file is missing."""
    import shutil

    from support import ROOT

    shutil.copy(ROOT / "config" / "smoke.yaml", tmp_path / "cfg.yaml")
    monkeypatch.chdir(tmp_path)
    assert_user_error(main(capsys, "compile", "--config", "cfg.yaml", "--json-out", "c.json"), "results/data/")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg.yaml"]


@pytest.mark.parametrize("args, needle", [
    (["-k", "0", "--budget", "1"], "k must be a positive integer"),
    (["-k", "900", "--budget", "1"], "larger than tarragona's 834 records"),
    (["-k", "3", "--budget", "1", "--seed", "-1"], "seed must be a non-negative integer"),
    (["-k", "3", "--budget", "nan"], "--budget nan"),
    (["-k", "3", "--budget", "inf"], "--budget inf"),
    (["-k", "3", "--budget", "1", "--dissolve", "2"], "--dissolve 2.0"),
    (["-k", "3", "--budget", "1", "--dissolve", "-1"], "--dissolve -1.0"),
    (["-k", "3", "--budget", "1", "--dissolve", "nan"], "--dissolve nan"),
    (["-k", "3", "--restarts", "-1"], "--restarts -1"),
    (["-k", "3", "--restarts", "5", "--method", "region"], "--method region needs a positive --budget"),
    (["-k", "3", "--budget", "1", "--neighbours", "0"], "--neighbours 0 must be an integer >= 1"),
    (["-k", "10", "--budget", "1", "--method", "region", "--neighbours", "30"], "use a smaller --neighbours"),
])
def test_best_known_improve_validates_every_argument(tmp_path, capsys, args, needle):
    assert_user_error(main(capsys, "best-known", "improve", "tarragona", *args, "--dir", tmp_path), needle)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_best_known_improve_adds_a_new_entry(tmp_path, capsys):
    proc = main(capsys, "best-known", "improve", "tarragona", "-k", "7", "--restarts", "1", "--dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["replaced"] is True and out["previous"] is None
    assert (tmp_path / "tarragona_k7.csv.gz").is_file()
    proc = main(capsys, "best-known", "verify", "--dir", tmp_path)
    assert proc.returncode == 0, proc.stderr


def test_best_known_improve_region_adds_an_entry_with_its_command(tmp_path, capsys):
    proc = main(capsys, "best-known", "improve", "tarragona", "-k", "9", "--method", "region", "--budget", "60",
                "--dir", tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["replaced"] is True and out["optimal"] is True and 0 < out["region_records"] <= 834
    assert out["rounds"] >= 1 and out["improved"] is False  # programs ran until one changed nothing
    index = (tmp_path / "index.csv").read_text()
    assert "region" in index and "command=mabench best-known improve tarragona -k 9 --method region --budget 60" in index
    assert main(capsys, "best-known", "verify", "--dir", tmp_path).returncode == 0


def test_compile_writes_the_plans_file_the_batches_read(tmp_path, capsys, monkeypatch):
    """`mabench compile --plans-out` writes the workflow's plans file: the plan's own text, every job's
    runs, so `mabench batch --plans FILE --job NAME` runs the same cells as the workflow plans."""
    from mabench.bench import config, plan

    (tmp_path / "cfg.yaml").write_text(
        "k: [3]\nrecords_per_job: 1\nalgorithms: {mdav: {algorithm: mdav}, md: {algorithm: md}}\n"
        "datasets: {a: {spec: 'sim1[n=40,d=3]'}, b: {spec: 'sim1[n=50,d=2]'}}\n")
    monkeypatch.chdir(tmp_path)
    built = plan.build(config.load("cfg.yaml"))
    assert len(built.jobs) == 2 and built.lead_job() is not None  # a lead job, whose runs the compile step orders
    proc = main(capsys, "prepare", *built.prepare_generated())
    assert proc.returncode == 0, proc.stderr
    proc = main(capsys, "compile", "--config", "cfg.yaml", "--plans-out", "plans.json", "--json-out", "c.json")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "plans.json").read_text() == built.plans_text()
    jobs = json.loads((tmp_path / "plans.json").read_text())["jobs"]
    assert sorted(jobs) == sorted(job.name for job in built.jobs)
    assert json.loads((tmp_path / "c.json").read_text())["compiled"] == 4  # 2 algorithms x 2 data shapes


def test_compile_progress_out_must_be_a_file_name(tmp_path, capsys):
    from support import ROOT

    (tmp_path / "folder").mkdir()
    assert_user_error(main(capsys, "compile", "--config", ROOT / "config" / "smoke.yaml", "--progress-out",
                           tmp_path / "folder", "--json-out", tmp_path / "c.json"), "--progress-out", "is a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"] and not any((tmp_path / "folder").iterdir())


@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_compile_needs_at_least_one_process(tmp_path, capsys, jobs):
    from support import ROOT

    assert_user_error(main(capsys, "compile", "--config", ROOT / "config" / "smoke.yaml", "--jobs", jobs,
                           "--json-out", tmp_path / "c.json"), "give at least 1 process")
    assert not (tmp_path / "c.json").exists()
