"""A statistical office's file as it is (issue 42): text and ID columns outside the selection,
missing values, sampling weights, 12 strata, SPSS/Stata/SAS/CSV in and the same format out."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError
from support import ROOT, assert_user_error, main_in_process

pyreadstat = pytest.importorskip("pyreadstat", reason="the formats extra (pyreadstat) is not installed")

VARIABLES = ["income", "expenditure", "savings"]
SAS_FIXTURE = ROOT / "tests" / "fixtures" / "formats" / "sample.sas7bdat"
LABELS = {"hh_id": "Household", "region": "Region", "income": "Net household income", "weight": "Sampling weight"}
VALUE_LABELS = {"sex_code": {1.0: "female", 2.0: "male"}}


def survey(n: int = 360, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "hh_id": [f"H{i:05d}" for i in range(n)],
        "region": rng.choice([f"R{i:02d}" for i in range(12)], n),
        "sex": rng.choice(["F", "M"], n),
        "sex_code": rng.choice([1.0, 2.0], n),
        "age": rng.integers(18, 90, n).astype(float),
        "income": rng.lognormal(10, 1, n),
        "expenditure": rng.lognormal(9.5, 0.8, n),
        "savings": rng.lognormal(8, 1.2, n),
        "weight": rng.uniform(50, 150, n),
    })
    frame.loc[rng.random(n) < 0.1, "income"] = np.nan
    frame.loc[rng.random(n) < 0.1, "savings"] = np.nan
    return frame


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("office")
    frame = survey()
    frame.to_csv(folder / "survey.csv", index=False)
    pyreadstat.write_sav(frame, str(folder / "survey.sav"), column_labels=LABELS, variable_value_labels=VALUE_LABELS)
    pyreadstat.write_dta(frame, str(folder / "survey.dta"), column_labels=LABELS, variable_value_labels=VALUE_LABELS)
    return folder, frame


def _api(frame):
    return mabench.microaggregate(frame, k=3, columns=VARIABLES, strata="region", weights="weight",
                                  missing="available")


def test_done_when_sav_in_sav_out(files, cli_main):
    """The issue's done-when command: every other column and every label unchanged, groups of at
    least 3 within each region, NA where the input had NA, the API's numbers."""
    folder, frame = files
    masked, part = folder / "masked.sav", folder / "part.csv"
    proc = cli_main("run", "mdav", str(folder / "survey.sav"), "-k", "3", "--columns", "income,expenditure,savings",
                    "--strata", "region", "--weights", "weight", "--missing", "available", "--masked-out", str(masked),
                    "--out", str(part))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["n_strata"] == 12 and record["min_group"] >= 3 and record["d"] == 3
    before, meta_before = pyreadstat.read_sav(str(folder / "survey.sav"))
    after, meta_after = pyreadstat.read_sav(str(masked))
    assert list(after.columns) == list(before.columns)
    for c in before.columns.difference(VARIABLES):
        assert after[c].equals(before[c]), c
    assert meta_after.column_labels == meta_before.column_labels
    assert meta_after.variable_value_labels == meta_before.variable_value_labels == VALUE_LABELS
    for c in VARIABLES:
        assert after[c].isna().equals(before[c].isna()), c
    labels = pd.read_csv(part)["group"].to_numpy()
    sizes = pd.Series(labels).value_counts()
    assert sizes.min() >= 3
    assert (frame.groupby(labels)["region"].nunique() == 1).all()
    api = _api(before)
    np.testing.assert_array_equal(after[VARIABLES].to_numpy(), api.masked[VARIABLES].to_numpy())
    assert api.metrics(["il"])["il"] == record["il"]
    # each group publishes the weighted mean of its observed values
    for g in np.unique(labels)[:20]:
        rows = labels == g
        for c in VARIABLES:
            seen = rows & before[c].notna().to_numpy()
            if seen.any():
                want = np.average(before[c][seen], weights=before["weight"][seen])
                np.testing.assert_allclose(after[c][seen].to_numpy(), want, rtol=1e-12)


def test_stata_and_csv_give_the_same_numbers(files, capsys):
    folder, frame = files
    api = _api(frame)
    for name, reader in (("survey.dta", pyreadstat.read_dta), ("survey.csv", None)):
        out = folder / ("m_" + name)
        proc = main_in_process(capsys, "run", "mdav", str(folder / name), "-k", "3", "--columns",
                               ",".join(VARIABLES), "--strata", "region", "--weights", "weight",
                               "--missing", "available", "--masked-out", str(out))
        assert proc.returncode == 0, proc.stderr
        if reader is None:
            written = pd.read_csv(out)
            assert written["hh_id"].tolist() == frame["hh_id"].tolist()
        else:
            written, meta = reader(str(out))
            assert meta.column_labels == pyreadstat.read_dta(str(folder / name))[1].column_labels
            assert meta.variable_value_labels == VALUE_LABELS
        assert list(written.columns) == list(frame.columns)
        np.testing.assert_allclose(written[VARIABLES].to_numpy(), api.masked[VARIABLES].to_numpy(), rtol=1e-13)
        assert written[VARIABLES].isna().equals(frame[VARIABLES].isna())


