"""The turn-value trainer's own settings (the ``turn_value:`` block of a config) and their checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TurnValueSettings:
    """The turn-value trainer (``trainer: turn_value``, ``training/turn_value/train.py``): a value
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


def checks(config: Any) -> list[tuple[bool, str]]:
    """The ``turn_value:`` block's checks (``trainers.Trainer.checks``)."""
    return _turn_value_checks(config.turn_value)


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
