"""What one seat of ``python_kings_corner`` observes: kc_env's observation vector
(``kc_env.observation.encode``) as the tensor; as the string, the same view as text (``view_text``);
for the information state, that text and every move made so far (every move is public: a card
played is shown; a draw is no action, and the card drawn is seen in the drawer's hand)."""

from __future__ import annotations

import numpy as np
import pyspiel

from .. import actions, engine, observation
from ..cards import unique_name


class SeatObserver:
    """OpenSpiel's ``PyObserver`` of one seat (``tensor``, ``dict``, ``set_from``, ``string_from``).

    The default (the seat's private and the public information) is the observation vector and
    ``view_text``; ``perfect_recall`` adds the moves to the string and has no tensor (the game
    provides no information-state tensor: the vector does not recall the moves). OpenSpiel's factored parts:
    the public part is the same for every player, so it counts seats from seat 0, not from the
    player: seat 0's vector with the hand's slice at 0, and ``public_text``; the private part is the
    player's hand alone (54 values, one-hot by card id) and its line.
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType, params: dict | None):
        if params:
            raise ValueError(f"python_kings_corner's observer takes no parameters, not {params}")
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_kings_corner observes one seat: no observer of every player's private cards")
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public, self.perfect_recall = iig_obs_type.public_info, iig_obs_type.perfect_recall
        size = observation.OBS_SIZE if self.public else _HAND.stop - _HAND.start if self.private else 0
        if self.perfect_recall:  # the information state is a string only: the vector does not recall the moves
            size = 0
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player: int) -> None:
        """The tensor from ``player``'s observation vector (all 0 while the deal is being made)."""
        if not self.tensor.size:
            return
        deal = state.table.deal
        seat = player if self.private else 0  # the public part alone is every player's: seats from 0
        vec = np.zeros(observation.OBS_SIZE, np.float32) if deal is None else observation.encode(deal, seat)
        if not self.public:
            self.tensor[:] = vec[_HAND] if self.private else vec[:0]
            return
        self.tensor[:] = vec
        if not self.private:
            self.tensor[_HAND] = 0

    def string_from(self, state, player: int) -> str:
        """``player``'s view as text, and under ``perfect_recall`` the moves, each ``seat:name``."""
        deal = state.table.deal
        if deal is None:
            lines = ["dealing"] if self.public else []
        elif not self.private:
            lines = public_text(deal).split("\n") if self.public else []
        else:
            lines = [line for line in view_text(deal, player).split("\n")
                     if line.startswith("hand:") or self.public]
        if self.perfect_recall and self.public:
            lines.append("moves: " + " ".join(f"{seat}:{actions.name(a)}" for seat, a in state.table.moves))
        return "\n".join(lines)


_HAND = observation.SLICES["hand"]


def view_text(deal: engine.GameState, seat: int) -> str:
    """What ``seat`` sees of ``deal`` (what its observation vector holds but the rules): the piles,
    its hand, the other hands' and the stock's sizes, and the turn, seats counted from ``seat``."""
    n = deal.num_players
    lines = [f"{name}: {_cards(deal.piles[p])}" for p, name in enumerate(engine.PILE_NAMES)]
    lines.append(f"hand: {_cards(sorted(deal.hands[seat]))}")
    others = " ".join(str(len(deal.hands[(seat + k) % n])) for k in range(1, n))
    lines.append(f"others: {others}  stock: {len(deal.stock)}")
    flags = [f for f in ("drawn", "played", "moved", "first_turn") if getattr(deal, f)]
    turn = "over" if deal.is_over else f"+{(deal.current_player - seat) % n}"
    lines.append(" ".join([f"to act: {turn}", *flags, f"idle: {deal.idle_turns}", f"dealer: +{(deal.dealer - seat) % n}"]))
    return "\n".join(lines)


def public_text(deal: engine.GameState) -> str:
    """What every player sees of ``deal``: the piles, every hand's size and the stock's, and the
    turn, seats counted from seat 0."""
    lines = [f"{name}: {_cards(deal.piles[p])}" for p, name in enumerate(engine.PILE_NAMES)]
    lines.append(f"hands: {' '.join(str(len(hand)) for hand in deal.hands)}  stock: {len(deal.stock)}")
    flags = [f for f in ("drawn", "played", "moved", "first_turn") if getattr(deal, f)]
    turn = "over" if deal.is_over else f"seat {deal.current_player}"
    lines.append(" ".join([f"to act: {turn}", *flags, f"idle: {deal.idle_turns}", f"dealer: seat {deal.dealer}"]))
    return "\n".join(lines)


def _cards(cards) -> str:
    return " ".join(map(unique_name, cards)) or "-"
