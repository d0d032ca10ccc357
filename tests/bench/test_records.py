"""The bench's named records: a JobPlan read back from its JSON is the same plan, and a RunRecord's row
has the columns (and order) the results table has always had."""

from __future__ import annotations

import json

from mabench.bench import plan
from mabench.bench.records import JobPlan, RunRecord
from mabench.report import compare


def test_a_job_plan_round_trips_through_the_plans_file():
    built = plan.build({"k": [3, 4], "algorithms": {"mdav": {"algorithm": "mdav"}, "omma": {"algorithm": "omma"}},
                        "datasets": {"s": {"spec": "sim1[n=30,d=2]", "draws": 2}}})
    for name, text in json.loads(built.plans_text())["jobs"].items():
        job = JobPlan.from_dict(text)
        assert job.batch == name and job.as_dict() == text
        assert [run.as_dict() for run in job.runs] == text["runs"]


def test_a_run_record_row_keeps_the_results_columns_in_order():
    record = RunRecord("mdav", "", "sim1", "n=30", 3, 7, 30, 2, n_groups=10, min_group=3, max_group=3,
                       metrics={"il": 1.5, "dr": 0.2}, seconds=0.1, metric_seconds=0.2, cpu_seconds=0.3,
                       metric_cpu_seconds=0.4, threads=1, max_rss_mb=50.0, provenance={"code_hash": "abc"},
                       n_strata=2, per_variable=True, info={"rounds": 1})
    assert list(record.as_dict()) == [
        "algorithm", "params", "dataset", "dataset_params", "k", "seed", "n", "d", "n_groups", "min_group",
        "max_group", "il", "dr", "seconds", "metric_seconds", "cpu_seconds", "metric_cpu_seconds", "threads",
        "max_rss_mb", "code_hash", "n_strata", "per_variable", "info"]
    plain = RunRecord("mdav", "", "sim1", "", 3, 7, 30, 2, n_groups=10, min_group=3, max_group=3)
    assert not {"n_strata", "per_variable", "info"} & set(plain.as_dict())


def test_the_report_reads_the_record_s_key_and_run_columns():
    assert compare.KEY == list(RunRecord.KEY)
    assert compare.NOT_METRICS == set(RunRecord.KEY) | set(RunRecord.RUN) | {"dataset_id", "algo_id"}
    assert not {"il", "n_groups", "min_group", "max_group"} & compare.NOT_METRICS
