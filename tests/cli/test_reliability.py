"""The CLI contract on every failure path (issue 7): write failures, special files, permissions,
interrupts, seeds, partition labels, file data sets, extreme values and misleading messages.

Every error case checks the whole contract: status 2, one line on stderr starting
``mabench: error:``, no traceback, nothing on stdout, and no file left behind (not even a
temporary one). Most cases run in process (``mabench.cli.main``, where any exception other than
a user error fails the test); the interrupt cases run as real processes.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from support import GOOD_CSV, ROOT, assert_user_error, main_in_process as main, safety_net, work  # noqa: F401 (the fixture)
from mabench import io
from mabench.cli import catalog, process
from mabench.cli.process import INTERRUPTED
from mabench.errors import UserError



def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))



# ----------------------------------------------------------------------------- write failures
WRITE_FAILURES = {
    "parent-is-a-file": (["run", "mdav", "good.csv", "-k", "2", "--out", "good.csv/p.csv"], "not a folder"),
    "out-is-a-directory": (["run", "mdav", "good.csv", "-k", "2", "--out", "sub"], "is a folder"),
    "out-in-proc": (["run", "mdav", "good.csv", "-k", "2", "--out", "/proc/p.csv"], "/proc/p.csv"),
    "json-out-in-proc": (["run", "mdav", "good.csv", "-k", "2", "--json-out", "/proc/p.json"], "/proc/p.json"),
    "second-output-fails": (["run", "mdav", "good.csv", "-k", "2", "--out", "p.csv", "--json-out", "/proc/x.json"],
                            "/proc/x.json"),
    "new-folder-then-fail": (["run", "mdav", "good.csv", "-k", "2", "--out", "new/deeper/p.csv",
                              "--json-out", "/proc/x.json"], "/proc/x.json"),
    "prepare-in-proc": (["prepare", "tarragona", "--out", "/proc/x.parquet"], "/proc/x.parquet"),
    "evaluate-json-in-proc": (["evaluate", "good.csv", "part.csv", "--json-out", "/proc/e.json"], "/proc/e.json"),
    "disk-full": (["run", "mdav", "good.csv", "-k", "2", "--out", "p.csv", "--json-out", "/dev/full"], "no space"),
    "same-file-twice": (["run", "mdav", "good.csv", "-k", "2", "--out", "p.csv", "--json-out", "./p.csv"], "two outputs"),
    "out-is-the-input": (["run", "mdav", "good.csv", "-k", "2", "--out", "good.csv"], "replace your input"),
    "trailing-slash": (["run", "mdav", "good.csv", "-k", "2", "--out", "newdir/"], "not a file name"),
}


@pytest.mark.parametrize("case", sorted(WRITE_FAILURES))
def test_write_failures_keep_the_contract(work, capsys, case):
    args, needle = WRITE_FAILURES[case]
    (work / "sub").mkdir()
    (work / "part.csv").write_text("group\n0\n0\n0\n1\n1\n1\n")
    before = listing(work)
    assert_user_error(main(capsys, *args), needle)
    assert listing(work) == before  # no output, no temporary file, no folder made for the outputs


def test_permission_denied_is_a_user_error(tmp_path, capsys):
    (tmp_path / "good.csv").write_text(GOOD_CSV)
    locked = tmp_path / "locked"
    locked.mkdir()
    err = None
    with pytest.MonkeyPatch.context() as mp:  # root ignores mode bits: simulate the OS answer
        real = io.tempfile.mkstemp

        def denied(*a, dir=None, **kw):
            if Path(dir) == locked:
                raise PermissionError(errno.EACCES, "Permission denied")
            return real(*a, dir=dir, **kw)

        mp.setattr(io.tempfile, "mkstemp", denied)
        err = main(capsys, "run", "mdav", tmp_path / "good.csv", "-k", "2", "--out", locked / "p.csv")
    assert_user_error(err, "permission denied")
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("code, needle", [(errno.ENOSPC, "no space"), (errno.EROFS, "read-only"),
                                          (errno.EACCES, "permission denied")])
def test_a_failing_rename_restores_every_output(tmp_path, monkeypatch, code, needle):
    """The second rename of a two-file commit fails: the first target gets its old content back."""
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old a")
    calls = []
    real = os.replace

    def flaky(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(code, os.strerror(code))
        return real(src, dst)

    monkeypatch.setattr(io.os, "replace", flaky)
    with pytest.raises(UserError, match=needle):
        with io.outputs() as out:
            out.write_text(first, "new a")
            out.write_text(second, "new b")
    monkeypatch.undo()
    assert first.read_text() == "old a" and not second.exists()
    assert listing(tmp_path) == ["a.txt"]


def test_a_failing_write_after_a_staged_one_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with io.outputs() as out:
            out.write_text(tmp_path / "a.txt", "a")
            with out.path(tmp_path / "b.txt") as tmp:
                tmp.write_text("half")
                raise RuntimeError("a bug while writing")
    assert listing(tmp_path) == []


# ----------------------------------------------------------------------------- special files, modes
def test_a_named_pipe_is_written_in_place(work, capsys):
    fifo = work / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", fifo)
    reader.join(timeout=safety_net(60))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # not replaced by a regular file
    assert got and got[0].startswith("group\n") and len(got[0].splitlines()) == 7
    assert listing(work) == ["good.csv", "pipe"]


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root")
def test_a_device_node_is_written_in_place_even_as_root(work, capsys):
    """A copy of /dev/null (the real one is never touched by the tests)."""
    null = work / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", null, "--json-out", null)
    assert proc.returncode == 0, proc.stderr
    st = os.lstat(null)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert listing(work) == ["good.csv", "null"]


def test_a_symlink_is_followed_and_kept(work, capsys):
    (work / "real.csv").write_text("old")
    (work / "link.csv").symlink_to("real.csv")
    assert main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "link.csv").returncode == 0
    assert (work / "link.csv").is_symlink()
    assert (work / "real.csv").read_text().startswith("group\n")


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664), (0o077, 0o600)])
def test_new_files_get_the_umask_permissions(work, capsys, umask, mode):
    old = os.umask(umask)
    try:
        proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv", "--json-out", "r/r.json")
    finally:
        os.umask(old)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(work / "p.csv").st_mode) == mode
    assert stat.S_IMODE(os.stat(work / "r" / "r.json").st_mode) == mode


def test_a_replaced_file_keeps_its_mode(work, capsys):
    (work / "p.csv").write_text("old")
    os.chmod(work / "p.csv", 0o604)
    assert main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv").returncode == 0
    assert stat.S_IMODE(os.stat(work / "p.csv").st_mode) == 0o604


# ----------------------------------------------------------------------------- interrupts
def _start(args, cwd):
    env = {**os.environ, "MABENCH_HOME": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "mabench.cli", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 130)], ids=["SIGINT", "SIGTERM"])
def test_interrupted_run_exits_130_without_traceback_or_file(tmp_path, sig, status):
    proc = _start(["run", "mdav", "uniform[n=400000,d=8]", "-k", "3", "--out", "p.csv", "--json-out", "r.json"],
                  tmp_path)
    # Wait until main() has installed its handlers (its watchdog thread is the process's second
    # thread; Python's start-up has one), then a little longer: data drawn or the algorithm running.
    deadline = time.monotonic() + 120
    while len(os.listdir(f"/proc/{proc.pid}/task")) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(2)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=safety_net(120))
    assert proc.returncode == status, err
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "interrupted" in err
    assert out == ""
    assert listing(tmp_path) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_handlers_are_installed_exits_130(tmp_path, sig):
    """The signal lands as soon as the watchdog thread exists: inside main()'s set-up, before the
    command's try. It must still end as interrupted: 130, one line, no traceback."""
    proc = _start(["run", "mdav", "uniform[n=400000,d=8]", "-k", "3", "--out", "p.csv"], tmp_path)
    deadline = time.monotonic() + 120
    while len(os.listdir(f"/proc/{proc.pid}/task")) < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=safety_net(120))
    assert (proc.returncode, err, out) == (130, INTERRUPTED, "")
    assert listing(tmp_path) == []


