"""RULES.md sections 1 to 3: the cards, a deal and a turn, one test per rule.

Positions are written as text (``tests/positions.py`` fills in empty piles, an empty stock and
``turn: 0 drawn``). Every illegal move is checked to raise ``IllegalMove`` naming the reason
and to leave the state exactly as it was.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from positions import assert_illegal, hand, legal, pile, play, position, stock

from kc_env import Rules, RulesError, cards, engine
from kc_env.cards import BLACK, COLOUR, RED, parse_card
from kc_env.engine import CORNERS, END_TURN, PILE_NAMES, SIDES, MovePile, PlayCard


def fits(card: str, top: str) -> bool:
    return cards.fits_on(parse_card(card), parse_card(top))


# -- 1. Cards and layout -------------------------------------------------------------------

def test_a_card_fits_one_rank_lower_and_of_the_other_colour():
    """1: a card fits on t when it is exactly one rank lower and of the opposite colour; suit
    does not matter (a red 9 on a black 10)."""
    assert fits("9H", "10S") and fits("9D", "10S") and fits("9H", "10C") and fits("9D", "10C")
    assert fits("9S", "10H") and fits("9C", "10D")
    assert not fits("9S", "10C"), "same colour"
    assert not fits("9H", "10D"), "same colour"
    assert not fits("8H", "10S"), "two ranks lower"
    assert not fits("JH", "10S"), "one rank higher"
    assert not fits("10H", "10S"), "same rank"


def test_aces_are_low_and_nothing_is_built_on_an_ace():
    """1: ranks run A 2 .. 10 J Q K; aces are low, so nothing is ever built on an ace, and an
    ace fits on a 2 of the other colour."""
    for top in ("AC", "AD", "AH", "AS"):
        assert not any(cards.fits_on(c, parse_card(top)) for c in range(52))
    assert fits("AH", "2S") and not fits("KH", "AS")
    assert [cards.RANK_NAMES[r] for r in range(1, 14)] == "A 2 3 4 5 6 7 8 9 10 J Q K".split()

    state = position("N: 2S AH\nhand 0: KS KC 2C\nhand 1: 5D")
    assert not any(isinstance(m, PlayCard) and m.pile == 0 for m in engine.legal_moves(state))
    assert_illegal(state, "KS N", "nothing is built on an ace")


def test_clubs_and_spades_are_black_hearts_and_diamonds_red():
    """1: clubs and spades are black, hearts and diamonds are red."""
    for rank in "A 2 3 4 5 6 7 8 9 10 J Q K".split():
        assert COLOUR[parse_card(rank + "C")] == COLOUR[parse_card(rank + "S")] == BLACK
        assert COLOUR[parse_card(rank + "H")] == COLOUR[parse_card(rank + "D")] == RED


def test_the_layout_has_four_sides_and_four_corners():
    """1: eight piles, sides N E S W and corners NE SE SW NW (numbered 0..7 in that order)."""
    assert PILE_NAMES == ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
    assert SIDES == (0, 1, 2, 3) and CORNERS == (4, 5, 6, 7)
    state = engine.new_deal(Rules(), 2, seed=1)
    assert len(state.piles) == 8


# -- 2. A deal ---------------------------------------------------------------------------------

def no_draw(**overrides) -> Rules:
    """Rules under which nobody draws before the first move, so hands are as dealt."""
    return Rules(draw="end", **overrides)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_deal_gives_each_player_hand_size_cards(n):
    """2.2: deal ``hand_size`` cards (default 7) to each player; every card is somewhere."""
    for hand_size in (7, 5):
        state = engine.new_deal(no_draw(hand_size=hand_size), n, seed=n)
        assert [len(h) for h in state.hands] == [hand_size] * n
        assert sorted(engine.all_cards(state)) == list(range(52))


def dealt_order(state) -> list[int]:
    """The hands' cards in the order one-at-a-time dealing from the dealer's left gives them."""
    n = state.num_players
    seats = [(state.dealer + 1 + i) % n for i in range(n)]
    return [state.hands[seat][k] for k in range(len(state.hands[0])) for seat in seats]


def test_deal_is_one_card_at_a_time_starting_at_the_dealers_left():
    """2.2: cards are dealt one at a time to each player, starting at the dealer's left.

    Dealt one at a time, a hand of 3 is the hand of 2 plus one card, and the k-th card off the
    stock goes to seat dealer+1+k; so the same shuffle read in dealing order is the same stream
    of cards whatever the number of players, the dealer or the hand size.
    """
    seed = 11
    two = engine.new_deal(no_draw(hand_size=2), 3, seed=seed)
    three = engine.new_deal(no_draw(hand_size=3), 3, seed=seed)
    for seat in range(3):
        assert three.hands[seat][:2] == two.hands[seat]
    stream = dealt_order(engine.new_deal(no_draw(hand_size=8), 6, seed=seed))
    for n, dealer in [(2, 0), (3, 2), (4, 1), (6, 5)]:
        state = engine.new_deal(no_draw(), n, seed=seed, dealer=dealer)
        assert dealt_order(state) == stream[: 7 * n], (n, dealer)
    assert engine.new_deal(no_draw(), 4, seed=seed, dealer=2).hands[3][0] == stream[0]


def test_four_cards_are_turned_onto_the_sides():
    """2.3: four cards from the stock go face up onto N, E, S, W; corners start empty (with
    ``cross_kings: stay``, so no king leaves its side)."""
    for seed in range(20):
        state = engine.new_deal(no_draw(cross_kings="stay"), 4, seed=seed)
        assert [len(state.piles[p]) for p in SIDES] == [1, 1, 1, 1]
        assert all(not state.piles[k] for k in CORNERS)
        assert len(state.stock) == 52 - 4 * 7 - 4


@pytest.mark.parametrize("n,dealer", [(2, 0), (2, 1), (3, 2), (5, 3), (6, 5)])
def test_the_player_to_the_dealers_left_moves_first_and_play_goes_clockwise(n, dealer):
    """2.4: the player to the dealer's left moves first; play goes clockwise (seat i+1)."""
    state = engine.new_deal(Rules(), n, seed=3, dealer=dealer)
    seats = []
    for _ in range(n + 1):
        seats.append(state.current_player)
        engine.apply(state, END_TURN)
    assert seats == [(dealer + 1 + i) % n for i in range(n + 1)]


