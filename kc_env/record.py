"""Saved games and matches as JSON, and replaying them to the identical state (DESIGN.md,
"Determinism and replays").

A deal is fixed by its rules, number of players, seed and dealer (``engine.new_deal``), so a
record holds those plus the moves, by name (``engine.move_name``: ``"play 9H->N"``,
``"move W->N"``, ``"end turn"``)::

    {"format": "kc_env.game", "version": 1, "rules": {...Rules.to_dict()...},
     "num_players": 3, "seed": 7, "dealer": 0,
     "moves": ["play 9H->N", "end turn", ...],
     "truncated": false,
     "result": {"over": true, "winner": 1, "blocked": false},
     "players": ["you", "heuristic", "ppo-standard-2p"]}

    {"format": "kc_env.match", "version": 1, "rules": {...}, "num_players": 3, "seed": 7,
     "dealer": 0, "deals": [{"moves": [...], "truncated": false}, ...],
     "result": {"over": true, "winners": [0], "totals": [12, 30, 27]}}

Use::

    rec = GameRecord.from_state(state, moves)   # after playing a deal from engine.new_deal
    save(rec, "game.json"); rec = load("game.json")
    state = replay(rec)                         # state.snapshot() equals the original's
    save(MatchRecord.from_match(match), "match.json"); match = replay(load("match.json"))

Choices:

- Moves are numbered from 1 in error messages (``move 17`` is the seventeenth name in the
  list); in a match, deals are numbered from 1 too (``deal 2, move 17``).
- A game record may stop before its deal ends (a position for a bug report); replaying it gives
  the state after the last move. ``truncated: true`` means the deal was cut off by a move limit
  and ends it as blocked (``match.truncate``), as ``play_match`` does. A match record's deals
  must each end (or be truncated), and the match must not end before its last deal.
- ``players`` is optional: who sat at each seat (``you`` or an agent spec), as ``kc serve``
  saves a game, so that a replay names the seats as the game did; at most 200 characters each.
- ``result`` is optional when loading; when present, the replay must end with it, otherwise
  the error says the record does not replay (e.g. it was made by another engine version).
- Loading is strict: an unknown key, a missing key, a value of the wrong type, an unknown
  format or version, bad rules, or a move name that cannot be read is a ``RecordError`` that
  names the key or the move's number; a move that is illegal when replayed is a
  ``RecordError`` naming its number and name and giving the engine's reason.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import engine
from .engine import GameState, IllegalMove, Move
from .files import write_atomic
from .match import Match, MatchError, deal_seed, truncate
from .rules import Rules, RulesError

VERSION = 1
"""The record format version this module writes and reads."""
GAME_FORMAT = "kc_env.game"
MATCH_FORMAT = "kc_env.match"
PERSON = "you"
"""The name ``players`` gives the seat a person played (``kc play``, ``kc serve``)."""


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the key or the move."""


