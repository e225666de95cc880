"""RULES.md section 4 (every value of every variant), section 6 (the presets) and strict loading
of rule sets. One test per value; positions are written as text (see ``tests/positions.py``).
"""

from __future__ import annotations

import dataclasses

import pytest
from positions import assert_illegal, hand, legal, pile, play, position, stock

from kc_env import PRESETS, Rules, RulesError, engine
from kc_env.cards import KING, RANK, card_name
from kc_env.engine import CORNERS, SIDES, MovePile, PositionError
from kc_env.rules import CHOICES

# -- 4.1 draw ----------------------------------------------------------------------------------

DRAW_POSITION = "N: 10S\nhand 0: 9H 2C\nhand 1: 3D 4D\nstock: 5C 6C 7C\nturn: 0"


def test_draw_start_draws_one_card_at_the_start_of_every_turn():
    """4.1 ``start``: draw one card at the start of the turn, before any move."""
    state = position(DRAW_POSITION, draw="start")
    assert hand(state, 0) == "9H 2C 5C" and state.drawn and stock(state) == "6C 7C"
    play(state, "9H N", "end")
    assert hand(state, 0) == "2C 5C", "no second draw when the turn ends"
    assert state.current_player == 1 and hand(state, 1) == "3D 4D 6C" and stock(state) == "7C"


def test_draw_end_draws_with_the_end_turn_move():
    """4.1 ``end``: no draw at the start; the end-turn move draws one card, after all plays."""
    state = position(DRAW_POSITION, draw="end")
    assert hand(state, 0) == "9H 2C" and not state.drawn and stock(state) == "5C 6C 7C"
    play(state, "9H N", "end")
    assert hand(state, 0) == "2C 5C" and stock(state) == "6C 7C"
    assert state.current_player == 1 and hand(state, 1) == "3D 4D", "no draw at the start of a turn"


def test_draw_stuck_draws_only_a_player_without_any_legal_move():
    """4.1 ``stuck``: at the start of the turn, draw one card only if the player has no legal
    move (no card play and no pile move); then the turn goes on as usual."""
    has_a_play = position(DRAW_POSITION, draw="stuck")
    assert hand(has_a_play, 0) == "9H 2C" and not has_a_play.drawn

    sides = "N: 10S\nE: 4C\nS: 6C\n"
    has_a_pile_move = position(sides + "W: 9D\nhand 0: 2C\nhand 1: 3C\nstock: 9H\nturn: 0", draw="stuck")
    assert legal(has_a_pile_move) == {"move W->N", "end turn"}
    assert hand(has_a_pile_move, 0) == "2C" and not has_a_pile_move.drawn

    stuck = position(sides + "W: 9S\nhand 0: 2C\nhand 1: 3C\nstock: 9H 5C\nturn: 0", draw="stuck")
    assert hand(stuck, 0) == "2C 9H" and stuck.drawn and stock(stuck) == "5C"
    play(stuck, "9H N", "end")  # the drawn card may be played at once
    assert stuck.current_player == 1 and hand(stuck, 1) == "3C 5C", "player 1 is stuck too"


# -- 4.2 kings_on_sides ------------------------------------------------------------------------

def test_kings_on_sides_true_lets_a_king_onto_an_empty_side():
    """4.2 ``true`` (default): any card, a king too, may be played onto an empty side."""
    state = position("hand 0: KH 5C\nhand 1: 3D", kings_on_sides=True)
    play(state, "KH N")
    assert pile(state, "N") == "KH"


def test_kings_on_sides_false_keeps_kings_off_the_sides():
    """4.2 ``false``: a king may never be played onto an empty side; it goes only into a corner."""
    state = position("hand 0: KH 5C\nhand 1: 3D", kings_on_sides=False)
    for side in "NESW":
        assert_illegal(state, f"KH {side}", "kings_on_sides is false", "king may not go onto an empty side")
    assert {f"play KH->{c}" for c in ("NE", "SE", "SW", "NW")} <= legal(state)
    assert {f"play 5C->{s}" for s in "NESW"} <= legal(state)


