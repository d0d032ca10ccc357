"""F13: a weighted, stratified or non-mean result is re-scored as published: mabench.evaluate(...,
measure=, weights=, strata=) and `mabench evaluate --measure/--weights/--strata` give the numbers of
Result.metrics(); Result.metrics(options=...) takes Python options and speaks Python in its messages."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError
from support import assert_user_error, main_in_process


def _frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(60, 3)), columns=list("abc"))
    df["w"] = rng.uniform(1, 3, 60)
    df["region"] = np.repeat(["north", "south"], 30)
    return df


@pytest.mark.parametrize("method", ["mdav", "onedims"])
def test_evaluate_scores_what_was_published(method):
    df = _frame()
    run = mabench.microaggregate(df, k=3, method=method, weights="w", strata="region", measure="median")
    scored = mabench.evaluate(df, run.labels, k=3, metrics=["il", "dld"], weights="w", strata="region",
                              measure="median")
    assert scored == run.metrics(["il", "dld"])
    plain = mabench.evaluate(df.drop(columns=["w"]), run.labels, k=3, metrics=["il"])
    assert plain["il"] < scored["il"]  # the group means score lower than the medians published


def test_evaluate_refuses_a_group_across_strata():
    df = _frame()
    labels = np.arange(60) // 3
    labels[29], labels[30] = labels[30], labels[29]
    with pytest.raises(UserError, match="spans several strata"):
        mabench.evaluate(df, labels, strata="region", weights="w")


def test_cli_evaluate_flags(tmp_path, capsys):
    df = _frame()
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    part = tmp_path / "p.csv"
    run = main_in_process(capsys, "run", "mdav", str(path), "-k", "3", "--weights", "w", "--strata", "region",
                          "--measure", "median", "--metrics", "il,dld", "--out", str(part))
    assert run.returncode == 0, run.stderr
    ev = main_in_process(capsys, "evaluate", str(path), str(part), "-k", "3", "--weights", "w", "--strata", "region",
                         "--measure", "median", "--metrics", "il,dld")
    assert ev.returncode == 0, ev.stderr
    a, b = json.loads(run.stdout), json.loads(ev.stdout)
    assert (a["il"], a["dld"]) == (b["il"], b["dld"])
    assert_user_error(main_in_process(capsys, "evaluate", str(path), str(part), "--measure", "mode"),
                      "measure='mode' is not allowed")


def test_metrics_options_in_python_terms():
    df = _frame()
    r = mabench.microaggregate(df, k=3, columns=["a", "b", "c"])
    with pytest.raises(UserError) as err:
        r.metrics(["rld"])
    assert 'options={"key_variables": [1,2,5]}' in str(err.value) and "--option" not in str(err.value)
    with_keys = r.metrics(["rld"], options={"key_variables": [1, 2]})
    assert with_keys == mabench.evaluate(df, r.labels, metrics="rld", columns=["a", "b", "c"], key_variables=[1, 2])
