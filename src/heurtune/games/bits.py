"""Bit-twiddling intrinsics for bitboard kernels.

numba has no popcount / count-trailing-zeros builtins for integers, so we emit
the LLVM intrinsics directly; they compile to single POPCNT / TZCNT
instructions and, unlike ctypes calls, are compatible with ``cache=True``.
"""

from typing import TYPE_CHECKING

from numba import types

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Concatenate, ParamSpec

    _P = ParamSpec("_P")

    def intrinsic(defn: Callable[Concatenate[Any, _P], object]) -> Callable[_P, Any]:
        """numba's decorator as jitted callers see its result: called without the
        typing context, returning a numba value (numba's own annotations describe
        a plain Python call, which raises)."""
else:
    from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def lsb(typingctx, x):
    """Index of the lowest set bit of a non-zero 64-bit integer."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        fn = builder.module.declare_intrinsic("llvm.cttz", [args[0].type, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@intrinsic
def address(typingctx, arr):
    """The raw data address of an array as an integer (see :func:`at_address`)."""
    sig = types.int64(arr)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        ary = context.make_array(signature.args[0])(context, builder, args[0])
        return builder.ptrtoint(ary.data, ir.IntType(64))

    return sig, codegen


@intrinsic
def at_address(typingctx, addr):
    """The integer ``addr`` as a pointer, for :func:`numba.carray` views.

    A recursion that passes integers instead of arrays pushes one word per
    buffer instead of a whole array structure, and a view rebuilt from the
    address carries no reference count.
    """
    sig = types.voidptr(types.int64)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.voidptr))

    return sig, codegen



def permute_mask(mask: int, perm: "list[int] | tuple[int, ...]") -> int:
    """The bitboard ``mask`` with bit ``i`` moved to bit ``perm[i]`` (plain Python,
    for the symmetry hooks, not for hot paths)."""
    out = 0
    for i, j in enumerate(perm):
        if mask >> i & 1:
            out |= 1 << j
    return out
