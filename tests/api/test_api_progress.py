"""Progress in the API (issue 42 item 8): plain lines when asked (strata counted), nothing when
told to be quiet or when stderr is not a terminal."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mabench
from mabench.errors import UserError


def _frame():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(120, 2)), columns=["a", "b"])
    df["region"] = np.repeat([f"r{i}" for i in range(12)], 10)
    return df


def test_progress_lines_count_the_strata(capsys):
    mabench.microaggregate(_frame(), k=3, strata="region", progress=True)
    err = capsys.readouterr().err
    assert "mdav k=3 on 120 records in 12 strata: done in" in err


def test_quiet_when_asked_or_not_a_terminal(capsys):
    mabench.microaggregate(_frame(), k=3, strata="region", progress=False)
    mabench.microaggregate(_frame(), k=3, strata="region")  # stderr captured: not a terminal
    assert capsys.readouterr().err == ""
    for bad in (0, -1, float("inf"), "fast"):
        with pytest.raises(UserError, match="progress="):
            mabench.microaggregate(_frame(), k=3, progress=bad)
