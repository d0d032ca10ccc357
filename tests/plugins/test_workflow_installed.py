"""`mabench workflow` (issue 38 item 2): the packaged Snakefile, run from a NON-editable install on a
method author's own folder, config and plugin (MABENCH_HOME), outside the checkout.

The slow test installs the wheel of a copy of the checkout into a fresh virtual environment with
``pip install --no-deps --no-index`` (tests/api/test_install.py's helpers). The choice: its
dependencies (numpy, numba, snakemake, ...) come from this test's own environment through a ``.pth``
line in the fresh venv, because installing them from the lock would take minutes and the network; mabench
itself, its Snakefile and its workflow/ come only from the wheel, and every command runs in a temporary
folder, so the checkout is not on ``sys.path`` (the failure this replaces: ``snakemake -s
<clone>/Snakefile`` with a non-editable install stops at "No module named 'mabench.algorithms'").
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from api.test_install import _env, _run, fresh_install  # noqa: F401  (the shared installed wheel)
from mabench.cli import build_parser, main
from mabench.cli import workflow as cli_workflow
from support import ROOT

CONFIG = """\
root_seed: 20261122
k: [3]
metrics: [il]
threads_per_run: 1
algorithm_seeds: 1
algorithms:
  pc1cut: {algorithm: pc1cut}
  mdav:   {algorithm: mdav}
  cbfs:   {algorithm: cbfs}
  rmd:    {algorithm: rmd}
  icsm:   {algorithm: icsm}
datasets:
  tarragona: {spec: tarragona}
  sim:       {spec: "sim1[n=60,d=4]", algorithms: [mdav]}
