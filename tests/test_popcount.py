"""The kernel's popcount and low_bit_index read card masks right, in every compiled context.

Its signed 64-bit form (a multiply that overflows int64) let LLVM fold ``popcount(x) > 1`` to
True for a single card of index 8 or more, once inlined into a function that compares it with a
constant (found by the turn-value agent's new-deal check); the count itself read right."""

import numpy as np
from numba import njit

from kc_env.vector import kernel as K


@njit
def _more_than_one(x):
    return K.popcount(x) > 1


@njit
def _exactly(x, n):
    return K.popcount(x) == n


@njit
def _counts(xs, out):
    for i in range(xs.shape[0]):
        out[i] = K.popcount(xs[i])


def test_one_card_is_one_card_when_compared_with_a_constant():
    single = [c for c in range(54) if _more_than_one(np.int64(1) << np.int64(c))]
    assert single == []
    assert _more_than_one(np.int64(0b11 << 51))
    assert not _more_than_one(np.int64(0))


def test_counts_equal_pythons_on_card_masks():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.integers(0, 2**54, size=20_000, dtype=np.int64),
                         np.int64(1) << np.arange(54, dtype=np.int64), np.array([0, 2**54 - 1], dtype=np.int64)])
    out = np.zeros(len(xs), np.int64)
    _counts(xs, out)
    assert out.tolist() == [bin(int(x)).count("1") for x in xs]
    assert all(_exactly(np.int64(1) << np.int64(c), 1) for c in range(54))


@njit
def _lowest_is(m, c):
    return K.low_bit_index(m) == c


@njit
def _lowest_is_eight(m):
    return K.low_bit_index(m) == 8


def test_the_lowest_card_of_a_mask():
    assert all(_lowest_is(np.int64(1) << np.int64(c), c) for c in range(54))
    assert all(_lowest_is((np.int64(2**54 - 1) >> np.int64(c)) << np.int64(c), c) for c in range(54))
    assert [c for c in range(54) if _lowest_is_eight(np.int64(1) << np.int64(c))] == [8]
