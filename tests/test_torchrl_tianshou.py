"""TorchRL and Tianshou over kc_env's envs (issue 34 item 4, issue 36 items 4 and 5), each where
its extra is installed (``kc_env[torchrl]``, ``kc_env[tianshou]``; ``make install`` has both).

TorchRL's ``GymEnv`` reads the mask from the observation: ``KingsCorner-v0`` with
``observation="dict"`` and TorchRL's ``ActionMask`` plays whole deals of legal moves (the
env raises on an illegal one here). Tianshou's ``Collector`` stores every step's infos in its
replay buffer: it crashed when a deal nobody won said ``winner=None``; one buffer here takes won,
blocked and cut-off deals."""

from __future__ import annotations

import numpy as np
import pytest

import kc_env  # noqa: F401  (registers KingsCorner-v0)
from kc_env import kings_corner_v0


def test_torchrl_gym_env_plays_whole_deals_of_legal_moves_with_the_dict_observation():
    envs = pytest.importorskip("torchrl.envs")
    from torchrl.envs.utils import check_env_specs

    env = envs.TransformedEnv(envs.GymEnv("KingsCorner-v0", observation="dict", illegal_action="raise",
                                          categorical_action_encoding=True), envs.ActionMask())
    assert set(env.observation_spec.keys()) >= {"observation", "action_mask"}
    check_env_specs(env)
    env.set_seed(0)
    for _ in range(3):
        rollout = env.rollout(2000)  # stops at the end of the deal; an illegal action would raise
        assert rollout.batch_size[0] > 5 and rollout["next", "done"][-1].item()
        assert not rollout["next", "done"][:-1].any()


def test_torchrl_pettingzoo_wrapper_with_masks():
    pytest.importorskip("torchrl.envs")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(kings_corner_v0.env(max_moves=60), use_mask=True)
    check_env_specs(env)
    rollout = env.rollout(200)
    assert rollout.batch_size[0] > 1


def _pettingzoo_collector(makers):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    env = PettingZooEnv(makers[0]())
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space) for _ in env.agents]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)
    venv = DummyVectorEnv([lambda make=make: PettingZooEnv(make()) for make in makers])
    venv.seed(0)
    return Collector(algorithm.policy, venv, VectorReplayBuffer(20_000, len(makers)))


def test_tianshou_collector_stores_won_blocked_and_cut_off_deals_in_one_buffer():
    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    collector = _pettingzoo_collector([lambda: kings_corner_v0.env(max_moves=40), kings_corner_v0.env])
    stats = collector.collect(n_episode=6, reset_before_collect=True)
    assert stats.n_collected_episodes >= 6
    deal = collector.buffer.info.deal
    ended = deal.truncated | deal.blocked | (deal.winner >= 0)  # the steps that ended a deal
    winners = deal.winner[ended]
    assert (winners == -1).any() and (winners >= 0).any() and deal.truncated.any()
    assert deal.penalties.shape[1:] == (2,) and deal.winner.dtype.kind == "i"


def test_tianshou_collector_over_the_gymnasium_env_and_a_match():
    pytest.importorskip("tianshou")
    import gymnasium
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.data import Batch, Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    class MaskedRandom(Policy):
        def forward(self, batch, state=None, **kwargs):
            legal = batch.obs.action_mask.astype(bool)
            return Batch(act=np.where(legal, np.random.rand(*legal.shape), -1.0).argmax(axis=-1))

    def make(**kwargs):
        return lambda: gymnasium.make("KingsCorner-v0", observation="dict", illegal_action="raise", **kwargs)

    np.random.seed(0)
    venv = DummyVectorEnv([make(), make(max_moves=40), make(episode="match", max_deals=2)])
    policy = MaskedRandom(action_space=venv.action_space[0], observation_space=venv.observation_space[0])
    stats = Collector(policy, venv, VectorReplayBuffer(20_000, 3)).collect(n_episode=6, reset_before_collect=True)
    assert stats.n_collected_episodes >= 6
