"""Per-record outputs of sdcMicro's measures (issue 42): dRiskRMD's per-record index as
``Result.risk()`` and ``mabench run --risk-out``, recordLinkage's pair table as
``Result.linkage_pairs()`` and ``--rl-pairs-out``; the same numbers as the metrics and as
``rmd_risk``/``record_linkage`` themselves, errors in one line with nothing written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.metrics.record_linkage import record_linkage
from mabench.metrics.sdcmicro_risk import rmd_risk
from support import assert_user_error, main_in_process


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(5)
    x = rng.lognormal(3, 1, size=(90, 4))
    df = pd.DataFrame(x, columns=["a", "b", "c", "d"], index=[f"r{i}" for i in range(90)])
    df.insert(0, "name", [f"n{i}" for i in range(90)])
    return df


@pytest.fixture(scope="module")
def result(frame):
    return mabench.microaggregate(frame, k=3)


def test_risk_is_dRiskRMDs_per_record_index_and_agrees_with_the_metrics(frame, result):
    table = result.risk({"rmd_k": 0.7})
    x = np.ascontiguousarray(frame[["a", "b", "c", "d"]].to_numpy())  # the layout the run sums in
    want = rmd_risk(x, np.ascontiguousarray(result.masked[["a", "b", "c", "d"]].to_numpy()), k=0.7, k2=0.05)
    assert list(table.columns) == ["rmd", "rmd_risk1", "rmd_risk2"]
    assert table.index.equals(frame.index)
    np.testing.assert_array_equal(table["rmd"], want["rmd"])
    np.testing.assert_array_equal(table["rmd_risk1"], want["riskvec1"])
    np.testing.assert_array_equal(table["rmd_risk2"], want["riskvec2"])
    got = result.metrics(["rmd_risk1", "rmd_risk2", "rmd_wrisk1"], options={"rmd_k": 0.7})
    at_risk = table["rmd_risk1"] > 0
    assert 0 < at_risk.sum() < len(table)  # the check below can tell a wrong flag from a right one
    assert got["rmd_risk1"] == at_risk.mean()
    assert got["rmd_risk2"] == (table["rmd_risk2"] > 0).mean()
    assert got["rmd_wrisk1"] == pytest.approx(at_risk.sum() * table["rmd_risk1"].sum() / len(table), rel=1e-12)
    # a record at risk at level 2 is at risk at level 1, with the same index
    two = table["rmd_risk2"] > 0
    assert (table.loc[two, "rmd_risk1"] == table.loc[two, "rmd"]).all()


def test_linkage_pairs_are_record_linkages_table_and_give_rl_rate(frame, result):
    options = {"rl_distance": "euclidean", "rl_variables": ["a", 3]}
    pairs = result.linkage_pairs(options)
    x = frame[["a", "c"]].to_numpy()
    want = record_linkage(x, result.masked[["a", "c"]].to_numpy(), "euclidean")["matches"]
    pd.testing.assert_frame_equal(pairs, want)
    assert sorted(pairs["y_row"]) == list(range(1, len(frame) + 1))  # one-to-one
    assert result.metrics(["rl_rate"], options=options)["rl_rate"] == pairs["correct_match"].mean()


def test_tables_refuse_bad_options_in_api_terms(result):
    with pytest.raises(mabench.UserError, match=r'options=\{"rmd_k": 0.01\}'):
        result.risk({"rmd_k": -1})
    with pytest.raises(mabench.UserError, match="rl_distance"):
        result.linkage_pairs({"rl_distance": "cosine"})


def test_cli_writes_the_apis_tables_per_k(tmp_path, frame, capsys):
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    proc = main_in_process(capsys, "run", "mdav", str(data), "-k", "3,4", "--risk-out", str(tmp_path / "risk_{k}.csv"),
                           "--rl-pairs-out", str(tmp_path / "pairs_{k}.csv"), "--option", "rmd_k=0.7")
    assert proc.returncode == 0, proc.stderr
    for k in (3, 4):
        api = mabench.microaggregate(frame.reset_index(drop=True), k=k)
        risk = pd.read_csv(tmp_path / f"risk_{k}.csv")
        pd.testing.assert_frame_equal(risk, api.risk({"rmd_k": 0.7}).reset_index(drop=True), check_exact=True)
        pairs = pd.read_csv(tmp_path / f"pairs_{k}.csv")
        want = api.linkage_pairs()
        assert pairs[["x_row", "y_row", "correct_match", "n_best"]].equals(
            want[["x_row", "y_row", "correct_match", "n_best"]].reset_index(drop=True))
        np.testing.assert_array_equal(pairs["distance"], want["distance"])


@pytest.mark.parametrize("args,needle", [
    (["-k", "3,4", "--risk-out", "risk.csv"], "--risk-out 'risk.csv' with several k values must contain {k}"),
    (["-k", "3,4", "--rl-pairs-out", "p.csv"], "--rl-pairs-out 'p.csv' with several k values must contain {k}"),
    (["-k", "3", "--risk-out", "risk.csv", "--option", "rmd_k=-1"], "rmd_k=-1"),
    (["-k", "3", "--rl-pairs-out", "p.csv", "--option", "rl_variables=[9]"], "rl_variables entry 9"),
])
def test_cli_errors_are_one_line_and_write_nothing(tmp_path, frame, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    frame.to_csv("d.csv", index=False)
    proc = main_in_process(capsys, "run", "mdav", "d.csv", *args, "--out", "part.csv" if "3,4" not in args else "p{k}.csv")
    assert_user_error(proc, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_evaluate_writes_the_tables_run_writes(tmp_path, frame, capsys, monkeypatch):
    """`mabench evaluate DATA PARTITION --risk-out --rl-pairs-out` scores a given partition and writes
    the same bytes `mabench run` wrote for it, beside the same JSON metrics."""
    monkeypatch.chdir(tmp_path)
    frame.to_csv("d.csv", index=False)
    opts = ["--option", "rmd_k=0.7", "--metrics", "rmd_risk1,rl_rate"]
    ran = main_in_process(capsys, "run", "mdav", "d.csv", "-k", "3", "--out", "part.csv", "--risk-out", "risk_run.csv",
                          "--rl-pairs-out", "pairs_run.csv", *opts)
    assert ran.returncode == 0, ran.stderr
    ev = main_in_process(capsys, "evaluate", "d.csv", "part.csv", "-k", "3", "--risk-out", "risk_ev.csv",
                         "--rl-pairs-out", "pairs_ev.csv", "--json-out", "ev.json", *opts)
    assert ev.returncode == 0, ev.stderr
    assert (tmp_path / "risk_ev.csv").read_bytes() == (tmp_path / "risk_run.csv").read_bytes()
    assert (tmp_path / "pairs_ev.csv").read_bytes() == (tmp_path / "pairs_run.csv").read_bytes()
    assert len(pd.read_csv("risk_ev.csv")) == len(frame)
    import json

    run_record, ev_record = json.loads(ran.stdout), json.loads(ev.stdout)
    assert ev_record["rmd_risk1"] == run_record["rmd_risk1"] and ev_record["rl_rate"] == run_record["rl_rate"]


@pytest.mark.parametrize("args,needle", [
    (["--risk-out", "risk.csv", "--option", "rmd_k=-1"], "rmd_k=-1"),
    (["--rl-pairs-out", "pairs.csv", "--option", "rl_variables=[9]"], "rl_variables entry 9"),
    (["--risk-out", "part.csv"], "--risk-out 'part.csv' is the same file as partition 'part.csv'"),
    (["--rl-pairs-out", "d.csv"], "--rl-pairs-out 'd.csv' is the same file as data 'd.csv'"),
    (["--risk-out", "sub"], "--risk-out 'sub': it is a folder"),
    (["--risk-out", "d.csv/risk.csv"], "d.csv"),
])
def test_evaluate_table_errors_are_one_line_and_write_nothing(tmp_path, frame, capsys, monkeypatch, args, needle):
    monkeypatch.chdir(tmp_path)
    frame.to_csv("d.csv", index=False)
    (tmp_path / "sub").mkdir()
    labels = np.repeat(np.arange(30), 3)
    pd.DataFrame({"group": labels}).to_csv("part.csv", index=False)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    proc = main_in_process(capsys, "evaluate", "d.csv", "part.csv", "-k", "3", "--metrics", "il", *args,
                           "--json-out", "ev.json", "--rl-pairs-out" if "--rl-pairs-out" not in args else "--risk-out",
                           "other.csv")
    assert_user_error(proc, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "part.csv", "sub"]
    assert not any((tmp_path / "sub").iterdir())
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
