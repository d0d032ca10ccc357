"""Exact invalidation: a cell's identity holds a hash of exactly the code that computes it.

Editing one plugin changes the code hash of that plugin's cells (and of the searches that start from
it) and of no other; editing a kernel changes the hash of the methods that import it and of no other.
The cell cache recomputes exactly those cells (`mabench batch`, a MABENCH_HOME plugin folder).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mabench import codehash, discovery
from support import ROOT

USER_PLUGIN = '''"""{name}: sort by the first column, cut groups of k (a test plugin)."""
import numpy as np

from mabench.plugin import Algorithm


def run(Z, k, params, rng):
    n = Z.shape[0]
    order = np.argsort(Z[:, 0], kind="stable")
    labels = np.empty(n, dtype=np.int64)
    labels[order] = np.minimum(np.arange(n) // k, max(n // k, 1) - 1)
    return labels


ALGORITHM = Algorithm(name="{name}", title="{name}", citation="a test", run=run,
                      max_group_size=lambda k, params: 2 * k - 1)
'''


@pytest.fixture
def tree_copy(tmp_path, monkeypatch):
    """A copy of the engine and of the built-in plugins that codehash reads instead of the checkout."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "mabench", src / "mabench", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(discovery.builtin_folder("algorithms"), src / "algorithms",
                    ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codehash, "PACKAGE", src / "mabench")
    monkeypatch.setattr(codehash, "_plugin_folder", lambda kind: src / kind)
    codehash.clear_caches()
    yield src
    codehash.clear_caches()


def _hashes() -> dict[str, str]:
    codehash.clear_caches()
    return {name: codehash.cell_code_hash(name, {}) for name in discovery.algorithms()}


def _changed(before, after) -> set[str]:
    return {name for name in before if before[name] != after[name]}


def _searches_from(name: str) -> set[str]:
    """Methods whose declared default init= is ``name``."""
    return {a for a, algo in discovery.algorithms().items()
            if "init" in algo.params and algo.params["init"].default == name}