def test_the_dealer_is_a_seat_as_a_whole_number_numpy_integers_too():
    """The dealer is a seat 0..n-1: ``np.int64(1)`` deals as 1 does (the envs take numpy seats),
    a bool, a float or a seat outside the table is refused in one line."""
    dealt = engine.new_deal(Rules(), 3, seed=4, dealer=np.int64(1))
    assert engine.to_text(dealt) == engine.to_text(engine.new_deal(Rules(), 3, seed=4, dealer=1))
    assert type(dealt.dealer) is int
    for dealer in (True, np.bool_(True), 1.0, 3, -1):
        with pytest.raises(ValueError, match=rf"^dealer must be a seat 0\.\.2, not {dealer!r}$"):
            engine.new_deal(Rules(), 3, seed=4, dealer=dealer)


def test_the_number_of_players_is_a_whole_number_numpy_integers_too():
    """2.2: 2 to 6 players: ``np.int64(3)`` deals as 3 does, a bool or a float is refused in one line."""
    dealt = engine.new_deal(Rules(), np.int64(3), seed=4)
    assert engine.to_text(dealt) == engine.to_text(engine.new_deal(Rules(), 3, seed=4))
    assert type(dealt.num_players) is int
    for n in (True, 3.0, np.float64(3)):
        with pytest.raises(RulesError, match=rf"^num_players must be 2 to 6, not {re.escape(repr(n))}$"):
            engine.new_deal(Rules(), n, seed=4)


def test_the_same_seed_and_rules_give_the_same_deal():
    """2.1: shuffling is seeded: the same seed and rules give the same deal, always; and the same
    moves from it give the same game."""
    for rules in (Rules(), Rules.preset("pagat", jokers=2), Rules.preset("wikihow")):
        a, b = engine.new_deal(rules, 4, seed=2024), engine.new_deal(rules, 4, seed=2024)
        assert a.snapshot() == b.snapshot()
        rng = random.Random(0)
        for _ in range(200):
            if a.is_over:
                break
            m = rng.choice(engine.legal_moves(a))
            engine.apply(a, m)
            engine.apply(b, m)
            assert a.snapshot() == b.snapshot()
    assert engine.new_deal(Rules(), 4, seed=1).hands != engine.new_deal(Rules(), 4, seed=2).hands


def test_a_deal_that_needs_more_cards_than_the_deck_is_refused():
    """2.2: 2 to 6 players; a configuration needing more cards than the deck holds
    (players x hand_size + 4 > deck size) is refused with a clear error."""
    with pytest.raises(RulesError, match="num_players must be 2 to 6, not 7"):
        engine.new_deal(Rules(), 7, seed=0)  # 7 players x 7 cards + 4 = 53 cards, and 7 players
    with pytest.raises(RulesError, match="2 to 6, not 1"):
        engine.new_deal(Rules(), 1, seed=0)
    with pytest.raises(RulesError, match=r"cannot deal 9 cards to each of 6 players.*6 x 9 \+ 4 = 58.*holds 52"):
        engine.new_deal(Rules(hand_size=9), 6, seed=0)
    with pytest.raises(RulesError, match=r"5 x 10 \+ 4 = 54 cards and the deck holds 52"):
        engine.new_deal(Rules(hand_size=10), 5, seed=0)
    # exactly the deck is enough: 6 x 8 + 4 = 52, and 5 x 10 + 4 = 54 with the two jokers
    assert [len(h) for h in engine.new_deal(no_draw(hand_size=8), 6, seed=0).hands] == [8] * 6
    assert [len(h) for h in engine.new_deal(no_draw(hand_size=10, jokers=2), 5, seed=0).hands] == [10] * 5


