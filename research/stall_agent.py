"""An agent that never plays a card it may keep: it ends its turn whenever the rules let it, else
makes the last legal move (research/experiments.md, 2026-12-07 (afternoon), "stalling"):

    kc benchmark research/stall_agent.py:StallAgent --tasks kc/standard-2p-vs-heuristic-v1

A deal nobody won gives every seat 1/n of it, and the heuristic does not press to go out against a
seat that never plays, so most such deals block: a floor any learned agent's win share should be
read beside (docs/benchmark.md, "How a task is scored").
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from kc_env.actions import END_TURN_ACTION
from kc_env.agents import Agent


class StallAgent(Agent):
    """Ends its turn at once whenever it may."""

    spec = "stall"

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        mask = obs["action_mask"]
        return END_TURN_ACTION if mask[END_TURN_ACTION] else int(np.flatnonzero(mask)[-1])
