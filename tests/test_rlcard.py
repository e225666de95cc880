"""RLCard's PettingZoo path drives Kings in the Corner (``kc_env.rlcard``): its DQN, through
``wrap_state``, learns from whole deals, and its loops finish deals cut off at ``max_moves``."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("rlcard")
torch = pytest.importorskip("torch")

from rlcard.agents.pettingzoo_agents import DQNAgentPettingZoo, RandomAgentPettingZoo  # noqa: E402
from rlcard.utils.pettingzoo_utils import reorganize_pettingzoo, run_game_pettingzoo  # noqa: E402
from test_docs import run  # noqa: E402

from kc_env import kings_corner_v0, rlcard  # noqa: E402
from kc_env.game_info import GAME_INFO  # noqa: E402


def randoms(env) -> dict:
    return {agent: RandomAgentPettingZoo(num_actions=GAME_INFO.num_distinct_actions) for agent in env.possible_agents}


def test_rlcards_dqn_learns_from_whole_deals():
    torch.manual_seed(0)
    env = rlcard.env(rules="standard", num_players=2)
    env.reset(seed=0)
    learner = DQNAgentPettingZoo(num_actions=GAME_INFO.num_distinct_actions, state_shape=[GAME_INFO.observation_size],
                                 mlp_layers=[32], replay_memory_init_size=20, batch_size=8, train_every=4,
                                 device=torch.device("cpu"))
    agents = randoms(env) | {"player_0": learner}
    for _ in range(2):
        transitions = reorganize_pettingzoo(run_game_pettingzoo(env, agents, is_training=True))["player_0"]
        for transition in transitions:
            learner.feed(transition)
        assert transitions[-1][4] and transitions[-1][2] in (-1.0, 0.0, 1.0)
    assert learner.total_t > learner.replay_memory_init_size
    env.reset(seed=1)
    obs, *_ = env.last()
    assert obs["action_mask"][learner.eval_step(obs)[0]]


def test_rlcards_loop_finishes_a_deal_cut_off():
    """Every deal is cut off after 10 moves: the raw env fails RLCard's loop, the adapter ends it."""
    raw = kings_corner_v0.env(rules="standard", num_players=2, max_moves=10)
    raw.reset(seed=0)
    with pytest.raises(ValueError):
        run_game_pettingzoo(raw, randoms(raw))
    env = rlcard.env(rules="standard", num_players=2, max_moves=10)
    env.reset(seed=0)
    trajectories = run_game_pettingzoo(env, randoms(env))
    assert all(trajectory[-1] is None for trajectory in trajectories.values())
    assert all(env.truncations.values())


def test_the_modules_example_runs():
    for code in re.findall(r"```python\n(.*?)```", rlcard.__doc__, re.S):
        run(code)
