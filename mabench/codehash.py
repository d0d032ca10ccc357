"""Hashes of exactly the code that computes a result, found by reading imports (``ast``), never by running them.

A cell (algorithm, parameters, data, k, seed, metrics) is computed by three pieces of code: the engine
that loads the data, calls the plugin, validates and scores the partition (:mod:`mabench.bench.runner`
and what it imports); the algorithm's plugin file; and, for a search, the plugin of its ``init=``
method. :func:`cell_code_hash` hashes each piece's file together with the mabench modules it imports,
transitively, and the versions of the third-party packages they import. So an edit to one plugin
changes the hash of that plugin's cells only, and an edit to a kernel changes the hash of the cells
whose code imports it (the cell cache, the workflow's job parameters and ``mabench regress`` use it).

Imports are followed per name through a package's ``__init__``: ``from mabench import kernels as K``
followed by ``K.hm_labels`` depends on ``kernels/__init__.py`` and on ``kernels/methods/hm.py`` (where the
``__init__`` imports ``hm_labels`` from), not on every kernel the ``__init__`` re-exports. A package
used as a whole (passed around, ``getattr``) depends on all of it. Imports inside functions count
(a lazy import is code that runs).

:func:`numba_cache_dir` is keyed by the engine's sources (not the plugins'): Numba keys a cached
function by its own file only, so after an edit to a kernel in another file a caller would load
machine code with the old kernel inlined; an edit to a plugin file is caught by Numba itself.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import json
import os
import re
import sys
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ENGINE_ENTRY = "mabench.bench.runner"
# Plugin folders are installed as these subpackages (pyproject.toml maps algorithms/ and datasets/).
_PLUGIN_PACKAGES = {"algorithms": "algorithms", "generators": "datasets"}
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@cache
def module_file(name: str) -> Path | None:
    """The source file of a first-party module name (``mabench.kernels.hm``), or None."""
    parts = name.split(".")
    if parts[0] != "mabench":
        return None
    if len(parts) == 1:
        return PACKAGE / "__init__.py"
    if parts[1] in _PLUGIN_PACKAGES:
        base = _plugin_folder(_PLUGIN_PACKAGES[parts[1]]).joinpath(*parts[2:])
    else:
        base = PACKAGE.joinpath(*parts[1:])
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _plugin_folder(kind: str) -> Path:
    from mabench import discovery

    return discovery.builtin_folder(kind)


def clear_caches() -> None:
    """Forget every file read and hash computed (for a process that edits sources, e.g. a test)."""
    for fn in (module_file, _parse, _file_digest, plugin_hash, engine_hash, engine_sources_hash, _code_hash):
        fn.cache_clear()


class _Parsed:
    """One file's imports as targets: ("mod", m) the module's own needs; ("attr", m, x) the name x
    of module m; ("all", m) a package with everything it re-exports."""

    def __init__(self, core: list, exports: dict, external: set):
        self.core, self.exports, self.external = core, exports, external


@cache
def _parse(path: Path, module: str) -> _Parsed:
    source = path.read_bytes()
    found = _stored_imports(source, module)
    if found is None:
        probes: dict[str, bool | None] = {}
        found = _read_imports(source, path, module, probes)
        _store_imports(source, module, found, probes)
    core, exports, external, strings = found
    # A module imported by name at run time (importlib.import_module("sklearn.covariance"), a helper
    # that does): a string naming an installed third-party package counts as its import.
    external = set(external)
    for value in strings:
        top = value.split(".")[0]
        if top != "mabench" and top in _distributions():
            external.add(top)
    return _Parsed(core, exports, external)


def _read_imports(text: bytes, path: Path, module: str, probes: dict) -> tuple:
    """(core, exports, external, strings) of one file, read from its syntax tree: the first three as
    in :class:`_Parsed` (external: the import statements' only), strings: the constants that may name
    a module. ``probes`` receives every module name looked up (name -> a package's ``__init__``: True,
    a module: False, none: None), on which the answer depends besides the file's own text."""
    tree = ast.parse(text, filename=str(path))
    is_init = path.name == "__init__.py"
    package = module if is_init else module.rpartition(".")[0]
    core, exports, external = [], {}, set()
    bound: dict[str, str] = {}  # local name -> first-party package it is bound to

    def probe(name: str) -> Path | None:
        found = module_file(name)
        probes[name] = None if found is None else found.name == "__init__.py"
        return found

    def is_package(name: str) -> bool:
        found = probe(name)
        return found is not None and found.name == "__init__.py"

    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    # One walk of the tree collects the imports, the string constants and the attribute and name uses
    # (every call of mabench hashes the engine's files); which names the imports bind is known only
    # after the whole walk, so the uses are resolved after it.
    strings, uses = [], []  # uses: Attribute and Name nodes, in walk order
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top != "mabench":
                    external.add(top)
                    continue
                core.append(("mod", alias.name))
                if alias.asname and is_package(alias.name):
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = absolute(node)
            top = source.split(".")[0]
            if top != "mabench":
                if top and top != "__future__":
                    external.add(top)
                continue
            for alias in node.names:
                local = alias.asname or alias.name
                sub = f"{source}.{alias.name}"
                if probe(sub) is not None:  # a submodule
                    core.append(("mod", sub))
                    if is_package(sub):
                        bound[local] = sub
                elif is_init and source.startswith(package + ".") and source != package:
                    exports[local] = ("attr", source, alias.name)  # a re-export: needed when used
                else:
                    core.append(("attr", source, alias.name))
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, str) and _MODULE_NAME.match(node.value):
                strings.append(node.value)
        elif isinstance(node, (ast.Attribute, ast.Name)):
            uses.append(node)
    if bound:
        values = {id(n.value) for n in uses if isinstance(n, ast.Attribute)}
        for n in uses:
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in bound:
                core.append(("attr", bound[n.value.id], n.attr))
            elif isinstance(n, ast.Name) and n.id in bound and id(n) not in values and isinstance(n.ctx, ast.Load):
                core.append(("all", bound[n.id]))
    return core, exports, sorted(external), sorted({v for v in strings if v.split(".")[0] != "mabench"})


