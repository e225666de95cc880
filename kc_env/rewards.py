"""The rewards, written once for the Python side (DESIGN.md, Rewards and episodes).

Two kinds, ``REWARDS`` (the default first):

- ``win_loss``: the winners share +1 (k winners: +1/k each) and the others share -1
  (-1/(n-k) each); every seat gets 0 when nobody won (a blocked deal without a winner, a
  truncated deal) or everybody did. The rewards of a table sum to 0.
- ``score``: minus each seat's penalty points, divided by ``score_scale(rules)`` (the hand size
  times the costliest card of the rules' penalty table), so that a dealt hand of the costliest
  card scores -1. The winner of a deal scores 0.

``kings_corner_v0`` gives these (``KingsCorner-v0`` passes them on): ``win_loss`` when the
episode ends, ``score`` when each deal ends. The vector kernel's compiled ``seat_reward``
(``kc_env.vector.kernel``) is their twin for a one-deal episode; ``tests/test_vector_diff.py``
checks that the two agree on every deal it plays. ``bounds`` gives the range of each kind
(``kc_env.game_info.GAME_INFO.rewards`` holds the widest, over every rule set).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from . import engine
from .cards import NUM_CARDS
from .engine import GameState
from .rules import Rules

REWARDS = ("win_loss", "score")
"""The reward kinds, the default first."""


def win_loss(winners: Collection[int], num_players: int) -> list[float]:
    """Per seat: +1/k for each of the k ``winners``, -1/(n-k) for the others; all 0 when
    nobody (or everybody) won."""
    n, k = num_players, len(winners)
    if not 0 < k < n:
        return [0.0] * n
    return [1.0 / k if seat in winners else -1.0 / (n - k) for seat in range(n)]


def score_scale(rules: Rules) -> int:
    """What ``score`` divides penalties by: ``hand_size`` times the costliest card (at least 1)."""
    return rules.hand_size * max(max(rules.penalty_table().values()), 1)


def score(penalties: Sequence[int], rules: Rules) -> list[float]:
    """Per seat, ``-penalty / score_scale(rules)`` (0.0, never -0.0, for no penalty)."""
    scale = score_scale(rules)
    return [0.0 - p / scale for p in penalties]


def deal_rewards(kind: str, state: GameState, truncated: bool = False) -> list[float]:
    """Per seat, the reward of a one-deal episode that ended in ``state``: ``win_loss`` of the
    deal's winner, or ``score`` of ``engine.deal_penalties``; all 0 for a deal cut off
    (``truncated``) or not over."""
    check(kind)
    if truncated or not state.is_over:
        return [0.0] * state.num_players
    if kind == "score":
        return score(engine.deal_penalties(state), state.rules)
    return win_loss(() if state.winner is None else (state.winner,), state.num_players)


@dataclass(frozen=True)
class Bounds:
    """The range of one seat's reward, as OpenSpiel's ``GameInfo`` states it: ``min_utility``
    to ``max_utility``, and ``utility_sum``, what the seats' rewards always add up to (None
    when that varies)."""

    min_utility: float
    max_utility: float
    utility_sum: float | None


def bounds(kind: str, rules: Rules | None = None) -> Bounds:
    """The range of a ``kind`` reward under ``rules`` (None: the widest over every rule set).

    ``win_loss`` lies in [-1, 1] and sums to 0. A ``score`` reward (one per deal) lies in
    [-deck_size / hand_size, 0]: no hand holds more than the whole deck, each card of it costing
    at most the costliest card.
    """
    check(kind)
    if kind == "win_loss":
        return Bounds(-1.0, 1.0, 0.0)
    cards, hand = (NUM_CARDS, 1) if rules is None else (rules.deck_size, rules.hand_size)
    return Bounds(-cards / hand, 0.0, None)


def check(kind: str) -> str:
    """``kind`` if it is a reward kind, else a ``ValueError`` listing them."""
    if kind not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(map(repr, REWARDS))}, not {kind!r}")
    return kind


__all__ = ["REWARDS", "Bounds", "bounds", "check", "deal_rewards", "score", "score_scale", "win_loss"]
