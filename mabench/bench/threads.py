"""How many threads a parallel kernel may use right now.

The parallel kernels fork and join once per pass (MDAV: twice per iteration).
With a core taken by another process, every join waits for a thread the
operating system has descheduled, and a run that takes 2 s alone took minutes
beside a busy job (30,000 × 10, k = 3: 4.5 s on one thread, 168–237 s on two,
with other work on both cores). So before each cell the runner asks the kernel
to use only the cores that are idle now: the configured maximum
(``NUMBA_NUM_THREADS``) capped by the cores this process may run on minus the
other runnable tasks (``/proc/loadavg``, sampled a few times). On an idle
machine that is every core; on a loaded one, one thread. The kernels read no
thread count themselves: ``numba.get_num_threads()`` inside compiled code is a
dynamic global that stops Numba from caching every kernel that calls it.
"""

from __future__ import annotations

import os
import statistics
import time


def _runnable_others() -> float:
    """Runnable tasks other than this one, now (median of a few samples of /proc/loadavg)."""
    samples = []
    try:
        for _ in range(5):
            with open("/proc/loadavg") as fh:
                running = int(fh.read().split()[3].split("/")[0])
            samples.append(running - 1)  # this process is one of them
            time.sleep(0.002)
    except (OSError, ValueError, IndexError):
        return max(0.0, os.getloadavg()[0] - 1) if hasattr(os, "getloadavg") else 0.0
    return float(statistics.median(samples))


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def choose() -> int:
    """Threads to use: the configured maximum, capped by the cores that are idle now (at least 1)."""
    import numba  # here, not at the top: the report imports cores() without paying Numba's import

    wanted = numba.config.NUMBA_NUM_THREADS
    if wanted <= 1:
        return 1
    idle = cores() - _runnable_others()
    return int(max(1, min(wanted, idle)))


def adapt() -> int:
    """Set the kernels' thread count for the next piece of work; return it."""
    import numba

    n = choose()
    numba.set_num_threads(n)
    return n