# -- 4.3 cross_kings ---------------------------------------------------------------------------

def turned_up(seed: int, n: int = 2) -> list[int]:
    """The cards the deal turns up for the cross, in order, read from the ``stay`` deal of the
    same seed: its four sides, then the stock from the top."""
    state = engine.new_deal(Rules(draw="end", cross_kings="stay"), n, seed=seed)
    return [state.piles[s][0] for s in SIDES] + state.stock[::-1]


def expected_to_corner(cards: list[int]) -> tuple[list[list[int]], int]:
    """RULES.md 4.3 ``to_corner`` by hand: each side takes the next card; a king goes into the
    first empty corner (NE, SE, SW, NW) instead and the side takes the next card, until no king.
    Returns the eight piles and how many cards were turned up."""
    piles: list[list[int]] = [[] for _ in range(8)]
    used = 0
    for side in SIDES:
        while not piles[side]:
            c = cards[used]
            used += 1
            if RANK[c] == KING:
                piles[next(k for k in CORNERS if not piles[k])].append(c)
            else:
                piles[side].append(c)
    return piles, used


def test_cross_kings_to_corner_moves_turned_up_kings_into_corners_and_refills():
    """4.3 ``to_corner``: at the deal, a king turned up for a side moves into the first empty
    corner (order NE, SE, SW, NW) and the side is refilled from the stock, again until it holds
    no king. Checked on seeds whose cross turns up one king, two, and two in a row for a side."""
    seen = set()
    for seed in range(400):
        cards = turned_up(seed)
        piles, used = expected_to_corner(cards)
        state = engine.new_deal(Rules(draw="end", cross_kings="to_corner"), 2, seed=seed)
        assert state.piles == piles, seed
        assert len(state.stock) == 52 - 14 - used
        kings = [c for c in cards[:used] if RANK[c] == KING]
        seen.add(min(len(kings), 2))
        if any(RANK[a] == RANK[b] == KING for a, b in zip(cards[: used - 1], cards[1:used], strict=True)):
            seen.add("twice for one side")
    assert seen == {0, 1, 2, "twice for one side"}


def test_cross_kings_stay_leaves_kings_on_their_side_until_a_player_moves_them():
    """4.3 ``stay``: a king turned up stays on its side; any player may later move that pile into
    an empty corner (a pile move) and then fill the side from hand."""
    seed = next(s for s in range(100) if any(RANK[c] == KING for c in turned_up(s)[:4]))
    state = engine.new_deal(Rules(cross_kings="stay"), 2, seed=seed)
    assert all(not state.piles[k] for k in CORNERS)
    side = next(s for s in SIDES if RANK[state.piles[s][0]] == KING)
    assert MovePile(side, 4) in engine.legal_moves(state)

    state = position("N: KD\nE: 4C\nhand 0: 5C QS\nhand 1: 3D", cross_kings="stay")
    play(state, "move N NE", "QS NE", "5C N")
    assert pile(state, "NE") == "KD QS" and pile(state, "N") == "5C"


# -- 4.4 pile_moves ----------------------------------------------------------------------------

PILES = "N: 10C\nE: 8C\nW: 9H 8S 7D\nSW: KS\nS: QD\nhand 0: 2C\nhand 1: 3D"


def test_pile_moves_whole_moves_only_whole_piles():
    """4.4 ``whole``: as in section 3, only a whole pile moves, by its bottom card."""
    state = position(PILES, pile_moves="whole")
    assert {m for m in legal(state) if m.startswith("move")} == {"move W->N", "move S->SW"}
    assert_illegal(state, "move W E", "bottom card 9H of W does not fit on 8C")  # 7D alone would fit
    play(state, "move W N")
    assert pile(state, "N") == "10C 9H 8S 7D" and pile(state, "W") == "-"


