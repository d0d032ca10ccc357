"""The OpenMP workers' spin before they sleep is pinned on import (mabench/openmp.py): without it a
recent libgomp on a machine whose threads fill its processors puts the worker to sleep after every
parallel region, and the two-thread tree kernels open one per iteration."""

from __future__ import annotations

import os
import subprocess
import sys

from mabench import openmp
from support import ROOT


def test_pin_sets_libgomps_default_and_keeps_a_users_choice():
    env: dict = {}
    assert openmp.pin(environ=env) == openmp.SPINS and env == {openmp.ENV: openmp.SPINS}
    env = {openmp.ENV: "1000"}
    assert openmp.pin(environ=env) == "1000" and env == {openmp.ENV: "1000"}
    env = {"OMP_WAIT_POLICY": "passive"}
    assert openmp.pin(environ=env) is None and env == {"OMP_WAIT_POLICY": "passive"}


def _spin_after_import(extra: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k not in (openmp.ENV, "OMP_WAIT_POLICY")}
    env.update(PYTHONPATH=str(ROOT), **extra)
    code = "import os, mabench; print(os.environ.get('GOMP_SPINCOUNT'))"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_importing_mabench_pins_the_spin_before_any_kernel_runs():
    assert _spin_after_import({}) == openmp.SPINS
    assert _spin_after_import({openmp.ENV: "5"}) == "5"
    assert _spin_after_import({"OMP_WAIT_POLICY": "active"}) == "None"
