"""Positions written as text: what ``from_text`` refuses, naming the line, and what it keeps."""

from __future__ import annotations

import re

import pytest

from kc_env import PositionError, Rules, engine

BASE = """\
N: 9H
E: 4C
S: 10S
W: 7D
NE: -
SE: -
SW: -
NW: -
hand 0: 8S KD QC
hand 1: KS 5H 2C
stock: 2D 9C
turn: 0 drawn
"""


def with_lines(*extra: str) -> str:
    return BASE + "".join(line + "\n" for line in extra)


@pytest.mark.parametrize(
    "text, message",
    [
        (BASE.replace("N: 9H", "N: 9X"), "line 1: not a card: '9X'"),
        (BASE.replace("E: 4C", "E: 9H"), "line 2: 9H appears twice (also on line 1)"),
        (BASE.replace("S: 10S", "S: 10S 10D"), "pile S is not a legal pile"),
        (BASE.replace("NE: -", "NE: QH"), "pile NE is not a legal pile"),
        (BASE.replace("turn: 0 drawn", "turn: 5"), "line 12: turn 5 but there are 2 players"),
        (BASE.replace("turn: 0 drawn", "turn: me"), "line 12: expected 'turn: I"),
        (BASE.replace("hand 1: KS 5H 2C\n", ""), "hands 0..n-1 for 2 to 6 players"),
        (BASE.replace("SW: -\n", ""), "lacks a line for pile SW"),
        (BASE + "colour: blue\n", "line 13: unknown line 'colour'"),
        (BASE + "nonsense\n", "line 13: expected 'NAME: ...'"),
        (with_lines("over: out winner 0"), "line 13: a deal that ends by going out names a winner whose hand is empty"),
        (with_lines("over: out"), "names a winner"),
        (with_lines("over: blocked winner 1"), "a blocked deal has a winner only under blocked: fewest_cards"),
        (with_lines("unplayed: 1"), "line 13: expected one count per player"),
        (with_lines("dealer: 4"), "line 13: dealer 4 but there are 2 players"),
    ],
)
def test_a_malformed_position_names_its_line(text, message):
    with pytest.raises(PositionError, match=None) as err:
        engine.from_text(text, "standard")
    assert message in str(err.value)


def test_jokers_are_refused_when_the_rules_have_none():
    with pytest.raises(PositionError, match="line 1: more jokers than the rules' 0"):
        engine.from_text(BASE.replace("N: 9H", "N: 9H JK"), "standard")


def test_chips_bookkeeping_and_results_round_trip():
    """The counts of turns without a play (chips) and a finished deal survive the text."""
    text = with_lines("unplayed: 2 1", "over: blocked winner 1")
    state = engine.from_text(text, Rules(blocked="fewest_cards"))
    assert state.turns_without_play == [2, 1]
    assert state.is_over and state.blocked and state.winner == 1
    assert engine.to_text(state) == text


def test_rules_replace_leaves_single_with_the_default_target():
    """Turning a single-deal rule set into a scored one gives the default target back."""
    assert Rules.preset("bicycle").replace(scoring="standard").target == Rules().target
    assert Rules.preset("bicycle").replace(scoring="standard", target=50).target == 50


@pytest.mark.parametrize("line, replace, message", [
    ("hand 1: KS 5H 2C", "hand ²: KS 5H 2C", "expected 'hand I:' with a new seat number"),
    ("hand 1: KS 5H 2C", "hand " + "1" * 5000 + ": KS 5H 2C", "expected 'hand I:' with a new seat number"),
    ("turn: 0 drawn", "turn: ² drawn", "expected 'turn: I"),
    ("turn: 0 drawn", "turn: " + "0" * 5000, "expected 'turn: I"),
])
def test_number_fields_accept_only_plain_digits(line, replace, message):
    """Issue 18 item 15: '²' passes str.isdigit() but not int(); 5,000 digits exceed int()'s limit."""
    with pytest.raises(PositionError, match=message):
        engine.from_text(BASE.replace(line, replace))


