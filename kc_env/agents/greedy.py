"""``greedy``: sheds a card whenever it can (``policies.greedy_action``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .base import Agent, legal_actions


class GreedyAgent(Agent):
    """Plays the costliest card it can; with no card play, a pile move that opens a side; else ends
    the turn. Deterministic: the same observation always gives the same action."""

    spec = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is accepted for the common interface; greedy uses no randomness."""
        from . import policies  # compiled on first use, not when kc_env.agents is imported

        self._policy = policies.greedy_action

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The greedy action for this observation."""
        legal_actions(obs)  # refuses a mask with no legal action
        return int(self._policy(vector(obs), mask(obs)))


def vector(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The observation vector as the contiguous float32 array the policies take."""
    return np.ascontiguousarray(obs["observation"], dtype=np.float32)


def mask(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The action mask as the contiguous int8 array the policies take."""
    return np.ascontiguousarray(obs["action_mask"], dtype=np.int8)
