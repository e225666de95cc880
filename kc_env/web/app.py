"""The web table's HTTP interface (Starlette): the page, its static files and a small JSON API.

    GET  /                          the page (static/index.html)
    GET  /api/config                presets, rule choices, the agents offered, the pace
    POST /api/games                 a new table: {"rules": {"preset": ..., name: value},
                                    "seats": ["you", "heuristic", ...], "one_deal": false, "seed": "7"}
    POST /api/replays               a saved record (its JSON as the body): a replay
    GET  /api/games/ID              the view (a replay: ?deal=D&at=K)
    POST /api/games/ID/move         the person's move: {"move": "play 9H->N", "at": VERSION}
                                    (or {"action": INDEX, ...}, an index of kc_env.actions)
    POST /api/games/ID/advance      the next agent move or deal: {"at": VERSION}
    GET  /api/games/ID/advice?spec= what an agent would do at this decision (a replay: &deal=&at=)
    GET  /api/games/ID/record       the game as the JSON record kc replay reads (a download)

A seed travels as text (``"7753467294573964965"``): a JavaScript number keeps only 53 bits, and
a seed has 63. A new table also takes a seed as a JSON number, as older pages send it.

Every answer is JSON; an error is ``{"error": "<one line>"}`` with status 400 (malformed), 403
(another host or site), 404 (no such game), 409 (not now: a stale version, not your turn), 413
(too large), 415 (a body not sent as ``application/json``), 422 (an illegal move, with the
engine's reason), 500 (the server failed) or 503 (too busy), and changes nothing. Game logic runs
in worker threads (an agent's move may take a while); each table orders the requests to it
(``games.Table``), and at most ``THINKING`` requests in all have agents thinking at once.

Only the page the server serves may drive it: a request must name one of the server's own
``hosts`` in its ``Host`` (so a name rebound to this address by another site is refused), and its
``Origin``, when it has one, must be the address it was sent to (so a page of another site, or
of another port, is refused); a body must be sent as ``application/json``, which a page of
another site cannot send without asking first.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Mapping, Sequence
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import record
from ..agents import RULE_BASED, objective_of
from ..agents.search_agent import SEARCH
from ..engine import check_seed
from ..rules import CHOICES, DESCRIPTIONS, MAX_PLAYERS, MIN_PLAYERS, PRESETS, RANK_KEYS, Rules, RulesError
from .games import MAX_DEALS, PERSON, GameError, Replay, Table
from .store import Store

STATIC = files("kc_env.web") / "static"
MAX_BODY = 4 << 20
"""The largest request body read (a saved match of many deals is a few hundred kilobytes)."""
DEFAULT_PACE = 0.8
"""Seconds between two agent moves on the page (``kc serve --pace``)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""The names of this machine: the hosts a server on a loopback address answers to."""
THINKING = 4
"""Requests whose agents think at once (advances and advice); the others wait for a turn."""
THINKING_WAIT = 60.0
"""Seconds a request waits for its turn to think before it is refused as busy (503)."""
MAX_REPLAY_MOVES = 50_000
"""The most moves a replay upload may hold (and at most ``games.MAX_DEALS`` deals, as a table's
match): a replay is kept in memory, about 70 bytes a move, so 256 kept hold under 1 GB."""


def create_app(store: Store | None = None, pace: float = DEFAULT_PACE, hosts: Sequence[str] = LOOPBACK) -> Starlette:
    """The web table's application, keeping its games in ``store`` (a new ``Store`` by default);
    ``pace`` is the page's default wait between agent moves, in seconds; ``hosts`` the names
    (and addresses) a request may address the server by (see the module docstring)."""
    store = Store() if store is None else store
    if not (math.isfinite(pace) and pace >= 0):
        raise ValueError(f"the pace is a number of seconds >= 0, not {pace!r}")
    thinkers = asyncio.Semaphore(THINKING)

    async def think(fn: Callable[[], Any]) -> Response:
        """``_answer(fn)`` once fewer than ``THINKING`` requests have agents thinking."""
        try:
            await asyncio.wait_for(thinkers.acquire(), THINKING_WAIT)
        except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11
            raise GameError(f"the server is busy: {THINKING} agents are thinking; try again", 503) from None
        try:
            return await _answer(fn)
        finally:
            thinkers.release()

    async def index(request: Request) -> Response:
        return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-store"})

    async def config(request: Request) -> Response:
        return JSONResponse(_config(store, pace))

    async def new_table(request: Request) -> Response:
        data = await _json_body(request)
        return await _answer(lambda: store.add(_table(store, data)).view(), status=201)

    async def new_replay(request: Request) -> Response:
        text = (await _body(request)).decode("utf-8", errors="replace")

        def load() -> dict[str, Any]:
            try:
                rec = record.loads(text)
            except record.RecordError as exc:
                raise GameError(f"not a record kc replay reads: {_one_line(exc)}") from None
            _check_replay_size(rec)
            try:
                return store.add(Replay(rec)).view()
            except record.RecordError as exc:
                raise GameError(f"not a record kc replay reads: {_one_line(exc)}") from None

        return await _answer(load, status=201)

    async def view(request: Request) -> Response:
        game = store.get(request.path_params["id"])
        query = request.query_params
        return await _answer(lambda: game.view(deal=query.get("deal"), at=query.get("at")))

    async def change(request: Request, refusal: str, make: Callable[[Table, dict[str, Any]], None],
                     answer: Callable[[Callable[[], Any]], Any] = _answer) -> Response:
        """Carry out ``make(table, body)`` on a live table and answer its new view."""
        game = store.get(request.path_params["id"])
        data = await _json_body(request)
        if not isinstance(game, Table):
            raise GameError(refusal, 409)

        def changed() -> dict[str, Any]:
            make(game, data)
            return game.view()

        return await answer(changed)

    async def move(request: Request) -> Response:
        return await change(request, "a replay takes no moves", _play)

    async def advance(request: Request) -> Response:
        return await change(request, "a replay moves by its slider, not by advancing",
                            lambda table, data: table.advance(data.get("at")), think)

    async def advice(request: Request) -> Response:
        game = store.get(request.path_params["id"])
        query = request.query_params

        def thought() -> dict[str, Any]:
            adviser = store.adviser(query.get("spec", "heuristic"), objective_of(game.rules, keeps_points=True))
            if isinstance(game, Replay):
                return game.advice(adviser, query.get("deal"), query.get("at"))
            return game.advice(adviser)

        return await think(thought)

    async def saved(request: Request) -> Response:
        game = store.get(request.path_params["id"])
        text = await run_in_threadpool(lambda: record.dumps(game.record()))
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="kc-{game.id}.json"'})

    routes = [
        Route("/", index),
        Route("/api/config", config),
        Route("/api/games", new_table, methods=["POST"]),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/games/{id}", view),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/advance", advance, methods=["POST"]),
        Route("/api/games/{id}/advice", advice),
        Route("/api/games/{id}/record", saved),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    handlers: Mapping[Any, Callable] = {GameError: _error, 404: _not_found, 405: _not_allowed, Exception: _failed}
    return Starlette(routes=routes, exception_handlers=handlers, middleware=[Middleware(OwnPage, hosts=hosts)])


# -- who may ask --------------------------------------------------------------------------------------

class OwnPage:
    """Refuses (403) a request whose ``Host`` is not one of ``hosts`` or whose ``Origin`` is not
    the address it was sent to (see the module docstring)."""

    def __init__(self, app: Any, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = {h.strip().strip("[]").lower() for h in hosts}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            refusal = self.refusal(Headers(scope=scope), scope.get("scheme", "http"))
            if refusal is not None:
                await JSONResponse({"error": refusal}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers, scheme: str) -> str | None:
        """Why a request with these headers is refused, or None."""
        host = headers.get("host", "")
        if _hostname(host) not in self.hosts:
            return (f"this server answers to {', '.join(sorted(self.hosts))}, not the host {host[:80]!r} "
                    "(kc serve --allow-host NAME adds a name)")
        origin = headers.get("origin")
        if origin is not None and origin.lower() != f"{scheme}://{host}".lower():
            return f"the origin {origin[:80]!r} is not this server's page ({scheme}://{host[:80]}): refused"
        return None


def _hostname(host: str) -> str:
    """The name in a ``Host`` value (``name:port``, ``[::1]:port``, or a bare name), lower case."""
    try:
        return urlsplit("//" + host.strip()).hostname or ""
    except ValueError:
        return ""


# -- requests and answers -------------------------------------------------------------------------

def _play(table: Table, data: Mapping[str, Any]) -> None:
    """The person's move from a request body: ``{"action": INDEX}`` or ``{"move": NAME}``, and ``at``."""
    unknown = sorted(set(data) - {"action", "move", "at"})
    if unknown or ("action" in data) == ("move" in data):
        raise GameError('a move is {"action": INDEX, "at": VERSION} or {"move": "play 9H->N", "at": VERSION}')
    table.play(data["action"] if "action" in data else data["move"], data.get("at"))


