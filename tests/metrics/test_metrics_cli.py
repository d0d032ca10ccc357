"""Metric error paths through the CLI: exit status 2, exactly one stderr line, no traceback."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from support import assert_user_error



@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("metrics_cli")
    rng = np.random.default_rng(5)
    data = tmp / "toy.csv"
    pd.DataFrame(rng.normal(10, 2, (12, 3)), columns=["a", "b", "c"]).to_csv(data, index=False)
    good = tmp / "good.csv"
    pd.DataFrame({"group": np.repeat(np.arange(4), 3)}).to_csv(good, index=False)
    short = tmp / "short.csv"
    pd.DataFrame({"group": np.repeat(np.arange(3), 3)}).to_csv(short, index=False)
    small = tmp / "small.csv"
    pd.DataFrame({"group": [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 4]}).to_csv(small, index=False)
    text = tmp / "text.csv"
    text.write_text("group\n" + "\n".join(["0"] * 6 + ["a"] + ["1"] * 5) + "\n")
    frac = tmp / "frac.csv"
    frac.write_text("group\n" + "\n".join(["0"] * 6 + ["1.5"] + ["1"] * 5) + "\n")
    return {"data": str(data), "good": str(good), "short": str(short), "small": str(small),
            "text": str(text), "frac": str(frac)}




def test_good_call_prints_every_metric(files, cli_main):
    names = "il,m1,m2,m3,m4,m5,g_il,dld,rld,id,g_dr,si,sdid,il1s"
    proc = cli_main("evaluate", files["data"], files["good"], "-k", "3", "--metrics", names,
                    "--option", "key_variables=[\"a\",3]", "--option", "id_p=[5,10]")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert set(names.split(",")) <= set(record)


def test_partition_length_mismatch(files, cli_main):
    assert_user_error(cli_main("evaluate", files["data"], files["short"], "--metrics", "dld"), "9 labels", "12 records")


def test_group_smaller_than_k(files, cli_main):
    assert_user_error(cli_main("evaluate", files["data"], files["small"], "-k", "3", "--metrics", "id"), "k=3")


@pytest.mark.parametrize("which", ["text", "frac"])
def test_labels_not_integers(files, which, cli_main):
    assert_user_error(cli_main("evaluate", files["data"], files[which], "--metrics", "g_il"), "integers")


def test_unknown_metric(files, cli_main):
    assert_user_error(cli_main("evaluate", files["data"], files["good"], "--metrics", "g_il,dlr"), "unknown metric 'dlr'")


BAD = [
    (["--metrics", "rld", "--option", "key_variables=[\"nope\"]"], "'nope' is not a column"),
    (["--metrics", "rld", "--option", "key_variables=[4]"], "out of range"),
    (["--metrics", "rld"], "needs key variables"),
    (["--metrics", "rld", "--option", "key_variables=all", "--option", "rld_mode=rerun"], "mabench run"),
    (["--metrics", "rld", "--option", "key_variables_rule=fewest_repeats", "--option", "n_key_variables=0"],
     "n_key_variables"),
    (["--metrics", "dld", "--option", "linkage_ties=maybe"], "linkage_ties"),
    (["--metrics", "id", "--option", "id_p=[0,200]"], "id_p"),
    (["--metrics", "si", "--option", "key_variables=all", "--option", "si_x=1.5"], "si_x"),
    (["--metrics", "sdid", "--option", "sdid_p=-0.1"], "sdid_p"),
]


@pytest.mark.parametrize("args,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_options(files, args, needle, cli_main):
    assert_user_error(cli_main("evaluate", files["data"], files["good"], "-k", "3", *args), needle)


def test_rerun_rld_works_under_run_and_key_variables_override_the_catalog(cli_main):
    proc = cli_main("run", "cbfs", "census", "-k", "5", "--param", "tail=group", "--metrics", "rld",
                    "--option", "rld_mode=rerun", "--option", "key_variables=[1,2]")
    assert proc.returncode == 0, proc.stderr
    assert 0 < json.loads(proc.stdout)["rld"] <= 100