def test_pile_moves_none_allows_only_a_king_bottomed_side_pile_into_an_empty_corner():
    """4.4 ``none``: no pile moves, except a king-bottomed side pile into an empty corner."""
    state = position(PILES.replace("E: 8C", "E: KH QS"), pile_moves="none")
    assert {m for m in legal(state) if m.startswith("move")} == {"move E->NE", "move E->SE", "move E->NW"}
    assert_illegal(state, "move W N", "pile_moves is 'none'")
    assert_illegal(state, "move S SW", "pile_moves is 'none'")
    play(state, "move E NW")
    assert pile(state, "NW") == "KH QS"


def test_pile_moves_partial_also_moves_the_top_part_from_any_card():
    """4.4 ``partial``: also the top part of any pile, starting at any card x in it, may move onto
    another pile whose top card x fits on (a corner's too); whole piles still move."""
    state = position(PILES, pile_moves="partial")
    assert {m for m in legal(state) if m.startswith("move")} == {"move W->N", "move W->E", "move S->SW"}
    play(state, "move W E")  # the part from 7D, which fits on 8C
    assert pile(state, "W") == "9H 8S" and pile(state, "E") == "8C 7D"
    play(state, "move W N")  # what is left moves whole
    assert pile(state, "N") == "10C 9H 8S" and pile(state, "W") == "-"

    state = position("N: JD\nNE: KH QS JH 10S 9D\nhand 0: 2C\nhand 1: 3D", pile_moves="partial")
    play(state, "move NE N")  # the part from 10S
    assert pile(state, "NE") == "KH QS JH" and pile(state, "N") == "JD 10S 9D"
    assert_illegal(state, "move N E", "piles never move onto an empty side")
    assert "move N->NE" not in legal(state), "a part that leaves cards behind: the turn's first pile move only"
    play(state, "end")
    assert "move N->NE" in legal(state), "the next player may move it back (no progress, RULES.md 4.8)"


# -- 4.5 forced plays --------------------------------------------------------------------------

def test_must_play_optional_lets_the_turn_end_with_playable_cards():
    """4.5 ``must_play: optional`` (default): the turn may end whenever the player likes."""
    state = position("N: 10S\nhand 0: 9H 2C\nhand 1: 3D", must_play="optional")
    assert "end turn" in legal(state)
    play(state, "end")
    assert state.current_player == 1


def test_must_play_all_keeps_the_turn_open_while_a_card_can_be_played():
    """4.5 ``must_play: all``: the turn may not end while a card from hand can be legally
    played (a possible pile move does not keep it open)."""
    state = position("N: 10S\nE: 4C\nS: 6C\nW: JD\nhand 0: 9H 8S 2C\nhand 1: 3C", must_play="all")
    assert_illegal(state, "end", "must_play is 'all'", "can still be played")
    play(state, "9H N")
    assert_illegal(state, "end", "must_play is 'all'", "play 8S->N can still be played")
    play(state, "8S N")
    assert legal(state) == {"move N->W", "end turn"}  # 10S 9H 8S onto JD; 2C fits nowhere
    play(state, "end")
    assert state.current_player == 1


KINGS_FIRST = "N: 10S\nE: 4C\nS: 6C\nW: JD\nNE: KC\nSE: KS\nSW: KH\nhand 0: KD 9H 3H\nhand 1: 3C"


def test_king_first_false_leaves_every_play_open_while_holding_a_king():
    """4.5 ``king_first: false`` (default): holding a king with a corner empty forces nothing."""
    state = position(KINGS_FIRST, king_first=False)
    assert {"play KD->NW", "play 9H->N", "play 3H->E", "move N->W", "end turn"} == legal(state)


