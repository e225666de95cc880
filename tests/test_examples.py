"""RULES.md section 7: every worked example, as written there (cards with suit symbols)."""

from __future__ import annotations

from positions import assert_illegal, legal, pile, play, position

from kc_env import Rules, engine
from kc_env.cards import fits_on, parse_card
from kc_env.engine import hand_penalty


def fits(card: str, top: str) -> bool:
    return fits_on(parse_card(card), parse_card(top))


def test_a_red_seven_fits_on_a_black_eight():
    """7: a red 7 fits on a black 8."""
    assert all(fits(seven, eight) for seven in ("7♥", "7♦") for eight in ("8♠", "8♣"))
    state = position("N: 8♠\nE: 8♣\nhand 0: 7♥ 7♦\nhand 1: 3♣")
    assert {"play 7H->N", "play 7D->N", "play 7H->E", "play 7D->E"} <= legal(state)


def test_nothing_fits_on_an_ace():
    """7: nothing fits on an ace."""
    assert not any(fits_on(c, parse_card(ace)) for ace in ("A♠", "A♥") for c in range(52))
    state = position("N: 2♠ A♥\nhand 0: K♠ 2♣ A♣\nhand 1: 3♣")
    for card in ("K♠", "2♣", "A♣"):
        assert_illegal(state, f"{card} N", "nothing is built on an ace")


def test_a_black_jack_fits_on_a_red_queen():
    """7: a black jack fits on a red queen."""
    assert all(fits(jack, queen) for jack in ("J♠", "J♣") for queen in ("Q♥", "Q♦"))
    state = position("N: Q♥\nhand 0: J♣ J♦\nhand 1: 3♣")
    assert_illegal(state, "J♦ N", "does not fit on QH")  # a red jack does not
    play(state, "J♣ N")
    assert pile(state, "N") == "QH JC"


def test_a_side_pile_moves_onto_a_pile_its_bottom_card_fits():
    """7: a side pile 7♦ 6♣ moves onto a pile topped by 8♠ (the 7♦ fits the 8♠); the side is
    then empty."""
    state = position("N: 9♥ 8♠\nW: 7♦ 6♣\nhand 0: 2♣\nhand 1: 3♣")
    play(state, "move W N")
    assert pile(state, "N") == "9H 8S 7D 6C" and pile(state, "W") == "-"


def finished_deal(loser_hand: str, **rules) -> engine.GameState:
    """A deal player 0 has just won by going out, player 1 left holding ``loser_hand``."""
    return play(position(f"N: 10♠\nhand 0: 9♥\nhand 1: {loser_hand}", **rules), "9♥ N")


def test_standard_penalty_kings_ten_other_cards_one():
    """7: penalty ``standard``: a hand K, 7, 4, 2 costs 10 + 1 + 1 + 1 = 13; a hand of one 5
    costs 1."""
    assert engine.deal_penalties(finished_deal("K♣ 7♦ 4♥ 2♠")) == [0, 13]
    assert engine.deal_penalties(finished_deal("5♣")) == [0, 1]
    table = Rules().penalty_table()
    assert hand_penalty([parse_card(c) for c in ("KC", "7D", "4H", "2S")], table) == 13


def test_pip_penalty_ace_twenty_five_kings_ten_numbers_face_value():
    """7: penalty ``pip``: a hand A, K, 7 costs 25 + 10 + 7 = 42."""
    assert engine.deal_penalties(finished_deal("A♣ K♦ 7♥", scoring="pip")) == [0, 42]
    table = Rules(scoring="pip").penalty_table()
    assert hand_penalty([parse_card(c) for c in ("AC", "KD", "7H")], table) == 42
