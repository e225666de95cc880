"""The environment RLlib plays: ``kings_corner_v0.raw_env`` wrapped by RLlib's ``PettingZooEnv``.

Every seat is an agent (``player_0`` ...); the ``policy_mapping_fn`` (``league.SeatMapping``)
decides per episode which module plays each seat. The ``raw_env`` is used rather than ``env()``
so that an illegal action raises the engine's ``IllegalMove`` and stops training, instead of
ending the deal with a -1 the learner might learn from: the masked modules never choose one,
and a test proves it. RLlib's env check is turned off for this env (``disable_env_checking``):
it steps the env with unmasked random actions, which are illegal here.

At the end of a deal ``PettingZooEnv.step`` steps every finished seat once more and hands each
its reward, so every seat, whoever acted last, is rewarded at the end of each deal.
``blocked_reward`` (``TrainConfig.blocked_reward``), when set, replaces every seat's reward for
a blocked deal without a winner.
"""

from __future__ import annotations

from typing import Any

from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

from kc_env import kings_corner_v0


class KingsCornerRLlibEnv(PettingZooEnv):
    """RLlib's multi-agent view of one Kings in the Corner game (one deal per episode).
    ``env_config`` keys: ``rules``, ``num_players``, ``reward``, ``max_moves``, ``blocked_reward``."""

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        config = dict(env_config or {})
        self.blocked_reward = config.pop("blocked_reward", None)
        super().__init__(kings_corner_v0.raw_env(**config))

    def step(self, action: dict[str, int]):
        obs, rewards, terminated, truncated, infos = super().step(action)
        if self.blocked_reward is not None:
            for agent in rewards:
                deal = infos.get(agent, {}).get("deal")
                if terminated.get(agent) and deal and deal["blocked"] and deal["winner"] < 0:  # -1: nobody won
                    rewards[agent] = float(self.blocked_reward)
        return obs, rewards, terminated, truncated, infos


def env_config(cfg) -> dict[str, Any]:
    """The ``env_config`` of a ``TrainConfig`` (plain data, shipped to every env runner)."""
    return {"rules": cfg.rules_object().to_dict(), "num_players": cfg.num_players, "reward": cfg.reward,
            "max_moves": cfg.max_moves, "blocked_reward": cfg.blocked_reward}
