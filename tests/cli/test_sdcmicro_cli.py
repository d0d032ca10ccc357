"""The sdcMicro methods' error paths through the CLI: one line, exit status 2, nothing written."""

from __future__ import annotations

import numpy as np
import pytest

from support import assert_user_error


@pytest.fixture
def data_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the CLI runs in the data's folder
    x = np.random.default_rng(5).standard_normal((40, 3))
    np.savetxt(tmp_path / "d.csv", x, delimiter=",", header="a,b,c", comments="")
    return tmp_path / "d.csv"


@pytest.mark.parametrize("args,needles", [
    (["influence", "--param", "nc=0"], ["nc=0", "out of range", ">= 1"]),
    (["clustpca", "--param", "clustermethod=ward"], ["clustermethod", "clara, pam, kmeans"]),
    (["single", "--param", "varsort=9"], ["varsort=9", "1..3"]),
])
def test_bad_parameters_are_one_line(tmp_path, data_file, args, needles, cli_main):
    out = tmp_path / "p.csv"
    proc = cli_main("run", args[0], str(data_file), "-k", "3", *args[1:], "--out", str(out))
    assert_user_error(proc, *needles)
    assert not out.exists()


def test_per_variable_partition_round_trip_and_wrong_width(tmp_path, data_file, cli_main):
    out = tmp_path / "p.csv"
    proc = cli_main("run", "onedims", str(data_file), "-k", "3", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("group_1,group_2,group_3\n")
    proc = cli_main("evaluate", str(data_file), str(out), "-k", "3")
    assert proc.returncode == 0 and '"per_variable": true' in proc.stdout
    two = tmp_path / "two.csv"
    two.write_text("\n".join(",".join(line.split(",")[:2]) for line in out.read_text().splitlines()) + "\n")
    assert_user_error(cli_main("evaluate", str(data_file), str(two), "-k", "3"), "2 per-variable columns")
