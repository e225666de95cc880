"""The server's books: every game it keeps, by id, and the agents it offers.

Games live in memory, one per browser tab (the page keeps its game's id in its address, so a
reload finds it again). ``Store`` holds at most ``capacity`` of them and forgets the one used
longest ago to make room. The agents a seat may hold are those ``offered`` lists (the rule-based
agents, the search agent, the shipped models and any model folder given to ``kc serve --model``)
plus the ``heuristic:...`` and ``search:...`` forms with options: a request cannot make the
server read any other folder (a search's ``blueprint=`` names an offered model, never a path).
A search in a request stays within ``SEARCH_BUDGET``: its re-deals, candidates and play-outs per
decision are bounded, so that one request cannot hold the cores or the memory for long.
"""

from __future__ import annotations

import copy
import math
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import agents
from ..agents import RULE_BASED, WEIGHTED, Agent, PolicyAgent
from ..agents import model_folder as folders
from ..agents.model_folder import ModelError, shipped_models
from ..agents.search_agent import PREFIX as SEARCH_OPTIONS
from ..agents.search_agent import SEARCH, SearchAgent, spec_options
from .games import Game, GameError

CAPACITY = 256
"""The most games kept at once (a load of 50 tabs fits many times over)."""
MAX_SPEC = 200
"""The longest agent spec a request may name, in characters."""
SEARCH_BUDGET = {"redeals": 256, "candidates": 16, "playouts": 1024}
"""The most a search in a request may ask for: re-deals, candidates, and play-outs per decision
(re-deals times the candidate lines, ``candidates`` + 1 with ending the turn at once, times the
``others`` each line is played against): about 10 s of both cores and 1 MB a decision."""


def _model_folders(models: Sequence[str | Path]) -> dict[str, Path]:
    """The folders of ``models`` by spec, each once (a shipped model's folder and a folder named
    twice are offered once); ``ValueError`` for one that is not a folder (a built-in agent's name,
    a search spec: those are offered anyway, within the server's bounds)."""
    seen = {folder.resolve() for folder in shipped_models().values()}
    out: dict[str, Path] = {}
    for spec in map(str, models):
        folder = Path(spec)
        if not folder.is_dir():
            raise ValueError(f"{spec[:200]!r} is not an exported model folder (built-in agents, searches and "
                             "shipped models are offered anyway)")
        if folder.resolve() not in seen:
            seen.add(folder.resolve())
            out[spec] = folder
    return out


