"""``ClassicWrapper``: what ``kings_corner_v0.env()`` wraps ``raw_env`` with.

PettingZoo's classic games wrap their raw env in a chain of three wrappers::

    OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, illegal_reward)))

``ClassicWrapper`` is that chain as one wrapper, with the same checks in the same order, the
same errors, warnings and rewards (the infos after an illegal action aside, below):

- order: ``step``, ``observe``, ``render``, ``state`` and ``agent_iter`` before ``reset`` are
  errors, reading ``agent_selection``, ``agents``, ``rewards``, ``terminations``,
  ``truncations``, ``infos`` or ``num_agents`` before ``reset`` is an ``AttributeError``,
  ``step`` once every agent is done warns (``OrderEnforcingWrapper``);
- bounds: an action outside the action space (or ``None`` for an agent that is not done) is an
  ``AssertionError`` (``AssertOutOfBoundsWrapper``);
- illegal actions: an action whose ``action_mask`` entry is 0 warns and ends the game for every
  agent (terminated and truncated), ``illegal_reward`` for the offender and 0 for the others;
  the done agents then step ``None`` out (``TerminateIllegalWrapper``). One difference, on
  purpose: every agent's infos then hold ``deal`` (and in a match ``match``), as at the end of
  every other episode (``raw_env.abandon_infos``: nobody won, nothing paid); the chain leaves
  them as they were (``{}`` during a deal), against the env's one shape of infos.

Why one wrapper: each of the three forwards the attributes it lacks with ``__getattr__``, so
every read of ``agent_selection``, ``terminations``, ``rewards``... by ``last()``,
``agent_iter`` and the wrappers' own checks walked three Python-level ``__getattr__`` hops
(about 36 per step), about half of a Kings in the Corner AEC step. Here those attributes are
properties that read the raw env directly. ``tests/test_wrappers.py`` plays ``env()`` and the
PettingZoo chain side by side and checks that they agree at every step.

``SelfPlayWrapper``: the AEC env as one Gymnasium env in which one policy plays every seat, for
sb3-contrib's ``MaskablePPO`` (docs/integrations.md, "Self-play with MaskablePPO").
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator


def _from_raw(name: str, needs_reset: bool) -> property:
    """A read-only property giving the raw env's ``name``; with ``needs_reset``, an
    ``AttributeError`` before ``reset`` (as ``OrderEnforcingWrapper.__getattr__`` raises)."""

    def get(self: ClassicWrapper) -> Any:
        if needs_reset and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get, doc=f"``{name}`` of the raw env")


class ClassicWrapper(OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(
    env, illegal_reward)))`` as one wrapper (see the module docstring).

    ``env`` is the raw env itself (not another wrapper): observations are dicts with an
    ``"action_mask"``, and ``env.action_mask(agent)`` gives that mask alone.
    """

    agent_selection = _from_raw("agent_selection", True)
    agents = _from_raw("agents", True)
    num_agents = _from_raw("num_agents", True)
    rewards = _from_raw("rewards", True)
    terminations = _from_raw("terminations", True)
    truncations = _from_raw("truncations", True)
    infos = _from_raw("infos", True)
    possible_agents = _from_raw("possible_agents", False)
    _cumulative_rewards = _from_raw("_cumulative_rewards", False)

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._prev_mask: np.ndarray | None = None  # the mask the agent to act was last shown
        self._bounds_of: Any = None  # the action space whose bounds are in _bounds
        self._bounds = (0, 0)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._prev_mask = None
        super().reset(seed=seed, options=options)

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy (``copy.deepcopy``, ``pickle``) holds a raw env made again from its arguments
        (``EzPickle``), so it starts before ``reset``, as ``KingsCorner-v0``'s copy does."""
        self.__dict__.update(state)
        self._has_reset = self._has_updated = False
        self._prev_mask = None

    def observe(self, agent: str) -> Any:
        obs = super().observe(agent)
        if agent == self.env.agent_selection:
            self._prev_mask = obs["action_mask"]
        return obs

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``AECEnv.last`` reading the raw env directly (keeping the mask it shows, as ``observe``
        does); before ``reset`` the chain's error."""
        if not self._has_reset:
            return super().last(observe)
        raw = self.env
        agent = raw.agent_selection
        assert agent is not None
        obs = None
        if observe:
            obs = raw.observe(agent)
            self._prev_mask = obs["action_mask"]
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """``OrderEnforcingWrapper.agent_iter``, whose iterator reads the raw env directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Iterable(self, max_iter)

    def step(self, action: Any) -> None:
        raw = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()  # raises
            return
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        assert (action is None and done) or self._in_bounds(agent, action), "action is not in action space"
        # The action is judged by the mask the agent was last shown (TerminateIllegalWrapper's
        # rule; kept so that ``last()`` then ``step()`` builds it once), else by the current one.
        # A done agent steps out through ``raw.step``, which hands it to ``_was_dead_step`` as
        # TerminateIllegalWrapper does after an illegal action.
        mask, self._prev_mask = self._prev_mask, None
        if not done and not (raw.action_mask(agent) if mask is None else mask)[action]:
            self._end_on_illegal_action(agent)
        else:
            raw.step(action)

    def _in_bounds(self, agent: str, action: Any) -> bool:
        """``action_space(agent).contains(action)``, except that a bool is no action (``Discrete``
        takes ``True`` for 1, and numpy would take it as a mask when it indexes the mask); a plain
        ``int`` is compared directly (``Discrete.contains`` converts it to numpy first, a few times slower)."""
        space = self.env.action_space(agent)
        if type(action) is int:
            if space is not self._bounds_of:  # its bounds as ints (numpy scalars compare slowly)
                self._bounds_of, self._bounds = space, (int(space.start), int(space.start + space.n))
            low, high = self._bounds
            return low <= action < high
        return not isinstance(action, bool) and space.contains(action)

    def _end_on_illegal_action(self, agent: str) -> None:
        """What ``TerminateIllegalWrapper`` does: warn, end the game for every agent, give the
        offender ``illegal_reward`` and the others 0; then give every agent the infos of an ended
        episode (``raw_env.abandon_infos``: nobody won, nothing paid), which the chain does not."""
        raw = self.env
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw.abandon_infos()  # the infos of every ended episode (the chain leaves them as they were)
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self.env)


class _Iterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _Iterator:
        return _Iterator(self.env, self.max_iter)


class _Iterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator``: the same checks, the same order, without the wrapper's
    attribute hops."""

    def __next__(self) -> str:
        wrapper = self.env
        raw = wrapper.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return raw.agent_selection


