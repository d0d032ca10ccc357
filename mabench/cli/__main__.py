"""``python -m mabench.cli``."""

from mabench.cli import run

run()
