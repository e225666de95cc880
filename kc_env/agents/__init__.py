"""Agents behind one interface (``base.Agent``): ``load(spec, seed=None)`` then ``agent.act(obs)``.

Specs are strings; ``SPECS`` maps each known spec to the class that builds it (called with
``seed=``). To add an agent, write its class in its own module and add one line to ``SPECS``.
``heuristic:name=value,...`` is the heuristic with some evaluation weights set
(``heuristic.spec_weights``). Any other spec that names a folder is loaded as an exported model
(``policy_model``).
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent, legal_actions
from .greedy import GreedyAgent
from .heuristic import WEIGHTED, HeuristicAgent
from .policy_model import ModelError, PolicyAgent, is_model_folder
from .random_agent import RandomAgent

SPECS: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
}
"""Every known agent spec and what builds it: ``SPECS[spec](seed=seed)``."""


def load(spec: str | Agent, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` (an ``Agent`` is returned as it is).

    Raises ``ValueError`` naming the known specs when ``spec`` is not one of them.
    """
    if isinstance(spec, Agent):
        return spec
    if isinstance(spec, str) and spec in SPECS:
        return SPECS[spec](seed=seed)
    if isinstance(spec, str) and spec.startswith(WEIGHTED):
        return HeuristicAgent.from_spec(spec, seed=seed)
    if isinstance(spec, str) and is_model_folder(spec):
        return PolicyAgent(spec, seed=seed)
    raise ValueError(f"unknown agent spec {spec!r}; known specs: {', '.join(sorted(SPECS))}, "
                     "heuristic:name=value,... (the heuristic with evaluation weights set), "
                     "or the folder of an exported model")


__all__ = ["PolicyAgent", "ModelError", "Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "SPECS", "load", "legal_actions"]