def test_a_deal_with_no_real_card_left_for_a_side_leaves_it_empty():
    """2.3 when the stock runs short (RULES.md is silent): with 6 x 8 cards dealt only six cards
    are left; a king sent to a corner, or jokers (which may not start a side), can leave no card
    for the last side, which then stays empty for anyone to fill from hand."""
    state = engine.new_deal(no_draw(hand_size=8, jokers=2), 6, seed=32)  # only the jokers left for W
    assert pile(state, "W") == "-" and stock(state) == "JK JK"
    assert sorted(engine.all_cards(state)) == list(range(54))


# -- 3. A turn ---------------------------------------------------------------------------------

def test_the_draw_takes_the_top_card_of_the_stock():
    """3 (draw): the player draws one card from the stock, its top card (written first)."""
    state = position("hand 0: 2C\nhand 1: 3D\nstock: 5H 9C\nturn: 0")
    assert hand(state, 0) == "2C 5H" and stock(state) == "9C" and state.drawn


def test_when_the_stock_is_empty_nobody_draws_and_play_goes_on():
    """3 (draw): when the stock is empty, nobody draws and play goes on."""
    for draw in ("start", "end", "stuck"):
        state = position("N: 10S\nhand 0: 2C\nhand 1: 3D\nturn: 0", draw=draw)
        assert hand(state, 0) == "2C" and not state.drawn
        play(state, "end")
        assert state.current_player == 1 and hand(state, 0) == "2C" and hand(state, 1) == "3D"
        assert not state.is_over


def test_a_card_is_played_onto_a_non_empty_pile_when_it_fits_its_top_card():
    """3: a card goes onto a non-empty pile when it fits on the pile's top card."""
    state = position("N: 10S\nNE: KD QS JH\nhand 0: 9H 9S 10C 4D\nhand 1: 3D")
    assert {"play 9H->N", "play 10C->NE"} <= legal(state)
    play(state, "9H N", "10C NE")
    assert pile(state, "N") == "10S 9H" and pile(state, "NE") == "KD QS JH 10C"
    assert hand(state, 0) == "9S 4D" and state.current_player == 0
    assert_illegal(state, "9S N", "9S may not go on N", "does not fit on 9H")
    assert_illegal(state, "9S NE", "does not fit on 10C")
    assert_illegal(state, "2S N", "2S is not in player 0's hand")


def test_only_a_king_goes_into_an_empty_corner():
    """3: onto an empty corner only a king."""
    state = position("hand 0: KH QS 2C\nhand 1: 3D")
    for corner in ("NE", "SE", "SW", "NW"):
        assert f"play KH->{corner}" in legal(state)
        assert_illegal(state, f"QS {corner}", "only a king", "empty corner")
        assert_illegal(state, f"2C {corner}", "only a king")
    play(state, "KH SW")
    assert pile(state, "SW") == "KH"


def test_any_card_goes_onto_an_empty_side():
    """3: onto an empty side any card (kings too, with the default ``kings_on_sides: true``)."""
    state = position("hand 0: AS 7D QC KH\nhand 1: 3D")
    assert {f"play {c}->{s}" for c in ("AS", "7D", "QC", "KH") for s in "NESW"} <= legal(state)
    play(state, "7D N", "AS E", "KH S", "QC W")
    assert [pile(state, s) for s in "NESW"] == ["7D", "AS", "KH", "QC"]


def test_a_whole_pile_moves_when_its_bottom_card_fits_the_other_top():
    """3: a whole pile moves onto another non-empty pile when its *bottom* card fits on the
    other's *top* card; the space it leaves is empty."""
    state = position("N: 8S\nE: 7H\nW: 7D 6C\nhand 0: 2C\nhand 1: 3D")
    assert "move W->N" in legal(state)
    assert_illegal(state, "move W E", "bottom card 7D of W does not fit on 7H")  # 6C alone would
    play(state, "move W N")
    assert pile(state, "N") == "8S 7D 6C" and pile(state, "W") == "-"
    assert state.moved and state.current_player == 0


