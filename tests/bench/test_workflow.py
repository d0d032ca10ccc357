"""The Snakemake workflow: a smoke run end to end, per-cell re-runs, config validation, lint.

The smoke run uses config/smoke.yaml in a temporary directory (`--directory`), so the repository's
results/ is never touched. It takes about half a minute on 2 cores; the other tests are dry runs.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from mabench.bench import config as mabench_config
from mabench.bench import plan as mabench_plan
from mabench.data.seeds import cell_seeds
from mabench.errors import UserError
from support import ROOT, safety_net

SNAKEFILE = ROOT / "Snakefile"
SMOKE = ROOT / "config" / "smoke.yaml"

pytestmark = pytest.mark.slow


def snakemake(workdir: Path, *args: str, configfile: Path | None = SMOKE, timeout: float = safety_net(300)):
    # --force-use-threads, as the default profile: the `run:` rules in Snakemake's own process
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "--directory", str(workdir), "--force-use-threads"]
    if configfile is not None:
        cmd += ["--configfile", str(configfile)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    return subprocess.run(cmd + list(args), capture_output=True, text=True, timeout=timeout, env=env)


def expected_cells(config: dict) -> set[tuple[str, str, int, int]]:
    """The cells a configuration defines, computed independently of the workflow."""
    cells = set()
    for ds_id, ds in config["datasets"].items():
        fetched = "[" not in ds["spec"] and ds["spec"] in {"tarragona", "census", "eia"}
        seeds = [0] if fetched else cell_seeds(config["root_seed"], ds.get("draws", 1))
        for algo_id in ds.get("algorithms", list(config["algorithms"])):
            for k in ds.get("k", config["k"]):
                cells |= {(ds_id, algo_id, int(k), int(s)) for s in seeds}
    return cells


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("smoke")
    proc = snakemake(workdir, "--cores", "2")
    assert proc.returncode == 0, f"smoke run failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return workdir


def test_smoke_run_produces_one_row_per_cell(smoke):
    results = smoke / "results"
    for rel in ["results.parquet", "tables/index.md", "figures/il_vs_k.png", "figures/il_vs_k.pdf",
                "figures/ru_map.png", "figures/ru_map.pdf", "config.yaml"]:
        assert (results / rel).is_file() and (results / rel).stat().st_size > 0, rel
    frame = pd.read_parquet(results / "results.parquet")
    config = yaml.safe_load(SMOKE.read_text())
    want = expected_cells(config)
    got = [(r.dataset_id, r.algo_id, int(r.k), int(r.seed)) for r in frame.itertuples()]
    assert len(got) == len(set(got)), "a cell appears twice"
    assert set(got) == want
    assert frame["il"].map(math.isfinite).all()
    assert (frame["il"] > 0).all()
    assert (frame["min_group"] >= frame["k"]).all()
    # Census's configured disclosure metrics reach the results table (thesis golden value at k=3).
    census = frame[(frame["dataset_id"] == "census") & (frame["algo_id"] == "cbfs_thesis") & (frame["k"] == 3)]
    assert abs(float(census["id"].iloc[0]) - 1.98148) < 1e-4
    assert frame.loc[frame["dataset_id"] == "census", ["dld", "rld", "g_dr", "si"]].notna().all().all()
    # One batch job per data set (each smoke data set has fewer than `algorithms_per_job` algorithms).
    jobs = {d for d, _, _, _ in want}
    assert len(list((results / "benchmarks").rglob("*.tsv"))) == len(jobs)
    logs = list((results / "logs" / "run").rglob("*.log"))
    assert len(logs) == len(jobs)
    assert sum(len(re.findall(r"^\[\d+/\d+\] ", p.read_text(), flags=re.M)) for p in logs) == len(want)
    # Each cell keeps its own record and partition.
    for d, a, k, seed in want:
        assert (results / "cells" / d / a / f"seed{seed}" / f"k{k}.json").is_file()
        assert (results / "cells" / d / a / f"seed{seed}" / f"k{k}.csv").is_file()
    # A first run's batch jobs have only their markers as outputs: Snakemake records no cell file.
    recorded = [base64.urlsafe_b64decode(p.name) for p in (smoke / ".snakemake" / "metadata").rglob("*")
                if p.is_file()]
    assert b"results/batches/sim1/part0.done" in recorded
    assert not [p for p in recorded if p.startswith(b"results/cells/")]
    assert frame["batch_seconds"].notna().all()
    # A batch job's own CPU time covers its cells' (it also holds start-up, loading and writing).
    for batch, cells in frame.groupby("batch"):
        assert cells["batch_cpu_seconds"].iloc[0] >= (cells["cpu_seconds"] + cells["metric_cpu_seconds"]).sum(), batch
        assert cells["batch_max_rss_mb"].iloc[0] > 50, batch
    # Every kernel was compiled before the cells that use it (the compile step, which the lead job
    # follows run by run): no cell's time holds a compile (its CPU seconds are beside its wall seconds).
    compiled = json.loads((results / "compiled.json").read_text())
    assert compiled["compiled"] >= len({a for _, a, _, _ in want}) and compiled["cpu_seconds"] > 0
    assert (frame["cpu_seconds"] >= 0).all() and (frame["metric_cpu_seconds"] >= 0).all()
    # The effective config records the schema defaults.
    used = yaml.safe_load((results / "config.yaml").read_text())
    assert used["datasets"]["tarragona"]["draws"] == 1


def test_every_batch_but_the_lead_waits_for_the_compile_step(tmp_path):
    proc = snakemake(tmp_path, "--dag")
    assert proc.returncode == 0, proc.stderr[-3000:]
    names = dict(re.findall(r'^\s*(\d+)\[label = "(\w+)', proc.stdout, flags=re.M))
    edges = set(re.findall(r"^\s*(\d+) -> (\d+)$", proc.stdout, flags=re.M))
    after_compile = {names[b] for a, b in edges if names[a] == "compile"}
    after_plans = {names[b] for a, b in edges if names[a] == "plans"}
    runs = {name for name in names.values() if name.startswith("run__")}
    assert len(runs) == 3 and after_plans == runs
    assert after_compile == runs - {"run__census__part0"}  # the smoke configuration's longest job


def test_a_deleted_cell_reruns_its_batch_from_the_cache(smoke):
    results = smoke / "results"
    before = pd.read_parquet(results / "results.parquet")
    row = before[before["dataset_id"] == "sim1"].iloc[0]
    cell = results / "cells" / row.dataset_id / row.algo_id / f"seed{row.seed}" / f"k{row.k}.csv"
    cell.unlink()
    proc = snakemake(smoke, "-n", "--cores", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.M))
    assert counts.get("run__sim1__part0") == "1", counts
    assert not any(name.startswith(("prepare", "fetch")) for name in counts), counts
    assert sum(int(v) for name, v in counts.items() if name.startswith("run__")) == 1, counts
    assert counts.get("aggregate") == "1"

    # The run itself builds what the checks below read (the redone cell, its batch's log, the results
    # table): `all`'s tables, figures and report pages are the smoke run's, and read only the results table.
    proc = snakemake(smoke, "--cores", "2", "cells", "results/results.parquet")
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (results / "logs" / "run" / "sim1" / "part0.log").read_text()
    cells = len(re.findall(r"^\[\d+/\d+\] ", log, flags=re.M))
    assert cells > 1 and len(re.findall(r"from cache", log)) == cells, log  # nothing recomputed
    after = pd.read_parquet(results / "results.parquet")
    metrics = ["il", "n_groups", "min_group", "max_group"]
    pd.testing.assert_frame_equal(before[metrics], after[metrics])
    assert cell.is_file()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"k": [0]}, "0 is less than the minimum of 1"),
        ({"colour": "blue"}, "'colour' was unexpected"),
        ({"datasets": {"sim1": {"spec": "sim1", "draws": 2, "algorithms": ["nope"]}}}, "'nope' is not an id under `algorithms`"),
        ({"algorithms": {"mdav": {"algorithm": "mdav", "params": {"tail": "5k"}}}}, "algorithms.mdav"),
        ({"k": [3, 900]}, "datasets.tarragona: k=900 is larger than the data set's n=834 records"),
        ({"datasets": {"sim1": {"spec": "sim1[n=60,d=4]", "k": [61]}}}, "k=61 is larger than the data set's n=60"),
    ],
    ids=["k0", "unknown-key", "unknown-algorithm-id", "bad-param", "k-above-n-fetched", "k-above-n-generated"],
)
def test_invalid_config_is_rejected(tmp_path, change, message):
    """What workflow/rules/common.smk runs on the config Snakemake loaded (the check, then the plan),
    in this process: a Snakemake process per case cost ~13 s. That `snakemake -n` turns the
    UserError of either step into one line, status 2 and nothing written is checked end to end in
    tests/bench/test_config_check.py (the check's errors, unknown-key among them, and the plan's)."""
    config = yaml.safe_load(SMOKE.read_text())
    config.update(change)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(config))
    loaded = yaml.safe_load(bad.read_text())
    with pytest.raises(UserError) as err:
        mabench_config.prepare(loaded, [str(bad)])
        mabench_plan.build(loaded)
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


def lint_problems(workdir: Path, snakefile: Path = SNAKEFILE) -> list[str]:
    """Every lint except the per-rule conda/container one, or why the lint could not run at all."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory", str(workdir), "--lint"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=safety_net(300), env=env)
    out = proc.stdout + proc.stderr
    # Snakemake exits 1 when it lists lints, and also when the workflow cannot even be parsed.
    if proc.returncode != 0 and not re.search(r"^Lints for ", out, flags=re.M):
        return [f"snakemake --lint failed (status {proc.returncode}): {out.strip()[-2000:]}"]
    lints = re.findall(r"^\s+\* (.+)$", out, flags=re.M)
    return [t for t in lints if not t.startswith("Specify a conda environment or container")]


def test_lint_has_no_errors(tmp_path):
    """Only the per-rule conda/container lint is accepted: software comes from the project venv."""
    others = lint_problems(tmp_path)
    assert not others, "\n".join(others)


def test_lint_check_fails_on_a_broken_snakefile(tmp_path):
    """The check above can fail: a copy of the workflow with a syntax error in the Snakefile."""
    copy = tmp_path / "wf"
    shutil.copytree(ROOT / "workflow", copy / "workflow")
    shutil.copytree(ROOT / "config", copy / "config")
    shutil.copytree(ROOT / "registry", copy / "registry")
    (copy / "Snakefile").write_text(SNAKEFILE.read_text() + "\nrule broken:\n    input: (\n")
    problems = lint_problems(tmp_path, copy / "Snakefile")
    assert problems and "failed" in problems[0], problems