def test_editing_one_plugin_changes_its_cells_and_its_searches_only(tree_copy):
    before = _hashes()
    with open(tree_copy / "algorithms" / "tfrp1.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert _changed(before, _hashes()) == {"tfrp1"}
    with open(tree_copy / "algorithms" / "mdav.py", "a") as fh:
        fh.write("\n# an edit\n")
    after = _hashes()
    assert _changed(before, after) == {"tfrp1", "mdav"} | _searches_from("mdav")
    assert _searches_from("mdav") >= {"icsm", "ls"}


def _defined_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} | {
        t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


@pytest.mark.parametrize("kernel", ["methods/tfrp", "methods/hm", "methods/ward", "spatial/farpair"])
def test_editing_a_kernel_changes_exactly_its_users(tree_copy, kernel):
    """The users found independently: plugins and kernels that import the kernel's module or name one
    of its functions through the kernels package, closed under "uses a kernel that uses it"."""
    root = tree_copy / "mabench" / "kernels"
    sources = {str(p.relative_to(root).with_suffix("")): p.read_text() for p in root.rglob("*.py")
               if p.name != "__init__.py"}

    def uses(text: str, modules: set[str], funcs: set[str]) -> bool:
        dotted = [m.replace("/", ".") for m in modules]
        return (any(f"kernels.{m} import" in text or f"kernels.{m.rpartition('.')[0]} import {m.rpartition('.')[2]}"
                    in text for m in dotted)
                or any(f"K.{f}(" in text or f"K.{f}," in text or f"K.{f})" in text for f in funcs))

    users, funcs = {kernel}, set(_defined_names(root / f"{kernel}.py"))
    while True:  # kernels that import the edited one
        more = {m for m, text in sources.items() if m not in users and uses(text, users, funcs)}
        if not more:
            break
        users |= more
        for m in more:
            funcs |= _defined_names(root / f"{m}.py")
    direct = {p.stem for p in (tree_copy / "algorithms").glob("*.py")
              if not p.stem.startswith("_") and uses(p.read_text(), users, funcs)}
    expected = direct | {s for name in direct for s in _searches_from(name)}

    before = _hashes()
    with open(root / f"{kernel}.py", "a") as fh:
        fh.write("\n# an edit\n")
    changed = _changed(before, _hashes())
    assert expected and changed == expected
    assert len(changed) < len(before) // 2


def test_editing_the_engine_changes_every_cell(tree_copy):
    before = _hashes()
    with open(tree_copy / "mabench" / "partition.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert _changed(before, _hashes()) == set(before)


def test_a_package_used_as_a_whole_depends_on_everything_it_exports(tmp_path):
    plugin = tmp_path / "whole.py"
    plugin.write_text("from mabench import kernels as K\n\ndef run(Z, k, p, rng):\n    return getattr(K, 'x')\n"
                      "\nfns = [K]\n")
    files, _ = codehash.closure([("whole", plugin)])
    assert {"mabench.kernels.methods.tfrp", "mabench.kernels.methods.hm", "mabench.kernels.methods.ward"} <= set(files)
    plugin.write_text("from mabench import kernels as K\n\ndef run(Z, k, p, rng):\n    return K.hm_labels(Z, k)\n")
    codehash.clear_caches()
    files, _ = codehash.closure([("attr", plugin)])
    assert "mabench.kernels.methods.hm" in files and "mabench.kernels.methods.tfrp" not in files


def test_a_third_party_import_by_name_counts(tmp_path):
    plugin = tmp_path / "dyn.py"
    plugin.write_text("import importlib\n\ndef run(Z, k, p, rng):\n    importlib.import_module('sklearn.cluster')\n")
    _, external = codehash.closure([("dyn", plugin)])
    assert "sklearn" in external


# ---------------------------------------------------------------- the cell cache, with user plugins

def _batch(cli_main_home, home: Path, data: Path, cache: Path, cells: Path, algorithms) -> dict[str, int]:
    """Cells computed per algorithm by `mabench batch` (the rest came from the cache), in this process:
    what is checked is what the cache recomputes, and ``cli_main_home`` reads the plugin tree and the
    code hashes afresh for each call, as a new process would."""
    plan = {"batch": "t", "metrics": ["il"], "runs": [
        {"algorithm": name, "params": {}, "draws": [[0, str(data)]], "k": [3, 4], "cells_dir": str(cells / name)}
        for name in algorithms]}
    proc = cli_main_home("batch", "--plan", json.dumps(plan), "--cache-dir", cache, home=home)
    assert proc.returncode == 0, proc.stderr[-2000:]
    cached = [line.split("] ", 1)[1].split(" ")[0] for line in proc.stderr.splitlines() if line.endswith(")")
              and ": from cache (" in line]
    out = {name: 2 - cached.count(name) for name in algorithms}
    assert sum(out.values()) == json.loads(proc.stdout)["computed"]
    return out


def test_the_cell_cache_recomputes_exactly_the_edited_plugins_cells(tmp_path, cli_main_home):
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    for name in ("pc1cut", "colcut"):
        (home / "algorithms" / f"{name}.py").write_text(USER_PLUGIN.format(name=name))
    data = tmp_path / "d.csv"
    data.write_text("a,b,c\n" + "".join(f"{i % 7},{(i * 5) % 11},{i}\n" for i in range(30)))
    cache, cells = tmp_path / "cache", tmp_path / "cells"
    names = ["pc1cut", "colcut", "mdav", "icsm"]

    def batch():
        return _batch(cli_main_home, home, data, cache, cells, names)

    assert batch() == {name: 2 for name in names}
    assert batch() == {name: 0 for name in names}
    with open(home / "algorithms" / "pc1cut.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert batch() == {"pc1cut": 2, "colcut": 0, "mdav": 0, "icsm": 0}
    record = json.loads((cells / "pc1cut" / "seed0" / "k3.json").read_text())
    assert record["plugin_path"] == str((home / "algorithms" / "pc1cut.py").resolve())
    assert "plugin_overrides" not in record and len(record["code_hash"]) == 64


# ---------------------------------------------------------------- the workflow

@pytest.mark.slow
def test_the_workflow_reruns_exactly_the_jobs_of_an_edited_plugin(tmp_path):
    """A user plugin folder and config: after a full run, editing one plugin makes `snakemake -n`
    list that plugin's batch job and no other (the code hash is a parameter of each batch job)."""
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    for name in ("pc1cut", "colcut"):
        (home / "algorithms" / f"{name}.py").write_text(USER_PLUGIN.format(name=name))
    config = {"root_seed": 1, "k": [3], "metrics": ["il"], "threads_per_run": 1, "algorithms_per_job": 1,
              "algorithms": {"mdav": {"algorithm": "mdav"}, "pc1cut": {"algorithm": "pc1cut"},
                             "colcut": {"algorithm": "colcut"}},
              "datasets": {"tarragona": {"spec": "tarragona"}}}
    (tmp_path / "user.yaml").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNAKEMAKE_")}
    env["MABENCH_HOME"] = str(home)

    def snakemake(*args):
        cmd = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path / "w"),
               "--configfile", str(tmp_path / "user.yaml"), "--cores", "1", "--force-use-threads", *args]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
        return proc.stdout + proc.stderr

    def planned_jobs() -> set[str]:
        text = snakemake("cells", "-n", "--quiet", "rules")
        return {line.split()[0] for line in text.splitlines() if line.startswith("run__")}

    snakemake("cells")
    assert planned_jobs() == set()
    plan = json.loads((tmp_path / "w" / "results" / "plans.json").read_text())["jobs"]
    job_of = {run["algorithm"]: name for name, job in plan.items() for run in job["runs"]}
    with open(home / "algorithms" / "pc1cut.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert planned_jobs() == {"run__" + job_of["pc1cut"].replace("/", "__")}


def test_regress_with_a_cache_recomputes_exactly_the_edited_plugins_cells(tmp_path, cli_main_home):
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True)
    (home / "algorithms" / "pc1cut.py").write_text(USER_PLUGIN.format(name="pc1cut"))
    config = {"k": [3, 4], "algorithms": {"mdav": {"algorithm": "mdav"}, "pc1cut": {"algorithm": "pc1cut"}},
              "datasets": {"tarragona": {"spec": "tarragona"}}}
    (tmp_path / "c.yaml").write_text(json.dumps(config))

    def regress(out: str) -> list[str]:  # in this process, as _batch
        proc = cli_main_home("regress", "--config", tmp_path / "c.yaml", "--out", tmp_path / out,
                             "--cache-dir", tmp_path / "cache", home=home)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return sorted(line.split(":")[0] for line in proc.stderr.splitlines() if ": from cache" in line)

    assert regress("a.csv") == []
    assert regress("b.csv") == ["tarragona mdav k=3", "tarragona mdav k=4", "tarragona pc1cut k=3",
                                "tarragona pc1cut k=4"]
    with open(home / "algorithms" / "pc1cut.py", "a") as fh:
        fh.write("\n# an edit\n")
    assert regress("c.csv") == ["tarragona mdav k=3", "tarragona mdav k=4"]
    import pandas as pd

    a, c = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "c.csv")
    assert (a.il == c.il).all()
    assert list(a.code_hash[a.algo_id == "mdav"]) == list(c.code_hash[c.algo_id == "mdav"])
    assert set(a.code_hash[a.algo_id == "pc1cut"]).isdisjoint(c.code_hash[c.algo_id == "pc1cut"])


