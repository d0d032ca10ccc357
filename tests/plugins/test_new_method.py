"""`mabench new method NAME [--dir DIR]`: a working plugin template and a test that runs mabench.testing."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def mabench(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd, timeout=900)


def test_the_template_passes_its_own_test_and_runs_from_mabench_home(tmp_path):
    proc = mabench("new", "method", "pc1cut", "--dir", str(tmp_path / "mine"))
    assert proc.returncode == 0, proc.stderr
    plugin, test = tmp_path / "mine" / "algorithms" / "pc1cut.py", tmp_path / "mine" / "tests" / "test_pc1cut.py"
    assert json.loads(proc.stdout)["written"] == [str(plugin), str(test)]
    # the written test, run as a user would run it (pytest in their folder)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           str(test)], capture_output=True, text=True, cwd=tmp_path / "mine", timeout=900)
    assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout[-2000:]
    proc = mabench("run", "pc1cut", "tarragona", "-k", "3", "--param", "by=sum",
                   env={"MABENCH_HOME": str(tmp_path / "mine")})
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["min_group"] >= 3 and record["plugin_path"] == str(plugin.resolve())


def test_bad_names_and_existing_files_are_refused_in_one_line(tmp_path):
    for name, words in (("Bad-Name", "lower-case"), ("mdav", "built-in")):
        proc = mabench("new", "method", name, "--dir", str(tmp_path))
        assert proc.returncode == 2 and words in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "algorithms").exists()
    assert mabench("new", "method", "mine", "--dir", str(tmp_path)).returncode == 0
    before = (tmp_path / "algorithms" / "mine.py").read_text()
    (tmp_path / "tests" / "test_mine.py").unlink()
    proc = mabench("new", "method", "mine", "--dir", str(tmp_path))
    assert proc.returncode == 2 and "exists" in proc.stderr
    assert (tmp_path / "algorithms" / "mine.py").read_text() == before
    assert not (tmp_path / "tests" / "test_mine.py").exists()  # nothing partial
