"""A run's training state as tensors and JSON: resuming and exporting unpickle nothing.

An SB3 ``.zip`` cloudpickles parts of the model (its policy class, spaces, schedules), so
loading one runs whatever code was planted in it: a run folder someone hands you would be a
program. So ``kc train`` keeps the state it resumes from, and ``kc export`` reads, as::

    checkpoints/step_000000004096.pt            the policy's and the optimizer's tensors, the
                                                step counts and where the run stands (its
                                                generators and games: resume_state.py), taken at
                                                the start of a rollout, after the PPO update
                                                (torch.save; read back with
                                                torch.load(weights_only=True): tensors, numbers,
                                                strings, lists and dicts only)
    checkpoints/step_000000004096.league.json   the league's pool (snapshot folders relative
    checkpoints/step_000000004096.eval.json     to the run folder) and the evaluation history
    final.pt                                    the same state at the end

The model they go into is built from the run's ``config.yaml`` (``training/sb3/train.py``
``make_model``), so the config decides the code, the checkpoint only the numbers. ``final.zip``
is still written at the end, SB3's own format for your own SB3 code; ``kc`` never reads it.
Every file goes through ``kc_env.files.write_atomic`` (temporary name, fsync, rename), the
``.pt`` last, so a checkpoint whose ``.pt`` exists is whole; a damaged one (a disk that lost
it) is skipped by ``--resume`` for the one before, saying so.

A folder ``kc train`` made holds ``.kc-train-run`` (``run.mark_run``): ``--overwrite`` deletes
only such a folder.
"""

from __future__ import annotations

import io
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import MaskablePPO

from kc_env import actions as actions_mod
from kc_env import observation as obs_mod
from kc_env.files import write_atomic

from ..config import TrainConfig
from .league import check_state
from .policy import PriorPolicy, policy_kwargs
from .wrappers import privileged_size

FORMAT = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be read or does not fit the run's config."""


def state_path(stem: Path) -> Path:
    return stem.with_suffix(".pt")


def save(path: Path, model: MaskablePPO, position: dict[str, Any] | None = None) -> Path:
    """Write ``model``'s training state (``state_bytes``) to ``path``, atomically."""
    return write_atomic(path, state_bytes(model, position))


