"""Every code block of README.md and docs/guide.md runs (issue 42 item 9): the ```python blocks in
one namespace, the ```sh blocks in bash with this environment's `mabench` first on PATH, in order, in
one empty folder. A block that cannot run here carries `<!-- not run: REASON -->` on the line
before it, and the test checks that each such block says why."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

BLOCK = re.compile(r"(?:<!-- not run: (?P<reason>[^>]*?) -->\n)?```(?P<lang>[a-z]*)\n(?P<code>.*?)```", re.S)


def blocks(path: Path) -> list[tuple[str, str, str | None]]:
    return [(m.group("lang"), m.group("code"), m.group("reason"))
            for m in BLOCK.finditer(path.read_text(encoding="utf-8"))]


def run_blocks(path: Path, folder: Path) -> int:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    namespace: dict = {"__name__": "__doc_example__"}
    ran = 0
    old = Path.cwd()
    os.chdir(folder)
    try:
        for lang, code, reason in blocks(path):
            if reason is not None:
                assert reason.strip(), f"{path.name}: a not-run block must say why"
                continue
            assert lang in ("python", "sh"), f"{path.name}: block of language {lang!r} is neither run nor marked"
            if lang == "python":
                exec(compile(code, f"{path.name} block", "exec"), namespace)  # noqa: S102
            else:
                proc = subprocess.run(["bash", "-e", "-c", code], capture_output=True, text=True, env=env,
                                      timeout=1800)
                assert proc.returncode == 0, f"{path.name}:\n{code}\n{proc.stderr[-2000:]}"
            ran += 1
    finally:
        os.chdir(old)
    return ran


@pytest.mark.slow
def test_guide_examples_run(tmp_path):
    pytest.importorskip("pyreadstat", reason="the formats extra (pyreadstat) is not installed")
    pytest.importorskip("sklearn", reason="the sdcmicro extra (scikit-learn) is not installed")
    assert run_blocks(ROOT / "docs" / "guide.md", tmp_path) == 8


@pytest.mark.slow
def test_readme_examples_run(tmp_path):
    assert run_blocks(ROOT / "README.md", tmp_path) >= 2