def test_a_king_bottomed_side_pile_moves_whole_into_an_empty_corner():
    """3: a side pile whose bottom card is a king may also move as a whole into an empty corner;
    no other pile may (a corner pile never moves into another corner)."""
    state = position("N: KS QH\nE: 9D\nNE: KC\nhand 0: 2C\nhand 1: 3D", cross_kings="stay")
    assert {"move N->SE", "move N->SW", "move N->NW"} <= legal(state)
    assert_illegal(state, "move N NE", "bottom card KS of N does not fit on KC")
    assert_illegal(state, "move E SE", "only a side pile with a king at the bottom")
    assert_illegal(state, "move NE SE", "only a side pile with a king at the bottom")
    play(state, "move N SE")
    assert pile(state, "SE") == "KS QH" and pile(state, "N") == "-"


def test_piles_never_move_onto_an_empty_side():
    """3: piles never move onto an empty side (not even a king-bottomed pile)."""
    state = position("N: KS QH\nW: 7D 6C\nNE: KD\nhand 0: 2C\nhand 1: 3D")
    for src, dst in [("N", "E"), ("W", "S"), ("NE", "E")]:
        assert_illegal(state, f"move {src} {dst}", f"piles never move onto an empty side ({dst})")
    assert not any(isinstance(m, MovePile) and m.dst in SIDES for m in engine.legal_moves(state))


def test_the_space_a_pile_leaves_may_be_filled_later_by_anyone():
    """3: the space a moved pile leaves is empty and may be filled from hand later, by anyone:
    the same player this turn, or another player on a later turn."""
    text = "N: 8S\nW: 7D 6C\nhand 0: 5H 4S\nhand 1: 9C\nstock: 2D 3D"
    state = play(position(text), "move W N")
    assert "play 5H->W" in legal(state)
    play(state, "5H W")
    assert pile(state, "W") == "5H"

    state = play(position(text), "move W N", "end")
    assert state.current_player == 1 and hand(state, 1) == "9C 2D"  # drew at the start of the turn
    play(state, "9C W")
    assert pile(state, "W") == "9C"


def test_any_number_of_moves_in_any_order():
    """3: in one turn a player makes any number of legal moves in any order, until END_TURN."""
    state = position("N: 8S\nE: 10C\nW: 7D 6C\nNE: KH\nhand 0: 9H QS 5D 5H KD\nhand 1: 3C")
    play(state, "9H E", "move W N", "QS NE", "5D N", "KD W", "move W SE")
    assert state.current_player == 0 and hand(state, 0) == "5H"
    assert [pile(state, p) for p in ("N", "E", "W", "NE", "SE")] == ["8S 7D 6C 5D", "10C 9H", "-", "KH QS", "KD"]
    play(state, "end")
    assert state.current_player == 1


def test_going_out_ends_the_deal_at_once_without_a_draw():
    """3: the moment a player's hand is empty the deal ends and that player wins it; nothing
    more happens in that deal (no draw, not even under ``draw: end``)."""
    for draw in ("start", "end", "stuck"):
        state = position("N: 10S\nhand 0: 9H\nhand 1: 3D 4D\nstock: 5C 6C", draw=draw)
        play(state, "9H N")
        assert state.is_over and state.winner == 0 and not state.blocked
        assert hand(state, 1) == "3D 4D" and stock(state) == "5C 6C"
        assert engine.legal_moves(state) == []
        assert_illegal(state, "end", "the deal is over")
        assert_illegal(state, "3D N", "the deal is over")
        assert engine.deal_penalties(state) == [0, 2]


def test_cards_on_the_table_never_go_back_to_a_hand():
    """3: cards on the table never go back to a hand: a hand only ever gains the stock's top card
    by a draw, and no move takes a card from a pile into a hand."""
    rng = random.Random(5)
    for seed in range(15):
        rules = Rules(draw=("start", "end", "stuck")[seed % 3], pile_moves="partial", cross_kings="stay")
        state = engine.new_deal(rules, 3, seed=seed)
        for _ in range(300):
            if state.is_over:
                break
            before = [list(h) for h in state.hands]
            top = state.stock[-1] if state.stock else None
            m = rng.choice(engine.legal_moves(state))
            engine.apply(state, m)
            gained = [c for h, b in zip(state.hands, before, strict=True) for c in h if c not in b]
            assert gained in ([], [top]), "only the stock's top card reaches a hand"
            table = {c for p in state.piles for c in p}
            assert not table & {c for h in state.hands for c in h}


def test_a_position_with_an_empty_hand_is_a_finished_deal():
    """3: a player whose hand is empty has gone out, so a position must say the deal is over."""
    with pytest.raises(engine.PositionError, match="hand 1 is empty, so the deal is over: add 'over: out winner 1'"):
        position("N: 10S\nhand 0: 9H\nhand 1: -")
    state = position("N: 10S\nhand 0: 9H\nhand 1: -\nover: out winner 1")
    assert state.is_over and state.winner == 1 and engine.deal_penalties(state) == [1, 0]