def state_bytes(model: MaskablePPO, position: dict[str, Any] | None = None) -> bytes:
    """``model``'s training state as the bytes of a ``.pt``: policy and optimizer tensors, step
    counts, the prior's evaluation weights, and ``position``, where the run stands
    (``resume_state.capture``: generators, games, last observation), when given."""
    weights = getattr(model.policy, "heuristic_weights", None)
    state = {"format": FORMAT, "policy": model.policy.state_dict(), "optimizer": model.policy.optimizer.state_dict(),
             "num_timesteps": int(model.num_timesteps), "n_updates": int(model._n_updates),
             "prior_weights": {str(k): float(v) for k, v in weights.items()} if weights else None}
    if position is not None:
        state["position"] = position
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def read(path: Path) -> dict[str, Any]:
    """The training state in ``path``, read with ``weights_only=True`` (no pickle runs), checked;
    ``CheckpointError`` says what is wrong."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:  # torch's advice (weights_only=False) would run the pickle: never
        if "weights only load failed" in str(exc).lower():
            raise CheckpointError(f"{path}: not a readable checkpoint: not a weights-only one (it holds pickled "
                                  "objects, which would run code if loaded), so it is refused") from None
        raise CheckpointError(f"{path}: not a readable checkpoint ({_first_line(exc)})") from None
    except Exception as exc:  # torch raises many kinds for a torn or foreign file
        raise CheckpointError(f"{path}: not a readable checkpoint ({_first_line(exc)})") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a kc train checkpoint of format {FORMAT}")
    for key, kind in (("policy", dict), ("optimizer", dict), ("num_timesteps", int), ("n_updates", int)):
        if not isinstance(state.get(key), kind) or isinstance(state.get(key), bool):
            raise CheckpointError(f"{path}: {key} missing or not a {kind.__name__}")
    weights = state.get("prior_weights")
    if weights is not None and not (isinstance(weights, dict) and all(isinstance(v, float) for v in weights.values())):
        raise CheckpointError(f"{path}: prior_weights is not a table of numbers")
    if not isinstance(state.get("position", {}), dict):
        raise CheckpointError(f"{path}: position is not a table")
    return state


def restore(model: MaskablePPO, state: dict[str, Any], path: Path) -> MaskablePPO:
    """Put the tensors and counts of ``state`` (from ``read``) into ``model``, built from the config."""
    try:
        model.policy.load_state_dict(state["policy"])
        model.policy.optimizer.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{path}: does not fit the network of the run's config ({_first_line(exc)})") from None
    model.num_timesteps, model._n_updates = state["num_timesteps"], state["n_updates"]
    return model


def observation_space(cfg: TrainConfig) -> spaces.Box:
    """The observation space the run's policy reads (the vector env's, widened by
    ``wrappers.PriorAction`` when the network has a prior)."""
    low, high = obs_mod.LOW, obs_mod.HIGH
    if cfg.network.prior:
        extra = privileged_size(cfg.num_players) if cfg.network.privileged_critic else 0
        low = np.concatenate([low, [0.0], np.zeros(extra)])
        high = np.concatenate([high, [actions_mod.NUM_ACTIONS - 1], np.ones(extra)])
    return spaces.Box(np.asarray(low, np.float32), np.asarray(high, np.float32), dtype=np.float32)


def model_without_env(cfg: TrainConfig, prior_weights: dict[str, float] | None) -> MaskablePPO:
    """A MaskablePPO of the config's network with no env behind it (for export): what
    ``MaskablePPO.load`` builds, from the config instead of from pickles."""
    net = cfg.network
    privileged = privileged_size(cfg.num_players) if net.privileged_critic else 0
    kwargs = policy_kwargs(net.shared, net.hidden, net.activation, net.prior, net.prior_weight, privileged, prior_weights)
    model = MaskablePPO(PriorPolicy if net.prior else "MlpPolicy", None, policy_kwargs=kwargs, seed=cfg.seed,
                        verbose=0, device="cpu", _init_setup_model=False, **vars(cfg.ppo))
    model.observation_space = observation_space(cfg)
    model.action_space = spaces.Discrete(actions_mod.NUM_ACTIONS)
    model.n_envs = cfg.n_envs
    model._setup_model()
    return model


def read_set(stem: Path, root: Path) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """The state, league state and evaluation history of checkpoint ``stem``, each checked."""
    state = read(state_path(stem))
    parts = []
    for suffix in (".league.json", ".eval.json"):
        path = stem.with_suffix(suffix)
        try:
            parts.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise CheckpointError(f"{path}: unreadable ({_first_line(exc)})") from None
    league, history = parts
    try:
        check_state(league, root)
    except ValueError as exc:
        raise CheckpointError(f"{stem.with_suffix('.league.json')}: {exc}") from None
    if not isinstance(history, list) or not all(isinstance(r, dict) and isinstance(r.get("step"), int) for r in history):
        raise CheckpointError(f"{stem.with_suffix('.eval.json')}: not a list of evaluation rows")
    return state, league, history


def newest_whole(checkpoints: list[Path], root: Path, warn: Callable[[str], None]) -> tuple[Path, tuple] | None:
    """The newest of ``checkpoints`` (``step_*.pt`` paths, oldest first) that reads whole, with
    its ``read_set``; each damaged one is skipped with a line to ``warn``."""
    for path in reversed(checkpoints):
        try:
            return path, read_set(path.with_suffix(""), root)
        except CheckpointError as exc:
            warn(f"checkpoint {path.name} is damaged, trying the one before: {exc}")
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
