"""A probe of the one choice behind the random legs (issue 35, items 2 and 3;
research/experiments.md, "2026-12-07 (night, second session): never holding back once the stock is empty").

``PlayOn`` plays a model (``KC_PLAYON_MODEL``, a model folder or a shipped name; default
``models/turn-ppo-2p``), except that once the stock is empty, where the model would end its turn
while a card play is legal, it plays greedy's move instead: the seat sheds cards until none fits,
never holding back to block. ``Plain`` plays the model as it is, through the same wrapper.

    kc eval research/play_on.py:PlayOn random --deals 2000 --seed 9300 --workers 2
    kc eval research/play_on.py:Plain heuristic --deals 2000 --seed 9300 --workers 2
    KC_PLAYON_MODEL=/tmp/start kc eval research/play_on.py:PlayOn random --deals 2000 --seed 9300

(the untrained start of ``configs/default.yaml``, a network of zeros, is written by
``turn_ppo.train._save_model(cfg, Path("/tmp/start"), train._networks(cfg, Path("/tmp/x"), 0)[0], [])``).
"""

from __future__ import annotations

import os

from kc_env.actions import END_TURN_ACTION, MOVE_OFFSET
from kc_env.agents import load
from kc_env.agents.base import Agent
from kc_env.observation import SLICES

STOCK = SLICES["stock_size"].start
MODEL = os.environ.get("KC_PLAYON_MODEL", "models/turn-ppo-2p")


class Plain(Agent):
    """The model as it plays."""

    spec = "plain"

    def __init__(self, seed: int | None = None) -> None:
        self.inner, self.greedy = load(MODEL, seed=seed), load("greedy")

    def reset(self, seed: int | None = None) -> None:
        self.inner.reset(seed)
        self.greedy.reset(seed)

    def act(self, obs) -> int:
        return self.inner.act(obs)


class PlayOn(Plain):
    """The model, but greedy's move where it would end a turn with a card play open, stock empty."""

    spec = "playon"

    def act(self, obs) -> int:
        action = self.inner.act(obs)
        if action == END_TURN_ACTION and obs["observation"][STOCK] == 0 and obs["action_mask"][:MOVE_OFFSET].any():
            return self.greedy.act(obs)
        return action
