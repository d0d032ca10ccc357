"""Progress of a long `mabench run` on stderr: which phase, how long so far, and a heartbeat.

What it covers: the runner's phases — loading the data, standardizing, each k's algorithm run,
each metric — with the elapsed time of the phase and of the whole run. Where a phase has a known
size it is shown with the rate and an estimate of the time left: the metrics (m of M), and the
MDAV-family and CBFS kernels, which release the GIL and count the records they have grouped
(``mabench.kernels.core.counter``). Other kernels report nothing while they run: a heartbeat line says
the phase is still running and for how long. The time left of a grouping kernel assumes the
records still to group go at the rate so far; the tree kernels speed up as records leave, so it
errs long.

* stderr is a terminal: one status line, rewritten in place, shown only once a run has lasted
  ``DELAY`` seconds (short runs print nothing) and cleared at the end;
* ``--progress [SECONDS]``: plain lines instead — one when each phase ends and a heartbeat every
  SECONDS (default 10) while a phase runs; for logs and batch jobs;
* otherwise nothing (the workflow's batch logs keep their one line per cell).
"""

from __future__ import annotations

import sys
import threading
import time

from mabench.kernels.core import counter

DELAY = 3.0  # seconds before a terminal shows anything


def _fmt(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s" if m < 60 else f"{m // 60} h {m % 60:02d} min"


class Progress:
    """No-op unless ``live`` (terminal) or ``interval`` (plain lines) is set."""

    def __init__(self, stream=None, live: bool = False, interval: float | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.live = live and interval is None
        self.interval = interval
        self.t0 = time.perf_counter()
        self.phase = ""
        self.phase_t0 = self.t0
        self.done = 0
        self.total = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self._shown = False
        if self.live or self.interval:
            self._thread = threading.Thread(target=self._beat, name="mabench-progress", daemon=True)
            self._thread.start()

    @classmethod
    def for_cli(cls, interval: float | None) -> "Progress":
        if interval is not None:
            return cls(interval=interval)
        return cls(live=sys.stderr.isatty())

    @property
    def active(self) -> bool:
        return self._thread is not None

    def _status(self, now: float) -> str:
        text = f"mabench: {self.phase}: {_fmt(now - self.phase_t0)}"
        done, total, unit = self.done, self.total, ""
        if not total:
            done, total = counter.read()
            unit = " records grouped"
        if total:
            text += f" ({done:,}/{total:,}{unit}"
            if done:
                rate = done / (now - self.phase_t0)
                text += f", {rate:.2g}/s, about {_fmt((total - done) / rate)} left"
            text += ")"
        return text + f", run {_fmt(now - self.t0)}"

    def _write(self, text: str) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + text)
            self._shown = True
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _beat(self) -> None:
        wait = self.interval if self.interval else 0.5
        while not self._stop.wait(wait):
            with self._lock:
                now = time.perf_counter()
                if not self.phase or (self.live and now - self.t0 < DELAY):
                    continue
                self._write(self._status(now) + ("" if self.live else " (running)"))

    def start(self, phase: str, total: int = 0) -> None:
        if not self.active:
            return
        with self._lock:
            counter.clear()
            self.phase, self.phase_t0, self.done, self.total = phase, time.perf_counter(), 0, total

    def step(self, done: int) -> None:
        if self.active:
            with self._lock:
                self.done = done

    def end(self) -> None:
        """The current phase is over: a plain line says how long it took."""
        if not self.active:
            return
        with self._lock:
            if self.interval and self.phase:
                now = time.perf_counter()
                self._write(f"mabench: {self.phase}: done in {_fmt(now - self.phase_t0)}, run {_fmt(now - self.t0)}")
            self.phase = ""

    def close(self) -> None:
        if not self.active:
            return
        self._stop.set()
        self._thread.join()
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        self._thread = None


NULL = Progress()