def test_king_first_true_allows_only_kings_into_corners_while_holding_one():
    """4.5 ``king_first: true``: while the player holds a king and a corner is empty, the only
    legal card plays are kings into corners, and no pile may move."""
    state = position(KINGS_FIRST, king_first=True)
    assert legal(state) == {"play KD->NW", "end turn"}
    assert_illegal(state, "9H N", "king_first", "only kings go into corners")
    assert_illegal(state, "move N W", "king_first", "no pile may move")
    play(state, "KD NW")
    assert legal(state) == {"play 9H->N", "play 3H->E", "move N->W", "end turn"}

    no_king = position(KINGS_FIRST.replace("KD", "QC"), king_first=True)
    assert "play 9H->N" in legal(no_king), "without a king nothing is forced"
    on_sides = position("hand 0: KD 9H\nhand 1: 3C", king_first=True)
    assert_illegal(on_sides, "KD N", "king_first")  # a king goes into a corner, not onto a side


FILL_SPACES = "N: 10S\nE: 4C\nS: 6C\nW: -\nSW: KH\nhand 0: 9H 3H\nhand 1: 3C"


def test_fill_spaces_first_false_leaves_every_play_open_while_a_side_is_empty():
    """4.5 ``fill_spaces_first: false`` (default): an empty side forces nothing."""
    state = position(FILL_SPACES, fill_spaces_first=False)
    assert {"play 9H->N", "play 3H->E", "play 9H->W", "play 3H->W"} <= legal(state)


def test_fill_spaces_first_true_allows_only_plays_into_empty_sides():
    """4.5 ``fill_spaces_first: true``: while a side is empty and the player holds a card that
    may go there, the only legal card plays are into empty sides (pile moves stay legal)."""
    state = position(FILL_SPACES + "\nNW: KD QC JH", fill_spaces_first=True)
    assert legal(state) == {"play 9H->W", "play 3H->W", "move N->NW", "end turn"}
    assert_illegal(state, "9H N", "fill_spaces_first", "play into the empty sides")
    play(state, "3H W")
    assert {"play 9H->N", "end turn"} <= legal(state), "no side is empty any more"

    kings_only = position("N: 10S\nE: 4C\nS: 6C\nhand 0: KD\nhand 1: 3C", fill_spaces_first=True,
                          kings_on_sides=False)
    assert "play KD->NE" in legal(kings_only), "no card in hand may go onto the empty side"


def test_king_first_is_applied_before_fill_spaces_first():
    """4.5: ``king_first`` is applied before ``fill_spaces_first``: with both, a king and an empty
    corner force a king into a corner even while a side is empty; once no corner is empty, the
    empty sides come first. (``fill_spaces_first`` alone would send the king onto the side.)"""
    text = "N: 10S\nE: 4C\nS: 6C\nNE: KC\nSE: KS\nSW: KH\nhand 0: KD 9H\nhand 1: 3C"
    state = position(text, king_first=True, fill_spaces_first=True)
    assert legal(state) == {"play KD->NW", "end turn"}
    play(state, "KD NW")
    assert legal(state) == {"play 9H->W", "end turn"}

    fill_only = position(text, fill_spaces_first=True)
    assert {m for m in legal(fill_only) if m.startswith("play")} == {"play KD->W", "play 9H->W"}


# -- 4.6 corner_build --------------------------------------------------------------------------

def test_corner_build_alternate_builds_corners_by_alternating_colours():
    """4.6 ``alternate`` (default): corners are built like sides, one rank lower, other colour."""
    state = position("NE: KS\nhand 0: QH QD QC\nhand 1: 3C", corner_build="alternate")
    assert {"play QH->NE", "play QD->NE"} <= legal(state)
    assert_illegal(state, "QC NE", "does not fit on KS")


