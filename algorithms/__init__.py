"""The built-in microaggregation methods, one plugin file each (installed as ``mabench.methods``).

``mabench.methods()`` is also the API function listing every method (:func:`mabench.api.methods`);
once this package is imported, Python binds the name ``mabench.methods`` to it, so the package is
made callable and a call gives that list.
"""

import sys
import types


class _CallablePackage(types.ModuleType):
    def __call__(self):
        from mabench.api import methods

        return methods()


sys.modules[__name__].__class__ = _CallablePackage
