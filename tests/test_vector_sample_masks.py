"""``kernel.sample_masks`` (the random learner of the benchmarks and tests) picks, in each row, the
``r``-th legal action in index order with ``r`` drawn below their count from that row's stream:
whichever end it counts from, and for any width, density and dtype of mask."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from kc_env.vector import kernel as K  # noqa: E402


def by_the_list(masks: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    for i, row in enumerate(masks):
        legal = np.flatnonzero(row)
        out[i] = legal[K.randbelow(rng, i, legal.size)] if legal.size else -1


@pytest.mark.parametrize("width", [1, 5, 31, 32, 33, 100, 497])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.05, 0.5, 1.0])
def test_sample_masks_is_the_drawn_legal_action_in_index_order(width, density):
    gen = np.random.default_rng(width)
    masks = gen.random((200, width)) < density
    masks[::5, -1] = True  # the last action legal in some rows (ending the turn)
    for dtype in (bool, np.int8):
        rows = masks.astype(dtype)
        streams, expected_streams = (np.arange(200, dtype=np.uint64) * np.uint64(977) for _ in range(2))
        got, expected = np.zeros(200, dtype=np.int64), np.zeros(200, dtype=np.int64)
        for _ in range(3):
            K.sample_masks(rows, streams, got)
            by_the_list(rows, expected_streams, expected)
            assert np.array_equal(got, expected) and np.array_equal(streams, expected_streams)
