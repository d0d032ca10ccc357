"""How fast the machine is right now: a fixed piece of work timed beside each workflow run.

The shared reference machine runs the same code 1.7–2× slower on some hours than on others
(docs/scaling.md), so a run's seconds say little unless the machine's speed is recorded with them.
The calibration is the MDAV family's commonest step, on fixed data, in a kernel of its own that no
algorithm shares (so a faster algorithm kernel never changes it): a chain of farthest-record passes
over 400,000 × 10 standard-normal records (32 MB, more than a core's caches, so memory speed counts
as it does in the algorithms), one thread. ``calibration_seconds`` in docs/workflow-time.csv is the
median CPU time of its runs (mabench.bench.timing: three before the workflow, three after).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

ROWS, COLS, ROUNDS, SEED = 400_000, 10, 100, 0


@njit(cache=False)
def farthest_chain(X, rounds):
    """From record 0, ``rounds`` times: the record farthest from the current one (squared distance
    summed in attribute order, ties to the lowest id) becomes the current one. Returns the last."""
    n, d = X.shape
    cur = 0
    for _ in range(rounds):
        best = -1.0
        best_i = 0
        for i in range(n):
            s = 0.0
            for j in range(d):
                u = X[i, j] - X[cur, j]
                s += u * u
            if s > best:
                best = s
                best_i = i
        cur = best_i
    return cur


def calibration_data(rows: int = ROWS) -> np.ndarray:
    return np.random.default_rng(SEED).standard_normal((rows, COLS))


def calibration_times(repeats: int = 3) -> list[float]:
    """CPU seconds of ``repeats`` runs of the calibration (its compilation excluded)."""
    X = calibration_data()
    farthest_chain(X[:16], 1)
    times = []
    for _ in range(repeats):
        start = time.process_time()
        farthest_chain(X, ROUNDS)
        times.append(time.process_time() - start)
    return times
