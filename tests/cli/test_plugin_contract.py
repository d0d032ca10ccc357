"""A user's plugin (MABENCH_HOME) that breaks the plugin contract (issue 40, F2, F3, F7, F11).

Whatever a plugin returns or does, the command ends in a valid result or in status 2 with one line
naming the plugin: labels that are not whole numbers are refused (never truncated), the data a
plugin gets cannot be changed by it (the metrics use the data the partition was made from), an
invalid partition, info that is not strict JSON and a ``sys.exit`` in the plugin are refused, and a
plugin file that cannot be imported leaves every other command working.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from support import assert_user_error, forget_plugins, main_in_process as main

DATA = "a,b,c\n" + "".join(f"{i % 7},{(i * 3) % 11},{(i * i) % 13}\n" for i in range(60))

PLUGIN = """
import sys
import numpy as np
from mabench.plugin import Algorithm


def run(Z, k, params, rng):
{body}


ALGORITHM = Algorithm(name="{name}", title="a test plugin", citation="tests", run=run,
                      max_group_size=lambda k, params: None)
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A MABENCH_HOME in a fresh folder (the current one, holding d.csv); write(name, body) adds a plugin."""
    (tmp_path / "home" / "algorithms").mkdir(parents=True)
    (tmp_path / "d.csv").write_text(DATA)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MABENCH_HOME", str(tmp_path / "home"))
    forget_plugins()  # each test writes its own file under the same name

    def write(name: str, body: str, text: str | None = None) -> None:
        source = text if text is not None else PLUGIN.format(name=name, body=textwrap.indent(body, "    "))
        (tmp_path / "home" / "algorithms" / f"{name}.py").write_text(source)
        forget_plugins()

    yield write
    forget_plugins()


def _left(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in {"home", "d.csv"})


BAD_LABELS = {
    # (np.arange(n)//k)*0.5: a cast to int64 made 20 groups of 3 into 10 groups of 6
    "halves": ("return (np.arange(Z.shape[0]) // k) * 0.5", "label 0.5 at labels[3]"),
    "nan": ("x = (np.arange(Z.shape[0]) // k).astype(float)\nx[5] = np.nan\nreturn x", "labels[5]"),
    "inf": ("x = (np.arange(Z.shape[0]) // k).astype(float)\nx[7] = np.inf\nreturn x", "labels[7]"),
    "text": ("return np.array(['a'] * Z.shape[0])", "type"),
    "ragged": ("return [[0, 1], [0]]", "not an array"),
}


@pytest.mark.parametrize("case", sorted(BAD_LABELS))
def test_labels_that_are_not_whole_numbers_are_refused_not_truncated(home, capsys, tmp_path, case):
    body, needle = BAD_LABELS[case]
    home("bad", body)
    proc = main(capsys, "run", "bad", "d.csv", "-k", "3", "--out", "p.csv", "--json-out", "r.json")
    assert_user_error(proc, "algorithm bad on d.csv with k=3", needle)
    assert _left(tmp_path) == []


def test_whole_number_float_labels_are_a_partition(home, capsys):
    home("floaty", "return (np.arange(Z.shape[0]) // k).astype(float)")
    proc = main(capsys, "run", "floaty", "d.csv", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["n_groups"] == 20


def test_a_plugin_cannot_change_the_data_the_metrics_use(home, capsys, tmp_path):
    """F3: ``Z[:, 1:] *= 0.001`` made run's IL 34.82 where evaluate of the same partition gave 56.00."""
    home("mutant", "Z[:, 1:] *= 0.001\nreturn np.arange(Z.shape[0]) // k")
    proc = main(capsys, "run", "mutant", "d.csv", "-k", "3", "--out", "p.csv")
    assert_user_error(proc, "algorithm mutant", "writes into its input", "copy")
    assert _left(tmp_path) == []


