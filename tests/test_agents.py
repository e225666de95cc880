"""The agent interface (kc_env.agents): load by spec, legal actions only, seeded."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import agents
from kc_env import kings_corner_v0 as kc


def test_unknown_spec_names_the_known_ones():
    with pytest.raises(ValueError, match="known specs: greedy, heuristic, random, or the folder of an exported model"):
        agents.load("grandmaster")


def test_load_returns_an_agent_object_unchanged():
    agent = agents.load("random", seed=1)
    assert agents.load(agent) is agent and agent.spec == "random"


def test_random_agent_plays_only_legal_actions_and_is_seeded():
    aec = kc.raw_env(num_players=3)
    picks = []
    for _ in range(2):
        players = {a: agents.load("random", seed=i) for i, a in enumerate(aec.possible_agents)}
        aec.reset(seed=9)
        chosen = []
        for agent in aec.agent_iter():
            ob, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            action = players[agent].act(ob)
            assert isinstance(action, int) and ob["action_mask"][action] == 1
            chosen.append(action)
            aec.step(action)
        picks.append(chosen)
    assert picks[0] == picks[1]


def test_random_agent_refuses_an_empty_mask():
    with pytest.raises(ValueError, match="no legal action"):
        agents.load("random").act({"observation": np.zeros(1584, np.float32), "action_mask": np.zeros(497, np.int8)})