def test_sas_file_is_read_with_its_text_and_dates_passed_through(tmp_path, capsys, cli_main):
    """A SAS file written by SAS (pyreadstat cannot write one; provenance in tests/fixtures/formats)."""
    assert hashlib.sha256(SAS_FIXTURE.read_bytes()).hexdigest() == \
        "007425379a0504f5c54a7c0bb8f9776670a2456d3692f37907d38e080ac4b07b"
    original, _ = pyreadstat.read_sas7bdat(str(SAS_FIXTURE))
    out = tmp_path / "m.csv"
    proc = main_in_process(capsys, "run", "mdav", str(SAS_FIXTURE), "-k", "2", "--columns", "mynum,myord",
                           "--masked-out", str(out))
    assert proc.returncode == 0, proc.stderr
    written = pd.read_csv(out)
    assert list(written.columns) == list(original.columns)
    assert written["mychar"].tolist() == original["mychar"].tolist()
    api = mabench.microaggregate(original, k=2, columns=["mynum", "myord"])
    np.testing.assert_allclose(written[["mynum", "myord"]].to_numpy(), api.masked[["mynum", "myord"]].to_numpy(),
                               rtol=1e-15)
    assert_user_error(cli_main("run", "mdav", str(SAS_FIXTURE), "-k", "2", "--masked-out", str(tmp_path / "m.sas7bdat")),
                      "must end in .csv, .parquet, .sav, .zsav, .dta")


def test_text_columns_pass_through_without_a_selection(files, capsys):
    """No --columns: every numeric column is a variable, text columns are passed through."""
    folder, frame = files
    complete = frame.fillna({"income": 1.0, "savings": 2.0})
    path = folder / "complete.csv"
    complete.to_csv(path, index=False)
    out = folder / "complete_m.csv"
    proc = main_in_process(capsys, "run", "mdav", str(path), "-k", "3", "--strata", "region", "--masked-out", str(out))
    assert proc.returncode == 0, proc.stderr
    written = pd.read_csv(out)
    for c in ("hh_id", "region", "sex"):
        assert written[c].equals(complete[c])
    api = mabench.microaggregate(complete, k=3, strata="region")
    assert api.columns == ["sex_code", "age", "income", "expenditure", "savings", "weight"]
    np.testing.assert_allclose(written[api.columns].to_numpy(), api.masked[api.columns].to_numpy(), rtol=1e-13)


def test_columns_flag_and_bracket_form_agree(files, capsys):
    folder, frame = files
    path = folder / "complete2.csv"
    frame.fillna(0.0).to_csv(path, index=False)
    a = main_in_process(capsys, "run", "mdav", str(path), "-k", "3", "--columns", "income,savings")
    b = main_in_process(capsys, "run", "mdav", f"{path}[columns=income+savings]", "-k", "3")
    ra, rb = json.loads(a.stdout), json.loads(b.stdout)
    assert ra["il"] == rb["il"] and ra["dataset_params"] == rb["dataset_params"] == "columns=income+savings"
    assert_user_error(main_in_process(capsys, "run", "mdav", f"{path}[columns=income]", "-k", "3",
                                      "--columns", "savings"), "--columns and a [columns=...]")
    assert_user_error(main_in_process(capsys, "run", "mdav", str(path), "-k", "3", "--columns", "income,nope"),
                      "names no column 'nope'")
    assert_user_error(main_in_process(capsys, "run", "mdav", str(path), "-k", "3", "--columns", "income,region"),
                      "column 'region' is not numeric (row 1: 'R")
    assert_user_error(main_in_process(capsys, "run", "mdav", str(folder / "survey.csv"), "-k", "3",
                                      "--columns", "income,savings"), "is missing (NaN)")


def test_numbers_with_thousands_separators_are_never_published_raw(tmp_path, capsys):
    """F4: a "1,000"-style column is refused (API default selection, CLI default selection), an
    object-dtype numeric column is aggregated, duplicate column names are refused."""
    df = pd.DataFrame({"id": list("abcdef"), "income": ["1,000", "2,500", "1,200", "9,000", "8,800", "9,100"],
                       "age": [20.0, 22, 21, 60, 62, 61]})
    with pytest.raises(UserError, match=r"column 'income' holds numbers written with thousands separators \(row 1: "
                                         r"'1,000'\)"):
        mabench.microaggregate(df, k=3)
    assert mabench.microaggregate(df, k=3, columns=["age"]).masked["income"].equals(df["income"])
    path = tmp_path / "thou.csv"
    df.to_csv(path, index=False)
    assert_user_error(main_in_process(capsys, "run", "mdav", str(path), "-k", "3"), "thousands separators")
    with pytest.raises(UserError, match="thousands separators"):
        mabench.microaggregate(path, k=3)
    objects = df.assign(income=pd.Series([1000.0, 2500, 1200, 9000, 8800, 9100], dtype=object))
    r = mabench.microaggregate(objects, k=3)
    assert r.columns == ["income", "age"] and r.masked["income"].nunique() == 2
    dup = pd.DataFrame(np.arange(18.0).reshape(6, 3), columns=["a", "a", "b"])
    for columns in (None, ["b"]):
        with pytest.raises(UserError, match="column name 'a' appears twice"):
            mabench.microaggregate(dup, k=3, columns=columns)


