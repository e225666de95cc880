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

from kc_env.agents.base import COMPILED, RULE_BASED
from kc_env.files import write_atomic
from kc_env.game_info import GAME_INFO
from kc_env.rewards import REWARDS
from kc_env.rules import Rules, RulesError


class ConfigError(ValueError):
    """A config that cannot be used: names the file, the key and what is allowed."""


TRAINERS = ("sb3", "rllib", "turn_value")
"""The trainers ``kc train`` can run (``TrainConfig.trainer``)."""

MAX_ENVS = 4096
"""The most games ``n_envs`` may play at once (each holds about 20 kB in the vector env)."""
MAX_ROLLOUT = 262_144
"""The most steps one rollout (``ppo.n_steps * n_envs``) may hold: about 2.2 GB of observations
and masks in the rollout buffer."""
MAX_WIDTH = 4096
"""The widest layer ``network.shared`` and ``network.hidden`` may list."""
MAX_LAYERS = 16
"""The most layers ``network.shared`` and ``network.hidden`` may each list."""


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
    """A trunk shared by policy and value, then a head each (``training/policy.py``)."""

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
class PretrainSettings:
    """Before PPO: behaviour cloning of a teacher (``method: clone``, ``training/pretrain.py``),
    or policy improvement over the network's prior by play-outs of every legal move
    (``method: rollouts``, ``training/improve.py``)."""

    teacher: str | None = None
    """``heuristic`` or ``greedy`` to learn from before PPO (for ``rollouts``: the network's
    prior); None: start from scratch."""
    method: str = "clone"
    """``clone``: imitate the teacher; ``rollouts``: fit each move's advantage over the teacher's."""
    samples: int = 300_000
    """Teacher actions to record (``clone``), or positions to label (``rollouts``)."""
    epochs: int = 4
    """Passes over the recorded actions or positions."""
    learning_rate: float = 1e-3
    """Adam step size of the fit."""
    batch_size: int = 256
    """``clone``: actions per gradient step of the fit (300,000 actions at 4,096 a step make only
    about 70 steps an epoch: too few to imitate the teacher)."""
    advantage_scale: float = 10.0
    """``rollouts``: logits per unit of win share that a move gains over the teacher's."""
    redeals: int = 0
    """``rollouts``: value each move on the true deal (0), or as the mean over this many deals of
    the unseen cards that look the same from the seat (the same re-deals for every move)."""
    holdout: float = 0.1
    """``rollouts``: the share of the labelled deals held out to choose the prior's weight."""


@dataclass
class TuneSettings:
    """Before the network: tune the evaluation weights of the heuristic prior against the league
    by an evolution strategy (``training/tune.py``); the network's prior then plays with them."""

    generations: int = 0
    """Steps of the evolution strategy (0: no tuning, the prior keeps its shipped weights)."""
    pairs: int = 8
    """Directions per generation; each is played from both sides (2 * pairs candidates)."""
    deals: int = 200
    """Deals per generation, each played from every seat by every candidate (the same deals)."""
    sigma: float = 0.15
    """The candidates' distance from the current weights, in log weight."""
    step: float = 0.1
    """How far a generation moves the weights along the rank-weighted directions (log weight)."""
    holdout_deals: int = 1000
    """Fresh deals (each from every seat) on which the tuned weights are measured at the end."""
    weights: list[str] = field(default_factory=list)
    """The weights to tune, by name (``WEIGHT_NAMES``); empty: all of them that start
    above 0 (the search is in log weights, so a weight at 0, such as the shipped ``fit_close``,
    stays there unless named)."""
    objective: str = "share"
    """What a candidate maximises: ``share`` (a deal won counts 1, a blocked deal nobody won
    1/players) or ``wins`` (only deals won count: stalling a deal into a block gains nothing)."""


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