"""
BUILT_IN = ("mdav", "cbfs", "rmd", "icsm")  # the line: the plugin ranked next to these four
SIM = "sim1[d=4,n=60]"  # the leaderboard names a generated data set by its canonical spec
TARGET = "results/tables/index.md"  # the tables rule writes results/tables/leaderboard.{md,csv,tex} too


def leaderboard(work: Path) -> dict[tuple[str, str], tuple[int, float]]:
    """(data set, method) -> (rank, IL) from results/tables/leaderboard.md."""
    rows = {}
    for line in (work / "results" / "tables" / "leaderboard.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 5 and cells[2].isdigit():
            rows[(cells[0], cells[3])] = (int(cells[2]), float(cells[4]))
    return rows


def planned_jobs(dry_run_output: str) -> dict[str, int]:
    """The "Job stats" table of a Snakemake dry run: rule or job name -> count."""
    stats = dry_run_output.split("Job stats:", 1)[1]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\S+)\s+(\d+)$", stats, re.M)
            if m.group(1) != "total"}


@pytest.mark.slow
def test_workflow_from_a_non_editable_install_with_a_user_plugin(tmp_path, fresh_install):
    env_dir = fresh_install
    cli = env_dir / "bin" / "mabench"
    work = tmp_path / "mybench"
    work.mkdir()
    assert ROOT not in work.parents
    _run([cli, "new", "method", "pc1cut", "--dir", "home"], cwd=work)
    (work / "config.yaml").write_text(CONFIG, encoding="utf-8")
    env = _env(MABENCH_HOME=str(work / "home"))

    first = _run([cli, "workflow", TARGET], cwd=work, env=env)
    installed = env_dir.resolve() / "lib"
    # the installed Snakefile, profile and registry ran, not the checkout's
    assert re.search(rf"profile {re.escape(str(installed))}\S*/mabench/_workflow/workflow/profiles/default",
                     first.stdout + first.stderr)
    assert re.search(rf"--published {re.escape(str(installed))}\S*/mabench/registry/published.csv",
                     first.stdout + first.stderr)
    before = leaderboard(work)
    assert set(before) == {("tarragona", m) for m in (*BUILT_IN, "pc1cut ★")} | {(SIM, "mdav")}
    # Domingo-Ferrer & Torra's MDAV on Tarragona, k=3; cbfs and icsm (from mdav) as in the regression baseline
    assert before[("tarragona", "mdav")][1] == 16.9326
    assert before[("tarragona", "cbfs")][1] == 16.9661 and before[("tarragona", "icsm")][1] == 14.7886
    ranked = sorted(before[("tarragona", m)] for m in (*BUILT_IN, "pc1cut ★"))
    assert [rank for rank, _ in ranked] == [1, 2, 3, 4, 5]  # one rank each, in IL order
    assert [il for _, il in ranked] == sorted(il for _, il in ranked)

    plugin = work / "home" / "algorithms" / "pc1cut.py"
    text = plugin.read_text(encoding="utf-8")
    assert 'Param("first"' in text
    plugin.write_text(text.replace('Param("first"', 'Param("sum"'), encoding="utf-8")  # a new default key

    dry = _run([cli, "workflow", "-n", TARGET], cwd=work, env=env)
    # the batch that runs pc1cut and what reads its cells; not sim's batch (mdav only), no data, no compile
    assert planned_jobs(dry.stdout) == {"run__tarragona__part0": 1, "aggregate": 1, "tables": 1}, dry.stdout

    _run([cli, "workflow", TARGET], cwd=work, env=env)
    after = leaderboard(work)
    for m in BUILT_IN:
        assert after[("tarragona", m)][1] == before[("tarragona", m)][1], m
    assert after[(SIM, "mdav")] == before[(SIM, "mdav")]
    assert after[("tarragona", "pc1cut ★")][1] != before[("tarragona", "pc1cut ★")][1]
    batch_log = (work / "results" / "logs" / "run" / "tarragona" / "part0.log").read_text(encoding="utf-8")
    assert all(f"{m} seed=" in batch_log for m in BUILT_IN), batch_log
    assert "mdav seed=0 k=3: from cache" in batch_log and '"computed": 1' in batch_log


def test_the_command_passes_every_word_to_snakemake():
    args = build_parser().parse_args(["workflow", "-n", "--cores", "2", "leaderboard", "--config", "k=[3]"])
    assert args.snakemake == ["-n", "--cores", "2", "leaderboard", "--config", "k=[3]"]
    assert build_parser().parse_args(["workflow"]).snakemake == []


def test_snakemake_command_defaults(tmp_path):
    folder = cli_workflow.workflow_folder()
    assert (folder / "Snakefile").is_file()
    command = cli_workflow.snakemake_command(["-n", "all"], folder, tmp_path)
    assert command[1:5] == ["-m", "snakemake", "--snakefile", str(folder / "Snakefile")]
    assert f"--workflow-profile={folder / 'workflow' / 'profiles' / 'default'}" in command
    bundled = [w for w in command if w.startswith("--configfile=")]
    assert len(bundled) == 1 and bundled[0].endswith("config.yaml") and not bundled[0].startswith(
        f"--configfile={tmp_path}")
    assert command[-2:] == ["-n", "all"]  # the user's words last, in order, after NAME=VALUE options

    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text("k: [3]\n")
    assert f"--configfile={tmp_path / 'config' / 'config.yaml'}" in cli_workflow.snakemake_command([], folder,
                                                                                                    tmp_path)
    (tmp_path / "config.yaml").write_text("k: [3]\n")
    assert f"--configfile={tmp_path / 'config.yaml'}" in cli_workflow.snakemake_command([], folder, tmp_path)


def test_snakemake_command_keeps_the_users_config_and_profiles(tmp_path):
    folder = cli_workflow.workflow_folder()
    mine = cli_workflow.snakemake_command(["--configfile", "my.yaml", "--profile", "p"], folder, tmp_path)
    assert not any(w.startswith(("--configfile=", "--workflow-profile=")) for w in mine)
    slurm = cli_workflow.snakemake_command(["--workflow-profile", "slurm"], folder, tmp_path)
    assert slurm[-2:] == ["--workflow-profile", str(folder / "workflow" / "profiles" / "slurm")]
    (tmp_path / "slurm").mkdir()  # a folder of that name here is the user's own profile
    assert cli_workflow.snakemake_command(["--workflow-profile", "slurm"], folder, tmp_path)[-1] == "slurm"


def test_without_snakemake_one_line_and_exit_2(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "snakemake" else real(name, *a))
    assert main(["workflow", "-n"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["mabench: error: Snakemake is not installed beside mabench; install it with pip install "
                   "'mabench[workflow]'"]


def test_without_a_packaged_snakefile_one_line_and_exit_2(monkeypatch, tmp_path, capsys):
    import mabench

    monkeypatch.setattr(mabench, "__file__", str(tmp_path / "site" / "mabench" / "__init__.py"))
    assert main(["workflow", "-n"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("mabench: error: no Snakefile in the installed mabench")
