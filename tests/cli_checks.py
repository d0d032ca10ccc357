"""Shared check for the CLI's error contract: exit status 2, one line on stderr, no traceback, no stdout."""


def assert_user_error(proc, *needles):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("mabench: error: ")
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    for needle in needles:
        assert needle in lines[0], lines[0]
