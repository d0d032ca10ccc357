"""config/scale.yaml (docs/scaling.md): a valid workflow configuration whose every cell fits the memory
its jobs declare, and the scaling figure script's exponent fit."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml

from support import ROOT, safety_net
from mabench import discovery

SCALE = ROOT / "config" / "scale.yaml"


def _cells():
    cfg = yaml.safe_load(SCALE.read_text())
    for ds, entry in cfg["datasets"].items():
        n = int(re.search(r"n=(\d+)", entry["spec"]).group(1))
        d = int(re.search(r"d=(\d+)", entry["spec"]).group(1))
        for algo_id in entry["algorithms"]:
            spec = cfg["algorithms"][algo_id]
            for k in entry.get("k", cfg["k"]):
                yield cfg, spec["algorithm"], spec.get("params", {}), n, d, k


def test_grids_reach_a_million_and_mdav_ten_million():
    sizes = {}
    for _, algo, _, n, _, _ in _cells():
        sizes[algo] = max(sizes.get(algo, 0), n)
    assert sizes["mdav"] == 10_000_000 and sizes["cbfs"] == 1_000_000 and sizes["iamat"] == 1_000_000
    assert sizes["omma"] <= 20_000  # its O(n^2) pair list


def test_every_cell_fits_the_memory_its_job_declares():
    for cfg, name, params, n, d, k in _cells():
        algo = discovery.algorithm(name)
        need = algo.memory_bytes(n, d, k, algo.resolve({key: str(v) for key, v in params.items()}))
        assert need < cfg["mem_mb_per_run"] * 1e6, (name, n, need)


@pytest.mark.skipif(shutil.which("snakemake", path=str(ROOT / ".venv" / "bin")) is None
                    and shutil.which("snakemake") is None, reason="snakemake not installed")
def test_dry_run_plans_every_batch():
    exe = shutil.which("snakemake", path=str(ROOT / ".venv" / "bin")) or shutil.which("snakemake")
    proc = subprocess.run([exe, "-n", "--configfile", str(SCALE)], cwd=ROOT, capture_output=True, text=True,
                          timeout=safety_net(300))
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout + proc.stderr
    assert "run__normal_n10m_d10__part0" in out and "prepare_generated" in out


def test_scaling_figure_fits_the_exponents(tmp_path):
    rows = [dict(dataset="normal", d=10, k=3, algo_id=a, n=n, seed=s, seconds=2e-9 * n ** b)
            for a, b in (("mdav", 2.0), ("tree", 1.25)) for n in (1_000, 10_000, 100_000, 1_000_000) for s in (0, 1)]
    pd.DataFrame(rows).to_parquet(tmp_path / "r.parquet")
    subprocess.run([sys.executable, str(ROOT / "workflow" / "scripts" / "scaling_figure.py"),
                    str(tmp_path / "r.parquet"), str(tmp_path / "fig" / "scaling")], check=True)
    fits = pd.read_csv(tmp_path / "fig" / "scaling.csv").groupby("algo_id")["exponent"].first()
    assert np.isclose(fits["mdav"], 2.0) and np.isclose(fits["tree"], 1.25)
    assert (tmp_path / "fig" / "scaling.png").stat().st_size > 0
