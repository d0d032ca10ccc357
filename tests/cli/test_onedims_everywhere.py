"""Done-when of issue 42: onedims (individual ranking) with strata and with weights runs in the
API, the CLI and the workflow (its plan, `mabench prepare`'s copy and the batch that runs the
cells), with the same numbers in all three."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import mabench
from support import main_in_process

VARIABLES = ["income", "expenditure", "savings"]


@pytest.fixture(scope="module")
def survey(tmp_path_factory):
    folder = tmp_path_factory.mktemp("onedims")
    rng = np.random.default_rng(3)
    n = 240
    frame = pd.DataFrame({
        "hh_id": [f"H{i:04d}" for i in range(n)],
        "region": np.repeat([f"R{i:02d}" for i in range(12)], n // 12),
        "income": rng.lognormal(10, 1, n),
        "expenditure": rng.lognormal(9.5, 0.8, n),
        "savings": rng.lognormal(8, 1.2, n),
        "weight": rng.uniform(50, 150, n),
    })
    frame.to_csv(folder / "survey.csv", index=False)
    return folder, frame


@pytest.mark.parametrize("aggregation", [["--strata", "region"], ["--weights", "weight"],
                                         ["--strata", "region", "--weights", "weight"]])
def test_cli_and_workflow_batch_give_the_apis_onedims(survey, capsys, tmp_path, aggregation):
    from mabench.bench.batch import run_batch

    folder, frame = survey
    given = dict(zip(aggregation[::2], aggregation[1::2]))
    api = mabench.microaggregate(frame, k=3, method="onedims", columns=VARIABLES,
                                 strata=given.get("--strata"), weights=given.get("--weights"))
    assert api.labels.shape == (len(frame), 3)
    if "--strata" in given:  # each variable's groups lie within one region
        for j in range(3):
            assert (frame.groupby(api.labels[:, j])["region"].nunique() == 1).all()

    masked = tmp_path / "m.csv"
    proc = main_in_process(capsys, "run", "onedims", str(folder / "survey.csv"), "-k", "3", "--columns",
                           ",".join(VARIABLES), *aggregation, "--masked-out", str(masked))
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["il"] == api.metrics(["il"])["il"]
    written = pd.read_csv(masked)
    np.testing.assert_array_equal(written[VARIABLES].to_numpy(), api.masked[VARIABLES].to_numpy())
    assert written["hh_id"].equals(frame["hh_id"]) and written["region"].equals(frame["region"])

    prepared = tmp_path / "survey.parquet"
    proc = main_in_process(capsys, "prepare", f"{folder / 'survey.csv'}[columns=income+expenditure+savings]",
                           "--out", str(prepared))
    assert proc.returncode == 0, proc.stderr
    params = {{"--strata": "strata", "--weights": "sampling_weights"}[flag]: value for flag, value in given.items()}
    run_batch("onedims", params, [(0, str(prepared))], [3], ("il",), str(tmp_path / "cells"))
    cell = json.loads((tmp_path / "cells" / "seed0" / "k3.json").read_text())
    assert cell["il"] == record["il"] and cell["n_groups"] == record["n_groups"]


def test_the_workflow_plan_takes_onedims_with_strata_and_weights(survey):
    from mabench.bench import config, plan

    folder, _ = survey
    cfg = config.load()
    cfg["datasets"] = {"survey": {"spec": str(folder / "survey.csv"), "columns": VARIABLES, "k": [3]}}
    cfg["algorithms"] = {"onedims_sw": {"algorithm": "onedims",
                                        "params": {"strata": "region", "sampling_weights": "weight"}}}
    built = plan.build(config.with_defaults(cfg))
    assert built.datasets["survey"].kind == "file"
