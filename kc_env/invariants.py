"""Invariants every position reached by legal play must keep (for tests and the soak script).

1. Every card of the deck is in exactly one place: hands + piles + stock = the deck.
2. Every pile is a legal pile (``engine.pile_is_legal``).
3. On a live turn there is at least one legal move, and ``END_TURN`` or a card play is among them.
"""

from __future__ import annotations

from . import engine
from .engine import GameState


def violations(state: GameState, deck_size: int | None = None) -> list[str]:
    """Everything wrong with ``state``; an empty list when all invariants hold."""
    out = []
    deck_size = state.rules.deck_size if deck_size is None else deck_size
    cards = engine.all_cards(state)
    if sorted(cards) != list(range(deck_size)):
        missing = sorted(set(range(deck_size)) - set(cards))
        extra = sorted(c for c in set(cards) if cards.count(c) > 1 or c >= deck_size)
        out.append(f"cards not accounted for: missing {missing}, duplicated or foreign {extra}")
    for p, name in enumerate(engine.PILE_NAMES):
        if not engine.pile_is_legal(state, p):
            out.append(f"pile {name} is not legal: {state.piles[p]}")
    if not state.is_over and not engine.legal_moves(state):
        out.append("no legal move on a live turn")
    if state.is_over and engine.legal_moves(state):
        out.append("legal moves after the deal is over")
    return out
