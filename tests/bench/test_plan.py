"""The plan of a configuration (mabench/bench/plan.py): one source for the workflow and `mabench regress`."""

from __future__ import annotations

import doctest

import pytest

from mabench.bench import config, plan
from mabench.errors import UserError


@pytest.fixture(scope="module")
def default_plan():
    return plan.build(config.load())


def test_doctests():
    assert doctest.testmod(plan).failed == 0


def test_jobs_partition_the_cells(default_plan):
    cells = default_plan.cells
    assert len(cells) == len(set(cells))
    in_jobs = [c for job in default_plan.jobs for c in job.cells]
    assert sorted(in_jobs) == sorted(cells)
    size = default_plan.config["algorithms_per_job"]
    assert all(1 <= len(ids) <= size for job in default_plan.jobs for _, ids in job.groups)


def test_cells_respect_the_algorithms_k_lists(default_plan):
    for cell in default_plan.cells:
        ds_id, algo_id, seed, k = cell.split("/")
        only = default_plan.algorithms[algo_id].only_k
        assert only is None or int(k[1:]) in only
        assert int(k[1:]) in default_plan.datasets[ds_id].k


def test_randomized_methods_get_several_seeds_on_fixed_data(default_plan):
    omma = default_plan.algorithms["omma"]
    assert len(omma.fixed_seeds) == 5 and len(set(omma.fixed_seeds)) == 5
    assert default_plan.algorithms["mdav"].fixed_seeds == [0]
    assert default_plan.batch_seeds("tarragona", "omma") == omma.fixed_seeds


def test_job_plan_is_what_batch_runs(default_plan):
    for job in (default_plan.jobs[0], next(j for j in default_plan.jobs if len(j.dataset_ids) > 1)):
        spec = default_plan.job_plan(job)
        assert spec.batch == job.name
        wanted = [(ds_id, a) for ds_id, ids in job.groups for a in ids]
        got = [tuple(r.cells_dir.split("/")[-2:]) for r in spec.runs]
        assert sorted(got) == sorted(wanted) and len(got) == len(wanted)
        for run, (ds_id, _) in zip(spec.runs, got):
            assert run.metrics == default_plan.datasets[ds_id].metrics
            for seed, path in run.draws:
                assert path == default_plan.data_file(ds_id, seed)


def test_a_job_runs_its_heaviest_method_first_and_each_method_in_configuration_order(default_plan):
    """The lead job must start on long runs, not on dozens of millisecond runs whose kernels the
    compile step has not reached yet (Plan.job_plan)."""
    lead = default_plan.lead_job()
    runs = default_plan.job_plan(lead).runs
    methods = list(dict.fromkeys(r.algorithm for r in runs))
    assert [r.algorithm for r in runs] == sorted((r.algorithm for r in runs), key=methods.index)  # grouped

    def work(method):
        return sum((default_plan.datasets[ds_id].n or 1) * len(default_plan.batch_seeds(ds_id, a))
                   * len(default_plan.algo_ks(ds_id, a))
                   for ds_id, ids in lead.groups for a in ids if default_plan.algorithms[a].algorithm == method)

    assert [work(m) for m in methods] == sorted((work(m) for m in methods), reverse=True)
    assert methods[0] == "omma"  # the default configuration's lead job: its O(n^2) method, minutes of work
    config_order = [(ds_id, a) for ds_id, ids in lead.groups for a in ids]
    for m in methods:
        mine = [tuple(r.cells_dir.split("/")[-2:]) for r in runs if r.algorithm == m]
        assert mine == [c for c in config_order if default_plan.algorithms[c[1]].algorithm == m]


def test_plans_file_holds_every_job_and_a_digest_moves_with_its_own_job_only():
    cfg = {"k": [3], "algorithms_per_job": 1, "records_per_job": 0,
           "algorithms": {"a": {"algorithm": "mdav"}, "b": {"algorithm": "mdav1"}},
           "datasets": {"tarragona": {"spec": "tarragona"}}}
    before = plan.build(cfg)
    assert set(before.job_plans()["jobs"]) == {job.name for job in before.jobs} and len(before.jobs) == 2
    after = plan.build({**cfg, "algorithms": {**cfg["algorithms"], "b": {"algorithm": "mdav1", "params": {}},
                                              }, "datasets": {"tarragona": {"spec": "tarragona", "k": [3, 4]}}})
    assert all(before.job_digest(j) != after.job_digest(j) for j in after.jobs)  # both jobs gained k=4
    only_b = plan.build({**cfg, "algorithms": {"a": {"algorithm": "mdav"},
                                               "b": {"algorithm": "mdav1", "params": {"index": "scan"}}}})
    assert before.job_digest(before.jobs[0]) == only_b.job_digest(only_b.jobs[0])
    assert before.job_digest(before.jobs[1]) != only_b.job_digest(only_b.jobs[1])
    assert before.job_digest() != only_b.job_digest()


