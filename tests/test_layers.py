"""The engine's layers (docs/architecture.md): a module imports only from its own layer or lower ones,
lazy imports inside functions included; plugins import only the base and kernel layers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

LAYERS = [  # lowest first
    ("base", ["blas", "errors", "io", "plugin", "partition", "resources", "memory"]),
    ("plugins", ["discovery", "codehash"]),
    ("kernels", ["kernels"]),
    ("data", ["data"]),
    ("metrics", ["metrics"]),
    ("bench", ["bench"]),
    ("report", ["report"]),
    ("interface", ["__init__", "api", "cli", "testing", "scaffold"]),
]
RANK = {name: rank for rank, (_, names) in enumerate(LAYERS) for name in names}
PLUGIN_MAY_IMPORT = {"errors", "plugin", "partition", "kernels", "discovery"}


def _first_component(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "mabench":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, the mabench component imported) for every import statement of a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "mabench":
                out += [(node.lineno, alias.name) for alias in node.names]
            elif (c := _first_component(node.module)) is not None:
                out.append((node.lineno, c))
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            out.append((node.lineno, "<relative>"))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, c) for a in node.names if (c := _first_component(a.name)) is not None]
    return out


def _component(path: Path) -> str:
    rel = path.relative_to(ROOT / "mabench")
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


ENGINE = sorted((ROOT / "mabench").rglob("*.py"))
PLUGINS = sorted((ROOT / "algorithms").glob("*.py")) + sorted((ROOT / "datasets").glob("*.py"))


def test_every_engine_module_has_a_layer():
    assert {_component(p) for p in ENGINE} <= set(RANK)


@pytest.mark.parametrize("path", ENGINE, ids=[str(p.relative_to(ROOT)) for p in ENGINE])
def test_lower_layers_never_import_upper_ones(path):
    mine = RANK[_component(path)]
    for line, imported in _imports(path):
        assert imported != "<relative>", f"{path.name}:{line}: use absolute imports (mabench.X)"
        if imported in ("__version__",):
            continue
        assert RANK.get(imported, -1) <= mine, (
            f"{path.relative_to(ROOT)}:{line} imports mabench.{imported} "
            f"({LAYERS[RANK[imported]][0]} layer) from the {LAYERS[mine][0]} layer")


@pytest.mark.parametrize("path", PLUGINS, ids=[str(p.relative_to(ROOT)) for p in PLUGINS])
def test_plugins_import_only_the_base_and_kernels(path):
    for line, imported in _imports(path):
        assert imported in PLUGIN_MAY_IMPORT, f"{path.relative_to(ROOT)}:{line} imports mabench.{imported}"
