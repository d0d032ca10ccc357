"""Progress of a long run on stderr: which phase, how far, how long so far.

What it covers: the runner's phases — loading the data, standardizing, compiling, each k's algorithm
run, each metric. Where a phase has a known size it is counted: the strata of a stratified run (m of
M, with the records of the strata done so far), the metrics (m of M), and the records the MDAV-family
and CBFS kernels have grouped (they release the GIL and store the count,
``mabench.kernels.core.counter``; in a stratified run, the count of the stratum running now is added to
the records of the strata done). Other kernels report nothing while they run: the phase's elapsed time
says it is still running. The time left of a grouping kernel assumes the records still to group go at
the rate so far; the tree kernels speed up as records leave, so it errs long.

* stderr is a terminal: a tqdm bar per phase, drawn once the phase has lasted ``DELAY`` seconds (short
  phases print nothing) and cleared when it ends;
* ``--progress [SECONDS]`` (API ``progress=True`` or seconds): plain lines instead — one when each
  phase ends and a heartbeat every SECONDS (default 10) while a phase runs; for logs and batch jobs;
* otherwise nothing (a log, a notebook, the workflow's batch jobs, ``--no-progress``, ``progress=False``).

The display only reads the run's state: the partition, the masked file and the results never depend
on it.
"""

from __future__ import annotations

import sys
import threading
import time

from mabench.kernels.core import counter

DELAY = 3.0  # seconds a phase lasts before a terminal shows its bar
ELAPSED = "{desc}: {elapsed}"  # the bar of a phase nothing counts (yet): its elapsed time