def test_corner_build_same_suit_builds_corners_in_the_kings_suit():
    """4.6 ``same_suit``: on a corner pile a card must be one rank lower and of the king's suit;
    sides still alternate colours. A pile moving onto a same-suit corner must follow the suit
    too, so a side pile (which alternates) moves into an empty corner only as a lone king."""
    state = position("N: KD\nE: 10H 9S\nS: 5C\nW: KC\nNE: KS\nSE: KH QH JH\nhand 0: QS QC QD 4H\nhand 1: 3C",
                     corner_build="same_suit", cross_kings="stay")
    assert_illegal(state, "QD NE", "same-suit corner", "king's suit")
    play(state, "QS NE", "4H S")
    assert pile(state, "NE") == "KS QS" and pile(state, "S") == "5C 4H"
    assert_illegal(state, "move E SE", "same-suit corner SE", "corner's suit")  # 10H fits, 9S not
    assert "move W->SW" in legal(state)
    play(state, "QC N")  # a side: alternate colours
    assert_illegal(state, "move N SW", "same_suit", "only a lone king")
    play(state, "move W SW")
    assert pile(state, "SW") == "KC"


# -- 4.7 clear_complete_piles ------------------------------------------------------------------

FULL_CORNER = "NE: KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H\nN: 9C\nhand 0: AS 2C\nhand 1: 3C\nstock: 8D"


def test_clear_complete_piles_false_leaves_a_finished_pile_on_the_table():
    """4.7 ``false`` (default): a pile K down to A stays; nothing more can go on it."""
    state = play(position(FULL_CORNER, clear_complete_piles=False), "AS NE")
    assert len(state.piles[4]) == 13 and stock(state) == "8D"
    assert_illegal(state, "2C NE", "nothing is built on an ace")


def test_clear_complete_piles_true_shuffles_a_finished_pile_into_the_stock():
    """4.7 ``true``: a pile that holds all thirteen ranks K down to A is removed at once, its cards
    are shuffled into the stock (seeded: the same seed, the same order), and the space is empty
    again. A pile move that completes a pile clears it too."""
    state = play(position(FULL_CORNER, clear_complete_piles=True), "AS NE")
    assert pile(state, "NE") == "-" and len(state.stock) == 14
    again = play(position(FULL_CORNER, clear_complete_piles=True), "AS NE")
    assert stock(again) == stock(state)
    refill = play(position(FULL_CORNER.replace("2C", "KD"), clear_complete_piles=True), "AS NE")
    assert "play KD->NE" in legal(refill)

    by_move = position("NE: KS QH JS 10H 9S 8H\nW: 7C 6D 5C 4D 3C 2D AC\nhand 0: 2C\nhand 1: 3D",
                       clear_complete_piles=True)
    play(by_move, "move W NE")
    assert pile(by_move, "NE") == "-" and pile(by_move, "W") == "-" and len(by_move.stock) == 13


# -- 4.8 blocked -------------------------------------------------------------------------------

BLOCKED = "N: 10S\nE: 4C\nS: 6C\nW: 9S\nhand 0: 2C 2S\nhand 1: 3C\nhand 2: 5C 7C\nturn: 0"


def end_turns(state, count: int):
    for _ in range(count):
        play(state, "end")
    return state


def test_blocked_no_winner_ends_a_deal_after_a_full_idle_round_with_no_winner():
    """4.8: a deal is blocked when the stock is empty and a full round of turns (every player
    once, in a row) passes with no card played and no pile moved. ``no_winner``: no winner."""
    state = end_turns(position(BLOCKED, blocked="no_winner"), 2)
    assert not state.is_over, "two turns of three are not a full round"
    end_turns(state, 1)
    assert state.is_over and state.blocked and state.winner is None
    assert engine.deal_penalties(state) == [2, 1, 2], "everyone adds the penalty of their own hand"


