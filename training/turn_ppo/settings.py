"""The turn-PPO trainer's own settings (the ``turn_ppo:`` block of a config) and their checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kc_env.agents import turn_value
from kc_env.agents.playouts import OTHERS

ADVANTAGES = ("outcome", "expected")
RETURNS = ("share", "win")
GATES = ("none", "careless", "heuristic", "uniform")
CARELESS_PLAYS = ("best", "sample")
MAX_GAMES = 50_000
"""The most deals ``games`` may play an iteration: their choices are held in memory for the update
(12.5 times the most a shipped config plays, 4,000)."""
MAX_BATCH = 65_536
"""The largest ``batch_size`` (16 times the shipped configs' 4,096)."""


@dataclass
class TurnPPOSettings:
    """PPO over whole turns (``trainer: turn_ppo``, ``training/turn_ppo/``). ``num_players``,
    ``rules``, ``max_moves``, ``seed``, ``eval`` and ``benchmark`` mean what they mean for the other
    trainers; the rest of the config is not read."""

    iterations: int = 10
    """Rounds of play, then a PPO update, then an evaluation (a point of the curve)."""
    games: int = 4000
    """Deals played per iteration."""
    self_play: float = 0.5
    """Share of the deals in which every seat learns; in the others one seat learns and every other
    seat plays one of ``against`` (cycled over the deals)."""
    against: list[str] = field(default_factory=lambda: ["heuristic", "greedy", "random"])
    """The league the single learner meets (the compiled agents: heuristic, greedy, random)."""
    candidates: int = 6
    """End-of-turn positions the policy chooses among (the heuristic's best ones)."""
    hidden: list[int] = field(default_factory=list)
    """Widths of the policy network's hidden layers (relu); none: a linear score of a candidate's
    features, the form of ``models/turn-ranking-2p``."""
    critic_hidden: list[int] = field(default_factory=lambda: [64])
    """Widths of the critic's hidden layers: it values a candidate's end-of-turn position (the
    win share from there), and the policy's baseline is its expectation over the candidates."""
    privileged_critic: bool = False
    """The critic reads, beside a candidate's features (what the seat sees), what the other seats
    hold there (``rollouts.HAND_FEATURES``: each one's hand, its size and how many of its cards
    fit each pile where the line ends), as PerfectDou's privileged critic. Only training reads the hidden
    hands: the model plays from what its seat sees."""
    returns: str = "share"
    """What a deal returns to a learning seat: ``share``, its win share (1 a win, 1 / players a deal
    nobody won, 0 a loss); ``win``, 1 for a win and 0 otherwise, so that a blocked deal is worth no
    more than a loss (a learner that holds back until the deal blocks gains nothing by it)."""
    advantage: str = "outcome"
    """``outcome``: the deal's result less the baseline (unbiased); ``expected``: the critic's value
    of the chosen candidate less the baseline (lower variance, biased by the critic's errors)."""
    epochs: int = 4
    """PPO passes over each iteration's decisions."""
    batch_size: int = 4096
    """Decisions per gradient step."""
    learning_rate: float = 3.0e-4
    """Adam's step size (the policy and the critic)."""
    clip_range: float = 0.2
    """PPO's clip of the probability ratio."""
    ent_coef: float = 0.01
    """Weight of the policy's entropy over the valid candidates."""
    gate: str = "none"
    """``none``: one policy; ``careless``: two, as ``models/turn-ranking-2p`` has (the agent's gate,
    ``kc_env.agents.turn_value``): the first plays until another seat has been careless in the deal
    (left a pile move open or a side empty, which the heuristic never does), the second from then
    on; each learns from the turns it chose. ``heuristic``: the same gate, but once a seat has been
    careless the heuristic plays the learner's turns (nothing to learn there: the heuristic's pick
    is near the best of the candidates against random, research/experiments.md 2026-12-04), and
    the model's second network is one of zeros, whose tie the heuristic's own candidate wins.
    ``uniform``: the same, but once a seat has been careless the learner's turn is a uniform draw
    among the candidates (the zeros network sampled; the model's card says ``careless_play:
    sample``), which against random wins more than the heuristic's own pick (research/experiments.md
    2026-12-05)."""
    careless_play: str = "best"
    """How the model plays its second network (``gate: careless``): ``best``, the best-scored
    candidate, re-planned at every move; ``sample``, a line drawn from its softmax at the turn's
    start, as in training (the card's ``careless_play``). ``gate: uniform`` always samples."""
    careless_candidates: int | None = None
    """Under ``gate: careless`` or ``uniform``: the second network chooses among the heuristic's first
    this many candidates only (null: all ``candidates``; the card's ``careless_candidates``). A
    uniform draw among the heuristic's best 6 wins more against random than among its best 16 or
    32 (research/experiments.md 2026-12-05 (evening)), while the first network keeps them all."""
    patience: int = 0
    """Under a gate: the seat plays the heuristic's own turn for its first this
    many clean turns of a deal."""
    tables: list = field(default_factory=list)
    """The tables the policy trains at, written as ``turn_value.tables`` is (``{rules: <preset or
    list>, num_players: <2 to 6 or list>}``, each list standing for every table of it); empty: the
    config's own ``rules`` and ``num_players``. Each iteration's deals are dealt round the tables
    in turn (deal ``j`` at table ``j mod tables``), and one update fits them all; the curve is
    played at the config's own table. The model's card lists them (``tables``), so it plays every
    table they span without a warning."""
    start: str | None = None
    """A turn-value model (its folder, a shipped model's name such as ``turn-ppo-2p``, or a turn
    trainer's run folder, whose model is ``RUN/model``) whose network(s) start the policy (their layer sizes replace
    ``hidden``; a model with one network starts both of a gated policy); none: a policy that starts
    uniform over the candidates."""


def tables_of(config: Any) -> list[tuple[str, Any, int]]:
    """The tables of ``config`` (``turn_ppo.tables``, or its own table), each as (its name, its
    ``Rules``, its players); ``ValueError`` naming a bad entry."""
    from ..turn_value.settings import expand_tables

    return [(name, rules, n) for _, _, rules, n, name in expand_tables(config.turn_ppo.tables, config, "turn_ppo")]


def checks(config: Any) -> list[tuple[bool, str]]:
    """The ``turn_ppo:`` block's checks (``trainers.Trainer.checks``)."""
    t = config.turn_ppo
    table_problem = ""
    try:
        tables_of(config)
    except ValueError as exc:
        table_problem = str(exc)
    widths = [*t.hidden, *t.critic_hidden]
    widths_ok = all(type(w) is int and 0 < w <= turn_value.MAX_WIDTH for w in widths)
    return [
        (type(t.iterations) is int and t.iterations > 0 and type(t.games) is int and t.games > 0,
         "turn_ppo.iterations and games must be positive integers"),
        (type(t.games) is not int or t.games <= MAX_GAMES,
         f"turn_ppo.games must be at most {MAX_GAMES:,} deals an iteration, not {t.games:,}"),
        (0 <= t.self_play <= 1, "turn_ppo.self_play must be in [0, 1]"),
        (t.self_play == 1 or (bool(t.against) and all(a in OTHERS for a in t.against)),
         f"turn_ppo.against must list some of {', '.join(OTHERS)}"),
        (type(t.candidates) is int and 2 <= t.candidates <= 64, "turn_ppo.candidates must be 2 to 64"),
        (widths_ok, f"turn_ppo.hidden and critic_hidden must be positive widths up to {turn_value.MAX_WIDTH}"),
        (max(len(t.hidden), len(t.critic_hidden)) < turn_value.MAX_LAYERS,
         f"turn_ppo.hidden and critic_hidden may list at most {turn_value.MAX_LAYERS - 1} widths each"),
        (not widths_ok or len(t.hidden) >= turn_value.MAX_LAYERS
         or turn_value.weights_bytes([*t.hidden, 1], networks=2) <= turn_value.MAX_WEIGHTS_BYTES,
         f"turn_ppo.hidden {t.hidden} makes a model of more than the {turn_value.MAX_WEIGHTS_BYTES:,} bytes a model "
         "may hold (its two networks, float32)"),
        (t.returns in RETURNS, f"turn_ppo.returns must be one of {', '.join(RETURNS)}, not {t.returns!r}"),
        (type(t.privileged_critic) is bool, "turn_ppo.privileged_critic must be true or false"),
        (t.advantage in ADVANTAGES, f"turn_ppo.advantage must be one of {', '.join(ADVANTAGES)}, not {t.advantage!r}"),
        (type(t.epochs) is int and t.epochs > 0 and type(t.batch_size) is int and t.batch_size > 0,
         "turn_ppo.epochs and batch_size must be positive integers"),
        (type(t.batch_size) is not int or t.batch_size <= MAX_BATCH,
         f"turn_ppo.batch_size must be at most {MAX_BATCH:,}, not {t.batch_size:,}"),
        (t.learning_rate > 0 and 0 < t.clip_range < 1 and t.ent_coef >= 0,
         "turn_ppo.learning_rate must be positive, clip_range in (0, 1) and ent_coef at least 0"),
        (t.start is None or isinstance(t.start, str), "turn_ppo.start must be a turn-value model (a folder, a run or a shipped name) or null"),
        (t.gate in GATES, f"turn_ppo.gate must be one of {', '.join(GATES)}, not {t.gate!r}"),
        (t.careless_play in CARELESS_PLAYS and (t.careless_play == "best" or t.gate in ("careless", "uniform")),
         f"turn_ppo.careless_play must be one of {', '.join(CARELESS_PLAYS)} (sample: with gate careless or "
         f"uniform), not {t.careless_play!r}"),
        (type(t.patience) is int and 0 <= t.patience <= 100, "turn_ppo.patience must be an integer from 0 to 100"),
        (t.careless_candidates is None or (type(t.careless_candidates) is int and type(t.candidates) is int and
                                           2 <= t.careless_candidates <= t.candidates and t.gate in ("careless", "uniform")),
         "turn_ppo.careless_candidates must be null or an integer from 2 to turn_ppo.candidates, with gate "
         f"careless or uniform, not {t.careless_candidates!r}"),
        (not table_problem, table_problem),
    ]
