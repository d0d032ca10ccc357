"""How far a long grouping kernel has got, for a progress display.

The MDAV-family and CBFS kernels release the GIL and, when given :data:`GROUPED`, store
``[records grouped, records]`` after each group; a watcher thread (``mabench.bench.progress``) reads it
to show the count, the rate and the time left while the kernel runs. A read may see the value
before the latest store: the counter is only ever displayed, never an input to a result.
"""

from __future__ import annotations

import numpy as np

GROUPED = np.zeros(2, dtype=np.int64)

# Where a long search's heartbeat goes (``mabench.kernels.improve.search``): "lines" its own line on
# stderr every 10 s (no display: a log stays never silent), "display" into NOTE for the progress
# display to show (its bar or its plain lines), "quiet" nowhere (``--no-progress``, ``progress=False``).
HEARTBEAT = ["lines"]
NOTE = [""]


def note(text: str) -> None:
    """The running search's latest heartbeat, for the progress display (``HEARTBEAT[0] == "display"``).

    Parameters
    ----------
    text : str — what the search is doing ("icsm: round 12, SSE 3.2, 40 s so far").

    Returns
    -------
    None
    """
    NOTE[0] = text


def clear() -> None:
    """Reset the progress counter to (0, 0) and the heartbeat to "", before a kernel that reports starts.

    Parameters
    ----------
    None

    Returns
    -------
    None
    """
    GROUPED[:] = 0
    NOTE[0] = ""


def read() -> tuple[int, int]:
    """(records grouped, records) of the kernel running now; (0, 0) when none reports.

    Parameters
    ----------
    None

    Returns
    -------
    (int, int) — records grouped and records in all, as last stored.
    """
    return int(GROUPED[0]), int(GROUPED[1])
