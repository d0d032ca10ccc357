"""`mabench run --masked-out` and the aggregation options on the command line; the one-line message
for a missing optional extra."""

from __future__ import annotations

import io as stdio
import json
import sys

import numpy as np
import pandas as pd
import pytest

import mabench
from support import assert_user_error


def _data(tmp_path, n=30):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"region": np.arange(n) % 2, "w": rng.integers(1, 5, size=n).astype(float),
                          "a": rng.normal(size=n), "b": rng.lognormal(size=n) * 1000})
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_masked_csv_is_the_apis_masked_frame(tmp_path, cli_main):
    proc = cli_main("run", "mdav", "tarragona", "-k", "3,5", "--masked-out", str(tmp_path / "m_k{k}.csv"),
                    "--out", str(tmp_path / "p_k{k}.csv"))
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 2
    for k in (3, 5):
        written = pd.read_csv(tmp_path / f"m_k{k}.csv")
        api = mabench.microaggregate("tarragona", k=k).masked
        assert list(written.columns) == list(api.columns)
        np.testing.assert_array_equal(written.to_numpy(), api.to_numpy())  # CSV keeps every digit
        labels = pd.read_csv(tmp_path / f"p_k{k}.csv")["group"].to_numpy()
        for g in np.unique(labels):  # one value per group and column
            assert (written[labels == g].nunique() == 1).all()


def test_masked_parquet(tmp_path, cli_main):
    target = tmp_path / "m.parquet"
    proc = cli_main("run", "mdav", "tarragona", "-k", "4", "--masked-out", str(target))
    assert proc.returncode == 0, proc.stderr
    written = pd.read_parquet(target)
    np.testing.assert_array_equal(written.to_numpy(), mabench.microaggregate("tarragona", k=4).masked.to_numpy())


def test_masked_out_refusals(tmp_path, cli_main):
    path, _ = _data(tmp_path)
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3,4", "--masked-out", str(tmp_path / "m.csv")),
                      "with several k values must contain {k}")
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--masked-out", str(path)),
                      "is the same file as data", "would replace your input")
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--masked-out", str(tmp_path / "m.txt")),
                      "must end in .csv, .parquet, .sav, .zsav, .dta")
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--out", str(tmp_path / "m.csv"),
                               "--masked-out", str(tmp_path / "m.csv")), "is given for two outputs")
    # a failing run leaves no file behind
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3,40", "--masked-out", str(tmp_path / "m{k}.csv")),
                      "fewer than k=40")
    assert not list(tmp_path.glob("m*"))


def test_measure_weights_strata_flags(tmp_path, cli_main):
    path, frame = _data(tmp_path)
    out = tmp_path / "m.csv"
    proc = cli_main("run", "mdav", str(path), "-k", "3", "--measure", "median", "--weights", "w", "--strata", "region",
                    "--masked-out", str(out), "--metrics", "il,g_il")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["params"] == "measure=median,sampling_weights=w,strata=region,tail=3k"
    assert record["n_strata"] == 2 and record["d"] == 2
    api = mabench.microaggregate(frame, k=3, measure="median", weights="w", strata="region")
    written = pd.read_csv(out)
    assert written["region"].equals(frame["region"])  # read back as integers, as in the input
    np.testing.assert_array_equal(written["w"], frame["w"])
    np.testing.assert_array_equal(written.to_numpy(), api.masked.to_numpy())
    assert api.metrics(["il", "g_il"]) == {"il": record["il"], "g_il": record["g_il"]}
    # --param is the same as the shortcut flags
    same = cli_main("run", "mdav", str(path), "-k", "3", "--param", "measure=median", "--param", "sampling_weights=w",
                    "--param", "strata=region", "--metrics", "il,g_il")
    assert json.loads(same.stdout)["il"] == record["il"]
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--measure", "mean", "--param", "measure=median"),
                      "--measure and --param measure= both given")
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "16", "--strata", "region"),
                      "stratum region=0 has 15 records, fewer than k=16")
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--measure", "mode"),
                      "measure='mode' is not allowed")


@pytest.mark.parametrize("command,module", [("figures", "seaborn"), ("report", "matplotlib")])
def test_missing_report_extra_is_one_line(monkeypatch, tmp_path, command, module):
    from mabench import cli

    monkeypatch.setitem(sys.modules, module, None)  # as if the extra were not installed
    err = stdio.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    status = cli.main([command, "--results", str(tmp_path / "r.parquet"), "--out-dir", str(tmp_path / "o")])
    assert status == 2
    assert err.getvalue() == f"mabench: error: mabench {command} needs the report extra: pip install 'mabench[report]'\n"
    assert not (tmp_path / "o").exists()


def test_require_extra_names_the_workflow_extra(monkeypatch):
    from mabench.cli.common import require_extra
    from mabench.errors import UserError

    monkeypatch.setitem(sys.modules, "snakemake", None)
    with pytest.raises(UserError, match=r"^mabench workflow needs the workflow extra: pip install 'mabench\[workflow\]'$"):
        require_extra("workflow", "workflow")


def test_text_strata_column_in_a_file(tmp_path, cli_main):
    """A file's text column can define the strata (kept aside, written back in its place); without
    strata it is passed through unchanged, like every column that is not a variable."""
    _, frame = _data(tmp_path)
    frame = frame.assign(region=np.where(frame.region == 0, "north", "south"))[["a", "region", "b", "w"]]
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "m.csv"
    proc = cli_main("run", "mdav", str(path), "-k", "3", "--strata", "region", "--masked-out", str(out))
    assert proc.returncode == 0, proc.stderr
    written = pd.read_csv(out)
    assert list(written.columns) == ["a", "region", "b", "w"]
    assert written["region"].equals(frame["region"])
    api = mabench.microaggregate(frame, k=3, strata="region", columns=["a", "b", "w"])
    np.testing.assert_array_equal(written[["a", "b", "w"]].to_numpy(), api.masked[["a", "b", "w"]].to_numpy())
    plain = tmp_path / "p.csv"
    proc = cli_main("run", "mdav", str(path), "-k", "3", "--masked-out", str(plain))
    assert proc.returncode == 0, proc.stderr
    written = pd.read_csv(plain)
    assert written["region"].equals(frame["region"])
    api = mabench.microaggregate(frame, k=3)
    np.testing.assert_array_equal(written[["a", "b", "w"]].to_numpy(), api.masked[["a", "b", "w"]].to_numpy())
    assert_user_error(cli_main("run", "mdav", str(path), "-k", "3", "--columns", "a,region"),
                      "column 'region' is not numeric (row 1: 'north')")
