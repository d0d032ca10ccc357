"""Where plugins come from: the built-in ones and a user's own folder.

The built-in methods are the files of the repository's ``algorithms/`` folder and the built-in
data sets those of ``datasets/``; both are installed as the subpackages ``mabench.algorithms`` and
``mabench.generators`` (``pyproject.toml`` maps the folders), so an installed mabench has them all.
``MABENCH_HOME`` names a folder with ``algorithms/`` and/or ``datasets/`` of one's own: its plugins
are added. One with a built-in's name is refused unless it declares ``override=True`` (e.g. a
modified copy under test); it then replaces the built-in and the run records say so
(:func:`user_plugins`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

from mabench.errors import UserError
from mabench.plugin import Algorithm, Generator, Param, parse_params, split_output

_NAMESPACE = "mabench_user_plugins"
_BUILTIN = {"algorithms": "mabench.algorithms", "datasets": "mabench.generators"}


@functools.cache
def builtin_folder(kind: str) -> Path:
    """The folder of the built-in ``algorithms`` or ``datasets`` plugins. Kept per process (it is where
    the installed package is): every run record asks for it once per plugin (:func:`user_plugins`), and
    resolving the path each time cost milliseconds per cell."""
    return Path(importlib.import_module(_BUILTIN[kind]).__file__).resolve().parent


def user_home() -> Path | None:
    """``MABENCH_HOME`` when it names a folder other than the built-in plugins' tree."""
    raw = os.environ.get("MABENCH_HOME")
    if not raw:
        return None
    home = Path(raw).resolve()
    if not home.is_dir():
        raise UserError(f"MABENCH_HOME={raw!r} is not a folder; point it at a folder holding algorithms/ or datasets/")
    if not ((home / "algorithms").is_dir() or (home / "datasets").is_dir()):
        raise UserError(f"MABENCH_HOME={raw!r} holds neither algorithms/ nor datasets/; "
                        "put your plugin files there or unset MABENCH_HOME")
    if all(not (home / k).is_dir() or (home / k).resolve() == builtin_folder(k) for k in _BUILTIN):
        return None
    return home


def plugin_files(kind: str) -> list[Path]:
    """Every plugin file of ``kind`` that is in force, built-in first (what discovery loads)."""
    files = _plugin_files(builtin_folder(kind))
    home = user_home()
    if home is not None and (home / kind).is_dir() and (home / kind).resolve() != builtin_folder(kind):
        files += _plugin_files(home / kind)
    return files


def _plugin_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def _load_module(path: Path, kind: str):
    if path.parent == builtin_folder(kind):
        return importlib.import_module(f"{_BUILTIN[kind]}.{path.stem}")
    name = f"{_NAMESPACE}.{kind}.{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# kind -> {file stem: one line} for the user's plugin files that cannot be loaded (see _declared)
_BROKEN: dict[str, dict[str, str]] = {}


def _user_module(path: Path, kind: str, broken: dict, pick) -> list:
    """The declarations of a user's plugin file, or none when it cannot be loaded: a syntax error or
    a failing import in one file of MABENCH_HOME must not break every command (``list`` and the other
    plugins keep working); the file is named in one line where its plugin is asked for."""
    try:
        return list(pick(path, _load_module(path, kind)))
    except Exception as exc:  # noqa: BLE001 - whatever the user's file raises while it is imported
        sys.modules.pop(f"{_NAMESPACE}.{kind}.{path.stem}", None)
        line = getattr(exc, "lineno", None)
        where = f"{path}" + (f", line {line}" if line else "")
        why = " ".join(str(getattr(exc, "msg", None) or exc).split())[:200]
        broken[path.stem] = f"{where}: {type(exc).__name__}: {why}"
        return []


def broken_plugins(kind: str) -> dict[str, str]:
    """{file stem: why} of the user's ``kind`` plugin files that could not be loaded."""
    (algorithms if kind == "algorithms" else generators)()
    return dict(_BROKEN.get(kind, {}))


def _declared(kind: str, pick) -> tuple[dict, dict, set]:
    """(name -> declaration, name -> file, names of built-ins replaced) over the plugin files in force;
    a user's file replaces a built-in of its name only when it declares ``override=True``."""
    found, origin, replaced = {}, {}, set()
    broken = _BROKEN.setdefault(kind, {})
    broken.clear()
    for path in plugin_files(kind):
        items = (pick(path, _load_module(path, kind)) if path.parent == builtin_folder(kind)
                 else _user_module(path, kind, broken, pick))
        for item in items:
            if item.name in found and origin[item.name].parent == path.parent:
                raise RuntimeError(f"{kind[:-1]} name {item.name!r} is declared twice in {path.parent}")
            if item.name in found and not getattr(item, "override", False):
                raise UserError(f"{path} declares {kind[:-1]} {item.name!r}, the name of a built-in one; rename it, "
                                f"or add override=True to its declaration to replace the built-in")
            if item.name in found:
                replaced.add(item.name)
            found[item.name], origin[item.name] = item, path
    return found, origin, replaced


