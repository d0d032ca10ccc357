"""Files that travel with the package: the registries, the bundled configuration and the data-set catalog.

In a checkout they are the repository's ``registry/``, ``config/`` and ``datasets/`` folders; in an
installed mabench the same files are inside the package (``mabench.registry``, ``mabench.config``,
``mabench.generators``).
"""

from __future__ import annotations

import importlib
from pathlib import Path


def _package_folder(name: str) -> Path:
    return Path(importlib.import_module(name).__file__).resolve().parent


def registry_path(*parts: str) -> Path:
    """A shipped registry file: published numbers, best-known partitions and bounds, regression
    baselines, e.g. ``registry_path("published.csv")``."""
    return _package_folder("mabench.registry").joinpath(*parts)


def config_path(*parts: str) -> Path:
    """A bundled workflow configuration, e.g. ``config_path("config.yaml")``."""
    return _package_folder("mabench.config").joinpath(*parts)


def datasets_path(*parts: str) -> Path:
    """A file of the data-set plugins' folder, e.g. ``datasets_path("catalog.yaml")``."""
    return _package_folder("mabench.generators").joinpath(*parts)


def source_root() -> Path:
    """The folder the engine was loaded from: a checkout's root, or site-packages."""
    return Path(__file__).resolve().parent.parent