def test_regression_batches_are_the_catalog_sets_only(default_plan):
    batches = list(default_plan.regression_batches())
    assert batches and all(default_plan.datasets[ds_id].kind == "fetched" for ds_id, *_ in batches)
    only = list(default_plan.regression_batches({"mdav"}))
    assert {b[2] for b in only} == {"mdav"}


def test_every_problem_is_reported_at_once():
    cfg = {"k": [3, 900], "metrics": ["il"], "root_seed": 1, "algorithm_seeds": 2, "algorithms_per_job": 8,
           "algorithms": {"a": {"algorithm": "mdav", "params": {"tail": "9k"}}, "b": {"algorithm": "nope"}},
           "datasets": {"t": {"spec": "tarragona", "algorithms": ["a", "zz"]},
                        "u": {"spec": "uniform[n=20]", "draws": 2}, "f": {"spec": "eia", "draws": 3}}}
    with pytest.raises(plan.ConfigError) as err:
        plan.build(cfg)
    text = "\n".join(err.value.problems)
    for needle in ("algorithms.a:", "algorithms.b:", "'zz' is not an id", "k=900 is larger", "datasets.f: draws=3"):
        assert needle in text, text
    assert isinstance(err.value, UserError) and "\n" not in str(err.value)


def test_load_config_refuses_what_is_not_a_configuration(tmp_path):
    (tmp_path / "scalar.yaml").write_text("3\n")
    (tmp_path / "bad.yaml").write_text("k: [3\n")
    with pytest.raises(UserError, match="not a workflow configuration"):
        config.load(tmp_path / "scalar.yaml")
    with pytest.raises(UserError, match="not valid YAML"):
        config.load(tmp_path / "bad.yaml")
    with pytest.raises(UserError, match="does not exist"):
        config.load(tmp_path / "missing.yaml")


def test_larger_jobs_come_first(default_plan):
    """Longest-processing-time order: the scheduler starts the jobs with the most records × cells first,
    and a data set is prepared as early as its first job would start."""
    jobs = default_plan.jobs
    work = {job.name: _work(default_plan, job) for job in jobs}
    for a in jobs:
        for b in jobs:
            if work[a.name] > 10 * work[b.name]:
                assert a.priority > b.priority, (a.name, b.name)
    big = max(jobs, key=lambda j: work[j.name])
    assert default_plan.prepare_priority(big.dataset_ids) == big.priority


def _work(plan_, job):
    return sum(plan_.datasets[c.split("/")[0]].n for c in job.cells)


def test_small_groups_are_packed_up_to_records_per_job(default_plan):
    """Groups below `records_per_job` records × cells share a job of at most that much work; the
    cells are the same as without packing, and so is every larger group's job."""
    cap = default_plan.config["records_per_job"]
    assert cap > 0
    unpacked = plan.build({**default_plan.config, "records_per_job": 0})
    assert sorted(default_plan.cells) == sorted(c for j in default_plan.jobs for c in j.cells)
    assert len(default_plan.jobs) < len(unpacked.jobs) / 2
    packs = [j for j in default_plan.jobs if j.name.startswith("packed/")]
    assert packs and all(_work(default_plan, j) <= cap for j in packs)
    alone = {j.name: j.cells for j in default_plan.jobs if not j.name.startswith("packed/")}
    assert all(_work(default_plan, j) >= cap for j in default_plan.jobs if j.name in alone)
    assert alone == {j.name: j.cells for j in unpacked.jobs if j.name in alone}
    again = plan.build(dict(default_plan.config))
    assert [(j.name, j.cells) for j in again.jobs] == [(j.name, j.cells) for j in default_plan.jobs]


