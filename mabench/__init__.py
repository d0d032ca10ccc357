"""mabench: a reproducible benchmarking harness for microaggregation.

The engine lives here; methods and data sets are plugins in the top-level
``algorithms/`` and ``datasets/`` folders (see :mod:`mabench.discovery`).

The Python API (:mod:`mabench.api`)::

    import mabench
    result = mabench.microaggregate(df, k=3)           # method="mdav" by default
    result.masked.to_csv("masked.csv", index=False)    # identifiers and categories passed through
    result.metrics(["il", "dld"])

Its names are loaded on first use, so ``import mabench`` (and the ``mabench`` command) stays fast.
"""

from mabench import blas, openmp

blas.pin()  # before anything imports numpy: OpenBLAS reads its kernel choice when it loads
openmp.pin()  # before Numba's first parallel kernel loads libgomp, which reads its spin count then

from mabench.errors import UserError

__version__ = "0.1.0"

_API = ("microaggregate", "evaluate", "methods", "datasets", "load", "Result", "Microaggregator")
__all__ = ["UserError", "__version__", *_API]


def __getattr__(name):
    if name == "Microaggregator":  # scikit-learn is imported only when the transformer is asked for
        from mabench.estimator import Microaggregator

        return Microaggregator
    if name in _API:
        from mabench import api

        return getattr(api, name)
    raise AttributeError(f"module 'mabench' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_API))