class Store:
    """Games by id, least recently used forgotten first, and the agents they may seat."""

    def __init__(self, models: Sequence[str | Path] = (), capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()
        self._advisers: dict[tuple[str, str], Agent] = {}
        self._networks: dict[str, PolicyAgent] = {}  # an offered policy's first agent, whose network the next share
        self.models = _model_folders(models)
        for spec in self.models:
            agents.load(spec)  # refuse a bad model folder when the server starts, not in a request

    # -- games ---------------------------------------------------------------------------------
    def add(self, game: Game) -> Game:
        """Keep ``game`` under a new id (forgetting the least recently used one when full)."""
        with self._lock:
            game.id = secrets.token_urlsafe(9)
            self._games[game.id] = game
            while len(self._games) > self.capacity:
                self._games.popitem(last=False)
        return game

    def get(self, game_id: str) -> Game:
        """The game of ``game_id``; ``GameError`` 404 when the server keeps none by that id."""
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise GameError(f"no game {game_id[:40]!r} here: the server forgot it (it restarted, or "
                                f"{self.capacity} newer games pushed it out); start a new one", 404)
            self._games.move_to_end(game_id)
            return game

    def __len__(self) -> int:
        return len(self._games)

    # -- agents --------------------------------------------------------------------------------
    def offered(self) -> list[dict[str, str]]:
        """The agent specs a seat may hold, each with a line saying what it is."""
        out = [{"spec": spec, "about": _ABOUT[spec]} for spec in RULE_BASED]
        out.append({"spec": SEARCH, "about": "the heuristic's turns valued by play-outs (slower)"})
        for name, folder in shipped_models().items():
            out.append({"spec": name, "about": _model_about(folder)})
        for spec, folder in self.models.items():
            out.append({"spec": spec, "about": _model_about(folder)})
        return out

    def is_offered(self, spec: Any) -> bool:
        """Whether ``spec`` is one of the specs ``offered`` lists (no options)."""
        return any(spec == o["spec"] for o in self.offered())

    def check_spec(self, spec: Any) -> str:
        """``spec`` when the server offers it, or it is a heuristic or a search with options within
        the server's bounds (see the module docstring); else ``GameError`` naming the fault."""
        if isinstance(spec, str) and len(spec) > MAX_SPEC:
            raise GameError(f"the agent spec is {len(spec):,} characters long, more than the {MAX_SPEC} this server reads")
        if isinstance(spec, str) and self.is_offered(spec):
            return spec
        if isinstance(spec, str) and spec.startswith(WEIGHTED):
            return spec
        if isinstance(spec, str) and spec.startswith(SEARCH_OPTIONS):
            self._check_search(spec)
            return spec
        known = ", ".join(o["spec"] for o in self.offered())
        raise GameError(f"unknown agent {str(spec)[:60]!r}; this server offers {known}, "
                        f"heuristic:name=value,... and search:name=value,...")

    def _check_search(self, spec: str) -> None:
        """Refuse a search spec beyond ``SEARCH_BUDGET``, with a margin that is not a finite
        number, or with a blueprint the server does not offer."""
        try:
            options = spec_options(spec)
        except ValueError as exc:
            raise GameError(" ".join(str(exc).split())[:300]) from None
        for name in ("redeals", "candidates"):
            if options[name] > SEARCH_BUDGET[name]:
                raise GameError(f"agent spec {spec!r}: this server plays a search of at most {SEARCH_BUDGET[name]} "
                                f"{name}, not {options[name]}")
        playouts = options["redeals"] * (options["candidates"] + 1) * len(str(options["others"]).split("+"))
        if playouts > SEARCH_BUDGET["playouts"]:
            raise GameError(f"agent spec {spec!r}: {playouts:,} play-outs a decision (redeals x (candidates + 1) x "
                            f"others); this server plays at most {SEARCH_BUDGET['playouts']:,}")
        if not math.isfinite(options["margin"]):
            raise GameError(f"agent spec {spec!r}: this server takes a finite margin, not {options['margin']}")
        blueprint = options["blueprint"]
        if blueprint and not self.is_offered(blueprint):
            models = ", ".join(name for name, folder in {**shipped_models(), **self.models}.items()
                               if folders.format_of(folder) is folders.TURN_VALUE)
            raise GameError(f"agent spec {spec[:80]!r}: blueprint= names a turn-value model this server offers "
                            f"({models}); a folder is a kc serve --model choice")

    def agent(self, spec: Any, seed: int) -> Agent:
        """A new agent of an offered spec (``GameError`` naming the fault of a bad one). An
        exported policy's agents share one network (its arrays are never written): a table's
        seat then costs kilobytes, not the megabytes of its weights."""
        spec = self.check_spec(spec)
        with self._lock:
            network = self._networks.get(spec)
        if network is not None:
            agent = copy.copy(network)
            agent.reset(seed)
            return agent
        try:
            agent = agents.load(spec, seed=seed)
        except (ValueError, OSError) as exc:
            raise GameError(" ".join(str(exc).split())[:300]) from None
        if isinstance(agent, PolicyAgent) and self.is_offered(spec):
            with self._lock:
                self._networks.setdefault(spec, copy.copy(agent))
        return agent

    def adviser(self, spec: Any, objective: str = "win_share") -> Agent:
        """The agent that advises on decisions for ``spec``, playing for ``objective``
        (``Agent.play_for``: what the table keeps): one kept per offered spec and objective (a
        bounded set), made anew for a spec with options and for a search agent (a search spec or
        folder), which keeps plans between its decisions."""
        spec = self.check_spec(spec)
        with self._lock:
            kept = self._advisers.get((spec, objective))
        if kept is not None:
            return kept
        agent = self.agent(spec, 0)
        agent.play_for(objective)
        if isinstance(agent, SearchAgent) or not self.is_offered(spec):
            return agent
        with self._lock:
            return self._advisers.setdefault((spec, objective), agent)


_ABOUT: Mapping[str, str] = {
    "heuristic": "searches its turn and scores where it may stop (the strongest rule-based agent)",
    "greedy": "sheds its costliest card whenever it can",
    "random": "a uniformly random legal move",
}


def _model_about(folder: Path) -> str:
    """What the table says of a model: its kind (``model_folder.Format.about``) and, where its card
    is sound and says, the table it was trained for (``model_folder.trained_for``: its players, or
    every table of a model trained at several; the card alone is read: the offered list is read on
    every request)."""
    fmt = folders.format_of(folder)
    try:
        trained = folders.trained_for(fmt.read_card(folder)) if fmt else None
    except (ModelError, OSError):
        trained = None
    return (fmt.about if fmt else folders.POLICY.about) + (f", {trained}" if trained else "")


__all__ = ["CAPACITY", "MAX_SPEC", "SEARCH_BUDGET", "Store"]