@pytest.fixture
def signal_handler(monkeypatch):
    """process._interrupt, the handler a real signal runs, with the collector re-enabled and the kept
    interrupt dropped afterwards (after a signal the process keeps both until it exits)."""
    import gc

    monkeypatch.setattr(sys, "unraisablehook", sys.unraisablehook)  # a signalled run keeps its quiet hook
    yield process._interrupt
    gc.enable()
    process._UNWOUND.clear()


def test_a_signal_before_the_command_starts_ends_it_as_interrupted(work, capsys, monkeypatch, signal_handler):
    enter = process._Interrupts.__enter__

    def enter_then_signal(self):
        entered = enter(self)
        signal_handler(signal.SIGTERM, None)  # unarmed: recorded, not raised here
        return entered

    monkeypatch.setattr(process._Interrupts, "__enter__", enter_then_signal)
    proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv")
    assert (proc.returncode, proc.stderr, proc.stdout) == (130, INTERRUPTED, "")
    assert listing(work) == ["good.csv"]


def test_a_signal_after_the_commit_keeps_the_finished_command(work, capsys, monkeypatch, signal_handler):
    leave = process._Interrupts.__exit__

    def signal_then_exit(self, *exc):
        signal_handler(signal.SIGINT, None)  # disarmed: the command's outcome stands
        return leave(self, *exc)

    monkeypatch.setattr(process._Interrupts, "__exit__", signal_then_exit)
    proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert (work / "p.csv").read_text().startswith("group\n")


