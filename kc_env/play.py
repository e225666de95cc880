"""Playing deals with agents: each seat's agent chooses from its own seat's observation only.

This is the one loop that plays a deal (or a match) with agents; the tournament, ``kc compare``,
``kc play``, ``kc bench`` and the web table use it, or its parts (``observe``, ``check_action``)
where they take one move at a time::

    state = engine.new_deal("standard", 2, seed=7)
    truncated = play_deal(state, [agents.load("heuristic"), agents.load("random")])

- **What an agent sees**: ``observe(state, seat, totals)``, the dict ``{"observation",
  "action_mask"}`` of the seat to act (``totals``: the match's totals before the deal, which the
  observation shows; None outside a match).
- **An illegal action** (out of range, or its mask entry 0) is an error,
  ``IllegalAgentAction``, naming the agent, the seat, the action and the position; it is never
  replaced by a legal one. The state is left as it was before that move.
- **The move cap**: a deal still going after ``max_moves`` moves (``state.move_count``) is cut off
  and ends as blocked (``match.truncate``); ``play_deal`` returns whether it was.
- **The hook** ``on_move(state, seat, obs, action)`` is called for every move after it is checked
  and before it is applied: ``state`` is the position the move is made in (do not change it),
  ``obs`` what the seat saw. Collect moves (``actions.decode(action)``), print them, or ask
  another agent the same question there (``kc compare``).

``match.play_deal`` is the other, full-information loop: a chooser gets the whole state and the
legal moves (tests and ``kc demo``); agents never do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from . import actions, engine, observation
from .engine import GameState
from .match import DEFAULT_MAX_MOVES, Match, truncate

OnMove = Callable[[GameState, int, dict[str, np.ndarray], int], None]
"""``on_move(state, seat, obs, action)``: called before each checked move is applied."""


class Seat(Protocol):
    """What sits at a seat: anything with ``act(obs) -> action`` (every ``kc_env.agents.Agent``)."""

    def act(self, obs: dict[str, np.ndarray]) -> int: ...


class AgentError(RuntimeError):
    """An agent failed at its seat: its ``act`` raised (the error is the cause), or it chose an
    action that is not legal (``IllegalAgentAction``). The message's first line names the agent,
    the seat and what it did."""

    @property
    def headline(self) -> str:
        """The message's first line (an illegal action's goes on with the position)."""
        return str(self).splitlines()[0].rstrip(":")


class StopPlay(Exception):
    """An agent's own way to end the play (a person quitting: ``agents.human.QuitGame``): ``ask``
    lets it through as it is, for the caller that seated the agent."""


class IllegalAgentAction(AgentError):
    """An agent chose an action whose mask entry is 0 (or no action at all)."""


def observe(state: GameState, seat: int | None = None, totals: Sequence[float] | None = None) -> dict[str, np.ndarray]:
    """What ``seat`` (default: the seat to act) sees: ``{"observation", "action_mask"}``."""
    seat = state.current_player if seat is None else seat
    return {"observation": observation.encode(state, seat, totals), "action_mask": actions.legal_mask(state)}


def ask(agent: Seat, obs: dict[str, np.ndarray], seat: int) -> Any:
    """``agent.act(obs)``; ``AgentError`` naming the agent and ``seat`` when its code raises
    (``StopPlay`` passes as it is)."""
    return _call(agent, f" at seat {seat}", "act", obs)


def tell(agent: Seat, objective: str) -> None:
    """``agent.play_for(objective)``; ``AgentError`` naming the agent when its code raises."""
    _call(agent, "", "play_for", objective)


def _call(agent: Seat, where: str, method: str, *args: Any) -> Any:
    """``agent.method(*args)``, whatever the agent's own code raises named as ``AgentError``."""
    try:
        return getattr(agent, method)(*args)
    except StopPlay:
        raise
    except Exception as exc:  # the agent's own code: named here, whatever it raised
        raise AgentError(f"{agent!r}{where} raised {type(exc).__name__} in {method}: {exc}") from exc


def check_action(action: Any, mask: np.ndarray, state: GameState, who: Any = "the agent") -> int:
    """``action`` as an int when it is a whole number that ``mask`` allows, else
    ``IllegalAgentAction`` naming ``who``, the seat to act, the action and the position."""
    index = actions.whole_number(action)
    if index is not None and 0 <= index < actions.NUM_ACTIONS:
        if mask[index] == 1:
            return index
        what = f"{index} ({actions.name(index)})"
    else:
        what = f"{str(action)[:40]!r} ({'out of range' if index is not None else 'not an action index'})"
    raise IllegalAgentAction(f"{who!r} at seat {state.current_player} chose action {what}, "
                             f"which is not legal:\n{engine.to_text(state)}")


def play_deal(state: GameState, seats: Sequence[Seat], max_moves: int = DEFAULT_MAX_MOVES,
              totals: Sequence[float] | None = None, on_move: OnMove | None = None) -> bool:
    """Play ``state`` to its end, ``seats[s]`` choosing every move of seat ``s`` from its own
    observation (see the module docstring). Returns whether the deal was cut off after
    ``max_moves`` moves (then it is ended as blocked). Raises ``IllegalAgentAction``."""
    while not state.is_over:
        if state.move_count >= max_moves:
            truncate(state)
            return True
        seat = state.current_player
        mask = actions.legal_mask(state)
        obs = {"observation": observation.encode(state, seat, totals), "action_mask": mask.copy()}  # the agent's own
        agent = seats[seat]
        action = check_action(ask(agent, obs, seat), mask, state, agent)
        if on_move is not None:
            on_move(state, seat, obs, action)
        engine.apply(state, actions.decode(action))
    return False


def play_match(match: Match, seats: Sequence[Seat], max_moves: int = DEFAULT_MAX_MOVES, max_deals: int | None = None,
               on_move: OnMove | None = None, keep_moves: bool = False) -> int:
    """Play ``match`` on until it is over, or until it has ``max_deals`` deals (then
    ``match.truncated`` is set), every deal by ``play_deal`` with the match's totals in the
    observation; ``keep_moves`` keeps each deal's moves in its record (for ``record``). Returns
    the moves played."""
    moves = 0
    while not match.is_over:
        if max_deals is not None and match.deal_number >= max_deals:
            match.truncated = True
            break
        state = match.new_deal()
        made: list[engine.Move] | None = [] if keep_moves else None
        hook = on_move if made is None else _keeping(made, on_move)
        truncated = play_deal(state, seats, max_moves, totals=match.totals, on_move=hook)
        match.record_deal(state, truncated=truncated, moves=made)
        moves += state.move_count
    return moves


def _keeping(made: list[engine.Move], on_move: OnMove | None) -> OnMove:
    def hook(state: GameState, seat: int, obs: dict[str, np.ndarray], action: int) -> None:
        made.append(actions.decode(action))
        if on_move is not None:
            on_move(state, seat, obs, action)

    return hook


__all__ = ["AgentError", "IllegalAgentAction", "OnMove", "Seat", "StopPlay", "ask", "check_action", "observe", "play_deal", "play_match"]
