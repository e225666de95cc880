"""Text rendering (kc_env.render): the cross, hidden hands, shortened piles, jokers, colour."""

from __future__ import annotations

from kc_env import Rules, engine
from kc_env.cards import parse_card
from kc_env.render import render

POSITION = """\
N: 9H
E: 4C
S: 10S
W: 7D
NE: KC QH JC 10H 9S 8D 7C
SE: -
SW: KD QS JK
NW: -
hand 0: 8S KH QC
hand 1: KS 5H 2C
stock: 2D 9C
turn: 0 drawn
"""


def state():
    return engine.from_text(POSITION, Rules.preset("standard", jokers=2))


def test_the_cross_and_the_viewers_hand_only():
    text = render(state(), 1, totals=[3, 12], last_moves=["player_1 end turn"])
    lines = text.splitlines()
    assert lines[0].startswith("Kings in the Corner · standard (jokers=2) · 2 players · player_0 to act (drawn)")
    assert lines[2].split()[:2] == ["NW", "-"] and "N 9♥" in lines[2] and "NE K♣ Q♥ … 8♦ 7♣ (7)" in lines[2]
    assert "W 7♦" in lines[3] and "stock 2" in lines[3] and "E 4♣" in lines[3]
    assert "SW K♦ Q♠ JK(Jr)" in lines[4] and "S 10♠" in lines[4]
    assert lines[6].startswith("player_0") and "3 cards" in lines[6] and "8♠" not in text and "to act" in lines[6]
    assert lines[7].startswith("player_1 (you)") and "2♣ 5♥ K♠" in lines[7]
    assert "scores: player_0 3 · player_1 12 (target 25)" in text
    assert "last moves: player_1 end turn" in text
    assert "\x1b[" not in text


def test_every_hand_and_colour_when_asked():
    text = render(state(), None, color=True)
    assert "8♠" in text and "K♠" in text and "(you)" not in text
    assert "\x1b[31m9♥\x1b[0m" in text


def test_a_finished_deal_names_the_winner():
    s = engine.from_text(POSITION.replace("hand 0: 8S KH QC", "hand 0: 8S"), Rules.preset("standard", jokers=2))
    engine.apply(s, engine.PlayCard(parse_card("8S"), 0))
    text = render(s, 0)
    assert "deal over, player_0 won" in text.splitlines()[0] and "won the deal" in text
