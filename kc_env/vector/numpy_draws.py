"""numpy ``Generator`` draws in compiled code, bit for bit: what ``rng.choice(legal)`` (the
``random`` agent's draw) gives, drawn inside a compiled loop from the generator's own state.

A numpy ``Generator`` draws through its bit generator's C interface (``bit_generator.ctypes``:
the state's address and a function giving the next 32 random bits). The compiled code calls that
same function on that same state, so a draw made here and a draw made by the ``Generator`` in
Python come from one stream, in the order they are made, and leave the generator exactly as
numpy's own draw would (a test draws both ways over a million draws and compares the states).

``Generator.choice(a)`` of a 1-D array of ``k`` items is ``a[integers(0, k)]``, which draws no
bits when ``k == 1`` and otherwise Lemire's bounded draw on 32 bits
(numpy's ``buffered_bounded_lemire_uint32``), as ``below`` here.
"""

from __future__ import annotations

import ctypes

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ..compiled import njit


@intrinsic
def _next_uint32(typingctx, function, state):
    """Call the C function at address ``function`` (``uint32_t f(void *state)``) on ``state``."""
    signature = types.uint32(types.int64, types.int64)

    def codegen(context, builder, sig, args):
        pointer = ir.IntType(8).as_pointer()
        called = ir.FunctionType(ir.IntType(32), [pointer])
        return builder.call(builder.inttoptr(args[0], called.as_pointer()), [builder.inttoptr(args[1], pointer)])

    return signature, codegen


@njit(inline="always")
def below(function, state, k):
    """``Generator.integers(0, k)`` for 1 <= k < 2**32, from the bit generator whose
    ``next_uint32`` is at ``function`` and whose state is at ``state`` (``pointers``)."""
    top = np.uint64(k - 1)
    if top == 0:
        return np.int64(0)
    size = top + np.uint64(1)
    m = np.uint64(_next_uint32(function, state)) * size
    left = m & np.uint64(0xFFFFFFFF)
    if left < size:
        threshold = (np.uint64(0xFFFFFFFF) - top) % size
        while left < threshold:
            m = np.uint64(_next_uint32(function, state)) * size
            left = m & np.uint64(0xFFFFFFFF)
    return np.int64(m >> np.uint64(32))


@njit(cache=True)
def draw_below(function, state, k):
    """``below`` called from Python (for tests)."""
    return below(np.int64(function), np.int64(state), np.int64(k))


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _BitGen(ctypes.Structure):
    """numpy's ``bitgen_t`` (``numpy/random/bitgen.h``), the bit generator's C interface."""

    _fields_ = [("state", ctypes.c_void_p), ("next_uint64", ctypes.c_void_p),
                ("next_uint32", ctypes.c_void_p), ("next_double", ctypes.c_void_p),
                ("next_raw", ctypes.c_void_p)]


def pointers(rng: np.random.Generator) -> tuple[int, int]:
    """The addresses ``below`` draws from: ``rng``'s bit generator's ``next_uint32`` and state
    (``bit_generator.ctypes`` gives the same two, about 20 times slower). They are valid while
    ``rng`` lives: keep a reference to it."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"a numpy Generator is needed to draw in compiled code, not {type(rng).__name__}")
    interface = _BitGen.from_address(_capsule_pointer(rng.bit_generator.capsule, b"BitGenerator"))
    return interface.next_uint32, interface.state


__all__ = ["below", "draw_below", "pointers"]