def _fmt(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    m, s = divmod(int(round(seconds)), 60)
    return f"{m} min {s:02d} s" if m < 60 else f"{m // 60} h {m % 60:02d} min"


class Progress:
    """No-op unless ``live`` (a tqdm bar on a terminal) or ``interval`` (plain lines) is set;
    ``quiet``: nothing at all, a long search's own heartbeat lines included (``--no-progress``)."""

    def __init__(self, stream=None, live: bool = False, interval: float | None = None, quiet: bool = False):
        self.stream = stream if stream is not None else sys.stderr
        self.live = live and interval is None
        self.interval = interval
        self.t0 = time.perf_counter()
        self.phase = ""
        self.phase_t0 = self.t0
        self.done = 0
        self.total = 0
        self.unit = ""
        self.records = None  # (records of the strata done, records in all) while strata are counted
        self.grouping = True  # the grouping kernels' counter counts this phase (not a warm-up's tiny runs)
        self._bar = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        self._heartbeat = None  # where a search's heartbeat went before this display (restored by close)
        if quiet or self.live or self.interval:
            self._heartbeat = counter.HEARTBEAT[0]
            counter.HEARTBEAT[0] = "quiet" if quiet else "display"
        if self.live or self.interval:
            self._thread = threading.Thread(target=self._beat, name="mabench-progress", daemon=True)
            self._thread.start()

    @classmethod
    def for_api(cls, progress) -> "Progress":
        """``microaggregate(progress=...)``: None a bar when stderr is a terminal, False nothing,
        True plain lines every 10 s, a number plain lines every that many seconds."""
        if progress is None:
            return cls(live=sys.stderr.isatty())
        if progress is False:
            return cls(quiet=True)
        interval = 10.0 if progress is True else progress
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not 0.01 <= interval <= 86400:
            from mabench.errors import UserError

            raise UserError(f"progress={progress!r} must be None, True, False or seconds between 0.01 and 86400")
        return cls(interval=float(interval))

    @classmethod
    def for_cli(cls, interval: float | None) -> "Progress":
        if interval is not None:
            return cls(interval=interval)
        return cls(live=sys.stderr.isatty())

    @property
    def active(self) -> bool:
        return self._thread is not None

    def _counts(self) -> tuple[int, int, str, str]:
        """(done, in all, what is counted, more) now: the caller's count (strata, metrics) or else the
        grouping kernel's records; more: the records of a stratified phase and a search's heartbeat."""
        grouped, records = counter.read() if self.grouping else (0, 0)
        more = counter.NOTE[0] if self.grouping else ""
        if not self.total:
            return grouped, records, " records grouped", more
        if self.records is not None:
            before, all_records = self.records
            more = ", ".join(filter(None, [f"{before + grouped:,}/{all_records:,} records", more]))
        return self.done, self.total, self.unit, more

    def _status(self, now: float) -> str:
        text = f"mabench: {self.phase}: {_fmt(now - self.phase_t0)}"
        done, total, unit, more = self._counts()
        if total:
            text += f" ({done:,}/{total:,}{unit}"
            if done:
                rate = done / (now - self.phase_t0)
                text += f", {rate:.2g}/s, about {_fmt((total - done) / rate)} left"
            text += ")"
        return text + (f" [{more}]" if more else "") + f", run {_fmt(now - self.t0)}"

    def _write(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def _draw(self) -> None:
        """Bring the phase's bar up to date (tqdm draws it once the phase has lasted DELAY seconds)."""
        done, total, unit, more = self._counts()
        bar = self._bar
        if total and bar.total != total:
            bar.total, bar.unit, bar.bar_format = total, unit.strip().removesuffix(" grouped"), None
        if more and not total:  # a search's heartbeat in a phase nothing counts
            bar.bar_format = ELAPSED + "{postfix}"
        if more:
            bar.set_postfix_str(more, refresh=False)
        bar.update(done - bar.n)

    def _beat(self) -> None:
        wait = self.interval if self.interval else 0.5
        while not self._stop.wait(wait):
            with self._lock:
                if not self.phase:
                    continue
                if self.live:
                    self._draw()
                else:
                    self._write(self._status(time.perf_counter()) + " (running)")

    def start(self, phase: str, total: int = 0, unit: str = "", records: int = 0, grouping: bool = True) -> None:
        """A new phase; ``total``: its size when the caller counts it (``step``), e.g. strata, with
        ``unit`` naming what is counted (" strata"); 0: the grouping kernels' record counter.
        ``records``: the records of all the counted parts (strata), when ``step`` tells those done.
        ``grouping``: False when the kernels run in the phase are not the run's (compiling's warm-up)."""
        if not self.active:
            return
        with self._lock:
            counter.clear()
            self.phase, self.phase_t0, self.done, self.total = phase, time.perf_counter(), 0, total
            self.unit, self.grouping = unit, grouping
            self.records = (0, records) if records else None
            if self.live:
                from tqdm import tqdm

                self._close_bar()
                # miniters=0, mininterval=0: every update from the beat redraws (they are 0.5 s apart)
                self._bar = tqdm(desc=f"mabench: {phase}", total=total or None, unit=unit.strip() or "it",
                                 file=self.stream, leave=False, delay=DELAY, miniters=0, mininterval=0,
                                 bar_format=None if total else ELAPSED, dynamic_ncols=True)

    def step(self, done: int, records: int | None = None) -> None:
        """``done`` of the phase's parts are done, holding ``records`` records (a stratified phase)."""
        if self.active:
            with self._lock:
                self.done = done
                if records is not None and self.records is not None:
                    counter.clear()  # the next stratum's kernel counts from 0; the last one's are in ``records``
                    self.records = (records, self.records[1])

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def end(self) -> None:
        """The current phase is over: a plain line says how long it took; a bar is cleared."""
        if not self.active:
            return
        with self._lock:
            if self.interval and self.phase:
                now = time.perf_counter()
                self._write(f"mabench: {self.phase}: done in {_fmt(now - self.phase_t0)}, run {_fmt(now - self.t0)}")
            if self._bar is not None:
                self._draw()  # the phase's last count, then the bar is cleared
            self._close_bar()
            self.phase = ""

    def close(self) -> None:
        if self._heartbeat is not None:
            counter.HEARTBEAT[0], self._heartbeat = self._heartbeat, None
        if not self.active:
            return
        self._stop.set()
        self._thread.join()
        with self._lock:
            self._close_bar()
        self._thread = None


NULL = Progress()
