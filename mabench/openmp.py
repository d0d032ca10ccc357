"""How long Numba's OpenMP worker threads wait for the next parallel region before they sleep.

The two-thread tree kernels of MDAV and CBFS (mabench/kernels/spatial/treegroups.py) open a parallel
region in every iteration, tens of microseconds apart. GNU OpenMP (libgomp, Numba's ``omp`` layer)
documents a spin of about 3 ms (``GOMP_SPINCOUNT`` 300,000) before a worker sleeps when no wait
policy is set, but its builds may adjust that default: on a 2-core KVM machine with Debian's
libgomp 12 and no spin count set, the worker slept after every region and was woken through the
kernel, about 100 µs a region, so MDAV's two-thread path at 10⁶ × 3 took 21.7 s against 2.8 s on
one thread; with ``GOMP_SPINCOUNT`` set (to any value from 1,000 up), 3.2 s (docs/scaling.md,
"The second thread").

libgomp reads ``GOMP_SPINCOUNT`` once, when it is loaded, which happens at the first parallel kernel
Numba runs; ``mabench/__init__.py`` calls :func:`pin` on import. A value the user set, or an
``OMP_WAIT_POLICY``, is kept. The thread count never changes a partition, so this is speed only.
"""

from __future__ import annotations

import os

ENV = "GOMP_SPINCOUNT"
SPINS = "300000"  # libgomp's documented default without a wait policy (about 3 ms)


def pin(environ=None) -> str | None:
    """Set ``GOMP_SPINCOUNT`` to :data:`SPINS` unless it or ``OMP_WAIT_POLICY`` is set; returns the
    value in effect (None: the wait policy decides).

    >>> pin(environ={})
    '300000'
    >>> pin(environ={"GOMP_SPINCOUNT": "1000"})
    '1000'
    >>> pin(environ={"OMP_WAIT_POLICY": "passive"}) is None
    True
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV):
        return environ[ENV]
    if environ.get("OMP_WAIT_POLICY"):
        return None
    environ[ENV] = SPINS
    return SPINS
