"""The whole table as one vector (PettingZoo's ``state()``), for centralised critics and other
training-only uses: what no seat may see is in it, so never give it to a policy that plays.

Layout (``STATE_SIZE`` = 1599 + 6 x 54 + 54 = 1977 float32):

| slice | size | meaning |
|---|---|---|
| ``public`` | 1599 | ``observation.encode(state, seat=0, totals)``: seat 0's observation (piles, counts, scores, turn, rules), so seats are offsets from seat 0 |
| ``hands`` | 6 x 54 | every hand one-hot by card id, seat 0 first (unused seats 0) |
| ``stock`` | 54 | for each card id in the stock its depth: 1 for the top card, ``1 - k/54`` for the card ``k`` below it, 0 for a card not in the stock |
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import observation
from .cards import NUM_CARDS
from .engine import GameState
from .rules import MAX_PLAYERS

HANDS = slice(observation.OBS_SIZE, observation.OBS_SIZE + MAX_PLAYERS * NUM_CARDS)
STOCK = slice(HANDS.stop, HANDS.stop + NUM_CARDS)
STATE_SIZE = STOCK.stop


def encode_state(state: GameState, totals: Sequence[float] | None = None) -> np.ndarray:
    """The whole table as float32[STATE_SIZE] (see the module docstring)."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    out[:observation.OBS_SIZE] = observation.encode(state, 0, totals)
    hands = out[HANDS].reshape(MAX_PLAYERS, NUM_CARDS)
    for seat, hand in enumerate(state.hands):
        hands[seat, hand] = 1.0
    stock = out[STOCK]
    for depth, card in enumerate(reversed(state.stock)):  # the last element is the top
        stock[card] = 1.0 - depth / NUM_CARDS
    return out


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """The low and high of every value (for a ``Box``)."""
    low, high = np.zeros(STATE_SIZE, dtype=np.float32), np.ones(STATE_SIZE, dtype=np.float32)
    low[:observation.OBS_SIZE], high[:observation.OBS_SIZE] = observation.LOW, observation.HIGH
    return low, high


__all__ = ["encode_state", "bounds", "STATE_SIZE", "HANDS", "STOCK"]
