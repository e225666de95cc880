"""Fast evaluation of a policy network during training, on the vector env.

``evaluate_network`` plays ``deals`` deals of the (numpy) policy against one opponent spec in
every other seat, the learner's seat drawn per deal, and returns the win rate with its Wilson
95% interval, and its win share (a deal nobody won counts 1/n for every seat). It is the learning-curve measure; the published figures come from ``kc eval``
(``kc_env.tournament``), which rotates seats exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kc_env.agents.policy_model import PolicyNetwork
from kc_env.match import NO_WINNER, win_share
from kc_env.tournament import wilson

from .vec import vector_env


def evaluate_network(network: PolicyNetwork, rules, num_players: int, opponent: str, deals: int = 1000,
                     seed: int = 0, batch: int = 256) -> dict[str, Any]:
    """Win rate of ``network`` (argmax over legal actions) against ``opponent`` in every other seat."""
    env = vector_env(min(batch, deals), rules=rules, num_players=num_players,
                            opponents=[opponent] * (num_players - 1), seed=seed, illegal_action="raise")
    obs = env.reset()
    wins = blocked = finished = 0
    share = 0.0
    started = env.num_envs  # each game starts a deal; stop starting new ones beyond ``deals``
    active = np.ones(env.num_envs, dtype=bool)
    while active.any():
        masks = env.action_masks()
        logits = np.where(masks, network.logits(obs, masks), -np.inf)
        obs, _, dones, infos = env.step(logits.argmax(axis=1))
        for i in np.flatnonzero(dones & active):
            deal = infos[i]["deal"]
            finished += 1
            wins += deal["winner"] == deal["learner_seat"]
            share += win_share(deal["learner_seat"], () if deal["winner"] == NO_WINNER else (deal["winner"],), num_players)
            blocked += bool(deal["blocked"])
            if started < deals:
                started += 1  # this game's next deal counts too
            else:
                active[i] = False
    env.close()
    low, high = wilson(wins, finished)
    return {"opponent": opponent, "deals": finished, "wins": int(wins), "win_rate": wins / finished,
            "interval": [low, high], "win_share": share / finished, "share_interval": list(wilson(share, finished)), "blocked_share": blocked / finished, "num_players": num_players}
