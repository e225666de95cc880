"""``from_sb3(model)``: a stable-baselines3 model that a user trained on ``KingsCorner-v0`` (or on
the vector env) as an ``Agent``, so that it plays in tournaments, as an env's opponent and in the
vector env (batched).

```python
from sb3_contrib import MaskablePPO
from kc_env import agents, tournament
model = MaskablePPO.load("my_model.zip")   # or the model you just trained
me = agents.from_sb3(model)                 # act(obs) and act_batch(obs, masks)
```

The model is asked through its own ``predict(observation, action_masks=..., deterministic=...)``
(sb3-contrib's ``MaskablePPO``, or any model whose ``predict`` takes ``action_masks``), on the
seat's observation vector and mask only: the vector alone, or, for a model trained on
``KingsCorner-v0`` made with ``observation="dict"`` (a ``MultiInputPolicy``), the dict of both;
a model whose observation space is neither is refused when made. Nothing here imports stable-baselines3 or torch: the
model brings them. To play a model in ``kc eval`` or ``kc play`` by a spec string, export it as
a model folder (``kc export``) from a ``kc train`` run.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..actions import NUM_ACTIONS
from ..observation import OBS_SIZE
from .base import Agent, legal_actions

DICT_SHAPES = {"observation": (OBS_SIZE,), "action_mask": (NUM_ACTIONS,)}
"""The shapes of ``KingsCorner-v0``'s ``observation="dict"`` space, by key."""


class SB3Agent(Agent):
    """A stable-baselines3 model with masks as an agent (see the module docstring)."""

    spec = "sb3"

    def __init__(self, model: Any, deterministic: bool = True, spec: str | None = None) -> None:
        predict = getattr(model, "predict", None)
        if predict is None or "action_masks" not in inspect.signature(predict).parameters:
            raise TypeError(f"from_sb3 needs a model whose predict takes action_masks (sb3-contrib MaskablePPO), "
                            f"not {type(model).__name__}")
        self.model, self.deterministic = model, deterministic
        self.takes_dict = _takes_dict(model)
        self.spec = spec or f"sb3:{type(model).__name__}"

    def __deepcopy__(self, memo: dict) -> SB3Agent:
        """A copy that shares the model: a tournament copies an agent for each seat, and a model
        just trained holds tensors that torch refuses to deep-copy (non-leaf ones); playing only
        reads the model, and the sampling draws from torch's generator, not from the agent."""
        return SB3Agent(self.model, deterministic=self.deterministic, spec=self.spec)

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        legal_actions(obs)  # a clear error when this seat has nothing to do
        return int(self.act_batch(np.asarray(obs["observation"])[None], np.asarray(obs["action_mask"])[None])[0])

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row (what the vector env calls for batched opponents)."""
        obs, masks = np.asarray(obs, dtype=np.float32), np.asarray(masks)
        seen = {"observation": obs, "action_mask": masks.astype(np.int8)} if self.takes_dict else obs
        actions, _ = self.model.predict(seen, action_masks=masks.astype(bool),
                                        deterministic=self.deterministic)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))


def _shape_of(space: Any) -> Any:
    """A space's shape, or for a ``Dict`` space its parts' shapes by key (None when it has none)."""
    parts = getattr(space, "spaces", None)
    if isinstance(parts, Mapping):
        return {key: _shape_of(part) for key, part in parts.items()}
    return getattr(space, "shape", None)


def _takes_dict(model: Any) -> bool:
    """Whether ``model`` was trained on the ``observation="dict"`` space (else on the vector, or
    it does not say); a one-line ``TypeError`` naming any other observation space."""
    space = getattr(model, "observation_space", None)
    shape = _shape_of(space)
    if space is None or shape == (OBS_SIZE,):
        return False
    if shape == DICT_SHAPES:
        return True
    raise TypeError(f"from_sb3 needs a model trained on KingsCorner-v0's observation, Box({OBS_SIZE},) or "
                    f"observation='dict' {DICT_SHAPES}, not {space}")


def from_sb3(model: Any, deterministic: bool = True) -> SB3Agent:
    """``model`` (a MaskablePPO trained on ``KingsCorner-v0``'s observation, the vector or
    ``observation="dict"``) as an ``Agent``: its most likely legal action (``deterministic``, the
    default) or a sample."""
    return SB3Agent(model, deterministic=deterministic)


__all__ = ["SB3Agent", "from_sb3"]