async def _body(request: Request) -> bytes:
    """The request's body, sent as ``application/json`` (else 415) and refused past ``MAX_BODY``
    bytes before it is all read."""
    kind = request.headers.get("content-type", "")
    if kind.split(";")[0].strip().lower() != "application/json":
        raise GameError(f"a request body is sent as Content-Type: application/json, not {kind[:60]!r}", 415)
    size = request.headers.get("content-length", "")
    if size.isdigit() and int(size) > MAX_BODY:
        raise GameError(f"the request body is {int(size):,} bytes, more than the {MAX_BODY:,} read", 413)
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > MAX_BODY:
            raise GameError(f"the request body is more than the {MAX_BODY:,} bytes read", 413)
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is ``{}``); ``GameError`` 400 otherwise."""
    body = await _body(request)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise GameError(f"the request body is not JSON: {_one_line(exc)[:120]}") from None
    if not isinstance(data, dict):
        raise GameError(f"the request body must be a JSON object, not {type(data).__name__}")
    return data


async def _answer(fn: Callable[[], Any], status: int = 200) -> Response:
    return JSONResponse(await run_in_threadpool(fn), status_code=status)


async def _error(request: Request, exc: GameError) -> Response:
    return JSONResponse({"error": str(exc)}, status_code=exc.status)


async def _failed(request: Request, exc: Exception) -> Response:
    """Any other failure, as one JSON line (uvicorn logs its traceback)."""
    return JSONResponse({"error": f"the server failed: {type(exc).__name__}: {_one_line(exc)}"}, status_code=500)


def _check_replay_size(rec: record.Record) -> None:
    """Refuse (413) a record of more deals than a table plays or more than ``MAX_REPLAY_MOVES``
    moves, before it is replayed and kept."""
    deals = [rec.moves] if isinstance(rec, record.GameRecord) else [d.moves for d in rec.deals]
    moves = sum(len(m) for m in deals)
    if len(deals) > MAX_DEALS or moves > MAX_REPLAY_MOVES:
        raise GameError(f"the record holds {len(deals):,} deals and {moves:,} moves; this server replays at most "
                        f"{MAX_DEALS} deals and {MAX_REPLAY_MOVES:,} moves", 413)


async def _not_found(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"no such page or API: {request.url.path[:80]}"}, status_code=404)


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": f"{request.method} is not how {request.url.path[:80]} is used"}, status_code=405)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


# -- setting up a table -----------------------------------------------------------------------------

def _config(store: Store, pace: float) -> dict[str, Any]:
    return {
        "presets": {name: Rules.preset(name).to_dict() for name in PRESETS},
        "choices": {name: list(values) for name, values in CHOICES.items()},
        "numbers": ["hand_size", "target", "chips"], "descriptions": DESCRIPTIONS,
        "targetless": _targetless(),
        "players": [MIN_PLAYERS, MAX_PLAYERS], "agents": _agents(store), "person": PERSON, "pace": pace,
    }


def _agents(store: Store) -> list[dict[str, str]]:
    """The agents a seat may hold (``Store.offered``), each in its ``group``: ``rule-based`` (the
    rule-based agents and the search) or ``model`` (the shipped models and ``--model`` folders)."""
    rule_based = (*RULE_BASED, SEARCH)
    return [{**a, "group": "rule-based" if a["spec"] in rule_based else "model"} for a in store.offered()]


def _targetless() -> list[str]:
    """The scoring systems whose match has no target (``Rules.has_target``): the page shows none."""
    table = dict.fromkeys(RANK_KEYS, 1)  # any: ``custom`` needs one, and a table does not decide it
    return [s for s in CHOICES["scoring"]
            if not Rules(scoring=s, custom_table=table if s == "custom" else None).has_target]


def _seed(value: Any) -> int | None:
    """A table's seed from the request: text of plain digits (as the page sends it) or a whole
    number (as older pages did), below 2**63; None for none."""
    if value is None:
        return None
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit() and len(value) <= 20):
            raise GameError(f"a seed is written in plain digits, like \"7\", not {value[:40]!r}")
        value = int(value)
    try:
        seed = check_seed(value)
    except ValueError as exc:
        raise GameError(str(exc)[:200]) from None
    if seed >= 2**63:
        raise GameError(f"a seed is below 2**63, not {seed}")
    return seed


def _table(store: Store, data: Mapping[str, Any]) -> Table:
    """A new table from the setup the page sends (see the module docstring); ``GameError``
    naming the first fault."""
    unknown = sorted(set(data) - {"rules", "seats", "one_deal", "seed"})
    if unknown:
        raise GameError(f"unknown setting {unknown[0]!r}; a table takes rules, seats, one_deal and seed")
    rules_data = data.get("rules", {"preset": "standard"})
    try:
        rules = Rules.from_dict(rules_data)
    except RulesError as exc:
        raise GameError(f"rules: {_one_line(exc)}") from None
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise GameError("'seats' must list one agent spec per seat, or 'you' for your own seat")
    try:
        rules.check_players(len(seats))
    except RulesError as exc:
        raise GameError(f"seats: {_one_line(exc)}") from None
    if seats.count(PERSON) > 1:
        raise GameError("only one seat can be 'you': the others hold agents")
    one_deal = data.get("one_deal", False)
    if type(one_deal) is not bool:
        raise GameError(f"'one_deal' must be true or false, not {one_deal!r}")
    seed = _seed(data.get("seed"))
    if seed is None:
        import random

        seed = random.SystemRandom().randrange(2**31)
    agents = [None if spec == PERSON else store.agent(spec, seed + seat) for seat, spec in enumerate(seats)]
    for agent in agents:
        if agent is not None:
            agent.play_for(objective_of(rules, keeps_points=True))  # the table shows the points
    name = rules_data.get("preset", "standard") if isinstance(rules_data, Mapping) else "standard"
    return Table(rules, name, seats, agents, seed, one_deal)


__all__ = ["create_app", "DEFAULT_PACE", "LOOPBACK", "MAX_BODY", "MAX_REPLAY_MOVES", "STATIC", "THINKING", "OwnPage"]