SIGNAL_AFTER_THE_COMMIT = """
import os, signal, sys, time
from mabench import cli
from mabench.cli import process
leave = process._Interrupts.__exit__
def late_signal_then_exit(self, *exc):
    os.kill(os.getpid(), signal.SIGTERM)  # a real signal: it also wakes the watchdog
    time.sleep(process.GRACE_SECONDS + 1.0)  # longer than the watchdog's grace
    return leave(self, *exc)
process._Interrupts.__exit__ = late_signal_then_exit
sys.argv = ["mabench", "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv"]
cli.run()
"""


def test_a_signal_after_the_commit_does_not_wake_the_watchdog_into_an_exit(tmp_path):
    (tmp_path / "good.csv").write_text(GOOD_CSV)
    env = {**os.environ, "MABENCH_HOME": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", SIGNAL_AFTER_THE_COMMIT], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=safety_net(120))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert (tmp_path / "p.csv").read_text().startswith("group\n")


def test_after_a_signal_nothing_the_interrupted_code_held_is_freed(work, capsys, monkeypatch, signal_handler):
    """Half-built LLVM objects of an interrupted compile can crash when released, so after a signal
    the interrupt keeps its frames, and the cyclic collector is off, until the process exits."""
    import gc

    freed = []

    class Held:
        def __del__(self):
            freed.append(True)

    def interrupted_while_holding(args):
        held = Held()
        held.cycle = held  # only the collector could free it
        signal_handler(signal.SIGTERM, None)  # armed: raises KeyboardInterrupt here

    monkeypatch.setattr(catalog.LIST, "body", interrupted_while_holding)
    proc = main(capsys, "list", "algorithms")
    assert (proc.returncode, proc.stderr) == (130, INTERRUPTED)
    gc.collect()
    assert freed == [] and not gc.isenabled()


# Python marks the interpreter when a KeyboardInterrupt leaves code run through PyRun_String (as
# from C code calling back into Python), and under `python -m` a clean exit then becomes death by
# SIGINT (-2). An interrupt that lands there must still end with 130.
INTERRUPT_THROUGH_C = """
import ctypes
from mabench import discovery
def _interrupted(*args, **kwargs):
    run = ctypes.pythonapi.PyRun_String
    run.restype = ctypes.py_object
    run.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.py_object, ctypes.py_object]
    run(b"raise KeyboardInterrupt", 257, {}, {})
discovery.algorithm = _interrupted
"""


def test_an_interrupt_through_c_code_still_exits_130(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(INTERRUPT_THROUGH_C)
    (tmp_path / "good.csv").write_text(GOOD_CSV)
    env = {**os.environ, "MABENCH_HOME": str(ROOT), "PYTHONPATH": str(tmp_path / "site")}
    proc = subprocess.run([sys.executable, "-m", "mabench.cli", "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=safety_net(120))
    assert proc.returncode == 130, (proc.returncode, proc.stderr)
    assert proc.stderr == "mabench: interrupted; nothing was written\n" and proc.stdout == ""
    assert not (tmp_path / "p.csv").exists()


def test_interrupt_during_the_commit_restores_everything(work, capsys, monkeypatch):
    (work / "p.csv").write_text("old")
    real = os.replace
    calls = []

    def interrupted(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(src, dst)

    monkeypatch.setattr(io.os, "replace", interrupted)
    proc = main(capsys, "run", "mdav", "good.csv", "-k", "2", "--out", "p.csv", "--json-out", "r.json")
    monkeypatch.undo()
    assert proc.returncode == 130 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert (work / "p.csv").read_text() == "old"
    assert listing(work) == ["good.csv", "p.csv"]


def test_interrupted_evaluate_writes_nothing(work, capsys, monkeypatch):
    from mabench import metrics

    (work / "part.csv").write_text("group\n0\n0\n0\n1\n1\n1\n")

    def interrupt(ctx):
        raise KeyboardInterrupt

    monkeypatch.setitem(metrics.REGISTRY, "il", metrics.Metric("il", interrupt, "interrupted"))
    proc = main(capsys, "evaluate", "good.csv", "part.csv", "--metrics", "il", "--json-out", "e.json")
    assert proc.returncode == 130 and proc.stdout == ""
    assert listing(work) == ["good.csv", "part.csv"]


# ----------------------------------------------------------------------------- seeds, k, metrics, labels
@pytest.mark.parametrize("args, needle", [
    (["run", "mdav", "good.csv", "-k", "2", "--seed", "-1"], "seed"),
    (["run", "mdav", "sim1[n=30,d=2]", "-k", "2", "--seed", "-1"], "seed"),
    (["prepare", "sim1[n=30,d=2]", "--seed", "-1", "--out", "x.parquet"], "seed"),
    (["prepare", "sim1[n=30,d=2]", "sim2", "sim3", "--seed", "1", "--seed", "2", "--out", "a.parquet", "--out",
      "b.parquet", "--out", "c.parquet"], "give --seed once (every data set) or once per data set"),
    (["evaluate", "good.csv", "part.csv", "--seed", "-5"], "seed"),
    (["evaluate", "good.csv", "part.csv", "-k", "0"], "k must be a positive integer"),
    (["evaluate", "good.csv", "part.csv", "-k", "-5"], "k must be a positive integer"),
    (["run", "mdav", "good.csv", "-k", "2", "--metrics", ","], "names no metric"),
    (["run", "mdav", "good.csv", "-k", "2", "--metrics", ""], "names no metric"),
    (["evaluate", "good.csv", "part.csv", "--metrics", " , "], "names no metric"),
])
def test_bad_seed_k_and_metrics(work, capsys, args, needle):
    (work / "part.csv").write_text("group\n0\n0\n0\n1\n1\n1\n")
    assert_user_error(main(capsys, *args), needle)
    assert listing(work) == ["good.csv", "part.csv"]


@pytest.mark.parametrize("labels, needle", [
    (["-1", "-1", "-1", "0", "0", "0"], "negative"),
    (["0", "0", "0", "-1", "-1", "-1"], "negative"),
    (["99999999999999999999"] * 3 + ["0"] * 3, "too large"),
    (["True", "True", "True", "False", "False", "False"], "'True'"),
    (["1", "1", "1", "0", "0", ""], "5 labels but the data set has 6"),  # a blank line is no label
    (["0", "0", "0", "1", "1", "1.5"], "'1.5'"),
    (["0", "0", "0", "1", "1", "1e3"], "'1e3'"),
    (["0", "0", "0", "1", "1", "nan"], "'nan'"),
    (["0", "0", "0", "1", "1", "0x1"], "'0x1'"),
])
def test_bad_partition_labels(work, capsys, labels, needle):
    (work / "part.csv").write_text("group\n" + "\n".join(labels) + "\n")
    assert_user_error(main(capsys, "evaluate", "good.csv", "part.csv", "--metrics", "il"), needle)


def test_good_partition_labels_in_any_integer_spelling(work, capsys):
    (work / "a.csv").write_text("group\n7\n7\n7\n3\n3\n3\n")
    (work / "b.csv").write_text("\ufeffgroup\n 0\n0.0\n+0\n1\n1\n1\n")  # BOM, spaces, 0.0, +0
    ils = [json.loads(main(capsys, "evaluate", "good.csv", name, "-k", "3", "--metrics", "il").stdout)["il"]
           for name in ("a.csv", "b.csv")]
    assert ils[0] == ils[1]


# ----------------------------------------------------------------------------- file data sets
def test_a_user_file_named_like_a_catalog_set_is_not_that_set(work, capsys):
    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(30, 3)), columns=["x", "y", "z"]).to_csv(work / "tarragona.csv", index=False)
    rec = json.loads(main(capsys, "run", "mdav", "tarragona.csv", "-k", "3").stdout)
    assert rec["dataset"] == "tarragona.csv" and rec["n"] == 30
    prep = main(capsys, "prepare", "tarragona.csv", "--out", "t.parquet")
    assert prep.returncode == 0, prep.stderr
    rec = json.loads(main(capsys, "run", "mdav", "t.parquet", "-k", "3").stdout)
    assert rec["dataset"] == "tarragona.csv"
    # so the registry never compares it with the Tarragona published values
    from mabench.report import published

    row = {"dataset_id": "x", "algo_id": "mdav", "dataset": rec["dataset"], "dataset_params": "",
           "algorithm": "mdav", "params": rec["params"], "k": 3, "seed": 0, "il": rec["il"]}
    compared = published.compare(published.load(), pd.DataFrame([row]))
    assert compared["reproduced"].isna().all()


@pytest.mark.parametrize("text, needle", [
    ("a,a\n1,2\n3,4\n5,7\n", "'a' appears twice"),
    (",a,b\n0,1,2\n1,3,5\n2,4,1\n", "pandas index"),
    ("a,,b\n0,1,2\n1,3,5\n2,4,1\n", "column 2 has no name"),
    ("a,b\n1,2\n", "only 1 record"),
    ("a;b\n1;2\n3;4\n5;9\n", "separated by ';'"),
    ("a\tb\n1\t2\n3\t4\n5\t9\n", "separated by '\\t'"),
    ("1,2\n3,4\n5,9\n", "add a header row"),
    ("a,b\n1,2,3\n4,5\n6,7\n", "more fields than the header"),
    ("a,b\n1,2\n4,5,6,7\n6,7\n", "more fields than the header"),
    ("", "empty"),
    ("a,b\n1,x\n2,3\n4,5\n", "row 1: 'x'"),
    ("a\nTrue\nFalse\nTrue\n", "true/false"),  # a true/false column beside numbers is passed through
])
def test_misleading_input_gets_a_message_that_says_how_to_fix_it(work, capsys, text, needle):
    (work / "in.csv").write_text(text)
    assert_user_error(main(capsys, "run", "mdav", "in.csv", "-k", "1", "--out", "p.csv"), needle)
    assert not (work / "p.csv").exists()


def test_not_utf8_says_so(work, capsys):
    (work / "in.csv").write_bytes("é,b\n1,2\n3,4\n5,9\n".encode("latin-1"))
    assert_user_error(main(capsys, "run", "mdav", "in.csv", "-k", "1"), "UTF-8")
    (work / "u16.csv").write_bytes("a,b\n1,2\n3,4\n5,9\n".encode("utf-16"))
    assert_user_error(main(capsys, "run", "mdav", "u16.csv", "-k", "1"), "UTF-8")


@pytest.mark.parametrize("name, data", [
    ("bom.csv", "\ufeffa,b\n1,2\n3,5\n4,1\n7,8\n2,2\n9,4\n".encode()),
    ("spaces.csv", b" col a , col b \n 1 , 2\n3,5\n4,1\n7,8\n2,2\n9,4\n"),
    ("trailing.csv", b"a,b,\n1,2,\n3,5,\n4,1,\n7,8,\n2,2,\n9,4,\n"),
    ("crlf.csv", b"a,b\r\n1,2\r\n3,5\r\n4,1\r\n7,8\r\n2,2\r\n9,4\r\n"),
    ("quoted.csv", b'"a","b"\n"1","2"\n3,5\n4,1\n7,8\n2,2\n9,4\n'),
    ("big.csv", b"a,b\n99999999999999999999,2\n3,5\n4,1\n7,8\n2,2\n9,4\n"),
])
def test_files_a_user_expects_to_work_do(work, capsys, name, data):
    (work / name).write_bytes(data)
    proc = main(capsys, "run", "mdav", name, "-k", "2")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(proc.stdout)["n"] == 6


def test_gzipped_csv_works(work, capsys):
    import gzip

    (work / "d.csv.gz").write_bytes(gzip.compress(GOOD_CSV.encode()))
    plain = json.loads(main(capsys, "run", "mdav", "good.csv", "-k", "2").stdout)
    packed = json.loads(main(capsys, "run", "mdav", "d.csv.gz", "-k", "2").stdout)
    assert packed["il"] == plain["il"] and packed["dataset"] == "d.csv.gz"
    assert_user_error(main(capsys, "run", "mdav", "missing.csv.gz", "-k", "2"), "does not exist")


def test_extreme_magnitudes_standardize_without_overflow_or_warnings(work, capsys):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 3))
    frame = pd.DataFrame({"huge": np.sign(x[:, 0]) * 1e308, "tiny": x[:, 1] * 1e-310, "plain": x[:, 2]})
    frame.to_csv(work / "x.csv", index=False)
    scaled = pd.DataFrame({"huge": np.sign(x[:, 0]), "tiny": x[:, 1], "plain": x[:, 2]})
    scaled.to_csv(work / "s.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = main(capsys, "run", "mdav", "x.csv", "-k", "3")
    assert big.returncode == 0 and big.stderr == "", big.stderr
    ref = json.loads(main(capsys, "run", "mdav", "s.csv", "-k", "3").stdout)
    got = json.loads(big.stdout)
    assert 0 <= got["il"] <= 100
    assert got["il"] == pytest.approx(ref["il"], rel=1e-6)  # the same data up to each column's scale


def test_il_is_exactly_100_for_one_group():
    """Before: EIA with k = n printed 100.00000000000124 (SSE and SST summed in different orders)."""
    from mabench.bench.runner import run_cell

    assert run_cell("mdav", "eia", 4092, 0).record["il"] == 100.0
    assert run_cell("mdav", "tarragona", 834, 0).record["il"] == 100.0


def test_one_place_for_each_check():
    """The constant-column check and the path test exist once (the workflow imports them)."""
    sources = "".join(p.read_text() for p in (ROOT / "mabench").rglob("*.py"))
    sources += "".join(p.read_text() for p in (ROOT / "workflow").rglob("*.smk")) + (ROOT / "Snakefile").read_text()
    assert sources.count("is constant and cannot be standardized") == 1
    assert sources.count('endswith((".csv"') == 0 and "def _is_path" not in sources
    assert sources.count("k must be a positive integer") == 1
    assert sources.count("seed must be a non-negative integer") == 1


def test_figures_with_one_k_per_data_set_write_placeholders(tmp_path, capsys):
    """Before: KeyError in seaborn when no data set had two or more k values (the workflow failed)."""
    rows = [{"dataset_id": "sim1", "algo_id": "mdav", "dataset": "sim1", "dataset_params": "", "algorithm": "mdav",
             "params": "tail=3k", "k": 3, "seed": s, "il": 10.0 + s} for s in range(2)]
    io.write_parquet(tmp_path / "r.parquet", pd.DataFrame(rows))
    proc = main(capsys, "figures", "--results", tmp_path / "r.parquet", "--out-dir", tmp_path / "fig")
    assert proc.returncode == 0, proc.stderr
    written = {p.name for p in (tmp_path / "fig").iterdir()}
    assert {"il_vs_k.pdf", "il_vs_k.png", "ru_map.pdf", "ru_map.png"} <= written, written


def test_a_signal_swallowed_by_a_library_callback_still_ends_as_an_interrupt(work, capsys, monkeypatch):
    """A SIGINT that lands in a C callback (LLVM's while Numba compiles) cannot raise there: Python
    reports it as unraisable and the library then fails with an error of its own. After a signal, the
    command ends as interrupted (130, one line), and the unraisable report prints nothing."""
    import sys as _sys

    from mabench import cli

    monkeypatch.setattr(_sys, "unraisablehook", _sys.unraisablehook)  # a signalled run keeps its quiet hook

    def compile_fails(args):
        process._SIGNALLED.append(2)  # what the signal handler records before it raises
        _sys.unraisablehook(type("U", (), {"exc_value": KeyboardInterrupt(), "exc_type": KeyboardInterrupt,
                                            "exc_traceback": None, "err_msg": None, "object": None})())
        raise RuntimeError("no compiled object yet for <Library '_select'>")

    monkeypatch.setattr(catalog.LIST, "body", compile_fails)
    proc = main(capsys, "list", "algorithms")
    assert proc.returncode == 130 and proc.stderr == process.INTERRUPTED and proc.stdout == ""
    # without a signal the same error is a bug and is not hidden
    monkeypatch.setattr(catalog.LIST, "body", lambda args: (_ for _ in ()).throw(RuntimeError("bug")))
    with pytest.raises(RuntimeError, match="bug"):
        cli.main(["list", "algorithms"])


def test_after_a_signal_a_library_cleanup_error_prints_no_traceback(work, capsys, monkeypatch):
    """An interrupted compile can leave a library object whose __del__ fails later, after the command
    has unwound (llvmlite's, when the fresh-clone SIGINT test landed in LLVM): Python reports it as
    unraisable. After a signal that report stays silent, so stderr keeps its one line."""
    import sys as _sys

    printed = []
    monkeypatch.setattr(_sys, "unraisablehook", printed.append)  # Python's default would print it

    def interrupted(args):
        process._SIGNALLED.append(2)
        raise KeyboardInterrupt

    monkeypatch.setattr(catalog.LIST, "body", interrupted)
    proc = main(capsys, "list", "algorithms")
    assert proc.returncode == 130 and proc.stderr == process.INTERRUPTED
    _sys.unraisablehook(type("U", (), {"exc_value": ValueError("LLVM object already freed"),
                                        "exc_type": ValueError, "exc_traceback": None,
                                        "err_msg": "Exception ignored in", "object": None})())
    assert printed == []
