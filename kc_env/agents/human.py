"""A person at the terminal, behind the same interface as every other agent.

``HumanAgent.act(obs)`` shows the seat's view and its legal moves, numbered, and reads a move:
a number from the list, or the move written as ``9H N`` (``play 9H N``, ``9H->N``),
``move W N``, ``end``. An illegal move is refused with the reason, and the question is asked
again. ``?`` lists the moves again, ``q`` quits (``QuitGame``).

Like every agent it sees only the observation. Whoever runs the table may pass ``show`` (draws
the seat's view, e.g. ``render.render(state, viewer=seat)``) and ``explain`` (the reason an
action is illegal, e.g. ``engine.why_illegal``): the referee's knowledge, about the player's own
hand and the open table only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .. import actions
from ..cards import JOKERS
from ..observation import SLICES
from ..play import StopPlay
from .base import Agent, legal_actions

HELP = ("Type a number from the list, or a move: '9H N' (play the 9 of hearts onto N), "
        "'move W N' (move pile W onto N), 'end' (end your turn). '?' lists the moves, 'q' quits.")


MAX_INPUT = 40
"""The longest answer read as a move (``move NE SW`` is 10 characters); a longer one is refused
without being echoed back."""


class QuitGame(StopPlay):
    """The person asked to stop (``q``) or the input ended."""


class HumanAgent(Agent):
    """Asks a person for each move (see the module docstring)."""

    spec = "human"

    def __init__(self, seed: int | None = None, *, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print, show: Callable[[Mapping[str, np.ndarray]], str] | None = None,
                 explain: Callable[[int], str | None] | None = None) -> None:
        self.read = read
        self.write = write
        self.show = show
        self.explain = explain

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """Show the view and the legal moves; return the first legal move the person types."""
        legal = [int(a) for a in legal_actions(obs)]
        self.write(self.show(obs) if self.show else _view(obs))
        self.write(moves_text(legal))
        while True:
            try:
                text = self.read("your move: ").strip()
            except EOFError:
                raise QuitGame("the input ended") from None
            if not text:
                continue
            if text.lower() in ("q", "quit", "exit"):
                raise QuitGame("quit")
            if text in ("?", "help", "h"):
                self.write(HELP)
                self.write(moves_text(legal))
                continue
            action, problem = self._read_action(text, obs, legal)
            if problem is None:
                return action
            self.write(f"refused: {problem}")

    def _read_action(self, text: str, obs: Mapping[str, np.ndarray], legal: list[int]) -> tuple[int, str | None]:
        if len(text) > MAX_INPUT:
            return -1, f"that is not a move ({len(text):,} characters); {HELP}"
        if text.isascii() and text.isdigit():  # not '²', which isdigit() takes for a digit
            k = int(text)
            if 1 <= k <= len(legal):
                return legal[k - 1], None
            return -1, f"there is no move {text}; pick 1 to {len(legal)}"
        try:
            action = actions.parse(text)
        except ValueError as exc:
            return -1, str(exc)
        hand = obs["observation"][SLICES["hand"]]  # one value per card id
        first, second = JOKERS
        if actions.is_play(action) and actions.play_card_of(action) == first and hand[first] == 0 and hand[second] == 1:
            action = actions.play_action(second, actions.play_pile_of(action))  # "JK" names the joker the player holds
        if action in legal:
            return action, None
        reason = self.explain(action) if self.explain else None
        return -1, f"{actions.name(action)} is not legal now" + (f": {reason}" if reason else "")


def moves_text(legal: list[int]) -> str:
    """The legal moves, numbered from 1, several to a line."""
    cells = [f"{k:>2}) {actions.name(a)}" for k, a in enumerate(legal, start=1)]
    width = max(len(c) for c in cells) + 2
    per_line = max(1, 96 // width)
    lines = ["".join(c.ljust(width) for c in cells[i:i + per_line]).rstrip() for i in range(0, len(cells), per_line)]
    return "legal moves:\n" + "\n".join("  " + line for line in lines)


def _view(obs: Mapping[str, np.ndarray]) -> str:
    from ..observation import decode

    return str(decode(obs["observation"]))
