"""The games the web table keeps: a live table (a person against agents, or agents alone) and the
replay of a saved record, each behind the same ``view`` the page draws.

The server holds every game's state; the page only asks for views and sends the person's moves
(by name, or by action index) and "advance" (the next agent move, or the next deal of a match). Each change
carries the ``version`` of the game the page last saw, so two tabs on one game, or a request
sent twice, never apply a move twice: a stale version is refused and changes nothing, as is an
illegal or malformed move (``GameError``, with the HTTP status the server answers with).

The engine plays every move (``engine.apply``), the agents choose theirs from their seat's
observation (``kc_env.play``: ``observe`` and ``check_action``, the parts of the one play loop
that a table taking one move at a time uses), the match scores the deals (``kc_env.match``), and a
game is saved as the record ``kc replay`` reads and replayed by its iterator (``kc_env.record``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from .. import actions, engine, record
from ..agents import Agent, PolicyAgent
from ..engine import GameState, Move
from ..match import DEFAULT_MAX_MOVES, Match, truncate
from ..play import IllegalAgentAction, check_action, observe
from ..rules import Rules
from . import views
from .advice import advise

PERSON = "you"
"""The seat spec of the person at a live table (every other seat holds an agent spec)."""
MAX_DEALS = 200
"""Deals after which a match that has not ended stops (as ``kc play --max-deals``)."""


class GameError(ValueError):
    """A request that cannot be carried out; nothing was changed. ``status`` is the HTTP status:
    400 malformed, 404 no such game, 409 not now (a stale version, not the person's turn), 422 an
    illegal move (the message is the engine's reason)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Game:
    """What every kept game has: its id (given when the server keeps it) and its kind."""

    kind = "game"

    def __init__(self) -> None:
        self.id = ""

    def view(self, **where: Any) -> dict[str, Any]:  # pragma: no cover - every kind defines it
        raise NotImplementedError

    def record(self) -> record.Record:  # pragma: no cover
        raise NotImplementedError


def _seat_names(specs: Sequence[str]) -> list[str]:
    """What the page calls each seat: ``p0 (you)``, ``p1 heuristic``."""
    return [f"p{seat} {'(you)' if spec == PERSON else spec}" for seat, spec in enumerate(specs)]


def _seats(specs: Sequence[str], names: Sequence[str], person: bool) -> list[dict[str, Any]]:
    return [{"seat": s, "spec": spec, "name": names[s], "person": person and spec == PERSON}
            for s, spec in enumerate(specs)]


def check_version(at: Any, version: int) -> None:
    """Refuse a change made from an older (or made-up) view of the game."""
    if type(at) is not int:
        raise GameError(f"'at' must be the version of the game the page shows (a whole number), not {at!r}")
    if at != version:
        raise GameError(f"the game has moved on since that view (version {version}, the request was made at "
                        f"{at}): nothing was changed; reload the view", 409)


class Table(Game):
    """A live table: a match (or one deal) played by a person and agents, or by agents alone.

    ``specs`` holds one spec per seat, ``PERSON`` for the person's seat (at most one); ``agents``
    the loaded agent of every other seat (None at the person's).
    """

    kind = "table"

    def __init__(self, rules: Rules, rules_name: str, specs: Sequence[str], agents: Sequence[Agent | None],
                 seed: int, one_deal: bool, max_moves: int = DEFAULT_MAX_MOVES, max_deals: int = MAX_DEALS) -> None:
        super().__init__()
        self.rules, self.rules_name, self.specs = rules, rules_name, list(specs)
        self.names = _seat_names(self.specs)
        self.agents = list(agents)
        self.person = self.specs.index(PERSON) if PERSON in self.specs else None
        self.one_deal, self.max_moves, self.max_deals = one_deal, max_moves, max_deals
        self.match = Match(rules, len(self.specs), seed=seed)
        self.version = 0
        self.lock = threading.Lock()  # held while the table is read or changed, never while an agent thinks
        self.thinking = threading.Lock()  # held while a seat's agent chooses its move
        self._deal()

    @property
    def mode(self) -> str:
        """``play`` with a person at the table, ``watch`` with agents alone."""
        return "watch" if self.person is None else "play"

    def _deal(self) -> None:
        self.state: GameState = self.match.new_deal()
        self.moves: list[Move] = []
        self.log: list[dict[str, Any]] = []
        self.truncated = False

    # -- what happens next ---------------------------------------------------------------------
    def waiting(self) -> str:
        """``person`` (the person is to act), ``agent`` (an agent is), ``next_deal`` (the deal is
        over and the match goes on) or ``over``."""
        if not self.state.is_over:
            return "person" if self.state.current_player == self.person else "agent"
        if self.one_deal or self.match.is_over or self.match.deal_number >= self.max_deals:
            return "over"
        return "next_deal"

    def _obs(self, seat: int) -> dict[str, Any]:
        return observe(self.state, seat, self.match.totals)

    def play(self, move: Any, at: Any) -> None:
        """The person's move: an action index, or a move's name (``play 9H->N``, ``move W->N``,
        ``end turn``); refused with the engine's reason when illegal."""
        with self.lock:
            check_version(at, self.version)
            if self.waiting() != "person":
                raise GameError(self._not_yours(), 409)
            action = self._action(move)
            if actions.legal_mask(self.state)[action] != 1:
                move = actions.decode(action)
                reason = engine.why_illegal(self.state, move) or "not legal now"
                raise GameError(f"{views.move_text(move)}: {views.with_symbols(reason)}", 422)
            self._apply(self.person, action, None)

    def _action(self, move: Any) -> int:
        if isinstance(move, str) and len(move) <= 40:
            try:
                return actions.parse(move, self.state)
            except ValueError as exc:
                raise GameError(f"cannot read the move {move!r}: {exc}") from None
        if type(move) is not int or not 0 <= move < actions.NUM_ACTIONS:
            raise GameError(f"a move is an action index 0..{actions.NUM_ACTIONS - 1} or a name like 'play 9H->N', "
                            f"not {str(move)[:40]!r}")
        return move

    def _not_yours(self) -> str:
        if self.person is None:
            return "nobody plays by hand at this table: it is watched (advance it)"
        waiting = self.waiting()
        if waiting == "agent":
            return f"it is not your turn: {self.names[self.state.current_player]} is to act"
        return "the deal is over" + (": advance to the next deal" if waiting == "next_deal" else "")

    def advance(self, at: Any) -> None:
        """The next agent move, or the next deal of a match once a deal is over.

        The agent thinks outside the table's lock (the search agent may take seconds), so views
        are answered meanwhile; one agent thinks at a time per table, and its move is applied
        only if the table is still at the version it was asked at."""
        with self.lock:
            check_version(at, self.version)
            waiting = self.waiting()
            if waiting == "person":
                raise GameError("it is your turn: the table waits for your move", 409)
            if waiting == "over":
                raise GameError(("the match" if not self.one_deal and self.match.is_over else "the game") + " is over", 409)
            if waiting == "next_deal":
                self._deal()
                self.version += 1
                return
            if not self.thinking.acquire(blocking=False):
                raise GameError("an agent is already choosing its move at this table", 409)
            seat = self.state.current_player
            obs = self._obs(seat)
        try:
            agent = self.agents[seat]
            thought = advise(agent, obs) if self.mode == "watch" and isinstance(agent, PolicyAgent) else None
            action = agent.act(obs)
        finally:
            self.thinking.release()
        with self.lock:
            check_version(at, self.version)
            try:
                action = check_action(action, obs["action_mask"], self.state, self.names[seat])
            except IllegalAgentAction as exc:
                said = views.with_symbols(str(exc).splitlines()[0].rstrip(":"))
                raise GameError(f"{said}; the table is unchanged", 500) from None
            self._apply(seat, action, thought)

    def _apply(self, seat: int, action: int, thought: dict[str, Any] | None) -> None:
        move = actions.decode(action)
        engine.apply(self.state, move)
        self.moves.append(move)
        entry = views.log_entry(len(self.moves), seat, move)
        if thought is not None:
            entry["advice"] = thought
        self.log.append(entry)
        if not self.state.is_over and self.state.move_count >= self.max_moves:
            truncate(self.state)
            self.truncated = True
        if self.state.is_over:
            self.match.record_deal(self.state, truncated=self.truncated, moves=self.moves)
        self.version += 1

    # -- what the page sees --------------------------------------------------------------------
    def view(self, **where: Any) -> dict[str, Any]:
        """The table as the page draws it: in ``play`` mode the person's hand only (every hand
        once the deal is over), in ``watch`` mode every hand."""
        with self.lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        waiting = self.waiting()
        out = {
            "id": self.id, "kind": self.kind, "mode": self.mode, "version": self.version, "waiting": waiting,
            "setup": self._setup(), "deal": {"number": self.match.deal_number + (0 if self.state.is_over else 1),
                                             "seed": str(self.state.seed)},
            "table": views.table(self.state, self.names, self.mode == "watch", self.person),
            "log": list(self.log), "match": views.match_books(self.match, self.names),
            "legal": views.legal(self.state) if waiting == "person" else [],
        }
        if self.state.is_over:
            out["deal"]["number"] = self.match.deal_number
            out["result"] = views.deal_result(self.state, self.names, self.truncated)
        return out

    def _setup(self) -> dict[str, Any]:
        return {"rules": self.rules.to_dict(), "rules_label": views.rules_label(self.rules, self.rules_name),
                "scoring": views.scoring_text(self.rules), "target": self.rules.target,
                "num_players": len(self.specs), "one_deal": self.one_deal, "seed": str(self.match.seed),
                "seats": _seats(self.specs, self.names, person=True)}

    def advice(self, agent: Agent) -> dict[str, Any]:
        """What ``agent`` would do at the current decision. At a person's table only the person's
        own decisions are open to it (an opponent's would show that opponent's cards)."""
        with self.lock:
            waiting = self.waiting()
            if waiting not in ("person", "agent"):
                raise GameError("there is no decision to advise on: the deal is over", 409)
            if self.mode == "play" and waiting != "person":
                raise GameError("advice is for your own turn (another seat's would show its cards)", 409)
            seat = self.state.current_player
            obs = self._obs(seat)
        return {"seat": seat, **advise(agent, obs)}

    def record(self) -> record.Record:
        """The game as ``kc play --save`` saves it: one deal as a game record (even unfinished),
        a match as a match record of its finished deals."""
        with self.lock:
            if self.one_deal:
                return record.GameRecord.from_state(self.state, self.moves, self.truncated, players=self.specs)
            return record.MatchRecord.from_match(self.match, players=self.specs)


class Replay(Game):
    """A saved record (``kc play --save``, ``kc_env.record``) shown at any move of any deal,
    every hand open. It is checked whole when loaded (``record.replay``): a record that does not
    replay is refused."""

    kind = "replay"
    mode = "replay"

    def __init__(self, rec: record.Record) -> None:
        super().__init__()
        played = record.replay(rec)  # RecordError for a record that does not replay to its end
        self.rec = rec
        self.rules = rec.rules
        self.version = 0
        n = rec.num_players
        self.specs = list(rec.players) if rec.players is not None else [""] * n
        self.names = _seat_names(rec.players) if rec.players is not None else [f"p{seat}" for seat in range(n)]
        self.match = played if isinstance(rec, record.MatchRecord) else None
        self.deals = [record.deal_moves(rec, d) for d in range(1, record.deal_count(rec) + 1)]
        if not self.deals:  # refused before the store keeps it
            raise GameError("the record holds no finished deal (a match saved before its first deal ended): "
                            "nothing to replay")

    def _where(self, deal: Any, at: Any) -> tuple[int, int]:
        def number(value: Any, name: str, default: int) -> int:
            if value is None:
                return default
            try:
                return int(value)
            except (TypeError, ValueError):
                raise GameError(f"{name!r} must be a whole number, not {str(value)[:40]!r}") from None

        d = number(deal, "deal", 1)
        if not 1 <= d <= len(self.deals):
            raise GameError(f"'deal' must be 1 to {len(self.deals)}, not {d}", 404)
        length = len(self.deals[d - 1].moves)
        k = number(at, "at", length)
        if not 0 <= k <= length:
            raise GameError(f"'at' must be a move 0 to {length} of deal {d}, not {k}", 404)
        return d, k

    def position(self, d: int, k: int) -> tuple[GameState, list[dict[str, Any]]]:
        """The state after ``k`` moves of deal ``d`` (1-based) and the log of those moves
        (``record.iter_deal``, which ends a deal cut off at its last move)."""
        log = []
        for step in record.iter_deal(self.rec, d, upto=k):
            if step.move is not None:
                log.append(views.log_entry(step.number, step.seat, step.move))
        return step.state, log

    def view(self, deal: Any = None, at: Any = None, **_: Any) -> dict[str, Any]:
        d, k = self._where(deal, at)
        state, log = self.position(d, k)
        rules = self.rec.rules
        finished = d - 1 + (1 if state.is_over else 0)
        out = {
            "id": self.id, "kind": self.kind, "mode": self.mode, "version": self.version,
            "waiting": "replay",
            "setup": {"rules": rules.to_dict(), "rules_label": views.rules_label(rules, None),
                      "scoring": views.scoring_text(rules), "target": rules.target,
                      "num_players": self.rec.num_players, "one_deal": self.match is None, "seed": str(self.rec.seed),
                      "seats": _seats(self.specs, self.names, person=False)},
            "deal": {"number": d, "seed": str(state.seed)}, "replay": {"deal": d, "deals": len(self.deals), "at": k,
                                                                  "length": len(self.deals[d - 1].moves)},
            "table": views.table(state, self.names, True, None), "log": log, "legal": [],
        }
        if self.match is not None:
            out["match"] = views.match_books(self.match, self.names, upto=finished)
        if state.is_over:
            out["result"] = views.deal_result(state, self.names, k == len(self.deals[d - 1].moves)
                                              and self.deals[d - 1].truncated)
        return out

    def advice(self, agent: Agent, deal: Any = None, at: Any = None) -> dict[str, Any]:
        """What ``agent`` would do at move ``at`` of deal ``deal``, from the seat to act's view."""
        d, k = self._where(deal, at)
        state, _ = self.position(d, k)
        if state.is_over:
            raise GameError("there is no decision to advise on: the deal is over", 409)
        totals = None if self.match is None else self.match.totals_before(d - 1)
        seat = state.current_player
        return {"seat": seat, **advise(agent, observe(state, seat, totals))}

    def record(self) -> record.Record:
        return self.rec


__all__ = ["PERSON", "MAX_DEALS", "GameError", "Game", "Table", "Replay", "check_version"]