def test_blocked_round_starts_again_after_a_play_or_a_draw():
    """4.8: any card played or pile moved (or a card drawn, the stock not yet empty) starts the
    count of idle turns again."""
    state = position(BLOCKED.replace("hand 1: 3C", "hand 1: 3C 9H"), blocked="no_winner")
    play(state, "end", "9H N")
    end_turns(state, 3)
    assert not state.is_over
    end_turns(state, 1)
    assert state.is_over and state.blocked

    with_stock = position(BLOCKED + "\nstock: 4S", blocked="no_winner", draw="end")
    end_turns(with_stock, 3)  # player 0 drew the last card
    assert not with_stock.is_over
    end_turns(with_stock, 1)
    assert with_stock.is_over


def test_blocked_fewest_cards_gives_the_deal_to_the_smallest_hand():
    """4.8 ``fewest_cards``: the player with the fewest cards wins the blocked deal."""
    state = end_turns(position(BLOCKED, blocked="fewest_cards"), 3)
    assert state.is_over and state.blocked and state.winner == 1
    assert engine.deal_penalties(state) == [2, 0, 2]


def test_blocked_fewest_cards_with_a_tie_for_fewest_has_no_winner():
    """4.8 ``fewest_cards``: a tie for fewest cards means no winner."""
    state = end_turns(position(BLOCKED.replace("hand 1: 3C", "hand 1: 3C 3S"), blocked="fewest_cards"), 3)
    assert state.is_over and state.blocked and state.winner is None


# -- 4.9 jokers --------------------------------------------------------------------------------

def test_jokers_0_is_a_52_card_deck_without_jokers():
    """4.9 ``0`` (default): the deck has 52 cards, no jokers."""
    state = engine.new_deal(Rules(jokers=0), 4, seed=9)
    assert sorted(engine.all_cards(state)) == list(range(52))
    with pytest.raises(PositionError, match="more jokers than the rules' 0"):
        position("hand 0: JK\nhand 1: 3C", jokers=0)


def test_jokers_2_adds_two_wild_cards_to_the_deck():
    """4.9 ``2``: the deck has 54 cards."""
    state = engine.new_deal(Rules(jokers=2), 4, seed=9)
    assert sorted(engine.all_cards(state)) == list(range(54))
    assert all(card_name(c) != "JK" for s in SIDES for c in state.piles[s][:1]), "no side starts with a joker"


def test_a_joker_on_a_pile_stands_for_the_card_that_fits_there():
    """4.9: a joker goes onto any non-empty pile whose top is not an ace, standing for the card
    that fits there (one rank lower, other colour); the pile is then judged by that card."""
    state = position("N: 10S\nE: 4C\nhand 0: JK 8S 8H 3H\nhand 1: 3C", jokers=2)
    assert {"play JK->N", "play JK->E"} <= legal(state)
    play(state, "JK N")  # a red 9
    assert_illegal(state, "8H N", "does not fit on JK as a red 9")
    play(state, "8S N")
    assert pile(state, "N") == "10S JK 8S"


def test_a_joker_in_an_empty_corner_is_a_king_of_no_colour():
    """4.9: a joker into an empty corner stands for a king of no colour: any queen may follow."""
    for queen in ("QH", "QS"):
        state = position(f"hand 0: JK {queen} 2C\nhand 1: 3C", jokers=2)
        play(state, "JK NE", f"{queen} NE")
        assert pile(state, "NE") == f"JK {queen}"


def test_a_joker_may_not_start_a_side_pile():
    """4.9: a joker may not start a side pile."""
    state = position("hand 0: JK 2C\nhand 1: 3C", jokers=2)
    for side in "NESW":
        assert_illegal(state, f"JK {side}", "a joker may not start a side pile")


def test_a_joker_may_not_go_onto_an_ace():
    """4.9: nothing, a joker neither, goes onto an ace."""
    state = position("N: 2S AH\nhand 0: JK 2C\nhand 1: 3C", jokers=2)
    assert_illegal(state, "JK N", "nothing is built on an ace")