@dataclass(frozen=True)
class GameRecord:
    """One deal: how it was dealt and the moves made in it."""

    rules: Rules
    num_players: int
    seed: int
    dealer: int = 0
    moves: tuple[Move, ...] = ()
    truncated: bool = False
    result: Mapping[str, Any] | None = field(default=None, compare=False)
    players: tuple[str, ...] | None = field(default=None, compare=False)

    @classmethod
    def from_state(cls, state: GameState, moves: Sequence[Move], truncated: bool = False,
                   players: Sequence[str] | None = None) -> GameRecord:
        """The record of ``state``, a deal from ``engine.new_deal``, after ``moves``; ``players``
        names who sat at each seat."""
        return cls(state.rules, state.num_players, state.seed, state.dealer, tuple(moves), truncated,
                   _game_result(state), None if players is None else tuple(players))

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (see the module docstring)."""
        return {
            "format": GAME_FORMAT, "version": VERSION, "rules": self.rules.to_dict(),
            "num_players": self.num_players, "seed": self.seed, "dealer": self.dealer,
            "moves": [engine.move_name(m) for m in self.moves], "truncated": self.truncated,
            **({} if self.result is None else {"result": dict(self.result)}),
            **({} if self.players is None else {"players": list(self.players)}),
        }


@dataclass(frozen=True)
class DealMoves:
    """One deal of a match record: its moves and whether it was truncated."""

    moves: tuple[Move, ...]
    truncated: bool = False


@dataclass(frozen=True)
class MatchRecord:
    """A whole match: how it was set up and every deal's moves (deals follow from the seed)."""

    rules: Rules
    num_players: int
    seed: int
    dealer: int = 0
    deals: tuple[DealMoves, ...] = ()
    result: Mapping[str, Any] | None = field(default=None, compare=False)
    players: tuple[str, ...] | None = field(default=None, compare=False)

    @classmethod
    def from_match(cls, match: Match, players: Sequence[str] | None = None) -> MatchRecord:
        """The record of a match whose deals kept their moves (``play_match`` keeps them);
        ``players`` names who sat at each seat."""
        deals = []
        for d in match.history:
            if d.moves is None:
                raise RecordError(f"deal {d.number + 1} kept no moves: record it with record_deal(..., moves=...)")
            deals.append(DealMoves(d.moves, d.truncated))
        return cls(match.rules, match.num_players, match.seed, match.dealer, tuple(deals), _match_result(match),
                   None if players is None else tuple(players))

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (see the module docstring)."""
        return {
            "format": MATCH_FORMAT, "version": VERSION, "rules": self.rules.to_dict(),
            "num_players": self.num_players, "seed": self.seed, "dealer": self.dealer,
            "deals": [{"moves": [engine.move_name(m) for m in d.moves], "truncated": d.truncated}
                      for d in self.deals],
            **({} if self.result is None else {"result": dict(self.result)}),
            **({} if self.players is None else {"players": list(self.players)}),
        }


Record = GameRecord | MatchRecord


def _game_result(state: GameState) -> dict[str, Any]:
    return {"over": state.is_over, "winner": state.winner, "blocked": state.blocked}


def _match_result(match: Match) -> dict[str, Any]:
    return {"over": match.is_over, "winners": list(match.winners), "totals": list(match.totals)}


# -- writing and reading ------------------------------------------------------------------------

def dumps(record: Record) -> str:
    """The record as JSON text."""
    return json.dumps(record.to_dict(), indent=1) + "\n"


def save(record: Record, path: str | Path) -> None:
    """Write the record to ``path`` as JSON (whole or not at all)."""
    write_atomic(path, dumps(record), through=True)  # a file the user named: a link or a device as given


def loads(text: str) -> Record:
    """A record from JSON text (a game or a match, by its ``format``); strict, see ``from_dict``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    except ValueError as exc:  # a number of more than 4,300 digits
        raise RecordError(f"not a record: {str(exc)[:120]}") from None
    except RecursionError:
        raise RecordError("not a record: nested too deeply") from None
    return from_dict(data)