class SelfPlayWrapper(BaseWrapper, gymnasium.Env):
    """An AEC env whose agents share one observation and action space, such as
    ``kings_corner_v0.env()``, as a Gymnasium env in which one policy acts for every seat in turn
    (self-play): ``reset`` and ``step`` return the observation vector of the agent to act next,
    ``action_masks()`` its legal actions (the method ``MaskablePPO`` calls; ``ActionMasker`` is
    not needed). Anything else (a Gymnasium env, a string) is a one-line ``TypeError``.

    PettingZoo's SB3 action-masking tutorial (``SB3ActionMaskWrapper``), mended: under Gymnasium
    1.x SB3 and ``ActionMasker`` take only a ``gymnasium.Env``, so this is one too; the spaces are
    set here, not in ``reset``, so SB3 reads them before the first reset; and ``step`` returns the
    reward, termination, truncation and info of the agent that acted (``last()`` would give the
    next agent's). At the end of a deal the other seats' final rewards reach no step: the learner
    learns from the mover's side only (the winner's +1, 0 for a blocked deal)."""

    def __init__(self, env: AECEnv) -> None:
        _check_self_play_env(env)
        super().__init__(env)
        first = env.possible_agents[0]
        self.observation_space = env.observation_space(first)["observation"]
        self.action_space = env.action_space(first)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        self.env.reset(seed=seed, options=options)
        return self.observe(self.env.agent_selection), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        agent = self.env.agent_selection
        self.env.step(action)
        env = self.env
        terminated = bool(env.terminations[agent])  # an illegal action sets both (PettingZoo's way): it ended, not cut off
        return (self.observe(env.agent_selection), float(env._cumulative_rewards[agent]),
                terminated, bool(env.truncations[agent]) and not terminated, env.infos[agent])

    def observe(self, agent: str) -> np.ndarray:
        return self.env.observe(agent)["observation"]

    def action_masks(self) -> np.ndarray:
        """The legal actions of the agent to act, as the bool array ``MaskablePPO`` reads."""
        return self.env.observe(self.env.agent_selection)["action_mask"].astype(bool)


def _check_self_play_env(env: Any) -> None:
    """A one-line ``TypeError`` unless ``env`` is a PettingZoo AEC env whose observations are
    dicts holding the ``observation`` vector (with its ``action_mask``), as ``kings_corner_v0``'s."""
    space = env.observation_space(env.possible_agents[0]) if isinstance(env, AECEnv) else None
    if not (isinstance(space, gymnasium.spaces.Dict) and {"observation", "action_mask"} <= set(space.spaces)):
        raise TypeError(f"SelfPlayWrapper wraps a kings_corner_v0 PettingZoo env (kings_corner_v0.env()), "
                        f"not {type(env).__name__} {env!r}"[:300])


__all__ = ["ClassicWrapper", "SelfPlayWrapper"]
