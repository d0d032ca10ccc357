"""The BLAS kernel is pinned before numpy loads (mabench/blas.py), so the MCD methods give the same
partition on every x86-64 machine with AVX2."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from mabench import blas
from mabench.bench import provenance
from support import ROOT

X86_AVX2 = set(blas.NEEDS) <= blas.cpu_flags() and platform.machine().lower() in ("x86_64", "amd64")
needs_x86 = pytest.mark.skipif(not X86_AVX2, reason="the kernel is pinned on x86-64 with AVX2 and FMA only")


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != blas.ENV}
    env["PYTHONPATH"] = str(ROOT)
    return env


def test_pin_keeps_a_users_choice_and_needs_avx2(monkeypatch):
    monkeypatch.delitem(sys.modules, "numpy")  # pin() looks only at the name; put back after the test
    env: dict = {}
    assert blas.pin(environ=env, machine="x86_64", flags={"avx2", "fma", "sse2"}) == "Haswell"
    assert env == {blas.ENV: "Haswell"}
    assert blas.pin(environ={blas.ENV: "Zen"}, machine="x86_64", flags={"avx2", "fma"}) == "Zen"
    for machine, flags in (("x86_64", {"sse2", "avx"}), ("aarch64", {"avx2", "fma"})):
        env = {}
        assert blas.pin(environ=env, machine=machine, flags=flags) is None
        assert env == {}


def test_pin_does_nothing_once_numpy_is_loaded():
    import numpy  # noqa: F401  (loaded: its OpenBLAS has chosen, scipy's would choose apart)

    env: dict = {}
    assert blas.pin(environ=env, machine="x86_64", flags={"avx2", "fma"}) is None
    assert env == {}


@needs_x86
def test_a_process_that_imports_mabench_first_runs_the_pinned_kernel():
    code = ("import mabench, numpy, scipy.linalg; from mabench import blas; print(blas.in_use())")
    out = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True,
                         check=True).stdout
    assert "Haswell" in out and "SkylakeX" not in out, out


@needs_x86
def test_rmd_gives_the_regression_baselines_partition_here():
    """The baseline's IL (registry/regress/baseline.csv), which the Haswell kernels give. OpenBLAS's
    AVX-512 kernels (SkylakeX), its own choice on an AVX-512 machine, give 15.943 for this cell."""
    pytest.importorskip("sklearn")
    proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", "rmd", "census", "-k", "10", "--seed", "0"],
                          env=_env(), capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["il"] == 15.408328911470193


def test_provenance_names_the_blas_kernel():
    """This process loaded numpy after tests/conftest.py imported mabench: the pinned kernel (or the
    user's) is the one the results table names."""
    blas_in_use = provenance.record()["machine_blas"]
    assert blas_in_use
    if X86_AVX2:
        assert os.environ[blas.ENV] in blas_in_use, blas_in_use


@needs_x86
def test_the_tests_run_the_kernel_the_command_runs():
    from conftest import _NUMPY_FIRST

    assert not _NUMPY_FIRST, "a pytest plugin imported numpy before tests/conftest.py could pin the kernel"
    assert os.environ.get(blas.ENV), "set by the user or pinned by mabench"
