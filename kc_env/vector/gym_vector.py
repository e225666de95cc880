"""``KingsCornerVectorEnv``: the fast vector env (``LearnerGames``) as a Gymnasium 1.x
``gymnasium.vector.VectorEnv``, for CleanRL-style scripts and libraries that speak Gymnasium's
vector API rather than SB3's (``KingsCornerVecEnv`` is the same games for SB3).

```python
import gymnasium
import kc_env  # registers KingsCorner-v0, with this class as its vector entry point

envs = gymnasium.make_vec("KingsCorner-v0", num_envs=256, vectorization_mode="vector_entry_point",
                          opponents="heuristic")
obs, info = envs.reset(seed=0)                     # obs float32 [256, 1599]
masks = info["action_mask"]                        # int8 [256, 497], the learners' legal actions
obs, rewards, terminations, truncations, info = envs.step(actions)
```

- The games, rules, opponents, rewards and seeds are ``LearnerGames``' (every keyword but
  ``num_envs`` goes to it: ``rules``, ``num_players``, ``opponents``, ``learner_seat``, ``reward``,
  ``max_moves``, ``dealer``, ``illegal_action``, ``record``); ``reset(seed=s)`` seeds game ``i``
  with ``s + i``. One episode is one deal (``episode="deal"``; a match is refused).
- Spaces: ``single_observation_space`` ``Box(1599,)`` float32, ``single_action_space``
  ``Discrete(497)``; ``observation_space`` and ``action_space`` are their batches (a
  ``MultiDiscrete`` of actions).
- Masks in ``info``: ``info["action_mask"]`` (int8 ``[num_envs, 497]``, with ``info["_action_mask"]``
  all True) after every ``reset`` and ``step``, for the observation just returned; also
  ``action_masks()`` (bool).
- Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``, as Gymnasium 1.x defines
  it: a game whose episode ends in a step is dealt again within that step, so the observation (and
  mask) returned is the new deal's first; the ended episode's last observation is
  ``info["final_obs"][i]`` and its info ``info["final_info"]`` (``episode``: ``r``, ``l``, ``t``;
  ``deal``: ``seed``, ``winner`` (-1: nobody), ...; ``illegal_action``), each with its ``_``-prefixed mask of the
  games that ended. ``terminations`` are deals played out (or ended by an illegal action),
  ``truncations`` deals cut off after ``max_moves`` moves.
- The learner's illegal actions: as ``LearnerGames`` (``illegal_action="terminate"``: the
  episode ends with -1; ``"raise"``: ``IllegalMove`` before any game moves).

Needs only the base install (numba, Gymnasium): no RL library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .learner_games import LearnerGames, refuse_reset_options, vector_keywords

CALLED = "KingsCornerVectorEnv (gymnasium.make_vec('KingsCorner-v0'))"
"""How its errors name this env: the class, and how it is usually made."""
INFO_KEYS = ("episode", "deal", "illegal_action", "opponent_illegal_action")


class KingsCornerVectorEnv(VectorEnv):
    """``num_envs`` games of ``KingsCorner-v0`` as a Gymnasium ``VectorEnv`` (see the module
    docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 256, **kwargs: Any) -> None:
        """``num_envs`` games; every other keyword is ``LearnerGames``' (``learner_games.vector_keywords``)."""
        self.env = LearnerGames(num_envs, **vector_keywords(CALLED, kwargs))
        self.num_envs = num_envs = self.env.num_envs  # an int, however it was given
        self.single_observation_space = self.env.observation_space
        self.single_action_space = self.env.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._all_true = np.ones(num_envs, dtype=bool)

    def reset(self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new episode in every game (``seed``: game ``i`` gets ``seed + i``; or, as
        Gymnasium's vector envs take it, one seed per game, ``None`` where a game's generator goes on)."""
        refuse_reset_options(options)
        super().reset(seed=int(seed) if isinstance(seed, (int, np.integer)) else None)
        obs = self.env.reset(seed)
        return obs, self._mask_info()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one action per game; ended games are dealt again in the same step."""
        obs, rewards, dones, step_infos = self.env.step(actions)
        truncations = np.zeros(self.num_envs, dtype=bool)
        infos = self._mask_info()
        for i in np.flatnonzero(dones).tolist():
            info = step_infos[i]
            truncations[i] = info["TimeLimit.truncated"]
            final = {key: info[key] for key in INFO_KEYS if key in info}
            infos = self._add_info(infos, {"final_obs": info["terminal_observation"], "final_info": final}, i)
        return obs, rewards, dones & ~truncations, truncations, infos

    def _mask_info(self) -> dict[str, Any]:
        return {"action_mask": self.env.action_masks().astype(np.int8), "_action_mask": self._all_true.copy()}

    def action_masks(self) -> np.ndarray:
        """bool ``[num_envs, 497]``: each game's legal actions for the learner."""
        return self.env.action_masks()

    def close_extras(self, **kwargs: Any) -> None:
        if hasattr(self, "env"):  # not when the constructor refused its options
            self.env.close()


__all__ = ["KingsCornerVectorEnv"]
