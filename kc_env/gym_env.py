"""``KingsCorner-v0``: a single-agent Gymnasium env; the learner holds one seat, fixed agents the
others.

```python
import gymnasium, kc_env
env = gymnasium.make("KingsCorner-v0", rules="pagat", num_players=3, opponents=["random", "random"])
obs, info = env.reset(seed=0)
while True:
    action = env.action_space.sample(info["action_mask"])
    obs, reward, terminated, truncated, info = env.step(action)
    if terminated or truncated:
        break
```

- **Observation**: ``observation="vector"`` (default): the learner's observation vector
  (``kc_env.observation``, layout 2, ``Box(1599,)`` float32), with the action mask beside it in
  ``env.action_masks()`` (a bool array, the method sb3-contrib's ``MaskablePPO`` calls) and
  ``info["action_mask"]`` (int8). ``observation="dict"``: the PettingZoo env's observation,
  ``Dict({"observation": Box(1599,) float32, "action_mask": Box(0, 1, (497,), int8)})``, for the
  stacks that read the mask from the observation (TorchRL's ``GymEnv`` with its ``ActionMask``
  transform, Tianshou, RLlib's action-masking modules); ``action_masks()`` and
  ``info["action_mask"]`` still give it too. The mask is all 0 once the episode is over.
- **Actions**: ``Discrete(497)`` (``kc_env.actions``). The learner keeps acting until it plays
  ``end turn`` (496); the opponents then play their turns inside ``step`` until it is the
  learner's turn again or the episode ends.
- **Rewards**: the learner's own, as ``kings_corner_v0`` gives them (``win_loss`` or ``score``);
  a step returns everything the learner earned since its previous action, opponents' moves
  included. Every observation, mask and reward returned is the learner's, never an opponent's.
- **Learner seat**: ``learner_seat=k`` or ``"random"`` (default: drawn at each reset from the
  env's seed). ``opponents``: agent specs (``kc_env.agents.load``) or ``Agent`` objects, one per
  other seat, ``opponents[j]`` sitting ``j + 1`` seats to the learner's left, or one spec (or
  ``Agent``) for every other seat (``opponents="heuristic"``); default all ``"random"``.
  Opponents act on their own seat's PettingZoo observation only; with ``episode="match"`` under a
  penalty table they are told to play for points (``Agent.play_for``), else for the win share.
  ``random`` opponents (the
  ``RandomAgent`` class itself) are drawn inside the compiled step (``raw_env.step_drawing``)
  from their own generators: the same draws their ``act`` makes (``rng.choice`` of the legal
  actions), without a Python call each (``tests/test_gym_differential.py`` holds the env equal,
  step for step, to the same env on the reference engine with every opponent acting in Python).
- **Infos**: ``info["action_mask"]`` and ``info["learner_seat"]`` (int) after every ``reset`` and
  ``step``; once the episode is over ``info["deal"]`` (and in a match ``info["match"]``), as
  ``kings_corner_v0``'s infos give them, one type and shape in every episode (a deal nobody won
  has ``winner`` -1; an episode ended by an illegal action: the deal's, nobody won, nothing paid);
  after an illegal action also ``illegal_action`` (True) and ``illegal_reason`` (str), on that
  step only.
- **Illegal actions**: ``illegal_action="terminate"`` (default) ends the episode at once with
  reward -1 and ``info["illegal_action"] = True`` plus the reason in ``info["illegal_reason"]``
  (the same price as ``kings_corner_v0.env()``), so that checkers and unmasked algorithms
  (plain PPO, DQN) can run; ``illegal_action="raise"`` raises ``kc_env.IllegalMove`` naming the
  action and why it is illegal (use it with masked training to catch bugs).
- Every other keyword (``rules``, ``num_players``, ``episode``, ``reward``, ``max_moves``,
  ``max_deals``, ``dealer``) is passed to ``kings_corner_v0.raw_env`` and means the same there.
  Any other keyword is a one-line ``TypeError`` naming this env and its options.
  ``reset(options={"position": TEXT})`` starts from a position (an unknown option key is refused).
- A one-deal episode that would end before the learner's first action (possible only with tiny
  hands) is dealt again from the next seed, so every episode gives the learner a turn.
- ``step`` after the episode has ended raises ``RuntimeError``: call ``reset()``. So does a copy
  (``copy.deepcopy``, ``pickle``), which starts with no episode in play.
- ``render_mode``: ``"ansi"`` (the learner's view as text), ``"human"`` (printed after every
  step) or ``"rgb_array"`` (the same as an ``H x W x 3`` uint8 picture with the card faces, for
  ``gymnasium.wrappers.RecordVideo``, which also needs the ``video`` extra: moviepy).

Version history:

* v0: first release (action layout 1, observation layout 1: 1584 values).
* v0, observation layout 2 (issue 19's house rules): 1599 values, layout 1's 1584 first and in
  place, then the rule values added since and ``first_turn`` (``kc_env.observation``,
  ``kings_corner_v0``'s card). Action layout 1 unchanged.
* v0, issue 36: ``observation="dict"`` (the observation with its action mask); infos of one
  shape (``info["deal"]["winner"]`` -1 when nobody won, was None).
* v0, issue 37: ``random`` opponents drawn inside the compiled step, from the same generators
  with the same draws: every seed gives the same episodes as before.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from . import actions, agents, engine
from . import observation as obs_mod
from .agents.base import Agent
from .agents.policy_model import other_table
from .agents.random_agent import RandomAgent
from .engine import IllegalMove
from .kings_corner_v0 import (
    DEFAULT_MAX_DEALS,
    DEFAULT_MAX_MOVES,
    ILLEGAL_REWARD,
    SEED_BOUND,
    raw_env,
    reset_position,
)
from .options import keywords_of, refuse_unknown_keywords, seat_option
from .rules import Rules

ILLEGAL_ACTIONS = ("terminate", "raise")
OBSERVATIONS = ("vector", "dict")
MAX_REDEALS = 100
CALLED = "KingsCornerEnv (gymnasium.make('KingsCorner-v0'))"
"""How its errors name this env: the class, and how it is usually made."""
NOT_HERE = {"render_view": " (an option of the PettingZoo env kings_corner_v0: KingsCorner-v0 renders the learner's view)"}
"""The AEC env's options that this env has not, with why, for ``refuse_unknown_keywords``."""


