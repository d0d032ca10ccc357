"""Workflow configuration checks at config time (issue 17): every invalid parameter and unbounded
configuration fails `snakemake -n` with one line (mabench.bench.config, called by
workflow/rules/common.smk before Snakemake's own schema validation)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

from support import ROOT, safety_net
from mabench.bench.config import check_config
from mabench.errors import UserError

SCHEMA = ROOT / "mabench" / "bench" / "config.schema.yaml"
BASE = {"k": [3], "algorithms": {"mdav": {"algorithm": "mdav"}}, "datasets": {"tarragona": {"spec": "tarragona"}}}


def _with(**change):
    cfg = yaml.safe_load(yaml.safe_dump(BASE))
    for key, value in change.items():
        cfg[key] = value
    return cfg


BAD = {
    "negative-pool_n": (_with(algorithms={"icsm": {"algorithm": "icsm", "params": {"pool_n": -3}}}),
                        "pool_n=-3 is out of range"),
    "nan-gamma": (_with(algorithms={"v": {"algorithm": "vmdav", "params": {"gamma": "nan"}}}), "finite"),
    "huge-depth": (_with(algorithms={"o": {"algorithm": "omma", "params": {"depth": 2**63}}}), "out of range"),
    "init-mismatch": (_with(algorithms={"i": {"algorithm": "icsm", "params": {"init": "vmdav"}}}), "init_params"),
    "columns-99": (_with(datasets={"t": {"spec": "tarragona[columns=99]"}}), "names no column '99'"),
    "hm-multivariate": (_with(algorithms={"hm": {"algorithm": "hm"}}), "takes at most 1 column"),
    "draws-1e8": (_with(datasets={"u": {"spec": "uniform[n=60,d=2]", "draws": 100_000_000}}),
                  "greater than the maximum of 1000"),
    "draw-too-big": (_with(datasets={"u": {"spec": "uniform[n=100000000,d=5000]"}}), "GiB per draw"),
    "draws-too-big-together": (_with(datasets={"u": {"spec": "uniform[n=100000000,d=2]", "draws": 1000}}),
                               "datasets.u: 'uniform[n=100000000,d=2]' x 1000 draws needs 1490.1 GiB of prepared "
                               "data (limit 64 GiB); choose fewer draws or a smaller n"),
    "d-too-wide": (_with(datasets={"u": {"spec": "dtree[n=2,d=100000000]"}}), "out of range"),
    "unknown-key": (_with(colour="blue"), "'colour' was unexpected"),
    "sim1-n0": (_with(datasets={"s": {"spec": "sim1[n=0]"}}), "n=0 is out of range"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_invalid_configurations_are_one_line(case):
    cfg, needle = BAD[case]
    with pytest.raises(UserError) as err:
        check_config(cfg, (), str(SCHEMA))
    message = str(err.value)
    assert needle in message and "\n" not in message, message


def test_many_draws_that_fit_together_pass():
    check_config(_with(datasets={"u": {"spec": "uniform[n=1000000,d=2]", "draws": 1000}}), (), str(SCHEMA))


def test_the_shipped_configurations_pass():
    for name in ("config.yaml", "smoke.yaml"):
        path = ROOT / "config" / name
        check_config(yaml.safe_load(path.read_text()), [path], str(SCHEMA))


def test_a_duplicate_yaml_key_is_refused(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("k: [3]\nalgorithms:\n  mdav: {algorithm: mdav}\n  mdav: {algorithm: cbfs}\n"
                    "datasets:\n  tarragona: {spec: tarragona}\n")
    with pytest.raises(UserError, match="key 'mdav' appears twice \\(line 4\\)"):
        check_config(yaml.safe_load(path.read_text()), [path], str(SCHEMA))


@pytest.mark.slow
@pytest.mark.parametrize("case", ["negative-pool_n", "hm-multivariate", "unknown-key"])
def test_snakemake_dry_run_fails_with_one_line(tmp_path, case):
    cfg, needle = BAD[case]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(cfg))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(tmp_path), "--configfile", str(bad), "-n"], capture_output=True, text=True,
                          timeout=safety_net(300), env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-3000:]
    lines = [line for line in out.splitlines() if needle in line]
    assert len(lines) == 1, out[-3000:]
    assert len(proc.stderr.strip().splitlines()) == 1, out[-3000:]  # no Snakemake frames, not the schema dump
    assert not (tmp_path / "results").exists()


@pytest.mark.slow
def test_a_plan_error_in_snakemake_dry_run_is_one_line_with_status_2(tmp_path):
    """F15: what the plan refuses (here a weights column the user's CSV lacks) is one line on stderr,
    no Snakemake frames, status 2, nothing written."""
    data = tmp_path / "u.csv"
    data.write_text("a,b\n" + "".join(f"{i},{i % 3}\n" for i in range(8)))
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({"k": [3], "algorithms": {"m": {"algorithm": "mdav",
                                                                  "params": {"sampling_weights": "nope"}}},
                                   "datasets": {"u": {"spec": str(data)}}}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory",
                           str(tmp_path), "--configfile", str(bad), "-n"], capture_output=True, text=True,
                          timeout=safety_net(300), env=env)
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "sampling-weights column 'nope'" in lines[0], proc.stderr[-3000:]
    assert "File " not in proc.stderr
    assert not (tmp_path / "results").exists()
