"""The opponent pool of a self-play league: rule-based agents plus frozen snapshots of the learner.

Each game of the vector env draws its opponents from the pool when a deal ends: a fixed agent
by its weight, or, once snapshots exist, a snapshot with probability ``snapshot_weight`` (the
newest ``max_snapshots`` are kept, drawn evenly). A snapshot is an exported policy folder
(``kc_env.agents.policy_model``) played by numpy, sampling from its action distribution.
The pool's state (snapshot folders, random generator) is saved with every checkpoint.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from kc_env.agents import RULE_BASED
from kc_env.agents import load as load_agent
from kc_env.agents.policy_model import PolicyAgent

from .config import LeagueSettings


class League:
    """Who the learner plays: ``draw()`` gives one opponent (an agent spec or a snapshot agent)."""

    def __init__(self, settings: LeagueSettings, seed: int) -> None:
        self.settings = settings
        self.rng = random.Random(seed)
        self.snapshots: list[str] = []
        self._agents: dict[str, Any] = {}
        specs = list(settings.agents)
        for spec in specs:
            self._agents[spec] = spec if spec in RULE_BASED else load_agent(spec, seed=seed)
        self._specs, self._weights = specs, [settings.agents[s] for s in specs]

    def add_snapshot(self, folder: str | Path) -> None:
        """Add an exported policy to the pool (dropping the oldest beyond ``max_snapshots``)."""
        folder = str(folder)
        self._agents[folder] = PolicyAgent(folder, seed=self.rng.randrange(2**31), deterministic=False)
        self.snapshots.append(folder)
        while len(self.snapshots) > self.settings.max_snapshots:
            self._agents.pop(self.snapshots.pop(0), None)

    def draw(self) -> Any:
        """One opponent: a rule-based spec string, or a snapshot agent (with ``act_batch``)."""
        if self.snapshots and self.rng.random() < self.settings.snapshot_weight:
            return self._agents[self.rng.choice(self.snapshots)]
        return self._agents[self.rng.choices(self._specs, weights=self._weights)[0]]

    def name(self, opponent: Any) -> str:
        """A short label of an opponent drawn from the pool (for logs)."""
        return opponent if isinstance(opponent, str) else f"snapshot:{Path(opponent.spec).name}"

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps of the pool."""
        return {"snapshots": list(self.snapshots), "rng": _encode_rng(self.rng.getstate())}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore the pool saved by ``state_dict`` (snapshot folders must still exist)."""
        for folder in state["snapshots"]:
            self.add_snapshot(folder)
        self.rng.setstate(_decode_rng(state["rng"]))

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.state_dict()))


def _encode_rng(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _decode_rng(data: list) -> tuple:
    version, internal, gauss = data
    return version, tuple(internal), gauss
