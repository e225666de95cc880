"""An OpenSpiel state from what one seat sees (its observation vector alone): what an OpenSpiel
bot searches from when it plays as a kc_env ``Agent``. The seat is seat 0 of the position; the
cards it cannot see are dealt at random (``engine.redeal_unseen``). And the ``rules`` parameter
that writes a ``Rules``."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from .. import actions, engine, observation
from ..cards import card_name, deck
from ..rules import Rules
from . import deal
from .game import KingsCornerGame, KingsCornerState


def rules_text(rules: Rules) -> str:
    """``rules`` as the game's ``rules`` parameter: ``standard`` and the fields that differ from
    it (``standard;draw:end;cross_kings:stay``). A custom penalty table has no such form."""
    if rules.custom_table is not None:
        raise ValueError("a custom penalty table cannot be written as python_kings_corner's rules parameter")
    standard = Rules().to_dict()
    changed = [f"{k}:{_yaml(v)}" for k, v in rules.to_dict().items() if v != standard[k]]
    return ";".join(["standard", *changed])


def _yaml(value) -> str:
    """A rule's value as YAML reads it back (``Rules.parse`` reads overrides as YAML)."""
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class SeatPosition:
    """A state of ``python_kings_corner`` in which seat 0 sees what an observation shows.

    ``engine.from_text`` numbers the two jokers in the order it reads them, so the state's jokers
    may be the observation's with 52 and 53 swapped (``jokers_swapped``): the same position, as
    the jokers are alike; ``real_action`` gives the observation's id of a state's action."""

    state: KingsCornerState
    jokers_swapped: bool

    def real_action(self, action: int) -> int:
        """``action`` of the state as the action of the observed table."""
        move = actions.decode(action)
        if self.jokers_swapped and isinstance(move, engine.PlayCard) and move.card >= 52:
            return actions.encode(engine.PlayCard(105 - move.card, move.pile))
        return action


def seat_position(vec: np.ndarray, rng: random.Random, max_moves: int | None = None) -> SeatPosition:
    """The position that ``vec`` shows its seat (seat 0 here), the other hands and the stock dealt
    at random by ``rng``. Its history is empty: a position to search from, not a game to serialise."""
    view = observation.decode(vec)
    params = {"players": view.num_players, "rules": rules_text(view.rules)}
    game = KingsCornerGame(params | ({"max_moves": max_moves} if max_moves else {}))
    state = game.new_initial_state()
    text = _text(view, vec)
    state.table.deal = engine.redeal_unseen(engine.from_text(text.replace("JK2", "JK"), view.rules), 0, rng)
    state.table.undecided = deal.below_top(state.table.deal.stock)
    jokers = [word for word in text.split() if word in ("JK", "JK2")]
    return SeatPosition(state, jokers[:1] == ["JK2"])


def _text(view: observation.SeatView, vec: np.ndarray) -> str:
    """The position as text (``engine.to_text``'s lines), the unseen cards in order."""
    seen = set(view.hand).union(*view.piles)
    unseen = [c for c in deck(view.rules.jokers) if c not in seen]
    lines = [f"{name}: {_cards(view.piles[p])}" for p, name in enumerate(engine.PILE_NAMES)]
    lines.append(f"hand 0: {_cards(view.hand)}")
    for seat, size in enumerate(view.others_hand_sizes, start=1):
        lines.append(f"hand {seat}: {_cards(unseen[:size])}")
        unseen = unseen[size:]
    lines.append(f"stock: {_cards(unseen)}")
    first = bool(vec[observation.SLICES["first_turn"].start])
    flags = [f for f, on in (("drawn", view.drawn), ("played", view.played), ("moved", view.moved),
                             ("first", first)) if on]
    lines.append(" ".join([f"turn: {view.to_act}", *flags]))
    lines += [f"dealer: {view.dealer}", f"idle: {view.idle_turns}"]
    return "\n".join(lines) + "\n"


def _cards(cards) -> str:
    return " ".join("JK2" if c == 53 else card_name(c) for c in cards) or "-"