# Each file's imports are kept on disk under a hash of its text, its module name and this file's own
# text (a process that hashes the engine would otherwise parse its ~60 files, 0.3 s of CPU, on every
# start), with the module lookups the answer depended on, checked again when it is read. A cache, not
# an output: written beside Numba's, at once (io.write_now), not in a command's transaction (never
# rolled back with its outputs); a cache that cannot be read or written is parsed around.
_IMPORTS_FORMAT = 1


@cache
def _reader_version() -> bytes:
    return hashlib.sha256(Path(__file__).read_bytes() + f" {_IMPORTS_FORMAT}".encode()).digest()


def _imports_file(source: bytes, module: str) -> Path:
    key = hashlib.sha256(_reader_version() + module.encode() + b"\0" + source).hexdigest()
    return Path(cache_home()) / "imports" / key[:2] / f"{key}.json"


def _stored_imports(source: bytes, module: str) -> tuple | None:
    try:
        entry = json.loads(_imports_file(source, module).read_text(encoding="utf-8"))
        for name, was in entry["probes"].items():
            found = module_file(name)
            if (None if found is None else found.name == "__init__.py") != was:
                return None  # a module appeared, went or became a package: read the file again
        return ([tuple(t) for t in entry["core"]], {k: tuple(t) for k, t in entry["exports"].items()},
                list(entry["external"]), list(entry["strings"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store_imports(source: bytes, module: str, found: tuple, probes: dict) -> None:
    from mabench import io

    path = _imports_file(source, module)
    core, exports, external, strings = found
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # whole or not at all: processes that start together write the same entry
        io.write_now(path, json.dumps({"core": core, "exports": exports, "external": external,
                                       "strings": strings, "probes": probes}))
    except OSError:
        pass


def closure(entries) -> tuple[dict[str, Path], set[str]]:
    """(module name -> file, third-party top-level packages) of the code reachable from ``entries``:
    (module name, file) pairs, e.g. a plugin file under its module name."""
    files: dict[str, Path] = {}
    external: set[str] = set()
    seen: set = set()

    def visit_file(module: str, path: Path) -> None:
        if module in files:
            return
        files[module] = path
        parsed = _parse(path, module)
        external.update(parsed.external)
        for target in parsed.core:
            visit(target)

    def visit(target) -> None:
        if target in seen:
            return
        seen.add(target)
        kind, module = target[0], target[1]
        path = module_file(module)
        if path is None:
            return
        visit_file(module, path)
        parsed = _parse(path, module)
        if kind == "all":
            for t in parsed.exports.values():
                visit(t)
        elif kind == "attr":
            name = target[2]
            if name in parsed.exports:
                visit(parsed.exports[name])
            elif module_file(f"{module}.{name}") is not None:
                visit(("mod", f"{module}.{name}"))

    for module, path in entries:
        visit_file(module, Path(path))
    return files, external


@cache
def _file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _version(top: str) -> str | None:
    """The installed version of a third-party package (None for the standard library)."""
    if top in sys.stdlib_module_names:
        return None
    dists = _distributions().get(top) or [top]
    for dist in dists:
        try:
            return f"{dist} {importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


@cache
def _distributions() -> dict:
    return importlib.metadata.packages_distributions()


def digest(entries) -> str:
    """sha256 of the files reachable from ``entries`` (by module name, so a copy of the tree hashes
    the same) and the versions of the third-party packages they import."""
    files, external = closure(entries)
    h = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for module in sorted(files):
        h.update(f"{module} {_file_digest(files[module])}\n".encode())
    for top in sorted(external):
        if (v := _version(top)) is not None:
            h.update(f"{v}\n".encode())
    return h.hexdigest()


def plugin_entry(name: str) -> tuple[str, Path]:
    """(module name, file) of the algorithm plugin in force under ``name``."""
    from mabench import discovery

    path = discovery.algorithm_path(name)
    if path.parent == discovery.builtin_folder("algorithms"):
        path = _plugin_folder("algorithms") / path.name
        return f"mabench.algorithms.{path.stem}", path
    return f"mabench_user_plugins.algorithms.{path.stem}", path


@cache
def plugin_hash(name: str) -> str:
    """Hash of one algorithm plugin's own code: its file and what it imports."""
    return digest([plugin_entry(name)])


@cache
def engine_hash() -> str:
    """Hash of the engine's code that every cell runs (loading, aggregation, validation, metrics)."""
    return digest([(ENGINE_ENTRY, module_file(ENGINE_ENTRY))])


def _init_of(algorithm: str, params: dict | None) -> str | None:
    """The ``init=`` plugin a search starts from: given, or its declared default."""
    from mabench import discovery

    declared = discovery.algorithm(algorithm).params.get("init")
    if declared is None:
        return None
    return str((params or {}).get("init", declared.default)) or None


def cell_code_hash(algorithm: str, params: dict | None = None) -> str:
    """Hash of exactly the code that computes a cell of ``algorithm`` with ``params``: the engine, the
    plugin and, for a search, its ``init=`` plugin (by name: a missing one is the plugin's error)."""
    return _code_hash(algorithm, _init_of(algorithm, params))


@cache
def _code_hash(algorithm: str, init: str | None) -> str:
    """:func:`cell_code_hash` of a method and its ``init=`` plugin (once per process: a batch asks for
    every cell's key and record)."""
    from mabench import discovery

    parts = [engine_hash(), plugin_hash(algorithm)]
    if init and init in discovery.algorithms():
        parts.append(plugin_hash(str(init)))
    return hashlib.sha256(" ".join(parts).encode()).hexdigest()


_NOT_ENGINE = frozenset({"algorithms", "generators", "config", "registry", "_workflow"})


@cache
def engine_sources_hash() -> str:
    """Hash of every engine source file (the plugin folders excluded) and numpy's and Numba's versions."""
    import numba
    import numpy as np

    h = hashlib.sha256(f"numpy {np.__version__} numba {numba.__version__}".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        # the plugin folders, and the data packages an install adds (config, registry): the same hash
        # for a checkout and for the wheel built from it, so both use one Numba cache
        if path.relative_to(PACKAGE).parts[0] in _NOT_ENGINE:
            continue
        h.update(str(path.relative_to(PACKAGE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def cache_home() -> str:
    """Where mabench keeps its caches: ``$XDG_CACHE_HOME/mabench``, by default ~/.cache/mabench."""
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mabench")


def numba_cache_dir() -> str:
    """``$NUMBA_CACHE_DIR/<engine sources hash>-O<LLVM level>``, by default under ~/.cache/mabench/numba.

    The level (``NUMBA_OPT``, 3 unless set) is part of the name because Numba's cache index does not
    record it: a process at another level would otherwise load machine code compiled at this one."""
    import numba

    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(cache_home(), "numba")
    level = "max" if numba.config.OPT.is_opt_max else int(numba.config.OPT)
    return os.path.join(base, f"{engine_sources_hash()[:16]}-O{level}")


def cell_provenance(algorithm: str, params: dict | None = None) -> dict:
    """The fields a run record keeps about the code that made it: ``code_hash`` always; for a plugin
    from ``MABENCH_HOME`` (the method's, or a search's ``init=``) its file and sha256, and whether it
    replaces the built-in of its name."""
    from mabench import discovery

    out = {"code_hash": cell_code_hash(algorithm, params)}
    users = discovery.user_plugins()
    init = _init_of(algorithm, params)
    for role, name in (("plugin", algorithm), ("init_plugin", init)):
        entry = users.get(name) if name else None
        if entry is not None and entry["kind"] == "algorithm":
            out[f"{role}_path"], out[f"{role}_sha256"] = entry["path"], entry["sha256"]
            if entry["overrides"]:
                out[f"{role}_overrides"] = name
    return out