@pytest.mark.parametrize("extra, message", [
    ("dealer: ²", "dealer must be a whole number"),
    ("idle: " + "9" * 5000, "idle must be a whole number"),
    ("idle: 1000000", "idle must be a whole number"),
    ("idle: 2", "2 idle turns in a row with 2 players: the deal would be blocked already"),
])
def test_extra_number_lines_are_checked(extra, message):
    with pytest.raises(PositionError, match=message):
        engine.from_text(with_lines(extra))


JOKER_ON_AN_ACE = """\
N: AC JK
E: -
S: -
W: -
NE: -
SE: -
SW: -
NW: -
hand 0: KC 5D
hand 1: 3D 8S
stock: 2H 3H
turn: 0 drawn
"""


@pytest.mark.parametrize("piles, line", [
    ({"N": "AC JK"}, 1),                   # RULES.md 1 and 4.9: nothing is built on an ace
    ({"N": "-", "S": "3S 2D AC JK"}, 3),
    ({"N": "-", "NW": "KS QH JC 10D 9C 8D 7C 6D 5C 4D 3C 2D JK JK"}, 8),  # the first joker: a black ace
])
def test_a_joker_cannot_lie_on_an_ace(piles, line):
    """Issue 31 M-8: the joker would stand for a card below the ace, and a king would then fit on it."""
    text = JOKER_ON_AN_ACE
    for name, cards in piles.items():
        text = re.sub(f"^{name}: .*$", f"{name}: {cards}", text, flags=re.M)
    with pytest.raises(PositionError, match=f"^line {line}: a joker cannot lie on an ace$"):
        engine.from_text(text, Rules.preset("standard", jokers=2))


def test_a_joker_on_an_ace_is_not_a_legal_pile():
    """The invariants judge a pile by ``pile_is_legal``: a joker over an ace fails it."""
    state = engine.from_text(JOKER_ON_AN_ACE.replace("N: AC JK", "N: 2D JK"), Rules.preset("standard", jokers=2))
    assert engine.pile_is_legal(state, engine.PILE_INDEX["N"])
    state.piles[engine.PILE_INDEX["N"]] = [engine.parse_card("AC"), 52]
    state.joker_value[52] = (0, engine.RED)
    assert not engine.pile_is_legal(state, engine.PILE_INDEX["N"])


def test_each_joker_keeps_its_name_through_text():
    """A rules audit: ``to_text`` wrote both jokers ``JK`` and ``from_text`` numbered them in the
    order read, so a round trip could swap them and a saved move (``play JK2->N``) then named the
    joker the player no longer held. The second joker is written ``JK2``, as moves name it; a plain
    ``JK`` is the first joker not yet written."""
    rules = Rules.preset("standard", jokers=2)
    for seed in range(40):
        state = engine.new_deal(rules, 2, seed=seed)
        again = engine.from_text(engine.to_text(state), rules)
        assert (again.hands, again.piles, again.stock) == (state.hands, state.piles, state.stock)
        assert [engine.move_name(m) for m in engine.legal_moves(again)] == \
               [engine.move_name(m) for m in engine.legal_moves(state)]
    assert engine.from_text(BASE.replace("N: 9H", "N: 9H JK2").replace("hand 0:", "hand 0: JK"), rules).piles[0][-1] == 53


@pytest.mark.parametrize("plain", ["JK", "jk", "JOKER", "Joker"])
def test_a_joker_written_without_its_number_is_the_first_not_yet_written(plain):
    """Every way ``cards.parse_card`` writes a joker without its number reads as a plain ``JK``;
    ``JK1`` is the first joker by name, so a plain joker after it is the second."""
    rules = Rules.preset("standard", jokers=2)
    assert engine.from_text(BASE.replace("N: 9H", f"N: 9H {plain}"), rules).piles[0][-1] == 52
    assert 53 in engine.from_text(BASE.replace("N: 9H", "N: 9H JK1").replace("hand 0:", f"hand 0: {plain}"),
                                  rules).hands[0]


def test_the_second_joker_is_refused_as_the_first_is_when_the_rules_have_none():
    with pytest.raises(PositionError, match=re.escape("line 1: more jokers than the rules' 0")):
        engine.from_text(BASE.replace("N: 9H", "N: 9H JK2"), "standard")