def load(path: str | Path) -> Record:
    """A record from a JSON file; errors start with the file's name."""
    try:
        return loads(Path(path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{path}: not a record (not UTF-8 text)") from None
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


_GAME_KEYS = {"format", "version", "rules", "num_players", "seed", "dealer", "moves", "truncated", "result",
              "players"}
_MATCH_KEYS = {"format", "version", "rules", "num_players", "seed", "dealer", "deals", "result", "players"}
_OPTIONAL = {"dealer", "truncated", "result", "players"}
MAX_PLAYER_NAME = 200
"""The longest name a record's ``players`` may hold, in characters."""


def from_dict(data: Any) -> Record:
    """A record from parsed JSON. Raises ``RecordError`` naming the key or move at fault."""
    if not isinstance(data, Mapping):
        raise RecordError(f"a record is a JSON object, not {type(data).__name__}")
    fmt = data.get("format")
    if fmt not in (GAME_FORMAT, MATCH_FORMAT):
        raise RecordError(f"'format' must be {GAME_FORMAT!r} or {MATCH_FORMAT!r}, not {fmt!r}")
    _check_keys(data, _GAME_KEYS if fmt == GAME_FORMAT else _MATCH_KEYS, "")
    if data["version"] != VERSION or type(data["version"]) is not int:
        raise RecordError(f"record version {data['version']!r} is not supported (this kc_env reads version {VERSION})")
    rules, n, seed, dealer = _setup(data)
    result = _optional(data, "result", Mapping, "an object")
    players = _players(data.get("players"), n)
    if fmt == GAME_FORMAT:
        truncated = _optional(data, "truncated", bool, "true or false") or False
        return GameRecord(rules, n, seed, dealer, _moves(data["moves"], ""), truncated, result, players)
    deals_data = data["deals"]
    if not isinstance(deals_data, list):
        raise RecordError(f"'deals' must be a list of deals, not {type(deals_data).__name__}")
    deals = []
    for i, d in enumerate(deals_data, start=1):
        where = f"deal {i}, "
        if not isinstance(d, Mapping):
            raise RecordError(f"deal {i}: must be an object with 'moves' and 'truncated'")
        _check_keys(d, {"moves", "truncated"}, where, optional={"truncated"})
        truncated = _optional(d, "truncated", bool, "true or false", where) or False
        deals.append(DealMoves(_moves(d["moves"], where), truncated))
    return MatchRecord(rules, n, seed, dealer, tuple(deals), result, players)


def _check_keys(data: Mapping[str, Any], allowed: set[str], where: str, optional: set[str] = _OPTIONAL) -> None:
    unknown = sorted(str(k) for k in data if k not in allowed)
    if unknown:
        raise RecordError(f"{where}unknown key {unknown[0]!r}; allowed: {', '.join(sorted(allowed))}")
    missing = sorted(allowed - optional - set(data))
    if missing:
        raise RecordError(f"{where}the record lacks {missing[0]!r}")


def _optional(data: Mapping[str, Any], key: str, kind: type, what: str, where: str = "") -> Any:
    value = data.get(key)
    if value is not None and not isinstance(value, kind):
        raise RecordError(f"{where}{key!r} must be {what}, not {value!r}")
    return value


def _setup(data: Mapping[str, Any]) -> tuple[Rules, int, int, int]:
    try:
        rules = Rules.from_dict(data["rules"])
    except RulesError as exc:
        raise RecordError(f"rules: {exc}") from None
    for key in ("num_players", "seed", "dealer"):
        value = data.get(key, 0)
        if type(value) is not int:
            raise RecordError(f"{key!r} must be a whole number, not {value!r}")
    n, seed, dealer = data["num_players"], data["seed"], data.get("dealer", 0)
    if seed < 0:
        raise RecordError(f"'seed' must be 0 or more, not {seed} (a negative seed would deal seed {-seed}'s cards)")
    try:
        rules.check_players(n)
    except RulesError as exc:
        raise RecordError(f"'num_players': {exc}") from None
    if not 0 <= dealer < n:
        raise RecordError(f"'dealer' must be a seat 0..{n - 1}, not {dealer}")
    return rules, n, seed, dealer


def _players(names: Any, n: int) -> tuple[str, ...] | None:
    """The record's ``players``: a name of at most ``MAX_PLAYER_NAME`` characters for each of its
    ``n`` seats, or None when it names none."""
    if names is None:
        return None
    if not (isinstance(names, list) and len(names) == n and all(isinstance(x, str) for x in names)):
        raise RecordError(f"'players' must list a name for each of the {n} seats, not {str(names)[:80]}")
    if any(len(x) > MAX_PLAYER_NAME for x in names):
        raise RecordError(f"'players': a name is at most {MAX_PLAYER_NAME} characters")
    return tuple(names)


def _moves(names: Any, where: str) -> tuple[Move, ...]:
    if not isinstance(names, list):
        raise RecordError(f"{where}'moves' must be a list of move names, not {type(names).__name__}")
    moves = []
    for i, name in enumerate(names, start=1):
        if not isinstance(name, str):
            raise RecordError(f"{where}move {i}: a move is written as text like 'play 9H->N', not {name!r}")
        try:
            moves.append(engine.parse_move(name))
        except ValueError as exc:
            raise RecordError(f"{where}move {i} ({name!r}): {exc}") from None
    return tuple(moves)


# -- replaying ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One position of a replay: deal ``deal`` (1-based) after ``number`` of its moves (0: as
    dealt), ``move`` the last of them, made by ``seat`` (both None as dealt). ``state`` is the
    deal's live state, changed in place by the next steps: copy it to keep it. ``last`` marks the
    deal's last position; a deal the record says was cut off is ended there (``match.truncate``)."""

    deal: int
    number: int
    seat: int | None
    move: Move | None
    state: GameState
    last: bool


def deal_count(record: Record) -> int:
    """How many deals the record holds (1 for a game record)."""
    return len(record.deals) if isinstance(record, MatchRecord) else 1


def deal_moves(record: Record, deal: int = 1) -> DealMoves:
    """Deal ``deal`` (1-based) of the record: its moves and whether it was cut off."""
    if isinstance(record, MatchRecord):
        return record.deals[deal - 1]
    return DealMoves(record.moves, record.truncated)


def iter_deal(record: Record, deal: int = 1, upto: int | None = None) -> Iterator[Step]:
    """Deal ``deal`` (1-based) of the record step by step, from the deal as dealt to its last
    move, or to move ``upto``. Deal ``k`` of a match is dealt as the match deals it (its seed and
    dealer follow from the record's). Raises ``RecordError`` naming the move at an illegal one, or
    when the record says a deal that ended on its own was cut off."""
    if not 1 <= deal <= deal_count(record):
        raise RecordError(f"deal {deal}: the record holds {deal_count(record)} deal(s)")
    if upto is not None and upto < 0:
        raise RecordError(f"deal {deal}: move {upto} does not exist (moves are counted from 0, as dealt)")
    played = deal_moves(record, deal)
    moves, truncated = played.moves, played.truncated
    where = f"deal {deal}, " if isinstance(record, MatchRecord) else ""
    stop = len(moves) if upto is None else min(upto, len(moves))
    state = _dealt(record, deal)
    if not moves:
        _cut_off(state, truncated, where)
    yield Step(deal, 0, None, None, state, not moves)
    for i, move in enumerate(moves[:stop], start=1):
        seat = state.current_player
        _apply(state, i, move, where)
        if i == len(moves):
            _cut_off(state, truncated, where)
        yield Step(deal, i, seat, move, state, i == len(moves))


def _dealt(record: Record, deal: int) -> GameState:
    """Deal ``deal`` (1-based) as dealt: a match's ``k``-th deal as the match deals it."""
    if isinstance(record, MatchRecord):
        seed, dealer = deal_seed(record.seed, deal - 1), (record.dealer + deal - 1) % record.num_players
    else:
        seed, dealer = record.seed, record.dealer
    return engine.new_deal(record.rules, record.num_players, seed=seed, dealer=dealer)


def iter_replay(record: Record) -> Iterator[Step]:
    """Every position of the record in order: each deal by ``iter_deal``. It checks the moves
    only; ``replay`` checks the whole record (deals that end, the result it claims)."""
    for deal in range(1, deal_count(record) + 1):
        yield from iter_deal(record, deal)


def replay(record: Record) -> GameState | Match:
    """Replay a record: a game gives its final ``GameState``, a match its ``Match``."""
    if isinstance(record, MatchRecord):
        return _replay_match(record)
    state = _last(iter_deal(record)).state
    _check_result(record.result, _game_result(state), "")
    return state


def _last(steps: Iterator[Step]) -> Step:
    """The last of ``steps`` (``iter_deal`` yields at least the deal as dealt)."""
    return deque(steps, maxlen=1)[0]


def _cut_off(state: GameState, truncated: bool, where: str) -> None:
    """Cut the deal off where the record says the move limit did; a deal that ended on its own
    cannot have been cut off."""
    if not truncated:
        return
    if state.is_over:
        raise RecordError(f"{where}the record says the deal was cut off, but it ended on its own")
    truncate(state)


def _apply(state: GameState, i: int, move: Move, where: str) -> None:
    try:
        engine.apply(state, move)
    except IllegalMove as exc:
        raise RecordError(f"{where}move {i} ({engine.move_name(move)!r}): {exc}") from None


def _replay_match(record: MatchRecord) -> Match:
    match = Match(record.rules, record.num_players, record.seed, record.dealer)
    for k, deal in enumerate(record.deals, start=1):
        if match.is_over:
            raise RecordError(f"deal {k}: the match was already over after deal {k - 1}")
        state = _last(iter_deal(record, k)).state
        if not state.is_over:
            raise RecordError(f"deal {k}: the moves stop before the deal ends (after move {len(deal.moves)})")
        try:
            match.record_deal(state, truncated=deal.truncated, moves=deal.moves)
        except MatchError as exc:  # not expected: the deal is dealt as the match deals it
            raise RecordError(f"deal {k}: {exc}") from None
    _check_result(record.result, _match_result(match), "")
    return match


def _check_result(expected: Mapping[str, Any] | None, got: dict[str, Any], where: str) -> None:
    if expected is None:
        return
    differ = {k: (got.get(k), v) for k, v in expected.items() if got.get(k, _MISSING) != v}
    if differ:
        detail = "; ".join(f"{k}: replay gives {g!r}, record says {v!r}" for k, (g, v) in differ.items())
        raise RecordError(f"{where}the replay does not end as recorded ({detail}); "
                          "was the record made by another version of kc_env?")


_MISSING = object()

__all__ = [
    "VERSION", "GAME_FORMAT", "MATCH_FORMAT", "PERSON", "RecordError", "GameRecord", "MatchRecord", "DealMoves",
    "Record", "Step", "dumps", "loads", "save", "load", "from_dict", "replay", "iter_replay", "iter_deal",
    "deal_count", "deal_moves",
]
