"""The compile step's progress, for the lead job that follows it on the other core.

The compile step (``mabench compile --progress-out FILE``) warms up the lead job's runs first, in the
lead job's order, and rewrites FILE as it goes: the number of runs at the front of its list that are
done. The lead job (``mabench batch --follow FILE``) starts at the same time instead of waiting for
the whole compile step, and before each of its runs waits until the compile step has done that run,
so that it loads the run's kernels from Numba's on-disk cache instead of compiling them a second time
at the same moment. Its first runs (the first data set's, one per algorithm) are nearly all
compiling, so without waiting the two would compile the same kernels side by side.

Waiting never decides a result, only who compiles: a file that is missing for ``ABSENT`` seconds, or
not rewritten for ``STALE`` seconds (a compile step that died, or the file of an earlier workflow run
that is not being redone), is not waited for, and the lead job compiles what it needs itself."""

from __future__ import annotations

import json
import os
import time

from mabench import io

ABSENT = 15.0  # the compile step writes the file as soon as it has read the configuration
STALE = 60.0  # longer than any one run's compiling
POLL = 0.05


def write(path: str, done: int, finished: bool = False) -> None:
    """The compile step's state: ``done`` runs at the front of its list; ``finished`` when it stops
    (or when its order is not one to follow: several compile processes). Written at once
    (``io.write_now``), not in a command's transaction: its outputs appear only when it ends, and the
    lead job reads this file while the compile step runs."""
    io.write_now(path, json.dumps({"done": int(done), "finished": bool(finished)}) + "\n")


def read(path: str) -> tuple[int, bool, float] | None:
    """(done, finished, seconds since it was written), or None when there is no readable state."""
    try:
        with open(path, encoding="utf-8") as fh:
            age = time.time() - os.fstat(fh.fileno()).st_mtime
            state = json.loads(fh.read())
        return int(state["done"]), bool(state["finished"]), age
    except (OSError, ValueError, KeyError, TypeError):
        return None


def wait_for(path: str, run: int, since: float) -> float:
    """Wait until the compile step has done run ``run`` (0-based in its list), has stopped, or is
    not there to wait for; ``since``: when the waiting process started (``time.monotonic()``).
    Returns the seconds waited."""
    start = time.monotonic()
    while True:
        state = read(path)
        if state is None:
            if time.monotonic() - since > ABSENT:
                break
        else:
            done, finished, age = state
            if finished or done > run or age > STALE:
                break
        time.sleep(POLL)
    return time.monotonic() - start


class Progress:
    """The compile step's side: ``done(i)`` after run i of its list (in any order), ``finish()`` at the
    end, failed or not. The file holds how many runs at the front of the list are done, so a run
    compiled early (a later data set's run of the same algorithm) counts once those before it are."""

    def __init__(self, path: str | None, total: int):
        self.path, self.total = path, total
        self.seen = [False] * total
        self.front = 0
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)  # the workflow's results/batches/
            write(path, 0)

    def done(self, run: int) -> None:
        self.seen[run] = True
        front = self.front
        while front < self.total and self.seen[front]:
            front += 1
        if front > self.front and self.path:
            write(self.path, front)
        self.front = front

    def finish(self) -> None:
        if self.path:
            write(self.path, self.front, finished=True)
