"""Test layout: one folder per layer of the package (kernels, methods, metrics, data, bench, report,
cli); plain-NumPy reference implementations in ``oracles/``; shared helpers in ``support.py``.
This file puts ``tests/`` on ``sys.path`` (pytest's rootdir conftest), so ``import support`` and
``from oracles import ...`` work from every folder."""

from __future__ import annotations

import sys

_NUMPY_FIRST = "numpy" in sys.modules  # a plugin loaded it before this file: its BLAS kernel is chosen

import mabench  # noqa: E402,F401  (before numpy: pins the BLAS kernel as the mabench command does)
import numpy as np  # noqa: E402
import pytest


@pytest.fixture
def rng():
    """A fixed-seed generator for a test's own data."""
    return np.random.default_rng(0)


def pytest_collection_modifyitems(config, items):
    """The files that hold a ``slow`` test run first, each file's tests in their order (a stable sort).

    `make test` hands whole files to 2 workers (``--dist loadfile --no-loadscope-reorder``) in this
    order. The slow files are few, each minutes of work in a handful of tests; xdist's own order (most
    tests first) left them to the end, where the last one ran while the other worker sat idle.
    Started first, they are balanced by the many short files that follow."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_files)