@dataclass
class TurnValueSettings:
    """The turn-value trainer (``trainer: turn_value``, ``training/turn_value_train.py``): a value
    of end-of-turn positions, learned by ``method``. ``num_players``, ``rules``, ``max_moves``,
    ``seed`` and ``eval`` mean what they mean for the other trainers; the rest of the config is
    not read."""

    method: str = "monte_carlo"
    """``monte_carlo``: each iteration a fresh batch of self-play deals played by the last network
    (the heuristic's choice before the first), then a fit to the deals' outcomes, warm-started.
    ``ranking``: each iteration labels more decisions by play-outs (the heuristic's
    ``candidates`` best turns at a turn start, each valued on the same ``redeals`` re-deals, in
    deals against each of ``label_against`` and with that opponent in the play-outs), then fits
    which candidate is better within each decision on all the labels so far."""
    iterations: int = 3
    """Rounds of play (or labelling), then fit."""
    games: int = 20_000
    """Deals played per iteration; half are self-play (every seat learns), half one learner
    against the heuristic."""
    epsilon: float = 0.2
    """Share of the learners' turns that pick a random candidate instead of the best."""
    candidates: int = 8
    """End-of-turn positions compared per decision (the heuristic's best ones)."""
    hidden: list[int] = field(default_factory=lambda: [256, 128])
    """Widths of the value network's hidden layers (relu)."""
    epochs: int = 3
    """Passes over each iteration's records."""
    learning_rate: float = 1.0e-3
    """Adam's step size."""
    redeals: int = 12
    """``ranking``: re-deals of the unseen cards each candidate is played out on."""
    label_chunks: Any = 20
    """``ranking``: chunks of 100 deals labelled per iteration against each opponent (about 165
    decisions a chunk against the heuristic, 95 against random, whose own turns are not kept), or
    a mapping of how many against each (``{heuristic: 38, random: 65}``)."""
    label_against: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    """``ranking``: the opponents whose deals and play-outs give the labels (heuristic, random)."""
    fit_steps: int = 3000
    """``ranking``: full-batch Adam steps of each fit."""
    weight_decay: float = 1.0e-4
    """``ranking``: Adam's weight decay."""
    gate: str = "none"
    """``ranking``: ``none`` fits one ranking on the labels of every opponent; ``careless`` (with
    ``label_against: [heuristic, random]``) fits one ranking on each opponent's labels, and the
    model plays the one fitted against the heuristic until another seat leaves a pile move open or
    a side empty, which the heuristic never does, then the one fitted against random
    (``kc_env.agents.turn_value``). Turns that beat the heuristic lose against random and the
    reverse, so one fit on both gains against neither (research/experiments.md)."""
    patience: int = 3
    """``gate: careless``: the model plays the heuristic's own turn for its first this many turns
    of a deal, before any seat has been careless."""

    def chunks_against(self, against: str) -> int:
        """The chunks labelled per iteration against ``against`` (``label_chunks``)."""
        return self.label_chunks[against] if isinstance(self.label_chunks, dict) else self.label_chunks


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
    (``training/rollouts.py``): one step of policy improvement over the prior. Needs
    ``network.prior`` and a league of that agent alone; use it with ``ppo.gamma: 0``."""
    checkpoint_every: int = 250_000
    """Save a resumable checkpoint every this many steps."""
    update_threads: int = 2
    """Threads torch uses for gradient updates. Rollouts always use one: on 2 cores, more torch
    threads beside the compiled games slowed vector rollouts about eightfold (docs/speed.md)."""
    trainer: str = "sb3"
    """``sb3`` (sb3-contrib's MaskablePPO on the vector env, one machine) or ``rllib`` (Ray
    RLlib's PPO on the PettingZoo env, many cores and machines; needs the ``rllib`` extra)."""
    ppo: PPOSettings = field(default_factory=PPOSettings)
    network: NetworkSettings = field(default_factory=NetworkSettings)
    league: LeagueSettings = field(default_factory=LeagueSettings)
    pretrain: PretrainSettings = field(default_factory=PretrainSettings)
    tune: TuneSettings = field(default_factory=TuneSettings)
    eval: EvalSettings = field(default_factory=EvalSettings)
    rllib: RLlibSettings = field(default_factory=RLlibSettings)
    turn_value: TurnValueSettings = field(default_factory=TurnValueSettings)

    def rules_object(self) -> Rules:
        """The ``Rules`` this config trains under."""
        return Rules.coerce(self.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, as saved in the run folder."""
        return dataclasses.asdict(self)


def _build(cls, data: Any, where: str):
    """Strictly build dataclass ``cls`` from a mapping; nested dataclasses by their field types."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    out = {}
    for key, value in data.items():
        if key not in fields:
            raise ConfigError(f"{where}: unknown key {key!r}; allowed: {', '.join(fields)}")
        default = getattr(cls(), key)
        if dataclasses.is_dataclass(default):
            out[key] = _build(type(default), value, f"{where}.{key}")
        else:
            out[key] = _check_value(key, value, default, where)
    return cls(**out)


def _check_value(key: str, value: Any, default: Any, where: str) -> Any:
    if key == "rules" or key == "label_chunks" and isinstance(value, dict):  # a mapping, checked by validate
        return value
    if default is None:  # optional: a number (target_kl) or an agent spec (teacher)
        if value is None or isinstance(value, (int, float, str)) and not isinstance(value, bool):
            return value
        raise ConfigError(f"{where}.{key}: expected a number, a name or null, got {value!r}")
    if isinstance(default, bool) or isinstance(value, bool) and not isinstance(default, bool):
        if type(value) is not type(default):
            raise ConfigError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
    if isinstance(default, float) and isinstance(value, int):
        value = float(value)
    if isinstance(default, float) and isinstance(value, str):
        try:  # YAML reads 3e-4 as a string; a number written that way is still a number
            value = float(value)
        except ValueError:
            pass
    if type(value) is not type(default):
        raise ConfigError(f"{where}.{key}: expected {type(default).__name__}, got {value!r}")
    return value


def validate(config: TrainConfig, where: str = "config") -> TrainConfig:
    """Check values that types alone do not: rules, players, ranges, names."""
    try:
        rules = config.rules_object()
        rules.check_players(config.num_players)
    except RulesError as exc:
        raise ConfigError(f"{where}: {exc}") from None
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
        (config.seed >= 0, "seed must be 0 or more"),
        (config.max_moves > 0, "max_moves must be positive"),
        (config.update_threads > 0, "update_threads must be positive"),
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
        (bool(config.eval.opponents) and config.eval.deals > 0,
         "eval.opponents needs at least one agent spec, and eval.deals must be positive"),
        *((_agent_problem(spec) is None, f"eval.opponents: {_agent_problem(spec)}") for spec in config.eval.opponents
          if isinstance(spec, str)),
        (all(isinstance(spec, str) for spec in config.eval.opponents),
         "eval.opponents must list agent specs (strings), such as [heuristic, random]"),
        (config.pretrain.teacher in (None, *COMPILED), f"pretrain.teacher must be {', '.join(COMPILED)} or null"),
        (config.pretrain.method in ("clone", "rollouts"), "pretrain.method must be clone or rollouts"),
        (config.pretrain.method != "rollouts" or (config.network.prior is not None
                                                  and config.pretrain.teacher == config.network.prior
                                                  and set(config.league.agents) == {config.network.prior}),
         "pretrain.method rollouts needs pretrain.teacher equal to network.prior, and a league of that agent "
         "alone: the play-outs let it play every seat"),
        (config.pretrain.samples > 0 and config.pretrain.epochs > 0 and config.pretrain.advantage_scale > 0
         and config.pretrain.batch_size > 0,
         "pretrain.samples, pretrain.epochs, pretrain.batch_size and pretrain.advantage_scale must be positive"),
        (0 <= config.pretrain.holdout < 1, "pretrain.holdout must be in [0, 1)"),
        (config.pretrain.redeals >= 0, "pretrain.redeals must be 0 (the true deal) or more"),
        *_tune_checks(config),
        *_weight_checks(config),
        (config.trainer in TRAINERS, f"trainer must be one of {', '.join(TRAINERS)}, not {config.trainer!r}"),
        *_rllib_checks(config.rllib),
        *_turn_value_checks(config.turn_value),
    ]
    for ok, message in checks:
        if not ok:
            raise ConfigError(f"{where}: {message}")
    return config


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


def _tune_checks(config: TrainConfig) -> list[tuple[bool, str]]:
    t = config.tune
    if t.generations == 0:
        return [(True, "")]
    from kc_env.agents.heuristic.weights import WEIGHT_NAMES

    unknown = [n for n in t.weights if n not in WEIGHT_NAMES]
    return [
        (t.generations > 0, "tune.generations must be 0 (no tuning) or more"),
        (config.network.prior == "heuristic", "tune needs network.prior: heuristic (it tunes that prior's weights)"),
        (set(config.league.agents) <= set(RULE_BASED),
         f"tune plays the league's built-in agents: league.agents may hold only {', '.join(RULE_BASED[:-1])} "
         f"and {RULE_BASED[-1]}"),
        (t.objective in ("share", "wins"), "tune.objective must be share or wins"),
        (config.trainer == "sb3", "tune runs before the sb3 trainer only"),
        (t.pairs > 0 and t.deals > 0 and t.sigma > 0 and t.step > 0 and t.holdout_deals >= 0,
         "tune.pairs, tune.deals, tune.sigma and tune.step must be positive, tune.holdout_deals >= 0"),
        (not unknown, f"tune.weights: unknown weight names {unknown} (known: {', '.join(WEIGHT_NAMES)})"),
    ]


def _weight_checks(config: TrainConfig) -> list[tuple[bool, str]]:
    """A heuristic prior whose weights are not the shipped ones: set (``network.heuristic_weights``)
    or tuned (``tune``, which can only tune weights that start above 0)."""
    weights = config.network.heuristic_weights
    checks = [(config.pretrain.teacher is None or not (weights or config.tune.generations),
               "pretrain.teacher plays the shipped heuristic, so it cannot teach the tuned prior "
               "(network.heuristic_weights or tune)")]
    if not (weights or config.tune.generations):
        return checks  # the shipped weights (and no need to import the heuristic)
    from kc_env.agents.heuristic.weights import WEIGHT_NAMES, evaluation_weights

    try:
        start = evaluation_weights(weights)  # the shipped weights when none are set (tuning them)
    except ValueError as exc:
        return [*checks, (False, f"network.heuristic_weights: {exc}")]
    tuned = config.tune.weights if config.tune.generations else []
    at_zero = [n for n in tuned if n in WEIGHT_NAMES and start[WEIGHT_NAMES.index(n)] <= 0]
    checks.append((not at_zero, f"tune searches log weights, so the weights it tunes must start above 0, and "
                                f"{at_zero} do not (set them in network.heuristic_weights)"))
    if not weights:
        return checks
    return [
        *checks,
        (config.network.prior == "heuristic", "network.heuristic_weights needs network.prior: heuristic"),
        (config.trainer == "sb3", "network.heuristic_weights is read by the sb3 trainer only"),
    ]


TURN_VALUE_METHODS = ("monte_carlo", "ranking")
LABEL_OPPONENTS = ("heuristic", "random")
TURN_VALUE_GATES = ("none", "careless")


def _positive_chunks(chunks, against: list) -> bool:
    if isinstance(chunks, dict):
        return set(chunks) == set(against) and all(type(v) is int and v > 0 for v in chunks.values())
    return type(chunks) is int and chunks > 0


def _turn_value_checks(t: TurnValueSettings) -> list[tuple[bool, str]]:
    ranking = t.method == "ranking"
    against = t.label_against if isinstance(t.label_against, list) else [t.label_against]
    return [
        (t.method in TURN_VALUE_METHODS, f"turn_value.method must be one of {', '.join(TURN_VALUE_METHODS)}, "
                                         f"not {t.method!r}"),
        (t.iterations > 0 and t.games > 0 and t.epochs > 0, "turn_value.iterations, games and epochs must be positive"),
        (0 <= t.epsilon <= 1, "turn_value.epsilon must be in [0, 1]"),
        (2 <= t.candidates <= 64, "turn_value.candidates must be 2 to 64"),
        ((ranking or bool(t.hidden)) and all(type(w) is int and 0 < w <= 4096 for w in t.hidden),
         "turn_value.hidden must be positive widths up to 4096 (none, a linear value, only under ranking)"),
        (t.learning_rate > 0, "turn_value.learning_rate must be positive"),
        (type(t.redeals) is int and 1 <= t.redeals <= 1024, "turn_value.redeals must be 1 to 1024"),
        (_positive_chunks(t.label_chunks, against), "turn_value.label_chunks must be positive, or map each of "
                                                    "label_against to a positive number"),
        (bool(against) and all(a in LABEL_OPPONENTS for a in against) and len(set(against)) == len(against),
         f"turn_value.label_against must list some of {', '.join(LABEL_OPPONENTS)}, each once"),
        (type(t.fit_steps) is int and t.fit_steps > 0 and t.weight_decay >= 0,
         "turn_value.fit_steps must be positive and weight_decay at least 0"),
        (t.gate in TURN_VALUE_GATES, f"turn_value.gate must be one of {', '.join(TURN_VALUE_GATES)}, not {t.gate!r}"),
        (t.gate == "none" or (ranking and against == list(LABEL_OPPONENTS)),
         "turn_value.gate careless needs method ranking and label_against [heuristic, random]"),
        (type(t.patience) is int and 0 <= t.patience <= 100, "turn_value.patience must be an integer from 0 to 100"),
    ]


def _rllib_checks(r: RLlibSettings) -> list[tuple[bool, str]]:
    return [
        (r.num_env_runners >= 0 and r.rollout_fragment_length >= 0,
         "rllib.num_env_runners and rllib.rollout_fragment_length must be >= 0"),
        (r.num_envs_per_env_runner > 0, "rllib.num_envs_per_env_runner must be positive"),
        (r.num_learners in (0, 1), "rllib.num_learners must be 0 or 1: with more, RLlib 2.60 cuts episodes into "
                                   "slices, and a slice with a seat that has no steps crashes the update"),
        (0 < r.minibatch_size <= r.train_batch_size, "rllib.minibatch_size must be positive and at most rllib.train_batch_size"),
    ]


def load(path: str | Path, variant: str | None = None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """The config of ``path`` (its ``default`` block, then ``variant``'s, then ``overrides``
    given as dotted keys such as ``{"ppo.learning_rate": 1e-4}``)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        names = "" if path.exists() else f"; shipped configs: {', '.join(shipped())}"
        raise ConfigError(f"{path}: cannot read ({exc.strerror}){names}") from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:  # ValueError: an integer of over 4,300 digits
        raise ConfigError(f"{path}: not valid YAML: {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict) or "default" not in data:
        raise ConfigError(f"{path}: a config is a mapping with a 'default:' block")
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
    return validate(_build(TrainConfig, merged, str(path)), str(path))


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


RUN_MARKER = ".kc-train-run"
"""The file every trainer of ``kc train`` writes into a run folder it makes: ``--overwrite``
deletes only a folder that holds it."""


def mark_run(folder: str | Path) -> None:
    """Mark ``folder`` as a run folder made by ``kc train``."""
    write_atomic(Path(folder) / RUN_MARKER, "made by kc train; kc train --overwrite may delete this folder\n")


def is_run(folder: str | Path) -> bool:
    """Whether ``kc train`` made ``folder`` (it holds ``RUN_MARKER``)."""
    return (Path(folder) / RUN_MARKER).is_file()
