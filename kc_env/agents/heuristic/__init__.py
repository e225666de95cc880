"""``heuristic``: the strongest rule-based player here. It searches the rest of its own turn on
the vector kernel (``search``) and ends it where its evaluation (``evaluation``) scores best, with
the weights of ``weights``.

``heuristic:name=value,...`` is the heuristic with some evaluation weights set (names of
``weights.WEIGHT_NAMES``, the rest as shipped), e.g. ``heuristic:fit_close=0.375,card=1.1``, the
prior of ``models/ppo-standard-2p``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..base import Agent, legal_actions, spec_number, spec_parts
from ..greedy import mask, vector
from .weights import FOR_POINTS, HEURISTIC_WEIGHTS, WEIGHT_NAMES, evaluation_weights

WEIGHTED = "heuristic:"
"""The prefix of a heuristic spec with evaluation weights."""


def spec_weights(spec: str) -> dict[str, float]:
    """The weights of a ``heuristic:name=value,...`` spec, by name; refuses a part that is not
    ``name=value`` with a number, or a name given twice (unknown names are refused by
    ``weights.evaluation_weights``)."""
    form = "name=number (e.g. heuristic:fit_close=0.375,card=1.1)"
    return {name: spec_number(spec, name, value) for name, value in spec_parts(spec, WEIGHTED, "weight", form).items()}


class HeuristicAgent(Agent):
    """Searches the rest of its turn and scores where it may stop (see ``search``).

    ``weights`` replaces ``HEURISTIC_WEIGHTS`` (same order, ``WEIGHT_NAMES``),
    for tuning. Deterministic: the same observation always gives the same action. Told to play
    for points (``play_for``), it takes the weights of ``weights.FOR_POINTS`` but those named in
    ``kept`` (a spec's own weights).
    """

    spec = "heuristic"

    def __init__(self, seed: int | None = None, weights: Sequence[float] | None = None,
                 kept: Sequence[str] = ()) -> None:
        from .search import heuristic_action_w  # compiled on first use, not when kc_env.agents is imported

        self._policy = heuristic_action_w
        self.weights = np.array(HEURISTIC_WEIGHTS if weights is None else weights, dtype=np.float64)
        if self.weights.shape != HEURISTIC_WEIGHTS.shape:
            raise ValueError(f"the heuristic takes {HEURISTIC_WEIGHTS.size} weights "
                             f"({', '.join(WEIGHT_NAMES)}), not {self.weights.size}")
        self._for_win_share = self.weights.copy()
        self._kept = tuple(kept)  # weights its spec sets, which play_for leaves alone

    def play_for(self, objective: str) -> None:
        """Plays for ``objective`` from now on (``base.OBJECTIVES``)."""
        super().play_for(objective)
        self.weights = self._for_win_share.copy()
        if objective == "points":
            for name, value in FOR_POINTS.items():
                if name not in self._kept:
                    self.weights[WEIGHT_NAMES.index(name)] = value

    @classmethod
    def from_spec(cls, spec: str, seed: int | None = None) -> HeuristicAgent:
        """The agent of a ``heuristic:name=value,...`` spec (``spec`` is kept as its name)."""
        parsed = spec_weights(spec)
        try:
            weights = evaluation_weights(parsed)
        except ValueError as exc:
            raise ValueError(f"agent spec {spec!r}: {exc}") from None
        agent = cls(seed=seed, weights=weights, kept=tuple(parsed))
        agent.spec = spec
        return agent

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The heuristic's action for this observation."""
        legal_actions(obs)  # refuses a mask with no legal action
        return int(self._policy(vector(obs), mask(obs), self.weights))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for a batch of observation vectors and masks (compiled, all cores): how the
        vector env plays a weighted heuristic."""
        from .search import weighted_heuristic

        return weighted_heuristic(self.weights[None, :])(obs, masks)
