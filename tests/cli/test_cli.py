"""The CLI contract used by the workflow, by users and by the tests."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from support import assert_user_error
from mabench import cli

REQUIRED = {"algorithm", "dataset", "k", "seed", "n", "d", "n_groups", "min_group", "max_group", "il", "seconds"}


def mabench(*args, check=True):
    proc = subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def run_json(capsys, *args) -> dict:
    assert cli.main(list(args)) == 0
    return json.loads(capsys.readouterr().out)


def test_run_prints_the_documented_record_and_the_textbook_value(cli_main):
    proc = cli_main("run", "mdav", "tarragona", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert REQUIRED <= set(record)
    assert abs(record["il"] - 16.9326) <= 0.001
    assert (record["n"], record["d"], record["k"]) == (834, 13, 3)
    assert record["min_group"] >= 3 and record["max_group"] <= 5
    assert record["seconds"] > 0


def test_partition_file_is_one_label_per_input_row_and_evaluates_to_the_same_il(tmp_path, capsys):
    out = tmp_path / "p.csv"
    rec = run_json(capsys, "run", "cbfs", "census", "-k", "4", "--param", "tail=group", "--out", str(out))
    labels = pd.read_csv(out)
    assert list(labels.columns) == ["group"] and len(labels) == 1080
    assert labels["group"].value_counts().min() >= 4
    ev = run_json(capsys, "evaluate", "census", str(out), "-k", "4")
    assert ev["il"] == pytest.approx(rec["il"], abs=1e-12)
    assert abs(rec["il"] - 7.4414) < 1e-4  # thesis Table 4.3, Census k=4


def test_same_inputs_and_seed_give_byte_identical_outputs(tmp_path, capsys):
    files = []
    for i in range(2):
        part, data = tmp_path / f"p{i}.csv", tmp_path / f"d{i}.parquet"
        run_json(capsys, "prepare", "sim2", "--seed", "11", "--out", str(data))
        run_json(capsys, "run", "mdav", str(data), "-k", "3", "--seed", "11", "--out", str(part))
        files.append((part.read_bytes(), data.read_bytes()))
    assert files[0] == files[1]


def test_prepare_takes_a_seed_list_per_data_set(tmp_path, capsys):
    """One process writes every draw of several generated data sets (the workflow's prepare_generated)."""
    import json

    cli.main(["prepare", "sim1[n=30,d=2]", "sim2", "--out", str(tmp_path / "a{seed}.parquet"), "--out",
              str(tmp_path / "b{seed}.parquet"), "--seed", "1,2", "--seed", "7"])
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["dataset"].split("[")[0], r["seed"]) for r in lines] == [("sim1", 1), ("sim1", 2), ("sim2", 7)]
    alone = tmp_path / "alone.parquet"
    run_json(capsys, "prepare", "sim2", "--seed", "7", "--out", str(alone))
    assert (tmp_path / "b7.parquet").read_bytes() == alone.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a1.parquet", "a2.parquet", "alone.parquet", "b7.parquet"]


def test_a_csv_path_is_a_data_set(tmp_path, capsys):
    path = tmp_path / "mine.csv"
    pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 9], "b": [3.0, 1, 4, 1, 5, 9]}).to_csv(path, index=False)
    rec = run_json(capsys, "run", "md", str(path), "-k", "2")
    # named by its file name, so a user file can never pass for a catalog data set (tarragona.csv)
    assert rec["dataset"] == "mine.csv" and rec["n"] == 6 and rec["n_groups"] == 3


def test_list_shows_plugins(capsys):
    assert cli.main(["list", "algorithms"]) == 0
    out = capsys.readouterr().out
    for name in ("mdav", "mdav1", "md", "cbfs"):
        assert f"\n{name}\t" in "\n" + out
    assert cli.main(["list", "datasets"]) == 0
    out = capsys.readouterr().out
    for name in ("tarragona", "census", "eia", "sim1", "uniform"):
        assert f"\n{name}\t" in "\n" + out