def _every_hash() -> tuple[str, dict[str, str]]:
    codehash.clear_caches()
    return codehash.engine_hash(), {name: codehash.plugin_hash(name) for name in discovery.algorithms()}


def test_the_imports_kept_on_disk_give_the_hashes_a_fresh_reading_gives(tree_copy, tmp_path, monkeypatch):
    """Each file's imports are kept under a hash of its text (codehash._parse): read back they give
    the same hashes; an edited file is another entry; damaged entries and a cache that cannot be
    written are read around."""
    kept, empty = tmp_path / "kept", tmp_path / "empty"
    monkeypatch.setenv("XDG_CACHE_HOME", str(kept))
    first = _every_hash()
    assert len(list((kept / "mabench" / "imports").rglob("*.json"))) > 60
    assert _every_hash() == first  # now from the entries
    with open(tree_copy / "mabench" / "plugin.py", "a") as fh:
        fh.write("\n# an edit\n")
    changed = _every_hash()
    assert changed[0] != first[0]
    monkeypatch.setenv("XDG_CACHE_HOME", str(empty / "1"))
    assert _every_hash() == changed  # as a fresh reading
    for entry in (kept / "mabench" / "imports").rglob("*.json"):  # damaged entries are read around
        entry.write_text("{not json")
    monkeypatch.setenv("XDG_CACHE_HOME", str(kept))
    assert _every_hash() == changed
    (empty / "file").write_text("")  # a cache that cannot be written
    monkeypatch.setenv("XDG_CACHE_HOME", str(empty / "file"))
    assert _every_hash() == changed


def test_a_kept_entry_is_read_again_when_a_module_it_looked_up_changed_kind(tmp_path, monkeypatch):
    """``from mabench import b`` then ``b.thing``: while b is a module its file is all it needs; once b
    is a package, ``b.thing`` is its submodule and part of the closure. The entry of the importing
    file, whose text did not change, records the lookup of b and is not used once b changed."""
    package = tmp_path / "src" / "mabench"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from mabench import b\n\n\ndef f():\n    return b.thing\n")
    (package / "b.py").write_text("thing = 1\n")
    monkeypatch.setattr(codehash, "PACKAGE", package)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def files():
        codehash.clear_caches()
        return sorted(codehash.closure([("mabench.a", package / "a.py")])[0])

    try:
        assert files() == ["mabench.a", "mabench.b"]
        assert files() == ["mabench.a", "mabench.b"]  # from the entries
        (package / "b.py").unlink()
        (package / "b").mkdir()
        (package / "b" / "__init__.py").write_text("")
        (package / "b" / "thing.py").write_text("")
        assert files() == ["mabench.a", "mabench.b", "mabench.b.thing"]
    finally:
        codehash.clear_caches()
