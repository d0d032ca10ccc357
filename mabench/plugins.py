"""Discovery of the plugin folders ``algorithms/`` and ``datasets/``.

The folders live beside the engine in the repository (not inside it: nothing
installed is named ``algorithms`` or ``datasets``). ``MABENCH_HOME`` points at
another checkout or plugin tree; by default the tree the package was installed
from is used, then the current directory.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path

from .api import Algorithm, Generator
from .errors import UserError

_NAMESPACE = "mabench_plugins"


def home() -> Path:
    """The folder holding ``algorithms/`` and ``datasets/``."""
    candidates = []
    if os.environ.get("MABENCH_HOME"):
        candidates.append(Path(os.environ["MABENCH_HOME"]))
    candidates += [Path(__file__).resolve().parent.parent, Path.cwd()]
    for c in candidates:
        if (c / "algorithms").is_dir() and (c / "datasets").is_dir():
            return c.resolve()
    raise UserError(
        "cannot find the plugin folders algorithms/ and datasets/; "
        "run from the mabench checkout or set MABENCH_HOME to it"
    )


def _load_module(path: Path, kind: str):
    name = f"{_NAMESPACE}.{kind}.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _plugin_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


@functools.cache
def algorithms() -> dict[str, Algorithm]:
    found: dict[str, Algorithm] = {}
    for path in _plugin_files(home() / "algorithms"):
        algo = getattr(_load_module(path, "algorithms"), "ALGORITHM", None)
        if not isinstance(algo, Algorithm):
            raise RuntimeError(f"{path} defines no ALGORITHM = Algorithm(...)")
        if algo.name in found:
            raise RuntimeError(f"algorithm name {algo.name!r} is declared twice")
        found[algo.name] = algo
    return found


@functools.cache
def generators() -> dict[str, Generator]:
    found: dict[str, Generator] = {}
    for path in _plugin_files(home() / "datasets"):
        for gen in getattr(_load_module(path, "datasets"), "GENERATORS", []):
            if gen.name in found:
                raise RuntimeError(f"data set name {gen.name!r} is declared twice")
            found[gen.name] = gen
    return found


def algorithm(name: str) -> Algorithm:
    table = algorithms()
    if name not in table:
        raise UserError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(table))} (see `mabench list algorithms`)"
        )
    return table[name]
