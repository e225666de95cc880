"""A faster drop-in for ``kings_corner_v0.env()``: the same environment, one wrapper instead of
three, and a quicker observation encoder. Pure Python and numpy (no numba).

```python
from kc_env import fast_aec
env = fast_aec.env(rules="pagat", num_players=3)   # same arguments and behaviour as kings_corner_v0.env()
```

Where the time of ``kings_corner_v0.env()`` goes (``kc bench --profile aec``): about half of each
step is PettingZoo's classic wrapper chain (``TerminateIllegalWrapper``,
``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``), because every read of
``agent_selection``, ``terminations``, ``rewards``... from ``last()``, ``agent_iter`` and the
wrappers' own checks walks three ``__getattr__`` levels; then ``observation.encode`` (a fancy
index per pile); then the engine's ``legal_moves``. This module removes the first two:

- ``ClassicWrapper``: one ``OrderEnforcingWrapper`` subclass that does what the three wrappers do
  (order checks, the out-of-bounds assertion, an illegal action ending the game with
  ``ILLEGAL_REWARD`` for the offender), reading the hot attributes straight from the raw env.
- ``encode`` and ``legal_mask``: ``observation.encode``'s vector and ``actions.legal_mask``'s mask
  (the test proves them value for value), written into an ``array.array`` / ``bytearray`` (one C
  store per value) from a cached per-rules template, instead of a numpy call per slice.
- ``FastRawEnv``: ``kings_corner_v0.raw_env`` observing with those two.

It is a proposal for the AEC env's owners (``docs/speed.md``): ``tests/test_fast_aec.py`` shows it
plays every game exactly like ``kings_corner_v0.env()`` and passes PettingZoo's ``api_test``.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from typing import Any

import numpy as np
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from . import engine
from . import observation as obs_mod
from .actions import END_TURN_ACTION, MOVE_OFFSET, NUM_ACTIONS, PLAY_OFFSET
from .engine import GameState
from .kings_corner_v0 import ILLEGAL_REWARD, raw_env

_S = obs_mod.SLICES
_PS, _PB = obs_mod.PILE_START, obs_mod.PILE_BLOCK
_HAND_SIZE = _S["hand_size"].start
_OTHERS = _S["others_hand_sizes"].start
_STOCK = _S["stock_size"].start
_SCORES = _S["scores"].start
_DRAWN = _S["drawn"].start
_PLAYED = _S["played"].start
_MOVED = _S["moved"].start
_IDLE = _S["idle_turns"].start
_MY_TURN = _S["my_turn"].start
_TO_ACT = _S["to_act"].start
_DEALER = _S["dealer"].start
_NUM_PLAYERS = _S["num_players"].start
_RULES = obs_mod.RULES_START
_TEMPLATES: dict[tuple[int, int], tuple[Any, bytes]] = {}


def _template(rules, n: int) -> bytes:
    """The parts of the vector fixed for a deal (rules, number of players) as float32 bytes,
    cached per rules object."""
    key = (id(rules), n)
    hit = _TEMPLATES.get(key)
    if hit is None or hit[0] is not rules:
        vec = np.zeros(obs_mod.OBS_SIZE, dtype=np.float32)
        vec[_RULES:] = obs_mod.rules_vector(rules)
        vec[_NUM_PLAYERS + n - 2] = 1
        if len(_TEMPLATES) > 256:
            _TEMPLATES.clear()
        hit = _TEMPLATES[key] = (rules, vec.tobytes())
    return hit[1]


def encode(state: GameState, seat: int, totals: Sequence[float] | None = None) -> np.ndarray:
    """Exactly ``observation.encode(state, seat, totals)``, faster: the values are written into a
    float32 ``array.array`` (a C store per value, no numpy call per slice) that numpy then wraps."""
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be 0..{n - 1}, not {seat!r}")
    vec = array.array("f", _template(state.rules, n))
    hand = state.hands[seat]
    for c in hand:
        vec[c] = 1.0
    top_value = state.top_value
    for p, pile in enumerate(state.piles):
        if pile:
            at = _PS + p * _PB
            for c in pile:
                vec[at + c] = 1.0
            rank, colour = top_value[p]
            vec[at + 54 + pile[-1]] = 1.0
            vec[at + 108 + pile[0]] = 1.0
            vec[at + 162] = len(pile) / 13
            vec[at + 162 + rank] = 1.0
            vec[at + 178 if colour < 0 else at + 176 + colour] = 1.0
    cur = state.current_player
    vec[_TO_ACT + (cur - seat) % n] = 1.0
    vec[_DEALER + (state.dealer - seat) % n] = 1.0
    vec[_HAND_SIZE] = len(hand) / 54
    hands = state.hands
    for k in range(1, n):
        vec[_OTHERS + k - 1] = len(hands[(seat + k) % n]) / 54
    vec[_STOCK] = len(state.stock) / 54
    if totals is not None:
        scale = obs_mod.score_scale(state.rules)
        for k in range(n):
            vec[_SCORES + k] = float(np.clip(totals[(seat + k) % n] / scale, -2.0, 2.0))
    vec[_DRAWN] = state.drawn
    vec[_PLAYED] = state.played
    vec[_MOVED] = state.moved
    vec[_IDLE] = min(state.idle_turns / n, 1.0)
    vec[_MY_TURN] = not state.is_over and cur == seat
    return np.frombuffer(vec, dtype=np.float32)


def legal_mask(state: GameState) -> np.ndarray:
    """Exactly ``actions.legal_mask(state)``, faster (the indices of ``actions``' layout written
    into a ``bytearray``)."""
    mask = bytearray(NUM_ACTIONS)
    for move in engine.legal_moves(state):
        kind = move[-1]
        if kind == "play":
            mask[PLAY_OFFSET + move[0] * 8 + move[1]] = 1
        elif kind == "move":
            mask[MOVE_OFFSET + move[0] * 8 + move[1]] = 1
        else:
            mask[END_TURN_ACTION] = 1
    return np.frombuffer(mask, dtype=np.int8)


class FastRawEnv(raw_env):
    """``kings_corner_v0.raw_env`` observing with the faster ``encode`` and ``legal_mask``."""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": encode(self.game, self.agent_seat[agent], self.totals),
                "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        if agent == self.agent_selection and not (self.terminations[agent] or self.truncations[agent]):
            return legal_mask(self.game)
        return super().action_mask(agent)


def _hot(name: str, guarded: bool) -> property:
    def get(self):
        if guarded and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"``{name}`` of the raw env, read directly")


class ClassicWrapper(OrderEnforcingWrapper):
    """PettingZoo's classic chain ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
    TerminateIllegalWrapper(raw, illegal_reward)))`` as one wrapper: the same checks, warnings and
    rewards, with the attributes that every step reads taken from the raw env directly."""

    agent_selection = _hot("agent_selection", True)
    agents = _hot("agents", True)
    rewards = _hot("rewards", True)
    terminations = _hot("terminations", True)
    truncations = _hot("truncations", True)
    infos = _hot("infos", True)
    num_agents = _hot("num_agents", True)
    _cumulative_rewards = _hot("_cumulative_rewards", False)
    possible_agents = _hot("possible_agents", False)

    def __init__(self, env: raw_env, illegal_reward: float = ILLEGAL_REWARD) -> None:
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._prev_mask: np.ndarray | None = None
        self._terminated = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._terminated = False
        self._prev_mask = None
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> Any:
        obs = super().observe(agent)
        if agent == self.env.agent_selection:
            self._prev_mask = obs["action_mask"]
        return obs

    def action_space(self, agent: str):
        return self.env.action_space(agent)

    def step(self, action: Any) -> None:
        raw = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
            return
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        in_bounds = (0 <= action < raw.action_spaces[agent].n) if type(action) is int else (
            raw.action_space(agent).contains(action))
        assert (action is None and dead) or in_bounds, "action is not in action space"
        mask, self._prev_mask = self._prev_mask, None
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not (raw.action_mask(agent) if mask is None else mask)[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)

    def __str__(self) -> str:
        return str(self.env)


def env(**kwargs: Any) -> ClassicWrapper:
    """``kings_corner_v0.env(**kwargs)``, faster: ``ClassicWrapper(FastRawEnv(**kwargs))``."""
    return ClassicWrapper(FastRawEnv(**kwargs), illegal_reward=ILLEGAL_REWARD)


__all__ = ["env", "encode", "ClassicWrapper", "FastRawEnv"]