def test_a_joker_left_in_hand_costs_what_a_king_costs():
    """4.9: a joker left in hand costs what a king costs, unless the scoring table names a joker
    value."""
    text = "N: 10S\nhand 0: 9H\nhand 1: JK KC 5C"
    for scoring, cost in [("standard", 21), ("kings_double", 5), ("pip", 25)]:
        state = play(position(text, jokers=2, scoring=scoring), "9H N")
        assert engine.deal_penalties(state) == [0, cost], scoring
    table = dict.fromkeys("A 2 3 4 5 6 7 8 9 10 J Q".split(), 1) | {"K": 10, "JK": 50}
    state = play(position(text, jokers=2, scoring="custom", custom_table=table), "9H N")
    assert engine.deal_penalties(state) == [0, 61]


def test_a_joker_that_moves_with_a_pile_keeps_the_card_it_stands_for():
    """4.9: the pile is judged by the cards the jokers stand for. RULES.md is silent on piles
    that move; a joker keeps standing for its card: one standing for a red 7 moves only where a
    red 7 may lie, and a joker standing for a black card cannot join a same-suit hearts corner."""
    state = position("W: 8C JK\nN: 8D\nE: 8S\nhand 0: 2C\nhand 1: 3C", jokers=2, pile_moves="partial")
    assert_illegal(state, "move W N", "no part of W fits on 8D")
    play(state, "move W E")
    assert pile(state, "E") == "8S JK" and pile(state, "W") == "8C"

    corner = position("W: 10H JK\nNE: KH QH JH\nhand 0: 2C\nhand 1: 3C", jokers=2, corner_build="same_suit")
    assert_illegal(corner, "move W NE", "same-suit corner NE", "corner's suit")
    joker_king = position("W: KD JK JH\nNW: JK\nhand 0: 2C\nhand 1: 3C", jokers=2, corner_build="same_suit",
                          pile_moves="partial")  # the JH would make NW a hearts corner, the JK a black Q
    assert_illegal(joker_king, "move W NW", "no part of W fits on JK as a K of no colour")


def test_a_joker_in_hand_does_not_trigger_king_first():
    """4.5 and 4.9 (RULES.md is silent): ``king_first`` is about kings in hand; a joker may go
    into an empty corner but does not force anything."""
    state = position("N: 10S\nhand 0: JK 9H\nhand 1: 3C", jokers=2, king_first=True)
    assert {"play JK->NE", "play 9H->N", "play JK->N"} <= legal(state)


# -- 6. presets --------------------------------------------------------------------------------

PRESET_TABLE = {  # RULES.md 6, row by row
    "standard": dict(draw="start", cross_kings="to_corner", kings_on_sides=True, must_play="optional",
                     scoring="standard", target=25),
    "bicycle": dict(draw="start", cross_kings="stay", kings_on_sides=True, must_play="all",
                    scoring="single", target=None),
    "pagat": dict(draw="end", cross_kings="stay", kings_on_sides=True, must_play="optional",
                  scoring="standard", target=25),
    "printable": dict(draw="end", cross_kings="stay", kings_on_sides=True, must_play="optional",
                      scoring="standard", target=25, cross_king_move="first_turn"),
    "wikihow": dict(draw="start", cross_kings="to_corner", kings_on_sides=True, must_play="optional",
                    scoring="standard", clear_complete_piles=True, target=25),
    "online": dict(draw="start", cross_kings="to_corner", kings_on_sides=False, must_play="optional",
                   scoring="kings_double", tie_break="shared", target=25),
    "german": dict(draw="start", cross_kings="to_corner", kings_on_sides=True, must_play="optional",
                   scoring="wins", target=5),
}


def test_the_presets_are_exactly_the_named_rule_sets():
    """6: the presets are standard, bicycle, pagat, printable, wikihow, online and german."""
    assert set(PRESETS) == set(PRESET_TABLE)
    assert Rules.preset() == Rules() == Rules.preset("standard")