def _algorithm_of(path, module):
    algo = getattr(module, "ALGORITHM", None)
    if not isinstance(algo, Algorithm):
        raise RuntimeError(f"{path} defines no ALGORITHM = Algorithm(...)")
    return [algo]


@functools.cache
def _algorithms() -> tuple[dict, dict, set]:
    return _declared("algorithms", _algorithm_of)


@functools.cache
def _generators() -> tuple[dict, dict, set]:
    return _declared("datasets", lambda path, module: getattr(module, "GENERATORS", []))


def algorithms() -> dict[str, Algorithm]:
    return _algorithms()[0]


def generators() -> dict[str, Generator]:
    return _generators()[0]


def algorithm_path(name: str) -> Path:
    """The plugin file that declares algorithm ``name``."""
    algorithm(name)  # an unknown name is the user's error
    return _algorithms()[1][name]


# user_plugins() of the plugin tables in force: (those tables, the answer). Read once per loading of
# the plugins, since every run record asks for it (a batch: once a cell).
_USER_PLUGINS: list = [None, None]


def user_plugins() -> dict[str, dict]:
    """Every plugin in force from ``MABENCH_HOME``: name -> {"path", "sha256", "overrides"} (overrides:
    it replaces the built-in of its name), each file hashed as it was when first asked about after the
    plugins were loaded. What the run records and results tables keep."""
    import hashlib

    tables = (_algorithms(), _generators())
    seen, answer = _USER_PLUGINS
    if seen is None or seen[0] is not tables[0] or seen[1] is not tables[1]:
        out = {}
        for kind, (_, origin, replaced) in zip(("algorithms", "datasets"), tables):
            for name, path in origin.items():
                if path.parent != builtin_folder(kind):
                    out[name] = {"kind": kind[:-1], "path": str(path),
                                 "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                                 "overrides": name in replaced}
        answer = dict(sorted(out.items()))
        _USER_PLUGINS[:] = [tables, answer]
    return {name: dict(entry) for name, entry in answer.items()}


def algorithm(name: str) -> Algorithm:
    table = algorithms()
    if name in _BROKEN.get("algorithms", {}):
        raise UserError(f"algorithm plugin {name!r} cannot be loaded ({_BROKEN['algorithms'][name]}); fix the file "
                        "or move it out of MABENCH_HOME")
    if name not in table:
        raise UserError(
            f"unknown algorithm {name!r}; available: {', '.join(sorted(table))} (see `mabench list algorithms`)"
        )
    return table[name]


def _resolve_init(init: str, init_params: str):
    """The ``init`` plugin of a search and its resolved parameters; a mismatch is said in the user's terms."""
    if init in {"icsm", "ls"}:
        raise UserError(f"init={init} would start a search from a search; choose a constructive method, e.g. init=mdav")
    algo = algorithm(init)
    try:
        return algo, algo.resolve(parse_params(init_params.replace(";", ",")) if init_params else {})
    except UserError as exc:
        raise UserError(f"init={init} with init_params={init_params!r}: {exc}; init_params defaults to MDAV's "
                        f"tail=2k, so with another init give its own parameters (e.g. init_params= for its "
                        f"defaults)") from None


def init_params(what: str = "any plugin", note: str = "") -> dict:
    """The ``init`` and ``init_params`` parameters of a search that improves another plugin's partition
    (declared with ``check=check_init``, and ``max_group_size=init_bound`` where the search keeps the
    init's bound): MDAV with the 2k tail by default (ICSM's Alg. 1). ``what`` says which plugins may
    start it, ``note`` adds to the help of init_params."""
    return {"init": Param("mdav", f"algorithm whose partition is improved ({what})"),
            "init_params": Param("tail=2k", "parameters of init, ';'-separated" + note)}


def check_init(params: dict) -> None:
    """Algorithm.check of the searches (icsm, ls): their init and init_params, before any work."""
    _resolve_init(params["init"], params["init_params"])


def initial_partition(Z: np.ndarray, k: int, init: str, init_params: str, rng) -> tuple[np.ndarray, int | None]:
    """Labels of the ``init`` algorithm (any plugin) and its declared group-size bound."""
    algo, params = _resolve_init(init, init_params)
    labels, _ = split_output(algo.run(Z, k, params, rng), f"init={init}")
    return np.asarray(labels, dtype=np.int64), algo.max_group_size(k, params)


def init_bound(k: int, params: dict) -> int | None:
    """The group-size bound of a search started from ``params['init']``: max(2k−1, the init's bound)."""
    algo, ip = _resolve_init(params["init"], params["init_params"])
    bound = algo.max_group_size(k, ip)
    return None if bound is None else max(2 * k - 1, bound)
