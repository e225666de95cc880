"""The trainers ``kc train`` can run, in one registry that ``kc train``, ``kc export`` and the
config loader read: nothing else compares a trainer's name.

A ``Trainer`` names where its code is (``train``: ``module:function`` under ``kc_env.training``,
imported only when it runs, so choosing one never imports another's library), the extra it needs,
the config blocks it reads beyond the shared ones, its settings' checks, what ``kc export`` runs
on its run folders, and how to tell a finished run. Only the ``sb3`` trainer's modules import
stable-baselines3; ``rllib`` imports Ray, ``turn_value`` and ``turn_ppo`` torch alone.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rllib import settings as rllib_settings
from .sb3 import settings as sb3_settings
from .turn_ppo import settings as turn_ppo_settings
from .turn_value import settings as turn_value_settings

DEFAULT = "sb3"
"""The trainer of a config (or a run folder's ``config.yaml``) that names none."""


class TrainerUnavailable(ImportError):
    """A trainer whose extra is not installed here: one line saying which to install."""


@dataclass(frozen=True)
class Trainer:
    """One trainer of ``kc train`` (see the module docstring)."""

    name: str
    summary: str
    train: str
    """``module:function`` (relative to ``kc_env.training``): ``function(cfg, folder, *, resume,
    progress, argv)`` trains or resumes the run in ``folder``."""
    publish: str
    """``module:function`` that ``kc export RUN FOLDER`` runs on this trainer's run folders."""
    extra: str
    """What to install when its modules do not import."""
    reads: frozenset[str]
    """The config blocks and keys it reads beyond the shared ones (rules, players, eval, ...)."""
    checks: Callable[[Any], list[tuple[bool, str]]]
    """Its settings' checks on a config that chose it: ``[(ok, message), ...]``."""
    finished: Callable[[Path], bool]
    """Whether a run folder holds a finished run (``kc train --seeds ... --resume`` skips it)."""
    outputs: Callable[[Path], str]
    """What ``kc train`` prints when a run ends (what the trainer's own log has not said)."""

    def train_function(self) -> Callable[..., Any]:
        """The function that trains (imported now; ``TrainerUnavailable`` without its extra)."""
        return self._load(self.train)

    def publish_function(self) -> Callable[..., Any]:
        """The function ``kc export`` runs on a run folder of this trainer."""
        return self._load(self.publish)

    def _load(self, where: str) -> Callable[..., Any]:
        module, _, name = where.partition(":")
        try:
            return getattr(importlib.import_module(f"{__package__}.{module}"), name)
        except ImportError as exc:
            raise TrainerUnavailable(f"trainer {self.name} needs {self.extra}: {exc}") from exc


def _sb3_finished(folder: Path) -> bool:
    return (folder / "final.pt").is_file()


def _rllib_finished(folder: Path) -> bool:
    import yaml

    states = sorted((folder / "checkpoints").glob("iter_*.json"))
    try:
        steps = json.loads(states[-1].read_text())["env_steps"] if states else -1
        return steps >= yaml.safe_load((folder / "config.yaml").read_text())["default"]["total_timesteps"]
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError, RecursionError):
        return False


def _turn_value_finished(folder: Path) -> bool:
    return (folder / "curve.json").is_file() and (folder / "model").is_dir()


def _sb3_outputs(folder: Path) -> str:
    """The model kc reads (``final.pt``, which ``kc export`` makes a model folder of), never SB3's
    ``final.zip``, which is for the user's own SB3 code."""
    return (f"run folder: {folder}\nmodel: {folder / 'final.pt'}   learning curve: {folder / 'learning_curve.png'}"
            f"   export: kc export {folder} models/NAME")


def _rllib_outputs(folder: Path) -> str:
    return f"run folder: {folder}   export: kc export {folder} models/NAME"


def _turn_value_outputs(folder: Path) -> str:
    """The run folder alone: the turn trainers' own last line names the model and the curve."""
    return f"run folder: {folder}"


TRAIN_EXTRA = "the train extra (pip install -e '.[train]' -c constraints.txt)"

REGISTRY: dict[str, Trainer] = {t.name: t for t in (
    Trainer("sb3", "sb3-contrib's MaskablePPO on the vector env (one machine)", "sb3.train:train", "publish:publish",
            TRAIN_EXTRA, frozenset({"ppo", "network", "league", "pretrain", "tune", "network.prior",
                                    "network.heuristic_weights", "benchmark"}),
            sb3_settings.checks, _sb3_finished, _sb3_outputs),
    Trainer("rllib", "Ray RLlib's PPO on the PettingZoo env (many cores and machines)", "rllib.train:train",
            "rllib.export:publish", "the rllib extra (pip install -e '.[train,rllib]' -c constraints.txt)",
            frozenset({"ppo", "network", "league", "rllib", "benchmark"}), rllib_settings.checks, _rllib_finished,
            _rllib_outputs),
    Trainer("turn_value", "a learned value of whole turns (research: configs/turn-ranking-2p.yaml)",
            "turn_value.train:train", "publish:publish_turn_value", TRAIN_EXTRA,
            frozenset({"turn_value", "benchmark"}), turn_value_settings.checks, _turn_value_finished,
            _turn_value_outputs),
    Trainer("turn_ppo", "PPO over whole turns: a policy over the heuristic's candidate turns (training/turn_ppo)",
            "turn_ppo.train:train", "publish:publish_turn_value", TRAIN_EXTRA, frozenset({"turn_ppo", "benchmark"}),
            turn_ppo_settings.checks, _turn_value_finished, _turn_value_outputs),
)}


def names() -> tuple[str, ...]:
    """The trainers' names, in the registry's order."""
    return tuple(REGISTRY)


class UnknownTrainer(ValueError):
    """A trainer name the registry does not hold (the config loader refuses one first)."""


def get(name: str) -> Trainer:
    """The trainer called ``name``; ``UnknownTrainer`` naming the known ones otherwise."""
    try:
        return REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownTrainer(f"trainer must be one of {', '.join(REGISTRY)}, not {name!r}") from None


def of_run(folder: Path) -> Trainer:
    """The trainer that made the run folder ``folder`` (from its ``config.yaml``; ``DEFAULT`` when
    it cannot be read, and that trainer's export then says what is wrong with the folder)."""
    import yaml

    try:
        name = yaml.safe_load((folder / "config.yaml").read_text())["default"].get("trainer", DEFAULT)
    except (OSError, ValueError, yaml.YAMLError, KeyError, TypeError, AttributeError, RecursionError):
        name = DEFAULT
    return REGISTRY.get(name, REGISTRY[DEFAULT]) if isinstance(name, str) else REGISTRY[DEFAULT]
