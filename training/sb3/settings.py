"""The SB3 trainer's own settings (``pretrain:``, ``tune:``, and the heuristic prior's weights of
``network:``) and their checks. The ``ppo``, ``network``, ``league`` and ``eval`` blocks are shared
with the RLlib trainer (``config.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kc_env.agents.base import COMPILED, RULE_BASED


@dataclass
class PretrainSettings:
    """Before PPO: behaviour cloning of a teacher (``method: clone``, ``training/sb3/pretrain.py``),
    or policy improvement over the network's prior by play-outs of every legal move
    (``method: rollouts``, ``training/sb3/improve.py``)."""

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
    by an evolution strategy (``training/sb3/tune.py``); the network's prior then plays with them."""

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


def checks(config: Any) -> list[tuple[bool, str]]:
    """The SB3 trainer's settings: the pretraining, tuning the prior's weights, and the weights set."""
    return [
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
    ]


def _tune_checks(config: Any) -> list[tuple[bool, str]]:
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
        (t.pairs > 0 and t.deals > 0 and t.sigma > 0 and t.step > 0 and t.holdout_deals >= 0,
         "tune.pairs, tune.deals, tune.sigma and tune.step must be positive, tune.holdout_deals >= 0"),
        (not unknown, f"tune.weights: unknown weight names {unknown} (known: {', '.join(WEIGHT_NAMES)})"),
    ]


def _weight_checks(config: Any) -> list[tuple[bool, str]]:
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
    ]
