"""The CLI tests' working folder."""

import pytest

from support import GOOD_CSV


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A folder holding only good.csv (``support.GOOD_CSV``), as the current directory."""
    (tmp_path / "good.csv").write_text(GOOD_CSV)
    monkeypatch.chdir(tmp_path)
    return tmp_path
