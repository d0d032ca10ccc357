"""mabench: a reproducible benchmarking harness for microaggregation.

The engine lives here; methods and data sets are plugins in the top-level
``algorithms/`` and ``datasets/`` folders (see :mod:`mabench.discovery`).
"""

__version__ = "0.1.0"
