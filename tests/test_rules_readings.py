"""Readings RULES.md wrote down after the rules audit of 2026-12-07 (a probe of the engine
against every sentence): where the page was silent or two sentences met, the engine already
chose; each choice is now a sentence of RULES.md and a test here, one per reading, positions as
text."""

from __future__ import annotations

import random

from positions import assert_illegal, legal, position

from kc_env import Rules, engine
from kc_env.cards import deck

# -- 2.3 and 4.3: the cross ------------------------------------------------------------------

LATE_SIDE_KING = """
    N: KH
    E: 5S
    S: 9D
    W: 2C
    hand 0: 4S 3S
    hand 1: 6C 7D
    stock: 8C 8H
"""
"""Seat 0 to act after the deal's first turn, a king-bottomed side on N."""


def test_cross_king_move_first_turn_holds_every_kings_side_under_to_corner_too():
    """RULES.md 4.3: ``cross_king_move`` applies to every king-bottomed side; under
    ``to_corner`` none is dealt, but a king played onto an empty side later is one."""
    assert "move N->NE" in legal(position(LATE_SIDE_KING))
    state = position(LATE_SIDE_KING, cross_king_move="first_turn")
    assert legal(state) == {"end turn"}
    assert_illegal(state, "move N NE", "cross_king_move is 'first_turn'")


def test_cross_king_move_first_turn_is_the_turn_of_whoever_starts_the_deal():
    """RULES.md 4.3: under ``first_player: random`` the deal's first turn is the drawn seat's,
    not the dealer's left."""
    state = engine.new_deal(Rules.parse("printable,first_player=random"), 3, seed=6, dealer=0)
    assert state.current_player == 2 and state.first_turn
    assert engine.to_text(state).splitlines()[1] == "E: KD"
    assert {"move E->NE", "move E->SE", "move E->SW", "move E->NW"} <= legal(state)


def test_a_side_the_stock_cannot_refill_stays_empty():
    """RULES.md 2.3: a king turned up for a side goes to a corner (``to_corner``); when no card
    is left in the stock to refill that side, it stays empty."""
    state = engine.new_deal(Rules(hand_size=24), 2, seed=0)
    assert state.stock == [] and [len(p) for p in state.piles[:4]].count(0) == 1
    assert any(state.piles[4:])


# -- 4.5 forced plays ------------------------------------------------------------------------

def test_king_first_is_called_by_a_real_king_only():
    """RULES.md 4.5: a joker may go into an empty corner, but holding one does not force it
    there (only a real king does)."""
    state = position("N: 5C\nE: 9H\nS: 2D\nW: JC\nhand 0: JK 4D\nhand 1: 3C", jokers=2, king_first="before_others")
    assert {"play JK->NE", "play 4D->N", "end turn"} <= legal(state)


def test_fill_spaces_first_leaves_pile_moves_legal():
    """RULES.md 4.5: ``fill_spaces_first`` restricts card plays only: a pile may still move
    while a side is empty."""
    state = position("N: 9H\nE: 8S\nS: 2D\nhand 0: 4C 3C\nhand 1: 3D", fill_spaces_first=True)
    assert "move E->N" in legal(state)
    assert {m for m in legal(state) if m.startswith("play")} == {"play 4C->W", "play 3C->W"}


# -- 4.6 same_suit corners and pile moves ----------------------------------------------------

def test_a_pile_moves_onto_a_same_suit_corner_only_all_of_its_suit():
    """RULES.md 4.6: under ``same_suit`` a pile moves onto a corner only when every card of it
    is of the corner's suit; a king's side, whose cards alternate colours, moves into an empty
    corner only as a lone king."""
    text = "N: QC JH\nE: JD\nS: 5D\nW: KS\nNE: KC\nSE: KD QD\nhand 0: 2C\nhand 1: 5H 4S"
    state = position(text, corner_build="same_suit")
    assert_illegal(state, "move N NE", "every card of the moving pile N must be of the corner's suit")
    assert "move W->SW" in legal(state)
    state = position(text.replace("W: KS", "W: KS QH"), corner_build="same_suit")
    assert not any(m.startswith("move W->") for m in legal(state))


# -- 4.9 jokers ------------------------------------------------------------------------------

def test_joker_on_empty_side_lets_a_joker_start_a_side_where_kings_may_not():
    """RULES.md 4.9: ``joker_on_empty_side`` lets a joker start a side (as a king of no colour)
    even under ``kings_on_sides: false``: the card played is a joker, not a king."""
    state = position("N: 10S\nE: AS\nNE: KC\nhand 0: JK 5C KH\nhand 1: 5H 4S", "online",
                     jokers=2, joker_on_empty_side=True)
    assert {"play JK->S", "play JK->W"} <= legal(state)
    assert "play KH->S" not in legal(state)


def test_a_joker_turned_up_for_a_side_goes_to_the_bottom_of_the_stock():
    """RULES.md 4.9: without ``joker_on_empty_side`` a joker turned up for a side at the deal goes
    to the bottom of the stock, and the side is refilled."""
    rules, turned = Rules(jokers=2), 0
    for seed in range(300):
        cards = deck(rules.jokers)
        random.Random(seed).shuffle(cards)
        cross = cards[::-1][14:18]  # the deck top first: 2 hands of 7, then the four sides
        state = engine.new_deal(rules, 2, seed=seed)
        assert all(p and p[0] < 52 for p in state.piles[:4])
        if any(c >= 52 for c in cross):
            turned += 1
            assert state.stock[0] >= 52, seed  # the stock's bottom card (its top is the last)
    assert turned > 10


# -- 5.1 targets -----------------------------------------------------------------------------

def test_a_presets_own_target_stays_when_its_scoring_is_changed():
    """RULES.md 5.1: ``german`` sets target 5, and keeps it with another scoring; a preset that
    sets no target takes the new table's usual one."""
    assert Rules.parse("german,scoring=pip").target == 5
    assert Rules.parse("standard,scoring=pip").target == 100
    assert Rules.parse("german,scoring=pip,target=100").target == 100
