"""``random``: a legal action drawn uniformly from the action mask."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .base import Agent, legal_actions


class RandomAgent(Agent):
    """Picks uniformly among the legal actions, with its own seeded ``numpy`` generator."""

    spec = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed the generator when ``seed`` is given (else keep drawing from it)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """A uniformly random legal action."""
        return int(self.rng.choice(legal_actions(obs)))
