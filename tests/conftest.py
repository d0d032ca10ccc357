"""Test layout: one folder per layer of the package (kernels, methods, metrics, data, bench, report,
cli); plain-NumPy reference implementations in ``oracles/``; shared helpers in ``support.py``.
This file puts ``tests/`` on ``sys.path`` (pytest's rootdir conftest), so ``import support`` and
``from oracles import ...`` work from every folder."""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

_NUMPY_FIRST = "numpy" in sys.modules  # a plugin loaded it before this file: its BLAS kernel is chosen

import mabench  # noqa: E402,F401  (before numpy: pins the BLAS kernel as the mabench command does)
import numpy as np  # noqa: E402
import pytest


def pytest_configure(config):
    """An xdist worker compiles a cached Numba kernel only when the other one is not compiling it
    (``compile_lock.py``): on an empty cache, the second worker to want a kernel loads it instead.

    Outside the slurm-marked tests, SLURM's client reads no configuration: Snakemake imports every
    installed executor plugin when it starts, and the SLURM one runs ``scontrol show config``, which
    waits out its 10 s timeout on a machine with the SLURM client but no controller running (as
    between `make slurm-test` runs); with no configuration it fails at once (docs/testing.md)."""
    if "slurm" not in (config.option.markexpr or "").replace("not slurm", ""):
        os.environ["SLURM_CONF"] = os.devnull
    if os.environ.get("PYTEST_XDIST_WORKER"):
        from compile_lock import serialize_compiles
        from mabench.codehash import numba_cache_dir

        cache = numba_cache_dir()
        serialize_compiles(Path(tempfile.gettempdir()) / "mabench-compile-locks"
                           / hashlib.sha256(cache.encode()).hexdigest()[:16])


@pytest.fixture
def rng():
    """A fixed-seed generator for a test's own data."""
    return np.random.default_rng(0)


@pytest.fixture
def cli_main(capsys):
    """``cli_main(*ARGS)``: ``mabench ARGS`` through the CLI's ``main`` in this process, its exit
    status and captured output (:func:`support.main_in_process`). A new process costs a second or two
    of CPU (imports, cached kernels loaded again): tests of what the CLI prints and returns use this,
    tests of process behaviour (signals, exit codes of the interpreter, environment) use ``run_cli``."""
    from support import main_in_process

    return lambda *args: main_in_process(capsys, *args)


@pytest.fixture
def cli_main_home(cli_main, monkeypatch):
    """``cli_main_home(*ARGS, home=FOLDER)``: ``cli_main(*ARGS)`` with ``MABENCH_HOME=FOLDER``, the
    plugin registries and code hashes read afresh before and after (:func:`support.forget_plugins`)."""
    from support import forget_plugins

    def call(*args, home):
        monkeypatch.setenv("MABENCH_HOME", str(home))
        forget_plugins()
        try:
            return cli_main(*args)
        finally:
            forget_plugins()

    return call



def pytest_collection_modifyitems(config, items):
    """The order in which `make test` hands whole files to its 2 workers (``--dist loadfile
    --no-loadscope-reorder``): first the files that hold a ``slow`` test (in collection order), then the
    others with the most tests first, each file's tests in their own order (a stable sort).

    xdist's own order (most tests first) left the slow files, minutes of work in a handful of tests
    each, to the end, where one worker ran the last of them while the other sat idle. Started first,
    they are balanced by the many short files that follow, and the files with one or two short tests
    fill the gaps at the end."""
    per_file = Counter(item.path for item in items)
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: (0, 0) if item.path in slow_files else (1, -per_file[item.path]))