class KingsCornerEnv(gymnasium.Env):
    """Kings in the Corner for one learner against fixed opponents (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}
    aec_class = raw_env
    """The PettingZoo env underneath (``engine_env``: the reference the differential test uses)."""

    def __init__(self, rules: Rules | str | dict | None = None, num_players: int = 2,
                 opponents: Sequence[str | Agent] | None = None, learner_seat: int | str = "random",
                 episode: str = "deal", reward: str = "win_loss", max_moves: int = DEFAULT_MAX_MOVES,
                 max_deals: int = DEFAULT_MAX_DEALS, dealer: int | str = "random",
                 illegal_action: str = "terminate", render_mode: str | None = None,
                 observation: str = "vector", **unknown: Any) -> None:
        refuse_unknown_keywords(CALLED, unknown, OPTIONS, NOT_HERE)
        self.aec = self.aec_class(rules=rules, num_players=num_players, episode=episode, reward=reward,
                           max_moves=max_moves, max_deals=max_deals, dealer=dealer)
        n = self.aec.num_players  # an int, however it was given
        self.learner_seat_option = seat_option("learner_seat", learner_seat, n)
        self.opponents: list[Agent] = [agents.load(spec) for spec in agents.opponent_specs(opponents, n)]
        for agent in self.opponents:
            agent.play_for(agents.objective_of(self.aec.rules, keeps_points=self.aec.episode == "match"))
        for note in dict.fromkeys(other_table(agent, self.aec.rules, n) for agent in self.opponents):
            if note:  # once for a model at several seats
                warnings.warn(note, UserWarning, stacklevel=2)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, not {illegal_action!r}")
        self.illegal_action = illegal_action
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi', 'human' or 'rgb_array', not {render_mode!r}")
        self.render_mode = render_mode
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, not {observation!r}")
        self.observation_kind = observation
        if observation == "dict":  # the PettingZoo env's own space: the vector and the mask
            self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])
        else:
            self.observation_space = spaces.Box(obs_mod.LOW, obs_mod.HIGH, dtype=np.float32)
        self.action_space = spaces.Discrete(actions.NUM_ACTIONS)
        self.learner_seat = 0
        self._done = True
        self._reward = 0.0
        self._learner = self.learner
        self._drawing = hasattr(self.aec, "step_drawing")  # random opponents drawn in the kernel
        self._draw_list: list[tuple[RandomAgent, np.random.Generator]] = []

    @property
    def learner(self) -> str:
        """The learner's agent name in the underlying PettingZoo env (``player_<seat>``)."""
        return self.aec.possible_agents[self.learner_seat]

    def _opponent_at(self, seat: int) -> Agent:
        return self.opponents[(seat - self.learner_seat) % self.aec.num_players - 1]

    # -- episode ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray | dict[str, np.ndarray], dict[str, Any]]:
        reset_position(options, strict=True)  # refused options change nothing
        super().reset(seed=seed)
        rng = self.np_random
        for _ in range(MAX_REDEALS):
            if self.learner_seat_option == "random":
                self.learner_seat = int(rng.integers(self.aec.num_players))
            else:
                self.learner_seat = self.learner_seat_option
            for agent in self.opponents:
                agent.reset(seed=int(rng.integers(SEED_BOUND)))
            self.aec.reset(seed=int(rng.integers(SEED_BOUND)), options=options)
            if self._drawing:
                self._set_draws()
            self._done, self._reward = False, 0.0
            self._learner = self.learner
            self._play_opponents()
            if not self._episode_over():
                break
            if options and "position" in options:
                raise ValueError("the position ends before the learner's first action")
        else:
            raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before the learner's first action")
        if self.render_mode == "human":
            self.render()
        return self._outputs()

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy (``copy.deepcopy``, ``pickle``) starts with no episode in play: its
        ``kings_corner_v0`` env is made again from its arguments (PettingZoo's ``EzPickle``)."""
        self.__dict__.update(state)
        self._done = True

    def step(self, action: int) -> tuple[np.ndarray | dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self._done:
            raise RuntimeError("no episode in play (it is over, or this env is a copy): call reset() before step()")
        aec, learner = self.aec, self._learner
        self._reward = 0.0
        if self._drawing and type(action) is int and 0 <= action < actions.NUM_ACTIONS:
            for opponent, rng in self._draw_list:
                if opponent.rng is not rng:  # reset with a seed since: draw from its new generator
                    self._set_draws()
                    break
            try:  # the learner's action, then the random opponents' in the same compiled call
                self._reward = aec.step_drawing(action, self.learner_seat, self._reward)
            except IllegalMove:
                return self._illegal_step(self._why_illegal(action))
        else:
            reason = self._why_illegal(action)
            if reason is not None:
                return self._illegal_step(reason)
            self._aec_step(operator.index(action))
        terminated = aec.terminations[learner]
        truncated = aec.truncations[learner]
        if not (terminated or truncated) and aec.agent_selection != learner:
            self._play_opponents()
            terminated = aec.terminations[learner]
            truncated = aec.truncations[learner]
        self._done = terminated or truncated
        if self.render_mode == "human":
            self.render()
        observation, info = self._outputs()
        return observation, float(self._reward), bool(terminated), bool(truncated), info

    def _illegal_step(self, reason: str) -> tuple[np.ndarray | dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """``illegal_action``'s price for an illegal learner action (nothing played)."""
        if self.illegal_action == "raise":
            raise IllegalMove(f"the learner ({self.learner}) chose {reason}")
        self._done = True
        self.aec.abandon_infos()  # the infos of every ended episode: nobody won
        observation, info = self._outputs()
        info.update(illegal_action=True, illegal_reason=reason)
        return observation, float(ILLEGAL_REWARD), True, False, info

    def _why_illegal(self, action: Any) -> str | None:
        if type(action) is int and 0 <= action < actions.NUM_ACTIONS and self.aec.is_legal(action):
            return None
        index = actions.whole_number(action)
        if index is None:
            return f"{action!r}, which is not an action (a whole number 0..{actions.NUM_ACTIONS - 1})"[:200]
        if not 0 <= index < actions.NUM_ACTIONS:
            return f"action {index}, outside 0..{actions.NUM_ACTIONS - 1}"
        if self.aec.is_legal(index):
            return None
        reason = engine.why_illegal(self.aec.game, actions.decode(index))
        return f"action {index} ({actions.name(index)}), which is illegal: {reason}"

    def _aec_step(self, action: int) -> None:
        self.aec.step(action)
        self._reward += self.aec.rewards[self._learner]

    def _play_opponents(self) -> None:
        """Let the opponents act until it is the learner's turn or the episode is over: the
        ``random`` ones inside the kernel (``raw_env.step_drawing``, their own generators, the
        same draws as their ``act``), the others through ``act``."""
        aec = self.aec
        learner = self._learner
        while not (aec.terminations[learner] or aec.truncations[learner]) and aec.agent_selection != learner:
            agent = aec.agent_selection
            seat = aec.agent_seat[agent]
            opponent = self._opponent_at(seat)
            if self._drawing and type(opponent) is RandomAgent:
                if self.aec.drawn_by(seat) is not opponent.rng:
                    self._set_draws()
                self._reward = aec.step_drawing(None, self.learner_seat, self._reward)
                if aec.agent_selection != agent or self._episode_over():
                    continue  # (else the kernel drew nothing, the same agent is to act: act below)
            aec.step(opponent.act(aec.observe(agent)))
            self._reward += aec.rewards[learner]

    def _set_draws(self) -> None:
        """Give the kernel each ``random`` opponent's generator (none to the learner's seat)."""
        self._draw_list = []
        for seat in range(self.aec.num_players):
            opponent = None if seat == self.learner_seat else self._opponent_at(seat)
            rng = opponent.rng if type(opponent) is RandomAgent else None
            self.aec.set_draws(seat, rng)
            if rng is not None:
                self._draw_list.append((opponent, rng))

    def _episode_over(self) -> bool:
        return self.aec.terminations[self._learner] or self.aec.truncations[self._learner]

    # -- what the learner sees -------------------------------------------------------------

    def _outputs(self) -> tuple[np.ndarray | dict[str, np.ndarray], dict[str, Any]]:
        """The learner's observation and info (each array a copy of its own)."""
        if self._done:
            vector = self.aec.observation_vector(self._learner)
            mask = np.zeros(actions.NUM_ACTIONS, dtype=np.int8)
        else:
            vector, mask = self.aec.view(self._learner)
        infos = self.aec.infos[self._learner]
        info = {key: _copy(value) for key, value in infos.items()} if infos else {}
        info["action_mask"] = mask
        info["learner_seat"] = self.learner_seat
        if self.observation_kind == "dict":
            return {"observation": vector, "action_mask": mask.copy()}, info
        return vector, info

    def _learner_mask(self) -> np.ndarray:
        if self._done:
            return np.zeros(actions.NUM_ACTIONS, dtype=np.int8)
        return self.aec.action_mask(self._learner)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array of 497 (for sb3-contrib ``MaskablePPO``)."""
        return self._learner_mask().astype(bool)

    def render(self) -> str | np.ndarray | None:
        """``ansi``: the position as the learner sees it; ``human``: printed; ``rgb_array``: the
        same as an ``H x W x 3`` uint8 picture with the card faces (``RecordVideo`` records it)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (choose 'ansi', 'human' or 'rgb_array').")
            return None
        if self.render_mode == "rgb_array":
            return self.aec.render_image(self.learner_seat)
        text = self.aec.render_seat(self.learner_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text


OPTIONS = keywords_of(KingsCornerEnv.__init__)
"""``KingsCornerEnv``'s keywords (any other is refused naming them)."""


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


__all__ = ["KingsCornerEnv", "ILLEGAL_ACTIONS", "OBSERVATIONS"]
