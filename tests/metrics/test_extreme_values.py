"""Metrics on extreme magnitudes (issue 17): on data spanning 1e-300..1e300 or holding subnormals,
every metric is either correct (il: equal to the value on the rescaled data) or refused with one
line; never a traceback, a NaN, a RuntimeWarning or a silent 0.0 / 100.0."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from mabench import cli

METRICS = ["il_raw", "g_il", "m1", "m2", "m3", "m4", "m5", "il1s", "dld", "id"]


def _files(folder):
    x = np.random.default_rng(5).normal(size=(30, 3))
    pd.DataFrame({"a": x[:, 0] * 1e300, "b": x[:, 1] * 1e-300, "c": x[:, 2]}).to_csv(folder / "span.csv", index=False)
    pd.DataFrame({"a": np.round(x[:, 0] * 100) * 5e-324, "b": x[:, 1], "c": x[:, 2]}).to_csv(folder / "sub.csv", index=False)
    pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2]}).to_csv(folder / "scaled.csv", index=False)
    pd.DataFrame({"a": np.round(x[:, 0] * 100), "b": x[:, 1], "c": x[:, 2]}).to_csv(folder / "sub_scaled.csv", index=False)


def _run(capsys, *args):
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("name", ["span", "sub"])
@pytest.mark.parametrize("metric", METRICS)
def test_raw_scale_metrics_are_refused_on_extreme_data(tmp_path, monkeypatch, capsys, name, metric):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    status, out, err = _run(capsys, "run", "mdav", f"{name}.csv", "-k", "3", "--metrics", f"il,{metric}")
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert f"metric {metric} works in the data's own units" in err and "rescale" in err


@pytest.mark.parametrize("name, scaled", [("span", "scaled"), ("sub", "sub_scaled")])
def test_il_is_correct_on_extreme_data(tmp_path, monkeypatch, capsys, name, scaled):
    monkeypatch.chdir(tmp_path)
    _files(tmp_path)
    status, out, err = _run(capsys, "run", "mdav", f"{name}.csv", "-k", "3", "--out", "p.csv")
    assert status == 0 and err == "", err
    got = json.loads(out)["il"]
    ref = json.loads(_run(capsys, "run", "mdav", f"{scaled}.csv", "-k", "3")[1])["il"]
    assert 0 < got < 100 and got == pytest.approx(ref, rel=1e-9)
    status, out, err = _run(capsys, "evaluate", f"{name}.csv", "p.csv")  # every metric by default: refused
    assert status == 2 and "rescale" in err and len(err.splitlines()) == 1, err
    status, out, err = _run(capsys, "evaluate", f"{name}.csv", "p.csv", "--metrics", "il")
    assert status == 0 and json.loads(out)["il"] == pytest.approx(ref, rel=1e-9)
