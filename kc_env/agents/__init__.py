"""Agents behind one interface (``base.Agent``): ``load(spec, seed=None)`` then ``agent.act(obs)``.

Specs are strings; ``SPECS`` maps each known spec to the class that builds it (called with
``seed=``). To add an agent, write its class in its own module and add one line to ``SPECS``.
A path to an exported model will also be a spec once the model loader exists.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import Agent, legal_actions
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
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
    raise ValueError(f"unknown agent spec {spec!r}; known specs: {', '.join(sorted(SPECS))}")


__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "SPECS", "load", "legal_actions"]
