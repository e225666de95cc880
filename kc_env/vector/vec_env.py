"""``KingsCornerVecEnv``: the fast vector env (``LearnerGames``) as a stable-baselines3 ``VecEnv``,
with action masks that sb3-contrib's ``MaskablePPO`` uses directly.

```python
from sb3_contrib import MaskablePPO
from kc_env.vector import KingsCornerVecEnv
env = KingsCornerVecEnv(256, rules="pagat", num_players=3, opponents=["random", "greedy"], seed=0)
model = MaskablePPO("MlpPolicy", env, n_steps=64).learn(100_000)
```

The games, keywords, observations, rewards, infos, opponents and errors are ``LearnerGames``'
(``learner_games.py``); this class adds SB3's protocol and nothing else:

- ``reset()`` deals with the seeds that ``seed(s)`` set (game ``i`` gets ``s + i``), once, as
  SB3 does; ``step`` is ``step_async`` then ``step_wait`` (the wrappers call them apart).
- ``env_method("action_masks")`` gives each game's mask row (what ``MaskablePPO`` calls);
  ``get_attr``, ``set_attr`` and other ``env_method`` calls reach the one object every game shares.

It *is* an SB3 ``VecEnv`` (a subclass of both), because SB3 and sb3-contrib test
``isinstance(env, VecEnv)`` to decide whether to wrap an env and how to fetch its masks; any other
class would be wrapped in a ``DummyVecEnv`` as if it were one game. A subclass costs no call per
step. Needs stable-baselines3 (the ``train`` extra): only this module imports it, and
``kc_env.vector`` imports this module only when ``KingsCornerVecEnv`` is asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvStepReturn

from .learner_games import LearnerGames, refuse_reset_options, vector_keywords, whole_actions


class KingsCornerVecEnv(LearnerGames, VecEnv):
    """``LearnerGames`` as an SB3 ``VecEnv`` (see the module docstring); every keyword is
    ``LearnerGames``' (``KingsCorner-v0``'s ``episode``, ``render_mode`` and ``observation`` are
    refused saying why, as ``gymnasium.make_vec`` refuses them: ``learner_games.vector_keywords``)."""

    def __init__(self, num_envs: int = 256, **kwargs: Any) -> None:
        LearnerGames.__init__(self, num_envs, **vector_keywords("KingsCornerVecEnv", kwargs))
        VecEnv.__init__(self, self.num_envs, self.observation_space, self.action_space)  # an int, however given
        self._pending: Any = None  # the actions of step_async, until step_wait

    def reset(self) -> np.ndarray:
        """Deal a new episode in every game (with the seeds ``seed`` set, once)."""
        seeds = self._seeds
        self._reset_seeds()
        self._reset_options()
        return LearnerGames.reset(self, seeds)

    def set_options(self, options: list[dict] | dict | None = None) -> None:
        """SB3's options for the next ``reset``: the vector env takes none, so only ``None`` or
        empty ones (``learner_games.refuse_reset_options``: anything else is refused here, not
        dropped at the reset)."""
        refuse_reset_options(options)
        VecEnv.set_options(self, options)

    def step_async(self, actions: np.ndarray) -> None:
        self._pending = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._pending is None:
            raise RuntimeError("call reset() and step_async(actions) before step_wait()")
        actions, self._pending = self._pending, None
        return LearnerGames.step(self, actions)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The attribute of this env, once per game (the games share one object)."""
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of this env (shared by every game)."""
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """``action_masks``: the mask row of each game (as ``MaskablePPO`` calls it); another
        method of this class is called once and its answer given to every game."""
        rows = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._indices(indices))


__all__ = ["KingsCornerVecEnv", "whole_actions"]