@pytest.mark.parametrize("name", list(PRESET_TABLE))
def test_each_preset_gives_exactly_the_tables_values(name):
    """6: each preset has the table's values; everything not named takes the default."""
    expected = Rules().to_dict() | PRESET_TABLE[name]
    assert Rules.preset(name).to_dict() == expected
    assert Rules.from_dict({"preset": name}) == Rules.preset(name)


def test_a_preset_takes_overrides():
    """A preset's values may be overridden by name (and the result is still checked)."""
    rules = Rules.preset("pagat", tie_break="shared", jokers=2)
    assert (rules.draw, rules.cross_kings, rules.tie_break, rules.jokers) == ("end", "stay", "shared", 2)
    with pytest.raises(RulesError, match="rule 'draw' cannot be 'never'; allowed: start, end, stuck"):
        Rules.preset("pagat", draw="never")


# -- strict loading ----------------------------------------------------------------------------

def test_an_unknown_rule_is_refused_naming_it_and_the_allowed_keys():
    """Loading is strict: an unknown key is an error that names it and lists the allowed keys."""
    with pytest.raises(RulesError) as caught:
        Rules.from_dict({"drow": "end"})
    message = str(caught.value)
    assert "'drow'" in message and "allowed" in message
    assert all(f.name in message for f in dataclasses.fields(Rules))


@pytest.mark.parametrize("key", [k for k in CHOICES])
def test_a_bad_value_is_refused_naming_the_key_and_the_allowed_values(key):
    """Loading is strict: a bad value is an error that names the key and lists the allowed values
    (booleans must be true/false, not strings or numbers)."""
    with pytest.raises(RulesError) as caught:
        Rules.from_dict({key: "sometimes"})
    message = str(caught.value)
    shown = ", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in CHOICES[key])
    assert f"rule {key!r} cannot be 'sometimes'; allowed: {shown}" in message
    wrong_type = 1 if isinstance(CHOICES[key][0], bool) else True
    with pytest.raises(RulesError, match=f"rule {key!r} cannot be"):
        Rules.from_dict({key: wrong_type})


def test_other_bad_rule_sets_are_refused_with_clear_messages():
    """Unknown presets, bad numbers and bad custom tables are refused naming what is wrong."""
    cases = [
        ({"preset": "bridge"}, "unknown preset 'bridge'; allowed: standard, bicycle"),
        ({"hand_size": 0}, "rule 'hand_size' must be a whole number from 1 to 25, not 0"),
        ({"target": "25"}, "rule 'target' must be a whole number"),
        ({"custom_table": {"K": 5}}, "neither 'scoring' nor 'table' is 'custom'"),
        ({"scoring": "custom", "custom_table": {"K": 5}}, "custom_table lacks a penalty for A, 2"),
    ]
    for data, message in cases:
        with pytest.raises(RulesError, match=message.replace("(", r"\(")):
            Rules.from_dict(data)
    with pytest.raises(RulesError, match="rules must be a mapping"):
        Rules.from_dict(["draw", "end"])


def test_from_yaml_loads_a_rule_set_and_is_strict(tmp_path):
    """Rules load from a YAML mapping (a ``preset`` plus overrides); errors name the file and key."""
    good = tmp_path / "rules.yaml"
    good.write_text("preset: pagat\njokers: 2\nkings_on_sides: false\ncorner_build: same_suit\n")
    assert Rules.from_yaml(good) == Rules.preset("pagat", jokers=2, kings_on_sides=False, corner_build="same_suit")
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    assert Rules.from_yaml(empty) == Rules()
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: pagat\nfill_spaces_first: maybe\n")
    with pytest.raises(RulesError, match=r"bad.yaml: rule 'fill_spaces_first' cannot be 'maybe'; allowed: false, true"):
        Rules.from_yaml(bad)
    unknown = tmp_path / "unknown.yaml"
    unknown.write_text("draws: end\n")
    with pytest.raises(RulesError, match=r"unknown.yaml: unknown rule 'draws'"):
        Rules.from_yaml(unknown)
