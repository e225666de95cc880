"""The deal and the stock as OpenSpiel's chance nodes decide them: which cards lie on top of the
deck, one at a time, and which card is the stock's top before it is drawn.

``engine.new_deal`` shuffles the whole deck with its own seeded generator. Here the deck's top
cards are decided one chance outcome at a time (``deal_size``: as many as the deal can take), the
deal is made from them by ``from_deck`` (the engine's own dealing: hands one card at a time from
the dealer's left, the cross with ``cross_kings`` and jokers, the first turn's draw), and the rest
of the stock stays in no order until a chance node puts one of its cards on top (``put_on_top``).
Dealing the top cards of a uniformly shuffled deck and then drawing uniformly from the rest is
the same distribution as ``new_deal``'s shuffle; ``tests/test_openspiel.py`` deals both from the
same seeds and compares the deals.
"""

from __future__ import annotations

from .. import engine
from ..cards import deck
from ..engine import GameState
from ..rules import Rules

KINGS = 4
"""Kings that the cross can send to corners, each taking another card from the deck."""


def deal_size(rules: Rules, num_players: int) -> int:
    """The most cards the deal can take from the top of the deck: the hands, a card for each side,
    one more for each king sent to a corner and each joker sent under the stock, and the first
    turn's draw (never more than the deck)."""
    most = rules.hand_size * num_players + len(engine.SIDES) + KINGS + rules.jokers + 1
    return min(most, rules.deck_size)


def from_deck(rules: Rules, num_players: int, top: list[int], first_seat: int | None,
              dealer: int = 0) -> tuple[GameState, set[int]]:
    """The deal ``engine.new_deal`` makes from a deck whose top cards are ``top`` (top first),
    the rest of the deck under them in no order, and ``first_seat`` the seat that plays first
    under ``first_player: random`` (None: the dealer's left). Returns the deal and the stock's
    cards whose place is undecided (``engine.deal_from`` deals; the test compares with
    ``new_deal`` deal for deal)."""
    rest = sorted(set(deck(rules.jokers)) - set(top))
    state = engine.deal_from(rules, num_players, rest + top[::-1], dealer, first_seat)
    return state, set(rest) & set(state.stock)


def put_on_top(state: GameState, card: int) -> None:
    """Move ``card`` of the stock to its top: the chance outcome of the next draw."""
    state.stock.remove(card)
    state.stock.append(card)


def below_top(stock: list[int]) -> set[int]:
    """The cards of a shuffled ``stock`` left undecided when its top is taken as drawn already:
    a re-deal stands at a decision, not at a chance node."""
    return set(stock[:-1])