def test_a_plugin_working_on_a_copy_scores_as_evaluate_does(home, capsys):
    home("copier", "Z = Z.copy()\nZ[:, 1:] *= 0.001\norder = np.lexsort(Z.T[::-1])\n"
                   "labels = np.empty(Z.shape[0], dtype=np.int64)\nlabels[order] = np.arange(Z.shape[0]) // k\n"
                   "return labels")
    proc = main(capsys, "run", "copier", "d.csv", "-k", "3", "--out", "p.csv", "--metrics", "il,dld")
    assert proc.returncode == 0, proc.stderr
    ran = json.loads(proc.stdout)
    proc = main(capsys, "evaluate", "d.csv", "p.csv", "-k", "3", "--metrics", "il,dld")
    assert proc.returncode == 0, proc.stderr
    scored = json.loads(proc.stdout)
    assert (ran["il"], ran["dld"]) == (scored["il"], scored["dld"])


INVALID = {
    "small-group": ("x = np.arange(Z.shape[0]) // k\nx[0] = 1\nreturn x", "< k=3"),
    "unassigned": ("x = np.arange(Z.shape[0]) // k\nx[0] = -1\nreturn x", "negative label"),
    "short": ("return np.arange(Z.shape[0] - 3) // k", "labels for 60 records"),
    "gap": ("return (np.arange(Z.shape[0]) // k) * 2", "unused"),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_an_invalid_partition_is_one_line(home, capsys, tmp_path, case):
    body, needle = INVALID[case]
    home("broken", body)
    proc = main(capsys, "run", "broken", "d.csv", "-k", "3", "--out", "p.csv")
    assert_user_error(proc, "algorithm broken on d.csv with k=3", needle, "invalid partition")
    assert _left(tmp_path) == []


def test_an_invalid_partition_of_one_stratum_is_refused(home, capsys, tmp_path):
    """A stray label in one stratum would otherwise join a group of the stratum before it."""
    home("strat", "x = np.arange(Z.shape[0]) // k\nx[-1] = -1 if Z.shape[0] < 40 else x[-1]\nreturn x")
    (tmp_path / "s.csv").write_text("s,a,b\n" + "".join(f"{i % 2},{i % 7},{(i * 3) % 11}\n" for i in range(60)))
    proc = main(capsys, "run", "strat", "s.csv", "-k", "3", "--param", "strata=s")
    assert_user_error(proc, "stratum", "negative label")


@pytest.mark.parametrize("info, needle", [("{'x': float('nan')}", "not strict JSON"),
                                          ("{'x': object()}", "not strict JSON"),
                                          ("[1, 2]", "dict")])
def test_info_that_is_not_strict_json_is_refused(home, capsys, info, needle):
    home("chatty", f"return np.arange(Z.shape[0]) // k, {info}")
    proc = main(capsys, "run", "chatty", "d.csv", "-k", "3")
    assert_user_error(proc, "algorithm chatty", needle)


@pytest.mark.parametrize("code", ["0", "3", "'bye'"])
def test_sys_exit_in_a_plugin_is_refused(home, capsys, code):
    """F11: sys.exit(0) in a plugin ended mabench with status 0 and no output."""
    home("quitter", f"sys.exit({code})")
    proc = main(capsys, "run", "quitter", "d.csv", "-k", "3")
    assert_user_error(proc, "algorithm quitter", "sys.exit")


def test_a_plugin_with_a_syntax_error_breaks_only_itself(home, capsys):
    """F7: one broken file of MABENCH_HOME made every command fail, even `list algorithms`."""
    home("typo", "", text="def run(Z, k, params, rng)\n    return 0\n")
    proc = main(capsys, "list", "algorithms")
    assert proc.returncode == 0
    assert "mdav\t" in proc.stdout and "typo" not in proc.stdout
    assert len(proc.stderr.splitlines()) == 1 and "typo" in proc.stderr and "line 1" in proc.stderr
    proc = main(capsys, "run", "mdav", "d.csv", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    proc = main(capsys, "run", "typo", "d.csv", "-k", "3")
    assert_user_error(proc, "'typo' cannot be loaded", "SyntaxError", "line 1")


def test_a_plugin_whose_import_fails_breaks_only_itself(home, capsys):
    home("needs", "", text="import a_module_that_is_not_there\n")
    proc = main(capsys, "run", "needs", "d.csv", "-k", "3")
    assert_user_error(proc, "'needs' cannot be loaded", "ModuleNotFoundError")
    assert main(capsys, "list", "algorithms").returncode == 0
