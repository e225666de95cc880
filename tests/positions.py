"""Helpers for the rule-book tests: positions from compact text, and illegal-move checks.

A test writes only the lines that matter; ``position`` fills in the rest:
every pile not written is empty (``-``), the stock is empty unless written, and the turn is
``turn: 0 drawn`` (player 0 to act, the start-of-turn draw already done) unless written.
Write ``turn: 0`` to have the start of the turn (RULES.md 4.1) happen as the position is read.
"""

from __future__ import annotations

import pytest

from kc_env import IllegalMove, Rules, engine
from kc_env.cards import card_name
from kc_env.engine import PILE_INDEX, PILE_NAMES, GameState, Move

KING_TABLE = """
    N: 5C
    E: 9H
    S: 2D
    W: JC
    hand 0: KH 4C 8D
    hand 1: 2C 3C 4D 6S 7S
    stock: 9D 10D AS AH 2H QS
"""
"""Four sides dealt, player 0 holding a king, every corner empty: no pile move is open."""


def rules(preset: str = "standard", **overrides) -> Rules:
    """A rule set: the preset with some variants changed."""
    return Rules.preset(preset, **overrides)


def position(text: str, rules_: Rules | str | None = None, **overrides) -> GameState:
    """A position from compact text; ``overrides`` change variants of ``rules_`` (default standard)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    keys = {line.split(":", 1)[0].strip().upper() for line in lines}
    lines += [f"{name}: -" for name in PILE_NAMES if name not in keys]
    if "STOCK" not in keys:
        lines.append("stock: -")
    if "TURN" not in keys:
        lines.append("turn: 0 drawn")
    base = Rules.coerce(rules_)
    if overrides:
        base = base.replace(**overrides)
    return engine.from_text("\n".join(lines), base)


def move(text: str) -> Move:
    """A move from text: ``9H N``, ``move W N``, ``end``."""
    return engine.parse_move(text)


def play(state: GameState, *moves: str) -> GameState:
    """Make each move (as text) in turn; an illegal one fails the test with the engine's reason."""
    for text in moves:
        engine.apply(state, move(text))
    return state


def legal(state: GameState) -> set[str]:
    """The names of the legal moves (``play 9H->N``, ``move W->N``, ``end turn``)."""
    return {engine.move_name(m) for m in engine.legal_moves(state)}


def pile(state: GameState, name: str) -> str:
    """A pile as text, bottom to top (``-`` when empty)."""
    return " ".join(card_name(c) for c in state.piles[PILE_INDEX[name]]) or "-"


def hand(state: GameState, seat: int) -> str:
    """A hand as text, in the order held."""
    return " ".join(card_name(c) for c in state.hands[seat]) or "-"


def stock(state: GameState) -> str:
    """The stock as text, top card first."""
    return " ".join(card_name(c) for c in reversed(state.stock)) or "-"


def assert_illegal(state: GameState, text: str, *reason: str) -> str:
    """``text`` is illegal now: ``apply`` raises ``IllegalMove`` whose message holds every word
    of ``reason`` (case-insensitive), the move is not among the legal moves, and the state is
    exactly as it was. Returns the message."""
    m = move(text)
    before_text, before = engine.to_text(state), state.snapshot()
    with pytest.raises(IllegalMove) as caught:
        engine.apply(state, m)
    message = str(caught.value)
    for words in reason:
        assert words.lower() in message.lower(), f"{words!r} not in {message!r}"
    assert m not in engine.legal_moves(state)
    assert engine.why_illegal(state, m) is not None
    assert state.snapshot() == before
    assert engine.to_text(state) == before_text
    return message
