"""A hint to the processor to load the cache line holding an array element, for kernels whose time
goes into waiting on memory (the k-d tree's leaves at 10^6 records: docs/scaling.md).

A prefetch never faults and never changes a value, so it cannot change a result."""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

# The intrinsic's name carries its pointer type: opaque pointers (LLVM >= 15) are "p0", typed ones "p0i8".
_NAME = "llvm.prefetch.p0" if llvm.llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, arr, i):
    """Ask for the cache line of arr[i] (1-D) or of row i's first element (2-D, C order) to be loaded
    for reading (LLVM's ``llvm.prefetch``: read, high locality, data cache).

    Parameters
    ----------
    arr : array — 1-D or 2-D.
    i : int — the index (no bounds check: an address outside the array is only a wasted hint).

    Returns
    -------
    None.
    """
    if not isinstance(arr, types.Array) or arr.ndim not in (1, 2) or not isinstance(i, types.Integer):
        return None
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], idxty, types.intp)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [idx] + [zero] * (aryty.ndim - 1),
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), _NAME)
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen
