"""User errors on the data-input paths of the CLI.

Every case must end with exit status 2, exactly one line on stderr (starting
``mabench: error:``), no traceback, nothing on stdout and no ``--out`` /
``--json-out`` file (not even a temporary one). One case of each kind runs as
a real subprocess (``python -m mabench.cli``; all at once, in one module
fixture); every case also runs in process through ``mabench.cli.main``, where
any exception other than a UserError would fail the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support import ROOT, safety_net


CSV = {
    "good": "a,b,c\n1,2,3\n4,5,7\n2,9,1\n8,1,5\n5,5,5\n",
    "text": "a,b\n1,x\n2,y\n3,z\n4,w\n",
    "nan": "a,b\n1,2\n3,\n5,6\n7,8\n",
    "nan_literal": "a,b\n1,2\n3,4\nNaN,6\n7,8\n",
    "inf": "a,b\n1,2\n3,inf\n5,6\n7,8\n",
    "constant": "a,b\n1,5\n2,5\n3,5\n4,5\n",
    "small": "a,b\n1,2\n3,4\n5,7\n7,1\n",
    "header_only": "a,b\n",
}

# name -> (arguments, words the message must contain); {csv:X} is the path of CSV[X], {tmp} the case folder.
CASES = {
    "missing_file": (["run", "mdav", "{tmp}/nope.csv", "-k", "3"], ["nope.csv", "does not exist"]),
    "non_numeric": (["run", "mdav", "{csv:text}", "-k", "2", "--columns", "a,b"], ["'b'", "not numeric"]),
    "nan_value": (["run", "mdav", "{csv:nan}", "-k", "2"], ["row 2", "'b'"]),
    "nan_literal": (["run", "mdav", "{csv:nan_literal}", "-k", "2"], ["row 3", "'a'"]),
    "inf_value": (["run", "mdav", "{csv:inf}", "-k", "2"], ["'b'", "infinite"]),
    "constant_column": (["run", "mdav", "{csv:constant}", "-k", "2"], ["'b'", "constant"]),
    "header_only": (["run", "mdav", "{csv:header_only}", "-k", "2"], ["no data"]),
    "n_less_than_k": (["run", "mdav", "{csv:small}", "-k", "5"], ["n=4", "k=5"]),
    "k_zero": (["run", "mdav", "{csv:good}", "-k", "0"], ["k"]),
    "k_negative": (["run", "mdav", "{csv:good}", "-k", "-3"], ["k"]),
    "k_not_integer": (["run", "mdav", "{csv:good}", "-k", "three"], ["three"]),
    "unknown_algorithm": (["run", "nosuchalgo", "{csv:good}", "-k", "2"], ["nosuchalgo"]),
    "unknown_dataset": (["run", "mdav", "nosuchdata", "-k", "2"], ["nosuchdata", "census", "sim1"]),
    "unknown_generator_param": (["run", "mdav", "sim1[m=3]", "-k", "2"], ["'m'", "n"]),
    "bad_generator_value": (["run", "mdav", "sim1[n=abc]", "-k", "2"], ["abc"]),
    "generator_n_zero": (["run", "mdav", "uniform[n=0,d=3]", "-k", "2"], ["n"]),
    "generator_bad_sigma": (["run", "mdav", "normal[n=50,d=2,sigma=-1]", "-k", "2"], ["sigma"]),
    "malformed_spec": (["run", "mdav", "uniform[n3000]", "-k", "2"], ["n3000"]),
    "catalog_with_params": (["run", "mdav", "census[n=3]", "-k", "2"], ["census"]),
    "param_without_value": (["run", "mdav", "{csv:good}", "-k", "2", "--param", "tail"], ["tail"]),
    "param_bad_choice": (["run", "mdav", "{csv:good}", "-k", "2", "--param", "tail=bogus"], ["bogus"]),
    "param_unknown": (["run", "mdav", "{csv:good}", "-k", "2", "--param", "nosuch=1"], ["nosuch"]),
    "prepare_missing_file": (["prepare", "{tmp}/nope.parquet"], ["does not exist"]),
    # (a file's NaN pass `prepare`, which keeps them for missing=available; the run refuses them:
    # tests/cli/test_office_files.py::test_prepared_file_keeps_its_table_for_the_workflow)
    "prepare_unknown_dataset": (["prepare", "nosuchdata"], ["nosuchdata"]),
    "prepare_unknown_param": (["prepare", "sim2[d=5]"], ["'d'"]),
    "prepare_raw_for_generator": (["prepare", "sim1", "--raw", "{csv:good}"], ["--raw"]),
    "prepare_missing_raw": (["prepare", "census", "--raw", "{tmp}/nope.rda"], ["does not exist"]),
}


# One representative per kind of error, run as a real process (process start-up costs ~1 s each).
SUBPROCESS_CASES = [
    "missing_file", "non_numeric", "nan_value", "inf_value", "constant_column", "n_less_than_k", "k_zero",
    "unknown_algorithm", "unknown_dataset", "unknown_generator_param", "param_without_value",
]


def _materialize(name: str, tmp: Path, inputs: Path) -> list[str]:
    template = CASES[name][0]
    args = []
    for arg in template:
        if arg.startswith("{csv:"):
            key = arg[5:-1]
            path = inputs / f"{key}.csv"
            path.write_text(CSV[key])
            arg = str(path)
        args.append(arg.replace("{tmp}", str(inputs)))
    out = tmp / ("out.csv" if args[0] == "run" else "out.parquet")
    args += ["--out", str(out)]
    if args[0] == "run":
        args += ["--json-out", str(tmp / "record.json")]
    return args


def _check(case: str, status: int, stdout: str, stderr: str, out_dir: Path) -> None:
    assert status == 2, f"{case}: status {status}\n{stderr}"
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("mabench: error: ")
    assert stdout == ""
    for needle in CASES[case][1]:
        assert needle in lines[0], f"{needle!r} not in {lines[0]!r}"
    assert sorted(p.name for p in out_dir.iterdir()) == []  # no output, no temporary file


def _cli(args: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "MABENCH_HOME": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "mabench.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=safety_net(180))


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    jobs = {}
    for name in SUBPROCESS_CASES:
        tmp = tmp_path_factory.mktemp(name)
        jobs[name] = (_materialize(name, tmp, tmp_path_factory.mktemp(f"{name}_in")), tmp)
    workers = max(2, min(8, os.cpu_count() or 2))
    with ThreadPoolExecutor(workers) as pool:
        futures = {name: pool.submit(_cli, args) for name, (args, _) in jobs.items()}
        return {name: (futures[name].result(), jobs[name][1]) for name in jobs}


@pytest.mark.parametrize("case", SUBPROCESS_CASES)
def test_cli_process_user_error(results, case):
    proc, out_dir = results[case]
    _check(case, proc.returncode, proc.stdout, proc.stderr, out_dir)


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_main_user_error(case, tmp_path, capsys):
    from mabench import cli

    out_dir, inputs = tmp_path / "out", tmp_path / "in"
    out_dir.mkdir()
    inputs.mkdir()
    args = _materialize(case, out_dir, inputs)
    capsys.readouterr()
    status = cli.main(args)
    captured = capsys.readouterr()
    _check(case, status, captured.out, captured.err, out_dir)


def test_good_csv_runs(tmp_path):
    """The fixture's good CSV is really fine: the failures above come from the one thing changed."""
    path = tmp_path / "good.csv"
    path.write_text(CSV["good"])
    out = tmp_path / "labels.csv"
    from mabench import cli

    assert cli.main(["run", "mdav", str(path), "-k", "2", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[0] == "group"
    assert len(out.read_text().splitlines()) == 6
