"""What a data-set spec or a config path names (issue 40: F6, F8, F24).

A bare catalog or generator name is that data set even when the working folder holds a file or
folder of that name; the file is reached as ``./name`` and recorded so. Inputs that cannot be a
data file or a configuration (a named pipe, a device, a huge file) are refused in one line before
anything reads them without end.
"""

from __future__ import annotations

import json
import os
import threading

import pytest

from support import assert_user_error, main_in_process as main

SMALL = "a,b\n1,2\n3,5\n4,1\n7,8\n2,2\n9,4\n"


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_file_named_like_a_catalog_set_does_not_replace_it(work, capsys):
    """F6: a file `tarragona` in the working folder was read instead, recorded as "tarragona"."""
    (work / "tarragona").write_text(SMALL)
    proc = main(capsys, "run", "mdav", "tarragona", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert (record["dataset"], record["n"], record["d"]) == ("tarragona", 834, 13)


@pytest.mark.parametrize("spec, name", [("./tarragona", "./tarragona"), ("sub/tarragona", "sub/tarragona")])
def test_the_file_is_reached_by_its_path_and_recorded_so(work, capsys, spec, name):
    (work / "sub").mkdir()
    (work / spec).write_text(SMALL)
    proc = main(capsys, "run", "mdav", spec, "-k", "3")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert (record["dataset"], record["n"]) == (name, 6)


def test_an_empty_folder_named_like_a_catalog_set_is_ignored(work, capsys):
    (work / "tarragona").mkdir()
    proc = main(capsys, "run", "mdav", "tarragona", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["n"] == 834


def test_a_bare_name_that_is_no_data_set_is_still_a_file(work, capsys):
    (work / "mydata").write_text(SMALL)
    proc = main(capsys, "run", "mdav", "mydata", "-k", "3")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["dataset"] == "mydata"


def _fifo_with_a_writer(path):
    """A named pipe; a writer feeds it a valid CSV if anyone opens it (so a reader returns, not hangs)."""
    os.mkfifo(path)

    def feed():
        try:
            with open(path, "w") as fh:
                fh.write(SMALL)
        except BrokenPipeError:  # the reader refused the pipe (or _release) and closed it unread
            pass

    threading.Thread(target=feed, daemon=True).start()


def _release(path):
    try:  # the writer still waits for a reader when nothing opened the pipe: let it finish
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
    except OSError:
        pass


def test_a_named_pipe_as_data_is_refused(work, capsys):
    """F24: a FIFO as data waited forever."""
    _fifo_with_a_writer(work / "pipe.csv")
    try:
        proc = main(capsys, "run", "mdav", "pipe.csv", "-k", "3")
    finally:
        _release(work / "pipe.csv")
    assert_user_error(proc, "'pipe.csv' is not a regular file")


@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "huge"])
def test_a_config_that_cannot_be_one_is_refused_before_reading(work, capsys, source):
    """F8: `compile --config /dev/zero` grew until it was killed."""
    if source == "fifo":
        _fifo_with_a_writer(work / "c.yaml")
        path = "c.yaml"
    elif source == "huge":
        (work / "c.yaml").write_text("# padding\n" * 200_000)  # 2 MB of comments
        path = "c.yaml"
    else:
        path = source
    try:
        proc = main(capsys, "compile", "--config", path)
    finally:
        if source == "fifo":
            _release(work / "c.yaml")
    assert_user_error(proc, f"config {path!r}", "regular file" if source != "huge" else "larger than")
