"""Where Numba keeps mabench's compiled kernels: one place per module name, wherever mabench is installed.

Numba's own locator for a cache folder (``NUMBA_CACHE_DIR``) files each kernel under a hash of its
source file's absolute folder, so a checkout, a wheel installed in another virtual environment and a
second clone of the same commit each compile every kernel anew (minutes of CPU). Numba already checks
a cached kernel against a hash of its source file's content, and mabench's cache folder is per hash of
the engine's sources (:func:`mabench.codehash.numba_cache_dir`), which covers what a kernel calls in
other modules. So the absolute folder adds nothing but misses: :class:`ModuleCacheLocator` files the
kernels of ``mabench.*`` modules under their package's name and a hash of the file's content
instead. A copy whose file differs (another version of a plugin of the same name) gets a folder of
its own and is compiled there, never loaded from the other's; Numba's own content check stays.
"""

from __future__ import annotations

import os

from numba.core import caching, config


class ModuleCacheLocator(caching.UserProvidedCacheLocator):
    """Numba cache locator for functions of ``mabench.*`` modules: ``CACHE_DIR/<package name>``.

    Source stamp (a SHA-256 of the file's content) and disambiguator (the first line number) are
    Numba's; only the folder differs from :class:`numba.core.caching.UserProvidedCacheLocator`:
    ``CACHE_DIR/<package name>/<hash of the file's content>``.
    """

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        package = py_func.__module__.rpartition(".")[0] or py_func.__module__
        # one folder per content of the file: two versions of a plugin (the engine hash does not cover
        # plugins) never share an index, so one cannot read the other's compiled code between its
        # index and its data file when both run at once
        version = self.get_source_stamp().hex()[:16]  # Numba's SHA-256 of the file, memoized per file
        self._cache_path = os.path.join(config.CACHE_DIR, package, version)

    @classmethod
    def from_function(cls, py_func, py_file):
        module = getattr(py_func, "__module__", None) or ""
        if not module.startswith("mabench."):
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`ModuleCacheLocator` first among the locators Numba tries (once).

    Parameters
    ----------
    (none)
        It changes Numba's list of locator classes, which every ``cache=True`` kernel decorated
        afterwards consults; :mod:`mabench.kernels` calls it before importing any kernel.

    Returns
    -------
    None
    """
    classes = caching.CacheImpl._locator_classes
    if ModuleCacheLocator not in classes:
        classes.insert(0, ModuleCacheLocator)
