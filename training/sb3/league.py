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
from kc_env.files import write_atomic

from ..config import LeagueSettings


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

    def agents(self) -> list[Any]:
        """Every opponent of the pool: spec strings and loaded agents (snapshots among them)."""
        return list(self._agents.values())

    def name_in_checkpoint(self, opponent: Any, root: Path | None = None) -> str:
        """The name a checkpoint keeps for ``opponent``, drawn from this pool: its spec, or its
        folder relative to ``root`` (a snapshot dropped from the pool sits on until its deal ends)."""
        if isinstance(opponent, str):
            return opponent
        for key, agent in self._agents.items():
            if agent is opponent:
                return _relative(key, root)
        return _relative(str(opponent.folder), root)

    def opponent_named(self, name: str, root: Path | None, found: dict[str, Any]) -> Any:
        """The opponent ``name_in_checkpoint`` named: the pool's own, or a snapshot loaded again
        (one per name: ``found`` keeps those made)."""
        if name not in found:
            path = str(root / name) if root is not None else name
            pooled = self._agents.get(name, self._agents.get(path))
            if pooled is not None or name in RULE_BASED:
                found[name] = pooled if pooled is not None else name
            else:
                if root is not None and ".." in Path(name).parts:
                    raise ValueError(f"opponent {name!r} leaves the run folder")
                found[name] = PolicyAgent(path, deterministic=False)
        return found[name]

    def state_dict(self, root: Path | None = None) -> dict[str, Any]:
        """What a checkpoint keeps of the pool; snapshot folders relative to ``root`` (the run
        folder), so a run folder moved or copied resumes with its own snapshots."""
        return {"snapshots": [_relative(s, root) for s in self.snapshots], "rng": _encode_rng(self.rng.getstate())}

    def load_state_dict(self, state: Any, root: Path | None = None) -> None:
        """Restore the pool saved by ``state_dict`` (snapshot folders under ``root`` must still
        exist). A malformed state raises ``ValueError`` and leaves the pool as it was."""
        folders, rng = check_state(state, root)
        before = list(self.snapshots), dict(self._agents)
        try:
            for folder in folders:
                self.add_snapshot(folder)
        except Exception:
            self.snapshots, self._agents = before
            raise
        self.rng.setstate(rng)

    def save(self, path: Path, root: Path | None = None) -> None:
        write_atomic(path, json.dumps(self.state_dict(root)))


def check_state(state: Any, root: Path | None = None) -> tuple[list[Path], tuple]:
    """The snapshot folders and random-generator state of a saved pool, checked; ``ValueError``
    names what is wrong. A snapshot path must stay inside ``root``; an absolute path (checkpoints
    before paths were relative) is taken as ``root/snapshots/<its name>``."""
    if not isinstance(state, dict) or not isinstance(state.get("snapshots"), list):
        raise ValueError("league state: expected {'snapshots': [...], 'rng': [...]}")
    folders = []
    for name in state["snapshots"]:
        if not isinstance(name, str) or not name:
            raise ValueError(f"league state: snapshot {name!r} is not a folder name")
        path = Path(name)
        if root is not None:
            path = Path("snapshots", path.name) if path.is_absolute() else path
            if ".." in path.parts:
                raise ValueError(f"league state: snapshot {name!r} leaves the run folder")
            path = root / path
        folders.append(path)
    try:
        rng = _decode_rng(state["rng"])
        random.Random().setstate(rng)
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"league state: bad random-generator state ({exc})") from None
    return folders, rng


def _relative(folder: str, root: Path | None) -> str:
    if root is None:
        return folder
    try:
        return Path(folder).relative_to(root).as_posix()
    except ValueError:
        return folder


def _encode_rng(state: tuple) -> list:
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _decode_rng(data: list) -> tuple:
    version, internal, gauss = data
    return int(version), tuple(int(x) for x in internal), gauss
