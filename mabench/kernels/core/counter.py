"""How far a long grouping kernel has got, for a progress display.

The MDAV-family and CBFS kernels release the GIL and, when given :data:`GROUPED`, store
``[records grouped, records]`` after each group; a watcher thread (``mabench.bench.progress``) reads it
to show the count, the rate and the time left while the kernel runs. A read may see the value
before the latest store: the counter is only ever displayed, never an input to a result.
"""

from __future__ import annotations

import numpy as np

GROUPED = np.zeros(2, dtype=np.int64)


def clear() -> None:
    """Reset the progress counter to (0, 0), before a kernel that reports starts.

    Parameters
    ----------
    None

    Returns
    -------
    None
    """
    GROUPED[:] = 0


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
