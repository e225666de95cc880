"""The RLlib trainer's own settings (the ``rllib:`` block of a config) and their checks; no Ray
import, so the config loader reads them anywhere."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class RLlibSettings:
    """Scale settings of the Ray RLlib trainer (``trainer: rllib``, ``training/rllib/``).

    The rest of the config means the same under both trainers: ``ppo`` (except ``n_steps`` and
    ``batch_size``, replaced here by ``train_batch_size`` and ``minibatch_size``), ``network``
    (the value net is a separate MLP of the same widths rather than a shared trunk), ``league``
    and ``eval``. ``total_timesteps``, ``league.snapshot_every``, ``eval.every`` and
    ``checkpoint_every`` count env steps: every seat's actions, opponents' included."""

    num_env_runners: int = 2
    """Ray actors that play games (one CPU each); 0 plays them in the driver process."""
    num_envs_per_env_runner: int = 8
    """Games each env runner steps at once (one forward pass of each module serves them all)."""
    num_learners: int = 0
    """0: gradient updates in the driver process; 1: in one remote learner actor (on another
    machine of a cluster, or a GPU). More is refused: with several learners RLlib 2.60 splits
    episodes into slices, and a slice that holds a seat with no steps crashes the update."""
    train_batch_size: int = 8000
    """Env steps sampled per training iteration (the PPO rollout)."""
    minibatch_size: int = 1000
    """Rows of each gradient step; ``ppo.n_epochs`` passes over the rollout."""
    rollout_fragment_length: int = 0
    """Env steps an env runner collects per request (0: RLlib works it out from the batch size)."""


def checks(config: Any) -> list[tuple[bool, str]]:
    """The ``rllib:`` block's checks (``trainers.Trainer.checks``)."""
    return _rllib_checks(config.rllib)


def _rllib_checks(r: RLlibSettings) -> list[tuple[bool, str]]:
    return [
        (r.num_env_runners >= 0 and r.rollout_fragment_length >= 0,
         "rllib.num_env_runners and rllib.rollout_fragment_length must be >= 0"),
        (r.num_envs_per_env_runner > 0, "rllib.num_envs_per_env_runner must be positive"),
        (r.num_learners in (0, 1), "rllib.num_learners must be 0 or 1: with more, RLlib 2.60 cuts episodes into "
                                   "slices, and a slice with a seat that has no steps crashes the update"),
        (0 < r.minibatch_size <= r.train_batch_size, "rllib.minibatch_size must be positive and at most rllib.train_batch_size"),
    ]
