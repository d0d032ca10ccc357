"""The read-only type of an array a kernel made itself, for calls into shared kernels.

A run hands its plugin read-only data (``mabench.plugin.call_run``), so the shared kernels are
compiled for read-only arrays. Numba compiles a kernel once more for every distinct argument type,
and a writable array is another type: a kernel that builds its own array (a group's records, a
subset of columns) and passes it to a shared kernel would compile that kernel, and everything it
calls, a second time. Called through :func:`as_read_only` it takes the compiled read-only version.
(From Python, ``mabench.plugin.read_only`` gives the same type: a read-only view.)
"""

from __future__ import annotations

from numba.core import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic


@intrinsic
def as_read_only(typingctx, a):
    """The same array, typed read-only (no copy; the caller keeps writing to it as before).

    Parameters
    ----------
    a : array — any dtype, dimension and layout.

    Returns
    -------
    array — ``a`` itself, of Numba's read-only array type.
    """
    if not isinstance(a, types.Array):
        return None

    def codegen(context, builder, sig, args):
        return impl_ret_borrowed(context, builder, sig.return_type, args[0])

    return a.copy(readonly=True)(a), codegen
