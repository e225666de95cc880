"""``search``: the heuristic with search at play time, SPARTA's way (keep the blueprint's move
unless search beats it by a margin), over whole turns.

At a decision the heuristic's own search lists its ``candidates`` best distinct positions where
the turn may end, with the moves to each (``heuristic.search.turn_candidates``; its first one is
the heuristic's choice), and with ``end_now`` (the default) also ending the turn at once where the
rules allow it and those best positions leave it out: holding every card back is the one turn an
evaluation that prizes shedding ranks last, and the one play-outs most often find better
against a player who takes every opening. With one candidate the agent plays the heuristic's
move. Otherwise every candidate is played out on the same ``redeals`` re-deals of the cards the
seat cannot see, every seat then playing the heuristic to the end of the deal (``playouts.line_values``, all cores),
and the agent plays the best line if its win share beats the heuristic's line by more than
``margin``, else the heuristic's move.

It plans the whole turn: the chosen line's later moves (then ``end turn``, unless the seat has
gone out) are kept under the observation expected before each (``turns.afterstate``), and played
when the next observation is exactly that one; any other observation is searched afresh. A kept
heuristic line is followed only while the heuristic still plays its next move, so with a very
large margin the agent plays exactly the heuristic's moves. Deterministic given its seed and the
observations: the play-outs are seeded from the agent's seed and a hash of the observation.

With ``blueprint=MODEL`` (a turn-value model, ``kc_env.agents.turn_value``) that model is the
blueprint instead of the heuristic: the candidates are its best-rated turns, the first its own
choice, the one the others must beat by the margin (in the turns its gate gives the heuristic,
the heuristic's as above). The play-outs are still played by the heuristic in every seat.
Heuristic weights among the options (``heuristic.weights.WEIGHT_NAMES``, e.g. ``corner=0``) make
the blueprint the heuristic with those weights (as ``heuristic:corner=0`` plays), for its
candidates and its own move; the play-outs keep the shipped weights in every seat.

Two options change whom the search plays against and when. ``others`` names who plays the other
seats in the play-outs (``playouts.OTHERS``: the heuristic by default, greedy or random), or
several joined by ``+`` (``others=heuristic+random``): each line is then played out against each
on the same re-deals and valued by its mean, a turn good against the league rather than against
one player; with a gated blueprint (``turn_value.careless``), once its gate has seen another
seat be careless this deal, the heuristic (which never is) is left out of them. ``endgame=1``
searches only once the stock is empty and plays the blueprint's move before: at two players the
unseen cards are then exactly the other hand, so every re-deal is the true position, and the
play-outs are short.

``search:name=value,...`` sets the options (``OPTIONS``, or heuristic weights), e.g.
``search:redeals=16,candidates=4,margin=0.02``, ``search:blueprint=turn-ranking-2p,margin=0.05``
or ``search:margin=0.05,corner=0,fit_close=0.25,penalty=0.175,card=1.1``.

A search spec saved as a model folder loads by name like an exported model (``search_folder``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import numpy as np

from ..match import DEFAULT_MAX_MOVES
from . import view
from .base import Agent, legal_actions, spec_number, spec_parts
from .greedy import batch_arrays, mask, vector
from .heuristic.weights import HEURISTIC_WEIGHTS, WEIGHT_NAMES, evaluation_weights
from .turn_value import HEURISTIC_TURN, first_move_of_best

SEARCH = "search"
"""The spec of the search agent with its default options."""
PREFIX = SEARCH + ":"
"""The prefix of a search spec with options."""
OPTIONS: dict[str, tuple[type, float | str]] = {"redeals": (int, 16), "candidates": (int, 4), "margin": (float, 0.0),
                                                "end_now": (int, 1), "blueprint": (str, ""), "others": (str, "heuristic"),
                                                "endgame": (int, 0)}
"""Each option's type and default: re-deals a candidate is played out on, candidate turns
valued, how much (win share) a line must beat the blueprint's by to be played, whether ending
the turn at once is always a candidate (1) or only when the blueprint ranks it among its best
(0), the blueprint (a turn-value model's spec; empty: the heuristic), who the other seats are in
the play-outs (``playouts.OTHERS``, or several joined by ``+``: a line's value is then its mean
over them, on the same re-deals), and whether to search only in the endgame (1: once the stock is
empty; before, the blueprint's move). ``redeals`` and ``candidates`` are at most ``MAX_REDEALS`` and
``MAX_CANDIDATES``."""
MAX_REDEALS = 4096
"""The most re-deals a candidate is played out on: a decision holds about 1 KB per play-out
(candidates + 1 lines times ``redeals``) and takes a play-out's time for each."""
MAX_CANDIDATES = 64
"""The most candidate turns valued (the heuristic's search visits at most
``heuristic.search.MAX_NODES`` positions a decision)."""
MAX_PLANS = 4096
"""Kept plan steps (one per expected observation) before the oldest are dropped: ``act_batch``
keeps them for every game of a batch."""


def spec_options(spec: str) -> dict[str, float]:
    """The options of a ``search`` or ``search:name=value,...`` spec, every one filled in, the
    heuristic weights set (if any) as one mapping under ``blueprint_weights``; raises
    ``ValueError`` with one line naming the fault."""
    out: dict[str, float] = {name: kind(default) for name, (kind, default) in OPTIONS.items()}
    if spec == SEARCH:
        return out
    weights: dict[str, float] = {}
    for name, value in spec_parts(spec, PREFIX, "option", "name=value (e.g. search:redeals=16,candidates=4,margin=0.02)").items():
        if name in WEIGHT_NAMES:
            weights[name] = spec_number(spec, name, value, float)
            continue
        if name not in OPTIONS:
            raise ValueError(f"agent spec {spec!r}: unknown option {name!r}; known: {', '.join(OPTIONS)}, "
                             f"or a heuristic weight ({', '.join(WEIGHT_NAMES)})")
        out[name] = spec_number(spec, name, value, OPTIONS[name][0])
    if weights:
        out["blueprint_weights"] = weights
    return out


_COMPILED = ("_search", "_playouts", "_turns", "_K")
"""The attributes of a ``SearchAgent`` that hold compiled modules."""


class SearchAgent(Agent):
    """The heuristic's candidate turns valued by play-outs on re-deals (see the module docstring)."""

    spec = SEARCH

    def __init__(self, seed: int | None = None, redeals: int = 16, candidates: int = 4, margin: float = 0.0,
                 end_now: int = 1, max_moves: int = DEFAULT_MAX_MOVES, blueprint: str = "",
                 blueprint_weights: Mapping[str, float] | None = None, others: str = "heuristic",
                 endgame: int = 0) -> None:
        _check_count("redeals", redeals, MAX_REDEALS)
        _check_count("candidates", candidates, MAX_CANDIDATES)
        if np.isnan(margin) or margin < 0:
            raise ValueError(f"search: margin must be a number of at least 0, not {margin!r}")
        for name, flag in (("end_now", end_now), ("endgame", endgame)):
            if flag not in (0, 1) or isinstance(flag, float):
                raise ValueError(f"search: {name} must be 0 or 1, not {flag!r}")
        if max_moves < 1:
            raise ValueError(f"search: max_moves must be at least 1, not {max_moves!r}")
        if blueprint and blueprint_weights:
            raise ValueError("search: heuristic weights set the heuristic blueprint, so not with blueprint=MODEL")
        self._import_compiled()
        playouts = self._playouts
        self.redeals, self.candidates, self.margin, self.max_moves = int(redeals), int(candidates), float(margin), int(max_moves)
        self.end_now, self.endgame = bool(end_now), bool(endgame)
        self.others = _others(others, playouts.OTHERS)
        """The play-outs' other seats, as ``playouts.OTHERS`` codes (a line's value: the mean over them)."""
        self.blueprint = _blueprint(blueprint) if blueprint else None
        self.weights = HEURISTIC_WEIGHTS.copy()
        """The play-outs' weights, every seat."""
        self.blueprint_weights = evaluation_weights(blueprint_weights)
        """The heuristic blueprint's weights: its candidates and its own move."""
        self._seed = 0
        self._plans: dict[bytes, tuple[int, bool]] = {}
        self.stats = {"decisions": 0, "searches": 0, "followed": 0}
        """Decisions made, those valued by play-outs and those that played a kept plan's move."""
        self.reset(seed)

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None) -> SearchAgent:
        """The agent of a ``search`` or ``search:name=value,...`` spec (``spec`` is kept as its name)."""
        options = spec_options(spec)
        try:
            agent = cls(seed=seed, **options)
        except ValueError as exc:
            raise ValueError(f"agent spec {spec!r}: {str(exc).removeprefix('search: ')}") from None
        agent.spec = spec
        return agent

    def _import_compiled(self) -> None:
        """The compiled modules the search calls, imported here on first use (not when
        ``kc_env.agents`` is imported)."""
        from ..vector import kernel
        from . import playouts, turns
        from .heuristic import search

        self._search, self._playouts, self._turns, self._K = search, playouts, turns, kernel

    def __getstate__(self) -> dict:
        """The agent without its modules (``_COMPILED``: a module does not pickle), so that it
        pickles and copies as every agent does; ``__setstate__`` imports them again."""
        return {k: v for k, v in self.__dict__.items() if k not in _COMPILED}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._import_compiled()

    def reset(self, seed: int | None = None) -> None:
        """Forget every plan; ``seed`` (when given) reseeds the play-outs."""
        if seed is not None:
            self._seed = int(seed) & (2**62 - 1)
        self._plans.clear()
        if self.blueprint is not None:
            self.blueprint.reset()

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The action for this observation (a kept plan's next move, or a fresh search)."""
        legal_actions(obs)  # refuses a mask with no legal action
        return self._decide(vector(obs)[:self._K.OBS_SIZE], mask(obs))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for a batch of observation vectors and masks, row by row (the play-outs of
        each row run on all cores); plans are kept per expected observation, so each game of a
        batch follows its own."""
        obs, masks = batch_arrays(obs, masks)
        return np.array([self._decide(o, m) for o, m in zip(obs, masks, strict=True)], dtype=np.int64)

    # -- one decision ----------------------------------------------------------------------------

    def _decide(self, ob: np.ndarray, mk: np.ndarray) -> int:
        self.stats["decisions"] += 1
        blueprint_turns = _Ranked(self.blueprint, ob, mk)
        if self.endgame and view.obs_count(ob[view.OBS_STOCK], view.CARD_SCALE) > 0:
            return self._blueprint_move(ob, mk, blueprint_turns.get())  # no search yet, so no plan kept
        digest = hashlib.blake2b(ob.tobytes(), digest_size=16).digest()
        plan = self._plans.pop(digest, None)
        if plan is not None:
            action, blueprint = plan
            if mk[action] and (not blueprint or self._blueprint_move(ob, mk, blueprint_turns.get()) == action):
                self.stats["followed"] += 1
                return action
        ranked = blueprint_turns.get()
        K = self._K
        top_line = np.zeros((self.candidates + 1, self._turns.MAX_DEPTH), dtype=np.int64)  # a row more for "end now"
        top_len = np.zeros(self.candidates + 1, dtype=np.int64)
        valid, own = self._candidates(ob, mk, ranked, top_line, top_len)
        if valid == 0 or self._first_move(top_line[0], top_len[0]) != own:
            return own  # the heuristic fell back on greedy (else its line is the first)
        if self.end_now and mk[K.END_TURN_ACTION] and not (top_len[:valid] == 0).any():
            top_len[valid] = 0  # ending the turn here, with nothing more played
            valid += 1
        if valid <= 1:
            return own
        seed = (self._seed ^ int.from_bytes(digest[:8], "little")) & (2**62 - 1)
        values = np.mean([self._playouts.line_values(ob, top_line[:valid], top_len[:valid], self.redeals, self.weights,
                                                     seed, self.max_moves, code) for code in self._others_now()], axis=0)
        self.stats["searches"] += 1
        best = int(np.argmax(values))  # the first of equals: the blueprint's line wins a tie
        chosen = best if values[best] > values[0] + self.margin else 0
        self._keep_plan(ob, top_line[chosen], int(top_len[chosen]), blueprint=chosen == 0)
        return self._first_move(top_line[chosen], top_len[chosen])

    def _others_now(self) -> tuple[int, ...]:
        """The play-outs' other seats for this decision: ``others``, less the heuristic once the
        blueprint's gate has seen another seat be careless this deal (the heuristic never is)."""
        if len(self.others) > 1 and self.blueprint is not None and self.blueprint.seen_careless:
            return tuple(code for code in self.others if code != 0)
        return self.others

    def _candidates(self, ob: np.ndarray, mk: np.ndarray, ranked, top_line: np.ndarray, top_len: np.ndarray):
        """The blueprint's best ``candidates`` lines, its own first, into ``top_line``/``top_len``:
        the heuristic's (``ranked`` None) or the turn-value blueprint's (``ranked``: its
        ``TurnValueAgent.values`` of its gate's network). Returns how many, and the blueprint's move."""
        if ranked is None:
            top_v = np.zeros(self.candidates, dtype=np.float64)
            own = int(self._search.turn_candidates(ob, mk, self.blueprint_weights, top_v, top_line[:-1], top_len[:-1]))
            return int(np.count_nonzero(top_v > self._search.NO_CANDIDATE)), own
        lines, lengths, vals, own = ranked
        if not len(vals):
            return 0, own
        order = np.argsort(-vals, kind="stable")[:self.candidates]
        top_line[:len(order)], top_len[:len(order)] = lines[order], lengths[order]
        return len(order), first_move_of_best(lines, lengths, vals, own)

    def _first_move(self, line: np.ndarray, length) -> int:
        """A line's first move; end turn for the empty line ("end now")."""
        return int(line[0]) if length else self._K.END_TURN_ACTION

    def _blueprint_move(self, ob: np.ndarray, mk: np.ndarray, ranked) -> int:
        if ranked is None:
            return int(self._search.heuristic_action_w(ob, mk, self.blueprint_weights))
        return first_move_of_best(*ranked)

    def _keep_plan(self, ob: np.ndarray, line: np.ndarray, length: int, blueprint: bool) -> None:
        """Keep, for the observation expected after each move of ``line[:length]``, the move that
        follows it there (``end turn`` after the last, unless the seat has gone out)."""
        if length == 0:
            return
        turns, K = self._turns, self._K
        if len(self._plans) + length > MAX_PLANS:
            for key in list(self._plans)[:len(self._plans) // 2]:  # the oldest half
                del self._plans[key]
        tab = turns.alloc(length + 1, True)
        turns.load(ob, tab, length + 1)
        turns.replay(tab, line, length)
        expected = np.zeros(K.OBS_SIZE, dtype=np.float32)
        for d in range(1, length + 1):
            if d == length and (tab.S[d, K.OVER] or tab.hands[d, 0] == 0):
                break  # gone out: the deal is over
            turns.afterstate(ob, tab, d, expected)
            key = hashlib.blake2b(expected.tobytes(), digest_size=16).digest()
            self._plans[key] = (int(line[d]) if d < length else K.END_TURN_ACTION, blueprint)


class _Ranked:
    """A decision's blueprint ranking (``TurnValueAgent.values`` of the network its gate picks), valued only when asked for: a kept
    plan that is not the blueprint's needs only the gate's memory updated. ``get`` is None where
    the blueprint is the heuristic (no model, or a turn its gate gives the heuristic)."""

    def __init__(self, blueprint, ob: np.ndarray, mk: np.ndarray) -> None:
        self.obs = {"observation": ob, "action_mask": mk}
        self.blueprint = blueprint
        self.net = blueprint.network(self.obs) if blueprint is not None else HEURISTIC_TURN
        self._ranked = None

    def get(self):
        if self.net == HEURISTIC_TURN:
            return None
        if self._ranked is None:
            self._ranked = self.blueprint.values(self.obs, self.net)
        return self._ranked


def _check_count(name: str, value, most: int) -> None:
    """Refuse an option that counts something (re-deals, candidates) outside 1 to ``most``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= most:
        raise ValueError(f"search: {name} must be a whole number of at least 1 and at most {most}, not {value!r}")


def _others(names: str, known: tuple[str, ...]) -> tuple[int, ...]:
    """The codes of an ``others`` option (names joined by ``+``, each once)."""
    parts = names.split("+")
    if any(p not in known for p in parts) or len(set(parts)) != len(parts):
        raise ValueError(f"search: others must be {', '.join(known)} or several of them joined by +, "
                         f"each once (e.g. heuristic+random), not {names!r}")
    return tuple(known.index(p) for p in parts)


def _blueprint(spec: str):
    """The turn-value agent of a ``blueprint=`` option: a model folder or a shipped model's name
    (read here, not through ``agents.load``, which imports this module)."""
    from .policy_model import model_folder
    from .turn_value import TurnValueAgent, is_turn_value_folder

    folder = model_folder(spec)
    if folder is None or not is_turn_value_folder(folder):
        raise ValueError(f"search: blueprint must be a turn-value model's folder or a shipped one "
                         f"(e.g. turn-ranking-2p), not {spec!r}")
    return TurnValueAgent(folder, spec=spec)


__all__ = ["SearchAgent", "SEARCH", "PREFIX", "OPTIONS", "MAX_REDEALS", "MAX_CANDIDATES", "spec_options"]
