"""Training configs: YAML with a ``default:`` block in the RL-zoo style, read strictly.

A config file holds one mapping. Its ``default:`` block sets fields of ``TrainConfig``; any
other top-level block is a named variant that overrides ``default`` (``kc train FILE --variant
NAME``). Nothing is evaluated: values are plain YAML data. An unknown key or a value of the wrong
kind is an error that names the key and lists what is allowed.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from kc_env.agents.base import COMPILED
from kc_env.files import write_atomic
from kc_env.game_info import GAME_INFO
from kc_env.match import MOST_MOVES
from kc_env.rewards import REWARDS
from kc_env.rules import Rules, RulesError

from .rllib.settings import RLlibSettings  # each trainer owns its settings (trainers.py)
from .sb3.settings import PretrainSettings, TuneSettings
from .threads import MAX_THREADS
from .turn_ppo.settings import TurnPPOSettings
from .turn_value.settings import TurnValueSettings


class ConfigError(ValueError):
    """A config that cannot be used: names the file, the key and what is allowed."""


MAX_CONFIG_BYTES = 1_000_000
"""The largest config file read (the shipped ones are a few kilobytes)."""
MAX_ENVS = 4096
"""The most games ``n_envs`` may play at once (each holds about 20 kB in the vector env)."""
MAX_ROLLOUT = 262_144
"""The most steps one rollout (``ppo.n_steps * n_envs``) may hold: about 2.2 GB of observations
and masks in the rollout buffer."""
MAX_WIDTH = 4096
"""The widest layer ``network.shared`` and ``network.hidden`` may list."""
MAX_LAYERS = 16
"""The most layers ``network.shared`` and ``network.hidden`` may each list."""
MAX_EVAL_DEALS = 100_000
"""The most deals ``eval.deals`` may play against each opponent at each evaluation (50 times the
most a shipped config plays, 2,000: about an hour of the heuristic's deals on one core)."""
MAX_SEED = 2**32 - 1
"""The largest ``seed``: numpy's legacy generator, which SB3's ``set_random_seed`` seeds, takes no more."""


@dataclass
class PPOSettings:
    """Hyperparameters handed to sb3-contrib's ``MaskablePPO`` (same names and meanings)."""

    learning_rate: float = 3e-4
    """Adam step size."""
    n_steps: int = 128
    """Steps per game per rollout (the rollout holds ``n_steps * n_envs`` steps)."""
    batch_size: int = 4096
    """Minibatch size of each gradient step."""
    n_epochs: int = 4
    """Passes over each rollout."""
    gamma: float = 0.995
    """Discount; a deal is about 50 learner actions, so keep it close to 1."""
    gae_lambda: float = 0.95
    """GAE smoothing."""
    clip_range: float = 0.2
    """PPO clipping of the probability ratio."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    target_kl: float | None = None
    """Stop an update's epochs early past this KL (None: never)."""


@dataclass
class NetworkSettings:
    """A trunk shared by policy and value, then a head each (``training/sb3/policy.py``)."""

    shared: list[int] = field(default_factory=lambda: [256])
    """Widths of the shared trunk's layers (may be empty)."""
    hidden: list[int] = field(default_factory=lambda: [256])
    """Widths of each head's hidden layers (policy and value alike)."""
    activation: str = "tanh"
    """``tanh`` or ``relu``."""
    prior: str | None = None
    """A rule-based agent (``heuristic`` or ``greedy``) whose chosen action gets ``prior_weight``
    added to its logit (residual policy learning: the layers learn where to play otherwise), or
    None for a plain network."""
    prior_weight: float = 4.0
    """The prior's logit bonus at the start; PPO learns it on with the rest."""
    heuristic_weights: dict[str, float] = field(default_factory=dict)
    """The evaluation weights of a ``heuristic`` prior, by name (``WEIGHT_NAMES``); a name
    left out keeps its shipped value (``HEURISTIC_WEIGHTS``). The prior plays with them
    everywhere (its action in the observation, rollout rewards, the exported model); ``tune``
    starts its search from them."""
    privileged_critic: bool = False
    """Let the critic (only) see the other hands and the next stock cards during training
    (asymmetric actor-critic): far less noisy advantages in a game of luck. The actor, and so the
    exported policy, sees only the seat's own observation. Needs ``prior``."""


@dataclass
class LeagueSettings:
    """The opponent pool: rule-based agents and frozen snapshots of the learner (self-play)."""

    agents: dict[str, float] = field(default_factory=lambda: {"heuristic": 0.6, "greedy": 0.2, "random": 0.2})
    """Fixed opponents (agent specs: ``random``, ``greedy``, ``heuristic``, or an exported model
    folder) with their sampling weights."""
    snapshot_every: int = 500_000
    """Add a frozen copy of the learner to the pool every this many steps (0: never)."""
    snapshot_weight: float = 0.3
    """Share of opponents drawn from the snapshots once there are any (split evenly among them)."""
    max_snapshots: int = 8
    """Keep only the newest snapshots."""


@dataclass
class EvalSettings:
    """Periodic evaluation against fixed opponents, logged and plotted."""

    every: int = 250_000
    """Evaluate every this many steps (0: only at the end)."""
    deals: int = 1000
    """Deals per opponent per evaluation (seats rotated)."""
    opponents: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    """Agent specs to evaluate against (every other seat holds that agent)."""


@dataclass
class BenchmarkSettings:
    """At each evaluation, the policy's scores on kc-bench tasks (``training/bench.py``), kept in
    the run's ``benchmark.json`` for ``kc benchmark --runs RUN...`` (docs/benchmark.md, Training runs)."""

    tasks: list[str] = field(default_factory=list)
    """Task ids (``kc benchmark --list``), each at this config's table and none held out; empty:
    no benchmark scores."""
    quick: bool = False
    """Score on each task's quick shuffles (a development figure) rather than its full set."""
    suite: str = "kc-bench-v1"
    """The suite the tasks are of."""
    workers: int = 1
    """Processes that play the tasks' deals (0: every core); the scores do not depend on it."""


@dataclass
class TrainConfig:
    """Everything a training run needs; saved resolved beside the run (``config.yaml``)."""

    rules: Any = "standard"
    """A preset name or a mapping of rules (``{preset: pagat, jokers: 2}``)."""
    num_players: int = 2
    """2 to 6."""
    total_timesteps: int = 5_000_000
    """Learner actions to train for."""
    n_envs: int = 256
    """Games played at once in the vector env."""
    seed: int = 0
    """Seeds the network, the games and the league."""
    reward: str = "win_loss"
    """``win_loss`` or ``score`` (kc_env.kings_corner_v0)."""
    max_moves: int = GAME_INFO.default_max_moves
    """Truncate a deal after this many moves."""
    blocked_reward: float | None = None
    """The learner's reward for a blocked deal without a winner (None: the env's, 0). A loss
    costs -1/(n-1) under ``win_loss``; a blocked deal at 0 teaches a learner that is behind to
    stall the deal into a block instead of playing to win, so training for wins sets it to the
    loss's value."""
    rollout_reward: bool = False
    """Reward each learner action by the win share of playing it, then letting ``network.prior``
    play every seat, minus that of the prior's own move, both played out on the real deal
    (``training/sb3/rollouts.py``): one step of policy improvement over the prior. Needs
    ``network.prior`` and a league of that agent alone; use it with ``ppo.gamma: 0``."""
    checkpoint_every: int = 250_000
    """Save a resumable checkpoint every this many steps."""
    update_threads: int | None = None
    """Threads torch uses for gradient updates (behaviour cloning and PPO's); null: chosen from the
    cores left free at the run's start, one on a 2-core machine (``training/threads.py``), and
    printed. Rollouts always use one: on 2 cores, more torch threads beside the compiled games
    slowed vector rollouts about eightfold (docs/speed.md)."""
    trainer: str = "sb3"
    """A trainer of the registry (``training/trainers.py``): ``sb3`` (sb3-contrib's MaskablePPO on
    the vector env, one machine), ``rllib`` (Ray RLlib's PPO on the PettingZoo env, many cores and
    machines; needs the ``rllib`` extra), ``turn_value`` (a learned value of whole turns) or
    ``turn_ppo`` (PPO over whole turns)."""
    ppo: PPOSettings = field(default_factory=PPOSettings)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    league: LeagueSettings = field(default_factory=LeagueSettings)
    pretrain: PretrainSettings = field(default_factory=PretrainSettings)
    tune: TuneSettings = field(default_factory=TuneSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    benchmark: BenchmarkSettings = field(default_factory=BenchmarkSettings)
    rllib: RLlibSettings = field(default_factory=RLlibSettings)
    turn_value: TurnValueSettings = field(default_factory=TurnValueSettings)
    turn_ppo: TurnPPOSettings = field(default_factory=TurnPPOSettings)

    def rules_object(self) -> Rules:
        """The ``Rules`` this config trains under."""
        return Rules.coerce(self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as saved in the run folder."""
        return dataclasses.asdict(self)


def _build(cls, data: Any, where: str, block: str = ""):
    """Strictly build dataclass ``cls`` from a mapping; nested dataclasses by their field types.
    Errors name the file (``where``) and the key's path in it (``ppo.ent_coef``), apart."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: {block.rstrip('.') or 'the config'}: expected a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    out = {}
    for key, value in data.items():
        if key not in fields:
            raise ConfigError(f"{where}: unknown key {block + str(key)!r}; allowed: {', '.join(fields)}")
        default = getattr(cls(), key)
        if dataclasses.is_dataclass(default):
            out[key] = _build(type(default), value, where, f"{block}{key}.")
        else:
            out[key] = _check_value(key, value, default, f"{where}: {block}{key}")
    return cls(**out)


def _check_value(key: str, value: Any, default: Any, where: str) -> Any:
    if key == "rules" or key == "label_chunks" and isinstance(value, dict):  # a mapping, checked by validate
        return value
    if default is None:  # optional: a number (target_kl) or an agent spec (teacher)
        if value is None or isinstance(value, (int, float, str)) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{where}: expected a number, a name or null, got {value!r}")
    if isinstance(default, bool) or isinstance(value, bool) and not isinstance(default, bool):
        if type(value) is not type(default):
            raise ConfigError(f"{where}: expected {type(default).__name__}, got {value!r}")
    if isinstance(default, float) and isinstance(value, int):
        value = float(value)
    if isinstance(default, float) and isinstance(value, str):
        try:  # YAML reads 3e-4 as a string; a number written that way is still a number
            value = float(value)
        except ValueError:
            pass
    if type(value) is not type(default):
        raise ConfigError(f"{where}: expected {type(default).__name__}, got {value!r}")
    return value


def validate(config: TrainConfig, where: str = "config") -> TrainConfig:
    """Check values that types alone do not: rules, players, ranges, names."""
    try:
        rules = config.rules_object()
        rules.check_players(config.num_players)
    except RulesError as exc:
        mapping = ("; a config's rules are a preset name or a mapping, such as rules: {preset: pagat, jokers: 2} "
                   "(--set 'rules={preset: pagat, jokers: 2}')" if isinstance(config.rules, str) and "," in config.rules
                   else "")  # as --rules takes them: Rules.parse would also read a file, which a run must not depend on
        raise ConfigError(f"{where}: {exc}{mapping}") from None
    checks = [
        *_finite_checks(config),
        (config.reward in REWARDS, f"reward must be {' or '.join(REWARDS)}"),
        (config.network.activation in ("tanh", "relu"), "network.activation must be tanh or relu"),
        *_network_checks(config.network),
        (config.network.prior in (None, *COMPILED), f"network.prior must be {', '.join(COMPILED)} or null"),
        (not config.rollout_reward or (config.network.prior is not None
                                       and set(config.league.agents) == {config.network.prior}
                                       and config.league.snapshot_weight == 0),
         "rollout_reward needs network.prior, and a league of that agent alone (league.agents: "
         "{prior: 1.0}, league.snapshot_weight: 0): the play-outs let it play every seat"),
        (not config.network.privileged_critic or config.network.prior is not None,
         "network.privileged_critic needs network.prior (the prior's network carries the critic's extra columns)"),
        (config.total_timesteps > 0, "total_timesteps must be positive"),
        (0 < config.n_envs <= MAX_ENVS, f"n_envs must be 1 to {MAX_ENVS:,}, not {config.n_envs:,}"),
        (config.ppo.n_steps * config.n_envs <= MAX_ROLLOUT,
         f"ppo.n_steps * n_envs (the rollout) must be at most {MAX_ROLLOUT:,} steps, not "
         f"{config.ppo.n_steps * config.n_envs:,}"),
        (0 <= config.seed <= MAX_SEED, f"seed must be 0 to {MAX_SEED:,} (what numpy and SB3 seed with)"),
        (0 < config.max_moves <= MOST_MOVES, f"max_moves must be positive, at most {MOST_MOVES:,}"),
        (config.update_threads is None or type(config.update_threads) is int and 0 < config.update_threads <= MAX_THREADS,
         f"update_threads must be 1 to {MAX_THREADS:,}, or null (chosen from the free cores)"),
        (_is_number(config.blocked_reward, optional=True), "blocked_reward must be a number or null"),
        (config.checkpoint_every >= 0 and config.eval.every >= 0 and config.league.snapshot_every >= 0,
         "checkpoint_every, eval.every and league.snapshot_every must be 0 (never) or more"),
        (config.league.max_snapshots >= 1, "league.max_snapshots must be at least 1"),
        *_ppo_checks(config.ppo),
        (config.ppo.batch_size <= config.ppo.n_steps * config.n_envs, "ppo.batch_size exceeds n_steps * n_envs"),
        (bool(config.league.agents) and all(_is_number(w) and w >= 0 for w in config.league.agents.values())
         and any(w > 0 for w in config.league.agents.values()),
         "league.agents needs weights >= 0, at least one of them above 0"),
        *((_agent_problem(spec) is None, f"league.agents: {_agent_problem(spec)}") for spec in config.league.agents),
        (0 <= config.league.snapshot_weight <= 1, "league.snapshot_weight must be in [0, 1]"),
        (bool(config.eval.opponents), "eval.opponents needs at least one agent spec"),
        (config.eval.deals > 0, "eval.deals must be positive"),
        (config.eval.deals <= MAX_EVAL_DEALS,
         f"eval.deals must be at most {MAX_EVAL_DEALS:,} per opponent, not {config.eval.deals:,}"),
        *((_agent_problem(spec) is None, f"eval.opponents: {_agent_problem(spec)}") for spec in config.eval.opponents
          if isinstance(spec, str)),
        (all(isinstance(spec, str) for spec in config.eval.opponents),
         "eval.opponents must list agent specs (strings), such as [heuristic, random]"),
        *_trainer_checks(config),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(f"{where}: {message}")
    return config


def _trainer_checks(config: TrainConfig) -> list[tuple[bool, str]]:
    """The trainer is one of the registry's; every trainer's settings are valid (each trainer owns
    its checks, ``trainers.Trainer.checks``: a config holds every block, so a bad one is refused
    whichever trainer runs); and a setting only other trainers read is not set."""
    from . import bench, trainers

    if not isinstance(config.trainer, str) or config.trainer not in trainers.REGISTRY:
        return [(False, f"trainer must be one of {', '.join(trainers.names())}, not {config.trainer!r}")]
    reads = trainers.get(config.trainer).reads

    def readers(key: str) -> str:
        return " and ".join(t.name for t in trainers.REGISTRY.values() if key in t.reads)

    return [
        *(check for t in trainers.REGISTRY.values() for check in t.checks(config)),
        (not config.tune.generations or "tune" in reads, f"tune runs before the {readers('tune')} trainer only"),
        (not config.network.heuristic_weights or "network.heuristic_weights" in reads,
         f"network.heuristic_weights is read by the {readers('network.heuristic_weights')} trainer only"),
        (not config.benchmark.tasks or "benchmark" in reads,
         f"benchmark.tasks is read by the {readers('benchmark')} trainers only"),
        *bench.checks(config),
    ]


def _finite_checks(config: Any, where: str = "") -> list[tuple[bool, str]]:
    """Every float of ``config`` and its blocks is finite: an inf learning rate or a NaN prior
    weight passes every comparison and then fills the network with NaN."""
    checks = []
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if dataclasses.is_dataclass(value):
            checks += _finite_checks(value, f"{where}{f.name}.")
        elif isinstance(value, float) and not math.isfinite(value):
            checks.append((False, f"{where}{f.name} must be a finite number, not {value}"))
    return checks


def _network_checks(n: NetworkSettings) -> list[tuple[bool, str]]:
    layers = [*n.shared, *n.hidden]
    return [
        (all(type(w) is int and 0 < w <= MAX_WIDTH for w in layers),
         f"network.shared and network.hidden must be widths from 1 to {MAX_WIDTH}"),
        (len(n.shared) <= MAX_LAYERS and len(n.hidden) <= MAX_LAYERS,
         f"network.shared and network.hidden may list at most {MAX_LAYERS} layers each"),
    ]


def _is_number(value: Any, optional: bool = False) -> bool:
    return (optional and value is None) or isinstance(value, (int, float)) and not isinstance(value, bool)


def _ppo_checks(p: PPOSettings) -> list[tuple[bool, str]]:
    return [
        (p.learning_rate > 0, "ppo.learning_rate must be positive"),
        (p.n_steps > 0 and p.batch_size > 1 and p.n_epochs > 0, "ppo.n_steps, ppo.n_epochs must be positive and "
                                                                 "ppo.batch_size above 1"),
        (0 <= p.gamma <= 1 and 0 <= p.gae_lambda <= 1, "ppo.gamma and ppo.gae_lambda must be in [0, 1]"),
        (p.clip_range > 0 and p.max_grad_norm > 0, "ppo.clip_range and ppo.max_grad_norm must be positive"),
        (p.ent_coef >= 0 and p.vf_coef >= 0, "ppo.ent_coef and ppo.vf_coef must be 0 or more"),
        (p.target_kl is None or _is_number(p.target_kl) and p.target_kl > 0, "ppo.target_kl must be positive or null"),
    ]


@functools.lru_cache(maxsize=64)
def _agent_problem(spec: Any) -> str | None:
    """Why ``spec`` names no agent (one line), or ``None`` (it loads)."""
    if not isinstance(spec, str):
        return f"an agent spec is a string, not {spec!r}"
    from kc_env.agents import load

    try:
        load(spec)
    except (ValueError, OSError) as exc:
        return str(exc).splitlines()[0] if str(exc) else f"cannot load agent {spec!r}"
    return None


MAX_VALUES = 100_000
"""The most values (keys, items and scalars, an alias counted at each use) a config file may hold:
YAML's aliases can make a small file stand for billions of values."""


def _values(data: Any) -> int:
    """How many values ``data`` holds, each alias's at every use, counted up to just past ``MAX_VALUES``."""
    count, stack = 0, [data]
    while stack and count <= MAX_VALUES:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.keys())
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def load(path: str | Path, variant: str | None = None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """The config of ``path`` (its ``default`` block, then ``variant``'s, then ``overrides``
    given as dotted keys such as ``{"ppo.learning_rate": 1e-4}``)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:  # at most MAX_CONFIG_BYTES: /dev/zero or a huge file is refused, not read whole
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        names = "" if path.exists() else f"; shipped configs: {', '.join(shipped())}"
        raise ConfigError(f"{path}: cannot read ({exc.strerror}){names}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: more than {MAX_CONFIG_BYTES:,} bytes; a config is a few dozen lines")
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (yaml.YAMLError, ValueError, RecursionError) as exc:  # ValueError: an integer of over 4,300 digits
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict) or "default" not in data:
        raise ConfigError(f"{path}: a config is a mapping with a 'default:' block")
    if _values(data) > MAX_VALUES:
        raise ConfigError(f"{path}: holds more than {MAX_VALUES:,} values (YAML aliases repeating one another?); "
                          "a config is a few dozen")
    merged = _deep_merge({}, _block(data, "default", path))
    if variant is not None:
        if variant not in data or variant == "default":
            raise ConfigError(f"{path}: no variant {variant!r}; variants: {', '.join(str(k) for k in data if k != 'default') or 'none'}")
        merged = _deep_merge(merged, _block(data, variant, path))
    for dotted, value in (overrides or {}).items():
        node = merged
        *parents, last = dotted.split(".")
        for at, part in enumerate(parents):
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"{path}: cannot set {dotted}: {'.'.join(parents[:at + 1])} is {node!r}, not a mapping")
        node[last] = value
    _check_overrides_read(overrides or {}, merged.get("trainer", TrainConfig.trainer), path)
    return validate(_build(TrainConfig, merged, str(path)), str(path))


def _check_overrides_read(overrides: dict[str, Any], trainer: Any, path: Path) -> None:
    """A ``--set`` key in a block that only other trainers read (``ppo.ent_coef`` for the
    turn-PPO trainer) would change nothing: refused, naming the trainers that read it."""
    from . import trainers

    if not isinstance(trainer, str) or trainer not in trainers.REGISTRY:
        return  # validate names the bad trainer
    for dotted in overrides:
        parts = dotted.split(".")
        blocks = {".".join(parts[:n]) for n in range(1, len(parts))}  # network.prior.x: network, network.prior
        read_by = [t.name for t in trainers.REGISTRY.values() if blocks & t.reads]
        if read_by and trainer not in read_by:
            raise ConfigError(f"{path}: --set {dotted} is read by the {' and '.join(read_by)} "
                              f"trainer{'s' * (len(read_by) > 1)} only, and this config trains with {trainer}")


def _block(data: dict, name: str, path: Path) -> dict:
    block = data[name] or {}
    if not isinstance(block, dict):
        raise ConfigError(f"{path}: the {name}: block must be a mapping of keys to values, not {type(block).__name__}")
    return block


def shipped() -> dict[str, Path]:
    """The configs that ship in the package (``kc_env.configs``, the repository's ``configs/``):
    name (the file's stem) -> file."""
    from importlib.resources import files

    return {p.stem: p for p in sorted(Path(str(files("kc_env.configs"))).glob("*.yaml"))}


def find(spec: str | Path) -> Path:
    """The config file that ``spec`` names: ``spec`` itself when it is a file or reads as a path
    (a folder or a ``.yaml`` suffix), else the shipped config of that name (``default`` ->
    ``configs/default.yaml``), else ``spec`` (which ``load`` then refuses, listing the shipped ones)."""
    path = Path(spec)
    if path.is_file() or path.suffix in (".yaml", ".yml") or len(path.parts) > 1:
        return path
    return shipped().get(str(spec), path)


def _deep_merge(base: dict, extra: dict) -> dict:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key not in ("agents",):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def save(config: TrainConfig, path: str | Path) -> None:
    """Write the resolved config as a loadable file (its ``default`` block), atomically."""
    write_atomic(path, yaml.safe_dump({"default": config.to_dict()}, sort_keys=False))
