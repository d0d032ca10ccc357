"""A MABENCH_HOME plugin with a built-in's name is refused unless it says override=True; run records
and results tables name each user plugin's file and hash (issue 38 item 9, issue 40 F12)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd


MDAV_COPY = '''"""A copy of mdav under test: labels shifted by nothing, the same partition."""
import dataclasses

from mabench.algorithms.mdav import ALGORITHM as _BUILTIN

ALGORITHM = dataclasses.replace(_BUILTIN{extra})
'''


def _home(tmp_path: Path, extra: str) -> Path:
    home = tmp_path / "home"
    (home / "algorithms").mkdir(parents=True, exist_ok=True)
    (home / "algorithms" / "mdav.py").write_text(MDAV_COPY.format(extra=extra))
    return home


def test_a_user_plugin_with_a_builtins_name_is_refused_in_one_line(tmp_path, cli_main_home):
    home = _home(tmp_path, "")
    proc = cli_main_home("run", "mdav", "tarragona", "-k", "3", home=home)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert "the name of a built-in" in lines[0] and "override=True" in lines[0] and "mdav.py" in lines[0]
    assert proc.stdout == ""
    proc = cli_main_home("list", "algorithms", home=home)  # every command: the plugin tree is not in force
    assert proc.returncode == 2 and "override=True" in proc.stderr


def test_an_override_runs_and_the_record_names_the_plugin_file_and_hash(tmp_path, cli_main_home):
    home = _home(tmp_path, ", override=True")
    proc = cli_main_home("run", "mdav", "tarragona", "-k", "3", home=home)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    path = home / "algorithms" / "mdav.py"
    assert record["plugin_path"] == str(path.resolve())
    assert record["plugin_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert record["plugin_overrides"] == "mdav"
    assert abs(record["il"] - 16.932587622823796) < 1e-12  # the copy's partition is the built-in's


def test_a_search_started_from_a_user_plugin_names_it_as_its_init(tmp_path, cli_main_home):
    home = _home(tmp_path, ", override=True")
    proc = cli_main_home("run", "ls", "tarragona", "-k", "3", home=home)
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["init_plugin_overrides"] == "mdav" and record["init_plugin_path"].endswith("mdav.py")
    assert "plugin_path" not in record  # ls itself is the built-in


def test_builtin_runs_record_no_user_plugin(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "MABENCH_HOME"}
    proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", "mdav", "tarragona", "-k", "3"],
                          capture_output=True, text=True, env=env, timeout=600)
    record = json.loads(proc.stdout)
    assert not any(key.startswith(("plugin_", "init_plugin_")) for key in record)
    assert len(record["code_hash"]) == 64


def test_results_tables_record_the_user_plugins(tmp_path, cli_main_home):
    home = _home(tmp_path, ", override=True")
    cells = tmp_path / "cells" / "tarragona" / "mdav" / "seed0"
    cells.mkdir(parents=True)
    proc = cli_main_home("run", "mdav", "tarragona", "-k", "3", home=home)
    (cells / "k3.json").write_text(proc.stdout)
    out = tmp_path / "results.parquet"
    proc = cli_main_home("aggregate", str(cells / "k3.json"), "--cells-dir", str(tmp_path / "cells"),
                         "--out", str(out), home=home)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_parquet(out)
    assert frame["plugin_overrides"].tolist() == ["mdav"]
    users = json.loads(frame["user_plugins"].iloc[0])
    assert users["mdav"]["path"] == str((home / "algorithms" / "mdav.py").resolve())
    assert users["mdav"]["overrides"] is True and len(users["mdav"]["sha256"]) == 64
