"""A CPU prefetch hint from compiled code (LLVM's llvm.prefetch), so that the visited-set slots
of a batch of successors are fetched from memory together instead of one cache miss at a time."""

from __future__ import annotations

from .jit import numba_value


def _prefetch_typing(typingctx, array, index):
    """Hint that array[index] will be read soon (no effect on results)."""
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils

    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        arraytype = sig.args[0]
        view = context.make_array(arraytype)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, arraytype, view, [args[1]])
        bytes_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        hint = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [bytes_pointer, i32, i32, i32]), "llvm.prefetch.p0")
        # read access, high temporal locality, data cache
        builder.call(hint, [builder.bitcast(pointer, bytes_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return signature, codegen


def _intrinsic():
    from numba.extending import intrinsic

    return intrinsic(_prefetch_typing)


prefetch = numba_value(_intrinsic)
"""prefetch(array, index): hint that array[index] will be read soon (compiled code only)."""
