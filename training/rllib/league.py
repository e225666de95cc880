"""The opponent pool under RLlib: the same ``league`` settings as the SB3 trainer, as RLModules.

The modules of a run are fixed when it starts:

- ``learner``: the trained ``MaskedPolicyModule``;
- ``random``, ``greedy``, ``heuristic``: ``RuleBasedModule`` (those with a weight in
  ``league.agents``);
- ``snapshot_0`` .. ``snapshot_{k-1}`` (``k = league.max_snapshots``, when ``snapshot_every``
  and ``snapshot_weight`` are set): frozen copies of the learner, never trained. All hold the
  learner's first weights at the start; every ``snapshot_every`` env steps the learner's current
  weights replace the oldest (``copy_to_snapshot``).

``SeatMapping`` is the ``policy_mapping_fn``: per episode (seeded by the episode's id, so every
seat of one episode sees the same draw) it puts the learner in one seat drawn uniformly and an
opponent in every other seat, a snapshot with probability ``snapshot_weight`` (drawn evenly),
otherwise a rule-based agent by its weight.

Snapshot weights reach the env runners by a forced push. RLlib's own path,
``env_runner_group.sync_weights(from_worker_or_learner_group=learner_group, policies=[...])``,
sends the learner group's ``WEIGHTS_SEQ_NO``; an env runner applies a state only when that
number is newer than its own, and after the iteration's regular sync it is not, so the snapshot
would be silently skipped. ``copy_to_snapshot`` sends the state without a sequence number,
which RLlib applies unconditionally (``MultiAgentEnvRunner.set_state``), and a test reads the
weights back from every env runner.
"""

from __future__ import annotations

import random
from typing import Any

from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from kc_env import kings_corner_v0

from ..config import ConfigError, TrainConfig
from .module import RULE_BASED, MaskedPolicyModule, RuleBasedModule

LEARNER = "learner"
SNAPSHOT = "snapshot_{}"


def snapshot_ids(cfg: TrainConfig) -> list[str]:
    """The snapshot modules of a run (none when the league takes no snapshots)."""
    league = cfg.league
    if league.snapshot_every <= 0 or league.snapshot_weight <= 0 or league.max_snapshots <= 0:
        return []
    return [SNAPSHOT.format(i) for i in range(league.max_snapshots)]


def agent_weights(cfg: TrainConfig) -> dict[str, float]:
    """The rule-based opponents with a positive weight; other specs are refused, naming them."""
    unknown = [spec for spec in cfg.league.agents if spec not in RULE_BASED]
    if unknown:
        raise ConfigError(f"league.agents: the rllib trainer plays the built-in agents {', '.join(RULE_BASED)}; "
                         f"not {', '.join(map(repr, unknown))} (an exported model as opponent is sb3 only)")
    return {spec: w for spec, w in cfg.league.agents.items() if w > 0}


class SeatMapping:
    """The ``policy_mapping_fn``: which module plays ``agent_id`` in ``episode``."""

    def __init__(self, num_players: int, agents: dict[str, float], snapshots: list[str], snapshot_weight: float,
                 seed: int) -> None:
        self.num_players, self.snapshots, self.snapshot_weight, self.seed = num_players, snapshots, snapshot_weight, seed
        self.specs, self.weights = list(agents), list(agents.values())

    def seating(self, episode_id: str) -> list[str]:
        """The module of every seat in the episode with this id."""
        rng = random.Random(f"{self.seed}/{episode_id}")
        learner_seat = rng.randrange(self.num_players)
        seats = []
        for seat in range(self.num_players):
            if seat == learner_seat:
                seats.append(LEARNER)
            elif self.snapshots and (not self.specs or rng.random() < self.snapshot_weight):
                seats.append(rng.choice(self.snapshots))
            else:
                seats.append(rng.choices(self.specs, weights=self.weights)[0])
        return seats

    def __call__(self, agent_id: str, episode: Any, **kwargs) -> str:
        return self.seating(episode.id_)[int(agent_id.rsplit("_", 1)[1])]


def module_spec(cfg: TrainConfig) -> MultiRLModuleSpec:
    """Every module of the run: the learner, its snapshots and the rule-based opponents."""
    space = kings_corner_v0.raw_env._make_observation_space()
    action_space = kings_corner_v0.raw_env(num_players=cfg.num_players).action_space("player_0")
    policy = {"hidden": list(cfg.network.shared) + list(cfg.network.hidden), "activation": cfg.network.activation}
    specs = {mid: RLModuleSpec(module_class=MaskedPolicyModule, observation_space=space, action_space=action_space,
                               model_config=policy)
             for mid in [LEARNER, *snapshot_ids(cfg)]}
    for k, spec in enumerate(agent_weights(cfg)):
        specs[spec] = RLModuleSpec(module_class=RuleBasedModule, observation_space=space, action_space=action_space,
                                   model_config={"agent": spec, "seed": cfg.seed * 1000 + k})
    return MultiRLModuleSpec(rl_module_specs=specs)


def mapping(cfg: TrainConfig) -> SeatMapping:
    """The ``policy_mapping_fn`` of a config."""
    return SeatMapping(cfg.num_players, agent_weights(cfg), snapshot_ids(cfg), cfg.league.snapshot_weight, cfg.seed)


def learner_state(algo, module_id: str = LEARNER) -> dict[str, Any]:
    """A module's weights (numpy arrays by name) as the learner group holds them."""
    state = algo.learner_group.get_state(components=f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}")
    return state[COMPONENT_LEARNER][COMPONENT_RL_MODULE][module_id]


def push_to_env_runners(algo, module_id: str, weights: dict[str, Any]) -> None:
    """Set ``module_id``'s weights on every env runner, without a weights sequence number, so
    that none skips them (see the module docstring)."""
    push = {COMPONENT_RL_MODULE: {module_id: weights}}
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.set_state(push), local_env_runner=True)


def copy_to_snapshot(algo, snapshot: str) -> dict[str, Any]:
    """Freeze the learner's current weights into module ``snapshot``: in the learner group (so
    checkpoints keep it) and in every env runner, pushed without a weights sequence number so
    that no env runner skips it (see the module docstring). Returns the weights copied."""
    weights = learner_state(algo)
    algo.learner_group.set_state({COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {snapshot: weights}}})
    push_to_env_runners(algo, snapshot, weights)
    return weights
