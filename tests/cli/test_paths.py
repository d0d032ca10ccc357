"""The path rule (issue 17, docs/contract.md): no output of any command may be one of its inputs.

Table-driven: every subcommand, each of its output options pointed at each of its input files —
by the same name, through a symbolic link and through a hard link. The command must exit 2 with
one line naming both, before any work, and leave the input byte-identical and no new file.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from support import GOOD_CSV, ROOT
from mabench import cli
from mabench.data import fetch

RECORD = {"algorithm": "mdav", "params": "tail=3k", "dataset": "tarragona", "dataset_params": "", "k": 2,
          "seed": 0, "n": 834, "d": 13, "il": 10.0, "seconds": 0.1}


def _inputs(folder: Path) -> None:
    (folder / "good.csv").write_text(GOOD_CSV)
    (folder / "other.csv").write_text(GOOD_CSV)
    (folder / "part.csv").write_text("group\n0\n0\n1\n1\n2\n2\n")
    frame = pd.DataFrame([RECORD])
    frame.to_csv(folder / "base.csv", index=False)
    frame.to_csv(folder / "cur.csv", index=False)
    shutil.copy(ROOT / "registry" / "published.csv", folder / "pub.csv")
    shutil.copy(ROOT / "config" / "smoke.yaml", folder / "cfg.yaml")
    cell = folder / "cells" / "tarragona" / "mdav" / "seed0"
    cell.mkdir(parents=True)
    (cell / "k2.json").write_text(json.dumps(RECORD) + "\n")


CELL = "cells/tarragona/mdav/seed0/k2.json"
# command: (argv with OUTPUT slots written {--opt}, the input files, the output options)
COMMANDS = {
    "run": (["run", "mdav", "good.csv", "-k", "2", "--out", "{--out}", "--json-out", "{--json-out}"],
            ["good.csv"], ["--out", "--json-out"]),
    "evaluate": (["evaluate", "good.csv", "part.csv", "-k", "2", "--json-out", "{--json-out}"],
                 ["good.csv", "part.csv"], ["--json-out"]),
    "prepare": (["prepare", "good.csv", "other.csv", "--out", "{--out}", "--out", "x.parquet"],
                ["good.csv", "other.csv"], ["--out"]),
    "compare": (["compare", "base.csv", "cur.csv", "--published", "pub.csv", "--out", "{--out}",
                 "--cells-out", "{--cells-out}"], ["base.csv", "cur.csv", "pub.csv"], ["--out", "--cells-out"]),
    "regress": (["regress", "--config", "cfg.yaml", "--out", "{--out}"], ["cfg.yaml"], ["--out"]),
    "compile": (["compile", "--config", "cfg.yaml", "--json-out", "{--json-out}", "--plans-out", "{--plans-out}",
                 "--progress-out", "{--progress-out}"], ["cfg.yaml"], ["--json-out", "--plans-out", "--progress-out"]),
    "aggregate": (["aggregate", CELL, "--cells-dir", "cells", "--config", "cfg.yaml", "--out", "{--out}"],
                  [CELL, "cfg.yaml"], ["--out"]),
}
CASES = [(cmd, opt, inp, how) for cmd, (_, ins, outs) in COMMANDS.items() for opt in outs for inp in ins
         for how in ("same", "symlink", "hardlink", "dotdot")]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("cmd, opt, inp, how", CASES, ids=["-".join(c).replace("/", "_") for c in CASES])
def test_no_output_may_be_an_input(tmp_path, monkeypatch, capsys, cmd, opt, inp, how):
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    if how == "same":
        target = inp
    elif how == "dotdot":  # through a folder that does not exist: the written file would land on the input
        target = f"missing/../{inp}"
    else:
        target = "link-to-input"
        (os.symlink if how == "symlink" else os.link)(tmp_path / inp, tmp_path / target)
    template, _, outs = COMMANDS[cmd]
    argv = [target if a == "{" + opt + "}" else (f"fresh{a[3:-1]}.out" if a.startswith("{--") else a)
            for a in template]
    before = _snapshot(tmp_path)
    capsys.readouterr()
    status = cli.main(argv)
    err = capsys.readouterr().err
    assert status == 2, (status, err)
    assert len(err.splitlines()) == 1 and err.startswith("mabench: error: "), err
    assert f"{opt} {target!r}" in err and repr(inp) in err and "same file" in err, err
    assert _snapshot(tmp_path) == before  # the input is untouched and nothing new appeared


def test_fetch_never_overwrites_the_vendored_copy(tmp_path, capsys):
    vendored = fetch.vendored_path("tarragona")
    before = vendored.read_bytes()
    link = tmp_path / "v"
    os.symlink(vendored, link)
    assert cli.main(["fetch", "tarragona", "--out", str(link)]) == 2
    err = capsys.readouterr().err
    assert "the vendored copy" in err and "same file" in err, err
    assert vendored.read_bytes() == before


def test_a_results_folder_is_an_input_too(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    (tmp_path / "res").mkdir()
    pd.DataFrame([RECORD]).to_parquet(tmp_path / "res" / "results.parquet")
    before = _snapshot(tmp_path)
    assert cli.main(["compare", "res", "cur.csv", "--published", "none", "--out", "res/results.parquet"]) == 2
    assert "same file" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("cmd", ["tables", "report"])
def test_outputs_written_into_a_folder_never_replace_an_input(tmp_path, monkeypatch, capsys, cmd):
    """tables/report write many files into --out-dir: an input that has the name of one of them is
    refused as it would be written, and nothing is left (the command is all or nothing)."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    row = dict(RECORD, dataset_id="tarragona", algo_id="mdav")
    pd.DataFrame([row]).to_parquet(out / "index.md" if cmd == "tables" else out / "index.html")
    results = "out/index.md" if cmd == "tables" else "out/index.html"
    before = _snapshot(tmp_path)
    status = cli.main([cmd, "--results", results, "--out-dir", "out"])
    err = capsys.readouterr().err
    assert status == 2 and "same file" in err and "--results" in err, err
    assert _snapshot(tmp_path) == before


@pytest.mark.parametrize("opt", ["--masked-out", "--out", "--json-out"])
def test_a_k_template_through_dotdot_never_replaces_the_input(tmp_path, monkeypatch, capsys, opt):
    """``{k}/../good.csv`` becomes ``2/../good.csv``: no folder 2, yet the file would land on the input."""
    monkeypatch.chdir(tmp_path)
    _inputs(tmp_path)
    before = _snapshot(tmp_path)
    capsys.readouterr()
    status = cli.main(["run", "mdav", "good.csv", "-k", "2", opt, "{k}/../good.csv"])
    err = capsys.readouterr().err
    assert status == 2 and "same file" in err and len(err.splitlines()) == 1, (status, err)
    assert _snapshot(tmp_path) == before
