"""Where a training run stands at the start of a rollout, kept in each checkpoint so that
``--resume`` plays on exactly as the run would have without the stop.

A checkpoint is taken at the start of a rollout, after the PPO update of the one before
(``train.CheckpointCallback``). Besides the network, the optimizer and the step counts
(``checkpoint.save``), a run's future then depends on:

- the random generators: torch's (the actions the learner samples), numpy's global one (PPO's
  minibatch order), Python's, the league's (who is drawn next; building the env anew draws from
  it) and each snapshot opponent's (its sampled moves);
- the games in play: every array of the vector env's games and buffers (cards, piles, hands,
  stock, each game's own generator, move logs, the observation and mask the learner sees: the
  env's ``state_arrays()``), and who sits in each game (its ``seated()``: a spec, or a snapshot
  folder of the league, relative to the run folder);
- the learner's last observation and episode starts, where SB3 takes up the next rollout.

``capture`` takes all of it as tensors and JSON strings (``torch.load(weights_only=True)``
reads them; nothing is pickled); ``restore`` puts it back into a model and env built anew from
the run's config. What is not kept changes no weight or evaluation: TensorBoard's episode
statistics (SB3's ``ep_info_buffer``) and the wall-clock time in each deal's ``info``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch

from kc_env.agents.policy_model import PolicyAgent
from kc_env.vector.learner_games import LearnerGames

from .league import League
from .rollouts import RolloutReward


class ResumeStateError(ValueError):
    """A saved position that does not fit the run's env (another number of games, a damaged file)."""


def capture(model: Any, league: League, root: Path) -> dict[str, Any]:
    """Where the run of ``model`` (a MaskablePPO on a ``KingsCornerVecEnv``, maybe wrapped) and its
    ``league`` stands now, as tensors and JSON strings."""
    env = vector_env(model)
    seated = env.seated()
    arrays = env.state_arrays()
    return {
        "rng": {"torch": torch.get_rng_state(), **_numpy_rng(), "python": json.dumps(random.getstate()),
                "league": json.dumps(league.rng.getstate())},
        "last_obs": torch.from_numpy(np.array(model._last_obs)),
        "episode_starts": torch.from_numpy(np.array(model._last_episode_starts)),
        "games": {name: _tensor(array) for name, array in arrays["games"].items()},
        "env": {name: _tensor(array) for name, array in arrays["env"].items()},
        "opponents": json.dumps([[league.name_in_checkpoint(o, root) for o in row] for row in seated]),
        "opponent_rngs": json.dumps(_opponent_rngs(league, seated, root)),
    }


def restore(model: Any, league: League, root: Path, state: dict[str, Any]) -> None:
    """Put the position ``state`` (from ``capture``) into ``model``, its env and ``league``, which
    were built anew from the run's config and checkpoint; ``ResumeStateError`` if it does not fit."""
    try:
        _restore(model, league, root, state)
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise ResumeStateError(f"the saved games and generators do not fit the run ({exc})") from None


def vector_env(model: Any) -> LearnerGames:
    env = model.get_env().unwrapped
    if not isinstance(env, LearnerGames):
        raise TypeError(f"expected the run's KingsCornerVecEnv, got {type(env).__name__}")
    return env


def _restore(model: Any, league: League, root: Path, state: dict[str, Any]) -> None:
    env = vector_env(model)
    targets = env.state_arrays()
    env.load_state_arrays({kind: {name: _array(saved, targets[kind].get(name)) for name, saved in state[kind].items()}
                           for kind in targets})
    agents: dict[str, Any] = {}  # one agent per name, seated or not
    _seat(env, league, root, json.loads(state["opponents"]), agents)
    _restore_rngs(state["rng"], league, root, json.loads(state["opponent_rngs"]), agents)
    model._last_obs = state["last_obs"].numpy().copy()
    model._last_episode_starts = state["episode_starts"].numpy().copy()
    if isinstance(model.get_env(), RolloutReward):
        model.get_env().remember(model._last_obs)


def _seat(env: LearnerGames, league: League, root: Path, names: list[list[str]], agents: dict[str, Any]) -> None:
    """Seat the saved opponents in every game (the env numbers them anew; each seat's opponent in
    the deals in play follows from the learner's seat, which the saved games hold)."""
    if len(names) != env.num_envs:
        raise ValueError(f"{len(names)} games saved, {env.num_envs} in the env")
    for b, row in enumerate(names):
        env.set_opponents([b], [league.opponent_named(name, root, agents) for name in row])


def _opponent_rngs(league: League, seated: list[list[Any]], root: Path) -> dict[str, Any]:
    """The generator state of every agent that samples its moves (snapshots), seated or in the pool."""
    agents = {id(a): a for row in seated for a in row if not isinstance(a, str)}
    agents.update({id(a): a for a in league.agents() if not isinstance(a, str)})
    return {league.name_in_checkpoint(a, root): a._rng.bit_generator.state for a in agents.values()
            if isinstance(getattr(a, "_rng", None), np.random.Generator)}


def _restore_rngs(rng: dict[str, Any], league: League, root: Path, opponents: dict[str, Any],
                  agents: dict[str, Any]) -> None:
    torch.set_rng_state(rng["torch"])
    np.random.set_state(("MT19937", rng["numpy_keys"].numpy().astype(np.uint32), *json.loads(rng["numpy"])))
    for generator, saved in ((random, rng["python"]), (league.rng, rng["league"])):
        version, internal, gauss = json.loads(saved)
        generator.setstate((version, tuple(internal), gauss))
    for name, bit_state in opponents.items():
        agent = league.opponent_named(name, root, agents)
        if not isinstance(agent, PolicyAgent):
            raise ValueError(f"opponent {name} keeps no generator")
        agent._rng.bit_generator.state = bit_state


def _numpy_rng() -> dict[str, Any]:
    kind, keys, pos, has_gauss, cached = np.random.get_state()
    if kind != "MT19937":
        raise ValueError(f"numpy's global generator is {kind}, not MT19937")
    return {"numpy_keys": torch.from_numpy(keys.astype(np.int64)), "numpy": json.dumps([pos, has_gauss, cached])}


def _tensor(array: np.ndarray) -> torch.Tensor:
    """A copy of ``array`` as a tensor (uint64 as int64, bit for bit: torch keeps few uint64 ops)."""
    array = np.ascontiguousarray(array)
    return torch.from_numpy((array.view(np.int64) if array.dtype == np.uint64 else array).copy())


def _array(saved: torch.Tensor, target: np.ndarray | None) -> np.ndarray:
    """A saved tensor as the env's array (``uint64`` from the ``int64`` bits ``_tensor`` kept)."""
    values = saved.numpy()
    return values.view(np.uint64) if target is not None and target.dtype == np.uint64 else values