def test_prepared_file_keeps_its_table_for_the_workflow(files, capsys):
    """The workflow runs on `mabench prepare`'s Parquet copy: text strata, weights and NA survive it,
    and the run gives the numbers of the file itself, under the file's name."""
    folder, frame = files
    prepared = folder / "prepared.parquet"
    proc = main_in_process(capsys, "prepare", f"{folder / 'survey.sav'}[columns=income+expenditure+savings]",
                           "--out", str(prepared))
    assert proc.returncode == 0, proc.stderr
    args = ["-k", "3", "--strata", "region", "--weights", "weight", "--missing", "available"]
    on_copy = main_in_process(capsys, "run", "mdav", str(prepared), *args, "--masked-out", str(folder / "c.csv"))
    direct = main_in_process(capsys, "run", "mdav", str(folder / "survey.sav"), "--columns", ",".join(VARIABLES), *args)
    a, b = json.loads(on_copy.stdout), json.loads(direct.stdout)
    for key in ("dataset", "dataset_params", "params", "il", "n_groups", "n_strata"):
        assert a[key] == b[key], key
    written = pd.read_csv(folder / "c.csv")
    assert written["hh_id"].tolist() == frame["hh_id"].tolist()
    assert written[VARIABLES].isna().equals(frame[VARIABLES].isna())
    refused = main_in_process(capsys, "run", "mdav", str(prepared), "-k", "3")
    assert_user_error(refused, "is missing (NaN)")


def test_workflow_config_takes_a_file_with_columns_and_text_strata(files):
    """Workflow: `spec` a file with text columns and NA, `columns:` the variables, the algorithm's
    params naming a text stratum, the weights and missing=available; the plan prepares the file with
    its selection (then test_prepared_file_keeps_its_table_for_the_workflow's path)."""
    from mabench.bench import config, plan

    folder, _ = files
    cfg = config.load()
    cfg["datasets"] = {"survey": {"spec": str(folder / "survey.sav"), "columns": VARIABLES, "k": [3]},
                       "bracket": {"spec": f"{folder / 'survey.csv'}[drop=hh_id+age]", "k": [3]}}
    cfg["algorithms"] = {"mdav_na": {"algorithm": "mdav", "params": {"strata": "region", "sampling_weights": "weight",
                                                                     "missing": "available"}}}
    built = plan.build(config.with_defaults(cfg))
    survey = built.datasets["survey"]
    assert survey.kind == "file" and survey.file == str(folder / "survey.sav") and survey.n == 360
    assert survey.spec == f"{folder / 'survey.sav'}[columns=income+expenditure+savings]"
    assert built.datasets["bracket"].kind == "file"
    inputs, args = built.prepare_fixed()
    assert str(folder / "survey.sav") in inputs and survey.spec in args


@pytest.mark.parametrize("method", ["mdav", "onedims"])
def test_workflow_batch_with_missing_values_gives_the_apis_numbers(files, capsys, tmp_path, method):
    """The workflow's path for the done-when file: `mabench prepare`'s copy of survey.sav with its
    selection, then the batch that runs the cells (run_batch, what the Snakefile calls), with strata,
    weights and missing=available: the API's and the CLI's numbers."""
    from mabench.bench.batch import run_batch

    folder, frame = files
    api = mabench.microaggregate(frame, k=3, method=method, columns=VARIABLES, strata="region", weights="weight",
                                 missing="available")
    prepared = tmp_path / "survey.parquet"
    proc = main_in_process(capsys, "prepare", f"{folder / 'survey.sav'}[columns=income+expenditure+savings]",
                           "--out", str(prepared))
    assert proc.returncode == 0, proc.stderr
    cli = main_in_process(capsys, "run", method, str(folder / "survey.sav"), "-k", "3", "--columns",
                          ",".join(VARIABLES), "--strata", "region", "--weights", "weight", "--missing", "available",
                          "--metrics", "il,dld,id")
    assert cli.returncode == 0, cli.stderr
    record = json.loads(cli.stdout)
    params = {"strata": "region", "sampling_weights": "weight", "missing": "available"}
    run_batch(method, params, [(0, str(prepared))], [3], ("il", "dld", "id"), str(tmp_path / "cells"))
    cell = json.loads((tmp_path / "cells" / "seed0" / "k3.json").read_text())
    want = api.metrics(["il", "dld", "id"])
    for name in ("il", "dld", "id"):
        assert cell[name] == record[name] == want[name], name
    assert cell["n_groups"] == record["n_groups"] and cell["n_strata"] == record["n_strata"] == 12
    assert api.masked[VARIABLES].isna().equals(frame[VARIABLES].isna())
