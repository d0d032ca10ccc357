"""The engine's layers (docs/architecture.md): a module imports only from its own layer or lower ones,
lazy imports inside functions included; plugins import only the base and kernel layers."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

LAYERS = [  # lowest first
    ("base", ["blas", "openmp", "errors", "io", "plugin", "partition", "resources", "memory"]),
    ("plugins", ["discovery", "codehash"]),
    ("kernels", ["kernels"]),
    ("data", ["data"]),
    ("metrics", ["metrics"]),
    ("bench", ["bench"]),
    ("optimum", ["optimum"]),
    ("report", ["report"]),
    ("interface", ["__init__", "api", "api_terms", "catalog", "cli", "estimator", "testing", "scaffold"]),
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in ENGINE}


def _imported_modules(path: Path) -> set[str]:
    """The engine modules a file imports (lazy imports inside functions included): ``from P import n``
    names the module ``P.n`` when there is one, else ``P``."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                target = f"{node.module}.{alias.name}"
                out.add(target if target in MODULES else node.module)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out & set(MODULES)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules, and every module importing itself
    (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, cycles = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 or node in graph.get(node, ()):
                    cycles.append(sorted(members))
    return cycles


def test_import_cycles_are_found():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert import_cycles({"a": {"a"}}) == [["a"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others():
    graph = {name: _imported_modules(path) - {name} for name, path in MODULES.items()}
    cycles = import_cycles(graph)
    assert not cycles, "import cycles (lazy imports included): " + "; ".join(" <-> ".join(c) for c in cycles)