def test_extends_lays_a_configuration_over_another(tmp_path):
    (tmp_path / "base.yaml").write_text(
        "k: [3]\nalgorithms: {a: {algorithm: mdav}, b: {algorithm: cbfs}}\n"
        "datasets: {t: {spec: tarragona}, e: {spec: eia, algorithms: [a]}}\n")
    (tmp_path / "more.yaml").write_text(
        "extends: base.yaml\nk: [3, 4]\nalgorithms: {c: {algorithm: md}}\n"
        "datasets: {e: {spec: eia, algorithms: [a, c]}, u: {spec: 'uniform[n=30]'}}\n")
    cfg = config.load(tmp_path / "more.yaml")
    assert "extends" not in cfg and cfg["k"] == [3, 4]
    assert list(cfg["algorithms"]) == ["a", "b", "c"]
    assert list(cfg["datasets"]) == ["t", "e", "u"] and cfg["datasets"]["e"]["algorithms"] == ["a", "c"]
    (tmp_path / "loop.yaml").write_text("extends: more.yaml\n")
    with pytest.raises(UserError, match="extends another file"):
        config.load(tmp_path / "loop.yaml")
    (tmp_path / "gone.yaml").write_text("extends: nope.yaml\n")
    with pytest.raises(UserError, match="does not exist"):
        config.load(tmp_path / "gone.yaml")


def test_jobs_of_one_size_class_start_in_configuration_order(default_plan):
    """Every job has its own priority: Snakemake would start equal priorities in any order, so the
    default configuration's first pack (its longest job) could start last."""
    jobs = default_plan.jobs
    assert len({job.priority for job in jobs}) == len(jobs)
    classes = {job.name: plan._priority(_work(default_plan, job)) for job in jobs}
    for i, a in enumerate(jobs):
        for b in jobs[i + 1:]:
            if classes[a.name] == classes[b.name]:
                assert a.priority > b.priority, (a.name, b.name)


def test_the_lead_job_is_the_longest_and_the_compile_step_takes_its_runs_first_in_its_order(default_plan):
    lead = default_plan.lead_job()
    assert lead.name == "packed/part0"  # the real data sets' search cells: the longest job
    assert lead.priority == max(job.priority for job in default_plan.jobs)
    runs = default_plan.compile_runs()
    own = default_plan.job_plan(lead).as_dict()["runs"]
    others = [run for job in default_plan.jobs if job is not lead for run in default_plan.job_plan(job).as_dict()["runs"]]
    assert runs == own + others
    assert len(runs) == sum(len(default_plan.job_plan(job).runs) for job in default_plan.jobs)


def test_a_single_job_has_no_lead_and_waits_for_the_compile_step():
    one = plan.build({"k": [3], "algorithms": {"mdav": {"algorithm": "mdav"}},
                      "datasets": {"tarragona": {"spec": "tarragona"}}})
    assert len(one.jobs) == 1 and one.lead_job() is None
    assert one.compile_runs() == one.job_plan(one.jobs[0]).as_dict()["runs"]


GENERATED = {"algorithms": {"mdav": {"algorithm": "mdav"}}, "datasets": {"s": {"spec": "sim1[n=30,d=2]", "draws": 2}}}


def test_the_schema_is_the_one_source_of_defaults(tmp_path):
    """A configuration that leaves a key out gets the schema's default, whether it is loaded from a
    file (`mabench compile`, `regress`) or handed to plan.build as it is (the API, the workflow)."""
    import yaml

    defaults = {key: spec["default"] for key, spec in config.schema()["properties"].items() if "default" in spec}
    assert defaults["root_seed"] == 20261122
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(GENERATED))
    loaded = config.load(tmp_path / "c.yaml")
    assert {key: loaded[key] for key in defaults} == defaults
    assert loaded["algorithms"]["mdav"]["params"] == {} and loaded["algorithms"]["mdav"]["on_every_dataset"] is True
    explicit = plan.build({**GENERATED, "root_seed": 20261122})
    assert plan.build(GENERATED).datasets["s"].seeds == plan.build(loaded).datasets["s"].seeds \
        == explicit.datasets["s"].seeds
    assert plan.build({**GENERATED, "root_seed": 0}).datasets["s"].seeds != explicit.datasets["s"].seeds


def test_filling_defaults_leaves_the_given_configuration_alone():
    given = {"algorithms": {"mdav": {"algorithm": "mdav"}}, "datasets": {"t": {"spec": "tarragona"}}}
    filled = config.with_defaults(given)
    assert "root_seed" not in given and "params" not in given["algorithms"]["mdav"]
    assert filled["root_seed"] == 20261122 and filled["datasets"]["t"]["draws"] == 1