@pytest.mark.parametrize("args,needle", [
    (["run", "mdav", "tarragona"], "-k"),
    (["run", "mdav", "tarragona", "-k", "3", "--param", "tail"], "NAME=VALUE"),
    (["run", "mdav", "tarragona", "-k", "3", "--param", "tail=4k"], "choose one of"),
    (["run", "mdav", "tarragona", "-k", "3", "--metrics", "nope"], "unknown metric"),
    (["run", "mdav", "census", "-k", "3", "--metrics", "id", "--option", "id_pp=[1]"], "unknown metric option"),
    (["evaluate", "tarragona", "/nonexistent/p.csv"], "does not exist"),
    (["tables", "--results", "/nonexistent/r.parquet", "--out-dir", "x"], "does not exist"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_errors_exit_2_with_one_line(tmp_path, args, needle, cli_main):
    assert_user_error(cli_main(*args), needle)


@pytest.mark.parametrize("args,needle", [
    (["batch"], "--plans FILE with --job NAME"),
    (["batch", "--plan", '{"runs": []}', "--plans", "p.json", "--job", "a"], "either --plan JSON"),
    (["batch", "--plans", "p.json"], "--job NAME"),
    (["batch", "--plan", "[1]"], "JSON object with a list `runs`"),
    (["batch", "--plans", "/nonexistent/plans.json", "--job", "a"], "cannot read --plans"),
    (["batch", "--plans", "{plans}", "--job", "nope/part0"], "is not a job of"),
    (["batch", "--plans", "{bad}", "--job", "a"], "is not a plans file"),
])
def test_batch_plan_errors_exit_2_with_one_line(tmp_path, args, needle, cli_main):
    (tmp_path / "plans.json").write_text('{"jobs": {"packed/part0": {"runs": []}}}')
    (tmp_path / "bad.json").write_text('{"runs": []}')
    args = [a.replace("{plans}", str(tmp_path / "plans.json")).replace("{bad}", str(tmp_path / "bad.json"))
            for a in args]
    assert_user_error(cli_main(*args), needle)


def test_batch_runs_a_job_from_the_plans_file(tmp_path, capsys):
    import numpy as np

    data = tmp_path / "d.csv"
    pd.DataFrame(np.random.default_rng(0).standard_normal((60, 3)), columns=list("abc")).to_csv(data, index=False)
    plan = {"batch": "packed/part0", "runs": [{"algorithm": "mdav", "params": {}, "draws": [[0, str(data)]],
                                               "k": [3], "metrics": ["il"], "cells_dir": str(tmp_path / "cells")}]}
    (tmp_path / "plans.json").write_text(json.dumps({"jobs": {"packed/part0": plan, "other": {"runs": []}}}))
    out = run_json(capsys, "batch", "--plans", str(tmp_path / "plans.json"), "--job", "packed/part0")
    assert out["batch"] == "packed/part0" and out["cells"] == 1 and out["computed"] == 1
    record = json.loads((tmp_path / "cells" / "seed0" / "k3.json").read_text())
    direct = run_json(capsys, "run", "mdav", str(data), "-k", "3")
    assert record["algorithm"] == "mdav" and record["il"] == direct["il"]


def test_failed_run_leaves_no_partition_file(tmp_path):
    """The failure comes after the partition was computed and staged: the second output cannot be written."""
    out = tmp_path / "p.csv"
    proc = mabench("run", "mdav", "tarragona", "-k", "3", "--out", str(out), "--json-out", "/proc/r.json",
                   check=False)
    assert_user_error(proc, "/proc/r.json")
    assert list(tmp_path.iterdir()) == []


def test_evaluate_defaults_to_every_metric_that_applies(tmp_path, capsys):
    part = tmp_path / "p.csv"
    run_json(capsys, "run", "cbfs", "census", "-k", "3", "--param", "tail=group", "--out", str(part))
    census = run_json(capsys, "evaluate", "census", str(part))
    assert {"il", "g_il", "dld", "rld", "id", "g_dr", "si"} <= set(census)
    assert abs(census["g_il"] - 28.609) <= 0.002 and abs(census["id"] - 1.98148) <= 1e-4
    part = tmp_path / "t.csv"
    run_json(capsys, "run", "mdav", "tarragona", "-k", "3", "--out", str(part))
    tarragona = run_json(capsys, "evaluate", "tarragona", str(part))
    assert {"il", "g_il", "dld", "id"} <= set(tarragona) and "rld" not in tarragona  # no key variables
