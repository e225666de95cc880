"""``heuristic``: the strongest rule-based player here (``policies.heuristic_action``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .base import Agent, legal_actions
from .greedy import mask, vector


class HeuristicAgent(Agent):
    """Searches the rest of its turn and scores where it may stop (see ``policies``).

    ``weights`` replaces ``policies.HEURISTIC_WEIGHTS`` (same order, ``policies.WEIGHT_NAMES``),
    for tuning. Deterministic: the same observation always gives the same action.
    """

    spec = "heuristic"

    def __init__(self, seed: int | None = None, weights: Sequence[float] | None = None) -> None:
        from . import policies  # compiled on first use, not when kc_env.agents is imported

        self._policy = policies.heuristic_action_w
        default = policies.HEURISTIC_WEIGHTS
        self.weights = np.array(default if weights is None else weights, dtype=np.float64)
        if self.weights.shape != default.shape:
            raise ValueError(f"the heuristic takes {default.size} weights "
                             f"({', '.join(policies.WEIGHT_NAMES)}), not {self.weights.size}")

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The heuristic's action for this observation."""
        legal_actions(obs)  # refuses a mask with no legal action
        return int(self._policy(vector(obs), mask(obs), self.weights))
