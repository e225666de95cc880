"""The vector env as the learner sees it in training: wrappers around ``KingsCornerVecEnv``.

- ``BlockedReward``: the learner's reward for a blocked deal nobody won (``blocked_reward``).
- ``PriorAction``: the prior agent's chosen move appended to every observation (and, for a
  privileged critic, the cards the seat cannot see), for ``training/sb3/policy.PriorPolicy``.

(``training/sb3/rollouts.RolloutReward`` replaces the reward by play-out differences.)
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from kc_env.agents.batch import rule_based
from kc_env.match import NO_WINNER
from kc_env.vector import KingsCornerVecEnv


class BlockedReward(VecEnvWrapper):
    """Gives the learner ``reward`` for a deal that ended blocked with no winner."""

    def __init__(self, venv: VecEnv, reward: float) -> None:
        super().__init__(venv)
        self.reward = reward

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones):
            deal = infos[i].get("deal", {})
            if deal.get("blocked") and deal.get("winner") == NO_WINNER:
                rewards[i] = self.reward
        return obs, rewards, dones, infos


class PriorAction(VecEnvWrapper):
    """Appends to every observation the columns ``PriorPolicy`` (``training/sb3/policy.py``) reads
    beyond the seat's own view: the prior agent's chosen action (its index, as a float), then,
    with ``privileged``, what only the critic may see (``privileged_features``). A heuristic prior
    plays with its evaluation ``weights`` when given (``training/sb3/tune.py``)."""

    def __init__(self, venv: VecEnv, prior: str, privileged: bool = False, weights=None) -> None:
        base = venv.unwrapped
        self.extra = privileged_size(base.num_players) if privileged else 0
        low = np.concatenate([venv.observation_space.low, [0.0], np.zeros(self.extra)]).astype(np.float32)
        high = np.concatenate([venv.observation_space.high, [venv.action_space.n - 1], np.ones(self.extra)])
        super().__init__(venv, observation_space=spaces.Box(low, high.astype(np.float32), dtype=np.float32))
        self.act = rule_based(prior, weights)
        self.base = base

    def _with_columns(self, obs: np.ndarray) -> np.ndarray:
        chosen = self.act(obs, self.action_masks().astype(np.int8))
        columns = [obs, chosen[:, None].astype(np.float32)]
        if self.extra:
            columns.append(privileged_features(self.base))
        return np.concatenate(columns, axis=1)

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()

    def reset(self) -> np.ndarray:
        return self._with_columns(self.venv.reset())

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones):  # SB3 bootstraps a cut-off deal's value from this one
            last = infos[i].get("terminal_observation")
            if last is not None:  # its mask and hidden cards are gone: end turn, nothing seen
                infos[i]["terminal_observation"] = np.concatenate(
                    [last, [float(self.action_space.n - 1)], np.zeros(self.extra)]).astype(np.float32)
        return self._with_columns(obs), rewards, dones, infos


STOCK_AHEAD = 8
"""How many of the next stock cards the privileged critic sees."""


def privileged_size(num_players: int) -> int:
    """Width of ``privileged_features``."""
    return (num_players - 1) * 54 + STOCK_AHEAD * 54


def privileged_features(env: KingsCornerVecEnv) -> np.ndarray:
    """What the learner cannot see, for the critic only (asymmetric actor-critic): every other
    seat's hand (from the learner's left) and the next ``STOCK_AHEAD`` stock cards, one-hot over
    the 54 card ids. The actor never reads these columns; the exported policy does not have them."""
    game, n = env.game, env.num_players
    rows = np.arange(env.num_envs)
    learner = env.learner_seats()
    bits = np.arange(54, dtype=np.int64)
    hands = [((game.hands[rows, (learner + j) % n][:, None] >> bits) & 1) for j in range(1, n)]
    length = game.stock_sizes(rows)
    ahead = []
    for k in range(STOCK_AHEAD):
        pos = length - 1 - k
        card = game.stock[rows, np.maximum(pos, 0)].astype(np.int64)
        onehot = np.zeros((env.num_envs, 54), dtype=np.int64)
        onehot[rows, card] = 1
        onehot[pos < 0] = 0
        ahead.append(onehot)
    return np.concatenate(hands + ahead, axis=1).astype(np.float32)
