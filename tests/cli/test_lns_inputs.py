"""lns's data-sized and k-dependent inputs (issue 40, F9 and F10): a start partition file reaches the
real run but never the warm-up's tiny problem, and the default region never refuses a k the user
asked for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from support import assert_user_error, main_in_process as main
from mabench import api
from mabench.errors import UserError


@pytest.fixture
def work(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    pd.DataFrame(rng.standard_normal((40, 2)), columns=["a", "b"]).to_csv(tmp_path / "d.csv", index=False)
    pd.DataFrame({"group": np.arange(40) // 4}).to_csv(tmp_path / "start.csv", index=False)
    pd.DataFrame({"group": np.arange(30) // 3}).to_csv(tmp_path / "short.csv", index=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_start_file_of_the_data_sets_length_works_in_the_cli(work, capsys):
    proc = main(capsys, "run", "lns", "d.csv", "-k", "3", "--param", "start=start.csv", "--out", "p.csv")
    assert proc.returncode == 0, proc.stderr
    labels = pd.read_csv(work / "p.csv")["group"].to_numpy()
    assert len(labels) == 40 and np.bincount(labels).min() >= 3


def test_a_start_file_of_the_data_sets_length_works_in_the_api(work):
    frame = pd.read_csv(work / "d.csv")
    got = api.microaggregate(frame, 3, "lns", start=str(work / "start.csv"))
    assert got.labels.shape == (40,) and np.bincount(got.labels).min() >= 3
    assert got.info["il_init"] > 0  # started from the file's groups of 4, not from MDAV
    plain = api.microaggregate(frame, 3, "lns")
    assert got.info["il_init"] != plain.info["il_init"]


def test_a_start_file_of_another_length_is_one_line(work, capsys):
    assert_user_error(main(capsys, "run", "lns", "d.csv", "-k", "3", "--param", "start=short.csv"),
                      "has 30 labels but the data set has 40 records")
    with pytest.raises(UserError, match="has 30 labels but the data set has 40 records"):
        api.microaggregate(pd.read_csv(work / "d.csv"), 3, "lns", start=str(work / "short.csv"))


def test_the_default_region_does_not_refuse_a_large_k(work, capsys):
    proc = main(capsys, "run", "lns", "d.csv", "-k", "12", "--out", "p.csv")
    assert proc.returncode == 0, proc.stderr
    assert np.bincount(pd.read_csv(work / "p.csv")["group"]).min() >= 12


@pytest.mark.parametrize("k, region, needle", [
    (12, 22, "lns region=22 (your setting) must lie in [2k, 22] = [24, 22] for k=12; no region holds two groups"),
    (5, 8, "lns region=8 (your setting) must lie in [2k, 16] = [10, 16] for k=5; give one in that range or drop region="),
])
def test_a_region_the_user_set_that_cannot_work_is_one_line_naming_it(work, capsys, k, region, needle):
    assert_user_error(main(capsys, "run", "lns", "d.csv", "-k", k, "--param", f"region={region}"), needle)
