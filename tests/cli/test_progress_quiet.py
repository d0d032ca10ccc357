"""`mabench run --no-progress` (issue 42 item 8, "quiet when asked"): nothing on stderr even on a
terminal, where a run past the delay otherwise shows its status line."""

from __future__ import annotations

import io
import sys

from mabench.bench import progress as P
from support import assert_user_error, main_in_process


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run_on_a_terminal(monkeypatch, capsys, *flags):
    terminal = _Terminal()
    monkeypatch.setattr(P, "DELAY", 0.0)  # every run counts as long
    real = sys.stderr

    def run():
        sys.stderr = terminal
        try:
            return main_in_process(capsys, "run", "mdav", "census", "-k", "3,4,5", "--metrics", "il,dld", *flags)
        finally:
            sys.stderr = real

    proc = run()
    assert proc.returncode == 0, proc.stderr
    return terminal.getvalue()


def test_a_terminal_shows_the_status_line_unless_told_not_to(monkeypatch, capsys):
    assert "mabench: " in _run_on_a_terminal(monkeypatch, capsys)
    assert _run_on_a_terminal(monkeypatch, capsys, "--no-progress") == ""


def test_progress_and_no_progress_together_is_one_line(capsys):
    assert_user_error(main_in_process(capsys, "run", "mdav", "census", "-k", "3", "--progress", "--no-progress"),
                      "--progress and --no-progress both given")
