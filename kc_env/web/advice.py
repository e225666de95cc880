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
from .views import move_text


def advise(agent: Agent, obs: Mapping[str, np.ndarray], top: int = 8) -> dict[str, Any]:
    """``{"spec", "choice", "choice_text", "probabilities"?}``: the move ``agent`` would make in
    ``obs`` (its name, and its text as the page writes it: ``views.move_text``), and for an
    exported model its probability of each legal move (the ``top`` likeliest, most likely first;
    ``hidden`` says how many more there are)."""
    out: dict[str, Any] = {"spec": agent.spec}
    if isinstance(agent, PolicyAgent):
        p = agent.network.probabilities(obs["observation"], obs["action_mask"])
        legal = np.flatnonzero(obs["action_mask"])
        ranked = sorted(legal, key=lambda a: (-p[a], a))
        out |= _choice(int(ranked[0]))
        out["probabilities"] = [{"name": actions.name(int(a)), "text": move_text(actions.decode(int(a))),
                                 "p": round(float(p[a]), 4)} for a in ranked[:top]]
        out["hidden"] = max(0, len(ranked) - top)
        return out
    return out | _choice(int(agent.act(obs)))


def _choice(action: int) -> dict[str, str]:
    return {"choice": actions.name(action), "choice_text": move_text(actions.decode(action))}


__all__ = ["advise"]
