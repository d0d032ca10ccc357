"""`mabench compare` and `mabench regress`: a perturbed kernel fails the check, an unchanged rerun passes.

The perturbed kernel is real: a copy of the `mdav` plugin (MABENCH_HOME, override=True) that moves two
records between groups after the kernel ran, so every deterministic mdav cell's IL changes while the
group sizes stay valid. Nothing in the engine knows about it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from mabench.errors import UserError
from mabench.report import compare
from support import ROOT, safety_net

PERTURB = '''

import dataclasses as _dc

_unperturbed = run


def run(Z, k, params, rng):
    labels = _unperturbed(Z, k, params, rng).copy()
    labels[0], labels[-1] = labels[-1], labels[0]  # two records change groups: sizes stay valid
    return labels


ALGORITHM = _dc.replace(ALGORITHM, run=run, override=True)
'''


def mabench(*args, home: Path | None = None, cwd: Path | None = None):
    env = dict(os.environ)
    if home is not None:
        env["MABENCH_HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=safety_net(600))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("regress")
    config = {"k": [3, 4], "algorithms": {"mdav": {"algorithm": "mdav"}, "cbfs": {"algorithm": "cbfs"}},
              "datasets": {"tarragona": {"spec": "tarragona"}, "sim": {"spec": "sim1"}}}
    (tmp / "tiny.yaml").write_text(yaml.safe_dump(config))
    perturbed = tmp / "perturbed"
    (perturbed / "algorithms").mkdir(parents=True)
    shutil.copy(ROOT / "algorithms" / "mdav.py", perturbed / "algorithms" / "mdav.py")
    with open(perturbed / "algorithms" / "mdav.py", "a") as fh:
        fh.write(PERTURB)
    out = {}
    for name, home in (("base", None), ("again", None), ("perturbed", perturbed)):
        proc = mabench("regress", "--config", str(tmp / "tiny.yaml"), "--out", str(tmp / f"{name}.csv"), home=home)
        assert proc.returncode == 0, proc.stderr[-3000:]
        out[name] = tmp / f"{name}.csv"
    return out


def test_regress_runs_every_algorithm_on_the_fixed_data_only(runs):
    frame = pd.read_csv(runs["base"])
    assert sorted(set(zip(frame.dataset_id, frame.algo_id, frame.k))) == [
        ("tarragona", a, k) for a in ("cbfs", "mdav") for k in (3, 4)]
    assert abs(frame.loc[(frame.algo_id == "mdav") & (frame.k == 3), "il"].item() - 16.932587622823796) < 1e-12


def test_an_unchanged_rerun_passes(runs, tmp_path, cli_main):
    proc = cli_main("compare", str(runs["base"]), str(runs["again"]), "--out", str(tmp_path / "r.md"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "**PASS**" in proc.stdout and "4 cells compared" in proc.stdout
    assert (tmp_path / "r.md").read_text().startswith("# Regression check")


def test_a_perturbed_kernel_fails_with_a_readable_report(runs, cli_main):
    proc = cli_main("compare", str(runs["base"]), str(runs["perturbed"]))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "**FAIL**" in proc.stdout
    assert "IL of 2 deterministic mdav cell(s) changed" in proc.stdout
    assert "cbfs" not in proc.stdout.split("## Gates that failed")[1].split("##")[0]
    # The published MDAV values of Tarragona no longer hold: the verdict gate says which.
    assert "verdict got worse" in proc.stdout and "reproduced -> not reproduced" in proc.stdout
    assert "| mdav | tail=3k | tarragona | 3 | 0 |" in proc.stdout
    assert proc.stderr.strip().startswith("mabench: regression check failed")


def test_an_intended_change_passes_the_il_gate_but_not_the_verdict_gate(runs, cli_main):
    proc = cli_main("compare", str(runs["base"]), str(runs["perturbed"]), "--changed", "mdav")
    assert "IL of" not in proc.stdout.split("## IL got")[0]
    assert "verdict got worse" in proc.stdout and proc.returncode == 1
    proc = cli_main("compare", str(runs["base"]), str(runs["perturbed"]), "--changed", "mdav", "--published", "none")
    assert proc.returncode == 0, proc.stdout


def _table(seconds, il=1.0, algorithm="mdav", n=5):
    return pd.DataFrame([{"algorithm": algorithm, "params": "", "dataset": "x", "dataset_params": "", "k": k,
                          "seed": 0, "il": il, "seconds": seconds} for k in range(2, 2 + n)])


def test_time_gate_uses_the_median_ratio_of_timed_cells():
    slow = compare.compare(_table(1.0), _table(1.3))
    assert not slow.ok and "median time ratio 1.30" in slow.failures[0]
    assert compare.compare(_table(1.0), _table(1.2)).ok
    assert compare.compare(_table(0.01), _table(0.05)).ok  # too short to time: not gated
    assert compare.compare(_table(1.0), _table(1.3), time_ratio=1.5).ok


def test_without_the_time_gate_the_ratios_are_listed_not_gated(tmp_path, cli_main):
    slow = compare.compare(_table(1.0), _table(1.3), time_ratio=None)
    assert slow.ok and slow.times["median_ratio"].iloc[0] == pytest.approx(1.3)
    assert "Listed, not gated" in compare.markdown(slow, "a", "b")
    assert "Listed, not gated" not in compare.markdown(compare.compare(_table(1.0), _table(1.0)), "a", "b")
    assert not compare.compare(_table(1.0, il=1.0), _table(1.3, il=2.0), time_ratio=None).ok  # IL still gated
    _table(1.0).to_csv(tmp_path / "a.csv", index=False)
    _table(1.3).to_csv(tmp_path / "b.csv", index=False)
    args = ("compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--published", "none")
    assert cli_main(*args, "--time-gate").returncode == 1
    proc = cli_main(*args, "--no-time-gate")
    assert proc.returncode == 0 and "| mdav | 1.30 | 5 |" in proc.stdout, proc.stdout


def test_times_gate_only_within_one_session_unless_asked(tmp_path, cli_main):
    """Tables without a session, or from two sessions (machine/job), list a slower method without
    failing; two tables of one session gate it; --time-gate gates across sessions."""
    args = ("compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--published", "none")
    for base_session, cur_session, gated in ((None, None, False), ("m1/j1", "m1/j2", False),
                                             ("m1/j1", "m2/j1", False), ("m1/j1", "m1/j1", True)):
        a, b = _table(1.0), _table(1.37)
        if base_session:
            a["session"], b["session"] = base_session, cur_session
        a.to_csv(tmp_path / "a.csv", index=False)
        b.to_csv(tmp_path / "b.csv", index=False)
        proc = cli_main(*args)
        assert proc.returncode == (1 if gated else 0), (base_session, cur_session, proc.stdout)
        assert ("Listed, not gated" in proc.stdout) == (not gated)
        assert cli_main(*args, "--time-gate").returncode == 1
    proc = cli_main(*args, "--time-gate", "--no-time-gate")
    assert proc.returncode == 2 and "give one" in proc.stderr


def test_a_subset_is_compared_on_its_own_methods_only():
    base = pd.concat([_table(1.0, algorithm="mdav"), _table(1.0, algorithm="cbfs")], ignore_index=True)
    result = compare.compare(base, _table(1.0, algorithm="mdav"), time_ratio=None)
    assert result.ok and len(result.cells) == 5 and len(result.disappeared) == 0 and result.out_of_scope == 5
    assert "5 baseline cells of methods the current table does not run were not compared" in compare.markdown(
        result, "a", "b")
    partial = _table(1.0, algorithm="mdav", n=4)  # a method that is run must still have all its cells
    assert not compare.compare(base, partial, time_ratio=None).ok


def test_the_session_names_machine_and_job(monkeypatch):
    from mabench.bench import provenance

    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    monkeypatch.setenv("GITHUB_JOB", "regress")
    first = provenance.session()
    assert first.endswith("/gh42.1.regress")
    monkeypatch.setenv("GITHUB_RUN_ID", "43")
    assert provenance.session().split("/")[0] == first.split("/")[0] and provenance.session() != first


def test_median_of_runs_takes_each_cells_median_seconds():
    runs = [_table(1.0), _table(3.0), _table(2.0)]
    runs[1].loc[0, "seconds"] = 0.5
    merged = compare.median_of_runs(runs)
    assert list(merged.columns) == list(runs[0].columns)
    assert merged["seconds"].tolist() == [1.0, 2.0, 2.0, 2.0, 2.0]
    assert merged["il"].tolist() == runs[0]["il"].tolist()
    shuffled = _table(5.0).iloc[::-1]  # row order does not matter, the cell key does
    assert compare.median_of_runs([_table(1.0), shuffled])["seconds"].tolist() == [3.0] * 5
    with pytest.raises(UserError, match="other cells than run 1"):
        compare.median_of_runs([_table(1.0, n=5), _table(1.0, n=4)])


def test_il_gate_spares_randomized_algorithms():
    moved = compare.compare(_table(1.0, il=1.0), _table(1.0, il=1.5))
    assert not moved.ok
    assert compare.compare(_table(1.0, il=1.0), _table(1.0, il=1.5), deterministic={"mdav": False}).ok
    assert compare.compare(_table(1.0, il=1.0), _table(1.0, il=1.0 + 1e-12)).ok


def test_appeared_and_disappeared_cells():
    c = compare.compare(_table(1.0, n=3), _table(1.0, n=5))
    assert len(c.appeared) == 2 and c.ok
    c = compare.compare(_table(1.0, n=5), _table(1.0, n=3))
    assert len(c.disappeared) == 2 and not c.ok


@pytest.mark.parametrize("make, words", [
    (lambda d: str(d / "missing.parquet"), "does not exist"),
    (lambda d: str(d), "holds no results.parquet"),
    (lambda d: (d / "x.csv").write_text("a,b\n1,2\n") and str(d / "x.csv"), "lacks column(s) algorithm"),
])
def test_bad_inputs_exit_2_with_one_line(tmp_path, make, words, cli_main):
    path = make(tmp_path)
    proc = cli_main("compare", path, path)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and words in proc.stderr and "Traceback" not in proc.stderr


def test_regress_skips_a_setting_at_a_k_it_does_not_apply_to(tmp_path, cli_main):
    """lns region=12 needs k <= 6: at k = 10 the cell is skipped (and said so), the others are checked."""
    config = {"k": [3, 10], "algorithms": {"lns_r12": {"algorithm": "lns", "params": {"region": 12}}},
              "datasets": {"tarragona": {"spec": "tarragona"}}}
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    proc = cli_main("regress", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "r.csv"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert pd.read_csv(tmp_path / "r.csv")["k"].tolist() == [3]
    assert "tarragona lns_r12 k=10: not applicable (lns region=12 (your setting) must lie in" in proc.stderr
    # an id's own k list is what the check runs where it has one: nothing is attempted outside it
    config["algorithms"]["lns_r12"]["k"] = [3]
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    proc = cli_main("regress", "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "r.csv"))
    assert proc.returncode == 0 and "k=10" not in proc.stderr, proc.stderr[-3000:]


@pytest.mark.parametrize("args, words", [
    (["no-such-commit"], "is not a commit of this repository"),
    (["HEAD", "--rounds", "0"], "--rounds must be at least 1"),
])
def test_regress_time_refuses_bad_input_before_cloning(tmp_path, args, words):
    proc = subprocess.run([sys.executable, str(ROOT / "workflow" / "scripts" / "regress_time.py"), *args,
                           "--dir", str(tmp_path / "time")], capture_output=True, text=True, timeout=safety_net(120))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert not (tmp_path / "time").exists()
