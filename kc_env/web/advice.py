"""What an agent thinks of a decision: an exported model's probabilities over the legal moves, or
the move a rule-based agent (the heuristic, greedy, random, search) would make.

``advise(agent, obs)`` reads only the observation of the seat to act, as every agent does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import actions
from ..agents import Agent, PolicyAgent


def advise(agent: Agent, obs: Mapping[str, np.ndarray], top: int = 8) -> dict[str, Any]:
    """``{"spec", "choice", "probabilities"?}``: the move ``agent`` would make in ``obs``, and for
    an exported model its probability of each legal move (the ``top`` likeliest, most likely first;
    ``hidden`` says how many more there are)."""
    out: dict[str, Any] = {"spec": agent.spec}
    if isinstance(agent, PolicyAgent):
        p = agent.network.probabilities(obs["observation"], obs["action_mask"])
        legal = np.flatnonzero(obs["action_mask"])
        ranked = sorted(legal, key=lambda a: (-p[a], a))
        out["choice"] = actions.name(int(ranked[0]))
        out["probabilities"] = [{"name": actions.name(int(a)), "p": round(float(p[a]), 4)} for a in ranked[:top]]
        out["hidden"] = max(0, len(ranked) - top)
        return out
    out["choice"] = actions.name(int(agent.act(obs)))
    return out


__all__ = ["advise"]