def _on_file(tmp_path, params=None, metrics=None, k=(3,)):
    """A configuration of one mdav id on a small user CSV: a measurement `a` (every value once),
    a category `reg` (two strata of 10) and weights `w`."""
    path = tmp_path / "survey.csv"
    path.write_text("a,b,reg,w\n" + "".join(f"{i * 1.5},{i % 7},{i % 2},{1 + i % 3}\n" for i in range(20)))
    cfg = {"k": list(k), "algorithms": {"m": {"algorithm": "mdav", "params": params or {}}},
           "datasets": {"survey": {"spec": str(path)}}}
    if metrics:
        cfg["metrics"] = metrics
    return cfg


@pytest.mark.parametrize("params, metrics, k, needles", [
    ({"sampling_weights": "nope"}, None, (3,),
     ["datasets.survey with algorithms.m", "sampling-weights column 'nope'", "fix the column name"]),
    ({"strata": "nope"}, None, (3,), ["datasets.survey with algorithms.m", "strata column 'nope'"]),
    ({"strata": "a"}, None, (3,), ["strata=a makes 20 strata", "1 record(s), fewer than k=3", "lower k"]),
    ({"strata": "reg"}, None, (3, 11), ["strata=reg makes 2 strata", "10 record(s), fewer than k=11"]),
    ({}, ["il", "rld"], (3,), ["datasets.survey: metric rld needs key variables", "remove rld"]),
], ids=["weights-missing", "strata-missing", "strata-continuous", "strata-below-k", "rld-on-a-file"])
def test_what_a_file_data_set_cannot_give_is_refused_by_the_plan(tmp_path, params, metrics, k, needles):
    with pytest.raises(UserError) as err:
        plan.build(_on_file(tmp_path, params, metrics, k))
    message = str(err.value)
    assert "\n" not in message and all(n in message for n in needles), message


def test_a_file_that_has_the_weights_and_strata_passes(tmp_path):
    built = plan.build(_on_file(tmp_path, {"strata": "reg", "sampling_weights": "w"}, ["il"], (3, 10)))
    assert len(built.cells) == 2


def test_key_variable_metrics_pass_where_the_data_set_names_key_variables():
    cfg = {"k": [3], "metrics": ["il", "rld"], "algorithms": {"m": {"algorithm": "mdav"}},
           "datasets": {"census": {"spec": "census"}}}
    assert plan.build(cfg).datasets["census"].metrics == ["il", "rld"]


@pytest.mark.parametrize("params, needle", [
    ({"sampling_weights": "nope"}, "sampling-weights column 'nope'"),
    ({"strata": "nope"}, "strata column 'nope'"),
], ids=["weights", "strata"])
def test_a_catalog_set_without_the_column_is_refused_by_the_plan(params, needle):
    cfg = {"k": [3], "algorithms": {"m": {"algorithm": "mdav", "params": params}},
           "datasets": {"tarragona": {"spec": "tarragona"}}}
    with pytest.raises(UserError, match=f"datasets.tarragona with algorithms.m: {needle}"):
        plan.build(cfg)


def test_key_variable_metrics_on_a_selection_without_key_variables_are_refused():
    """A catalog selection that drops every key variable defines none (data.metric_defaults, as a run)."""
    cfg = {"k": [3], "metrics": ["rld"], "algorithms": {"m": {"algorithm": "mdav"}},
           "datasets": {"c": {"spec": "census[columns=FEDTAX]"}}}
    with pytest.raises(UserError, match="datasets.c: metric rld needs key variables"):
        plan.build(cfg)
    cfg["datasets"]["c"]["spec"] = "census[columns=AGI+FEDTAX]"
    assert plan.build(cfg).datasets["c"].metrics == ["rld"]


def test_job_stamps_are_written_once_per_job(tmp_path):
    """common.smk calls write_job_stamps when it reads the workflow (every `snakemake` start)."""
    built = plan.build({"k": [3], "algorithms": {"mdav": {"algorithm": "mdav"}},
                        "datasets": {"tarragona": {"spec": "tarragona"}}})
    stamps = built.write_job_stamps(str(tmp_path / "batches"))
    assert set(stamps) == {job.name for job in built.jobs}
    assert all(open(path).read().startswith("plan ") for path in stamps.values())
