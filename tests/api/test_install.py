"""Installed anywhere (issue 20 item 5): the wheel, installed into a fresh virtual environment, works
from a folder outside the checkout — the README's Python example, `mabench list algorithms` and
`mabench run mdav tarragona -k 3 --masked-out` — and so does the editable install of the dev venv.

The fresh venv gets only the mabench wheel (``--no-deps --no-index``); its dependencies come from the
test's own environment through a ``.pth`` line, so no network is needed beyond what `make test`
installed (building the wheel uses the same package index pip already uses for the editable install).
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from support import ROOT, safety_net

N_ALGORITHMS = 27
_SKIP = shutil.ignore_patterns(".git", ".venv", "results", "build", "dist", "*.egg-info", "__pycache__",
                               ".snakemake", ".pytest_cache", ".hypothesis", ".benchmarks")


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MABENCH_HOME", "PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **extra}


def _run(args, cwd, env=None, timeout=safety_net(600)):
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd, env=env or _env(),
                          timeout=timeout)
    assert proc.returncode == 0, f"{args}\nstdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-3000:]}"
    return proc


def readme_python_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Use it from Python\n.*?```python\n(.*?)```", text, re.S | re.M)
    assert match, "README.md has no ```python block under its '## Use it from Python' heading"
    return match.group(1)


def setuptools_warnings(build_log: str) -> list[str]:
    """The lines of a verbose build's log in which setuptools warns (e.g. a folder of package data
    that is not a declared package: "Package would be ignored")."""
    return [line.strip() for line in build_log.splitlines()
            if re.search(r"Warning:|would be ignored|is absent from the `packages`", line)]


def test_setuptools_warnings_are_found():
    log = ("  /tmp/x/setuptools/command/build_py.py:215: BuildBackendWarning: Package 'mabench.registry.regress' "
           "is absent from the `packages` configuration.\n  warning: build_py: byte-compiling is disabled, skipping.\n")
    assert len(setuptools_warnings(log)) == 1


def _build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of the checkout (setuptools writes build/ and *.egg-info next to the sources),
    built without a setuptools warning."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_SKIP)
    dist = tmp / "dist"
    build = _run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "-w", dist, src], cwd=tmp)
    assert not setuptools_warnings(build.stdout + build.stderr), setuptools_warnings(build.stdout + build.stderr)
    wheels = list(dist.glob("mabench-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    env_dir = tmp / "fresh"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    py = env_dir / "bin" / "python"
    purelib = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp)
                   .stdout.strip())
    # the dependencies: this environment's site-packages, after the fresh one (a plain path line does
    # not run that folder's .pth files, so the dev venv's editable mabench stays invisible)
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([sys.executable, "-m", "pip", "--python", py, "install", "--quiet", "--no-deps", "--no-index", wheel],
         cwd=tmp)
    return env_dir


@pytest.fixture(scope="session")
def fresh_install(tmp_path_factory) -> Path:
    """The fresh venv with the checkout's wheel installed, built once per `make test` and shared by the
    tests that install (here and tests/plugins/test_workflow_installed.py) and by both xdist workers
    (a lock in the session's shared temporary folder: the first worker builds, the other waits and
    reuses). The tests only run its commands and write into their own folders."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the folder every worker's basetemp is in
    tmp = root / "fresh-install"
    with open(root / "fresh-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (tmp / "installed").is_file():
            shutil.rmtree(tmp, ignore_errors=True)  # what a failed build left
            tmp.mkdir()
            _fresh_venv(tmp, _build_wheel(tmp))
            (tmp / "installed").touch()
    return tmp / "fresh"


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_outside_the_checkout(tmp_path, fresh_install):
    env_dir = fresh_install
    py, cli = env_dir / "bin" / "python", env_dir / "bin" / "mabench"
    work = tmp_path / "elsewhere"
    work.mkdir()
    assert ROOT not in work.parents

    where = _run([py, "-c", "import mabench, mabench.algorithms as m, mabench.config as c; "
                  "print(mabench.__file__); print(m.__file__); print(c.__file__)"], cwd=work).stdout.split()
    for path in where:  # everything from the installed wheel, nothing from the checkout
        assert Path(path).resolve().is_relative_to(env_dir.resolve()), path
    # the same engine, the same Numba cache folder: the wheel loads the kernels the checkout compiled
    # (mabench/codehash.py, mabench/kernels/core/jit_cache.py)
    from mabench.codehash import numba_cache_dir

    cache_dir = _run([py, "-c", "from mabench.codehash import numba_cache_dir; print(numba_cache_dir())"],
                     cwd=work).stdout.strip()
    assert cache_dir == numba_cache_dir()

    _run([py, "-c", readme_python_example()], cwd=work)
    masked = (work / "masked.csv").read_text().splitlines()
    assert masked[0] == "id,region,age,income" and len(masked) == 7
    assert masked[1].startswith("a,N,24,")

    listed = _run([cli, "list", "algorithms"], cwd=work).stdout.splitlines()
    assert len(listed) >= N_ALGORITHMS
    assert {"mdav", "icsm", "emad", "kward", "hm"} <= {line.split("\t")[0] for line in listed}
    assert len(_run([cli, "list", "datasets"], cwd=work).stdout.splitlines()) >= 3

    run = _run([cli, "run", "mdav", "tarragona", "-k", "3", "--masked-out", "m.csv"], cwd=work)
    assert '"il": 16.9325876228' in run.stdout
    rows = (work / "m.csv").read_text().splitlines()
    assert len(rows) == 835 and rows[0].startswith("FIXED.ASSETS,")


def test_editable_install_outside_the_checkout(tmp_path):
    """The dev venv's editable install: plugins come from the checkout's own folders, from anywhere."""
    import mabench
    from mabench import discovery

    if not Path(mabench.__file__).resolve().is_relative_to(ROOT):
        pytest.skip("mabench is not installed in editable mode from this checkout")
    assert discovery.builtin_folder("algorithms") == ROOT / "algorithms"
    assert discovery.builtin_folder("datasets") == ROOT / "datasets"
    cli = Path(sys.executable).with_name("mabench")
    listed = _run([cli, "list", "algorithms"], cwd=tmp_path).stdout.splitlines()
    assert len(listed) >= N_ALGORITHMS
    _run([sys.executable, "-c", readme_python_example()], cwd=tmp_path)
    assert (tmp_path / "masked.csv").read_text().startswith("id,region,age,income\na,N,24,")
