"""`mabench run --no-progress` (issue 42 item 8, "quiet when asked"): no progress display even on a
terminal, where a run otherwise gets the progress bar (bench/progress.py; what the live line
shows is tests/cli/test_progress.py's)."""

from __future__ import annotations

import io
import sys

from mabench.bench import progress as P
from support import assert_user_error, main_in_process


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _displays_on_a_terminal(monkeypatch, capsys, *flags) -> list[tuple[bool, float | None]]:
    """(live, interval) of every Progress the run creates, stderr being a terminal."""
    made = []
    init = P.Progress.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append((self.live, self.interval))

    monkeypatch.setattr(P.Progress, "__init__", record)
    real = sys.stderr
    sys.stderr = _Terminal()
    try:
        proc = main_in_process(capsys, "run", "mdav", "census", "-k", "3", *flags)
    finally:
        sys.stderr = real
    assert proc.returncode == 0, proc.stderr
    return made


def test_a_terminal_gets_the_live_line_unless_told_not_to(monkeypatch, capsys):
    assert (True, None) in _displays_on_a_terminal(monkeypatch, capsys)
    quiet = _displays_on_a_terminal(monkeypatch, capsys, "--no-progress")
    assert quiet and all(not live and interval is None for live, interval in quiet)


def test_progress_and_no_progress_together_is_one_line(capsys):
    assert_user_error(main_in_process(capsys, "run", "mdav", "census", "-k", "3", "--progress", "--no-progress"),
                      "--progress and --no-progress both given")
