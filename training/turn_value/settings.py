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
    tables: list = field(default_factory=list)
    """``ranking``: the tables labelled, each labelling its turn starts and play-outs with its own
    rules and seats, and fitted on as one ranking (one per opponent under ``gate: careless``);
    empty: the config's own ``rules`` and ``num_players``. Each entry is ``{rules: <preset name or
    mapping, or a list of them>, num_players: <2 to 6, or a list>, label_chunks: <optional, as
    above>}``, a list standing for every table of it (``{rules: [pagat, online], num_players: [3,
    5]}`` is four tables). A model of more than one table is trained for every table they span
    (its card's ``tables``: ``kc_env.agents.turn_value``), and each is evaluated by the compiled
    ``duel``."""

    def chunks_against(self, against: str, chunks: Any = None) -> int:
        """The chunks labelled per iteration against ``against`` (``chunks``, default
        ``label_chunks``)."""
        chunks = self.label_chunks if chunks is None else chunks
        return chunks[against] if isinstance(chunks, dict) else chunks


@dataclass(frozen=True)
class Table:
    """One table of ``tables``: its ``name`` (``pagat-4p``: the preset, or ``table<i>`` for a
    mapping of rules, and the players), its ``Rules``, players and chunks per iteration by
    opponent."""

    name: str
    rules: Any
    num_players: int
    chunks: dict


TABLE_KEYS = ("rules", "num_players", "label_chunks")
TABLE_CHUNKS = 100
"""The most chunks a table of several may label against one opponent over a run: each table's
deals start ``TABLE_CHUNKS`` chunks after the table before's (``learn.label_chunk``'s ``chunk``)."""


def tables_of(config: Any) -> list[Table]:
    """The tables of ``config`` (``turn_value.tables``, each list expanded in order: rules, then
    players), or its own one table; ``ValueError`` naming a bad entry."""
    t = config.turn_value
    out = []
    for i, entry, rules, n, name in expand_tables(t.tables, config, "turn_value", TABLE_KEYS):
        chunks = entry.get("label_chunks", t.label_chunks)
        if not _positive_chunks(chunks, t.label_against):
            raise ValueError(f"turn_value.tables[{i}].label_chunks must be positive, or map each of label_against "
                             "to a positive number")
        out.append(Table(name, rules, n, {a: t.chunks_against(a, chunks) for a in t.label_against}))
    return out


def expand_tables(entries: list, config: Any, block: str, keys=("rules", "num_players")):
    """Each table of ``entries`` (a trainer's ``tables``: ``{rules: <preset name or mapping, or a
    list of them>, num_players: <2 to 6, or a list>}``, each list expanded in order: rules, then
    players), or the config's own one table when empty, as (the entry's index, the entry, its
    ``Rules``, its players, its name: ``pagat-4p``, or ``table<i>-4p`` for a mapping of rules);
    ``ValueError`` naming a bad entry (``block``: the config block, for the message), a table
    named twice, or more tables than a card holds."""
    from kc_env.agents.model_folder import MAX_TABLES
    from kc_env.rules import Rules, RulesError

    out = []
    for i, entry in enumerate(entries or [{"rules": config.rules, "num_players": config.num_players}]):
        if not isinstance(entry, dict) or not set(entry) <= set(keys) or "rules" not in entry:
            raise ValueError(f"{block}.tables[{i}] must be a mapping of {', '.join(keys[:-1])} and {keys[-1]}, "
                             f"not {str(entry)[:80]!r}")
        rules_list = entry["rules"] if isinstance(entry["rules"], list) else [entry["rules"]]
        players = entry.get("num_players", config.num_players)
        if rules_list == [] or players == []:
            raise ValueError(f"{block}.tables[{i}] names no table (an empty list of rules or num_players)")
        for rules in rules_list:
            try:
                obj = Rules.coerce(rules)
            except (RulesError, TypeError, ValueError) as exc:
                raise ValueError(f"{block}.tables[{i}]: {exc}") from None
            for n in players if isinstance(players, list) else [players]:
                if type(n) is not int:
                    raise ValueError(f"{block}.tables[{i}].num_players must be 2 to 6, not {n!r}")
                try:
                    obj.check_players(n)
                except RulesError as exc:
                    raise ValueError(f"{block}.tables[{i}]: {exc}") from None
                out.append((i, entry, obj, n, f"{rules if isinstance(rules, str) else f'table{len(out)}'}-{n}p"))
    seen: dict = {}
    for _, _, rules, n, name in out:
        if (rules, n) in seen:
            raise ValueError(f"{block}.tables names a table twice: {seen[rules, n]} and {name}")
        seen[rules, n] = name
    if len(out) > MAX_TABLES:
        raise ValueError(f"{block}.tables names {len(out)} tables; a model's card holds at most {MAX_TABLES}")
    return out


def checks(config: Any) -> list[tuple[bool, str]]:
    """The ``turn_value:`` block's checks (``trainers.Trainer.checks``)."""
    return _turn_value_checks(config.turn_value) + _tables_checks(config)


def _tables_checks(config: Any) -> list[tuple[bool, str]]:
    t = config.turn_value
    if not t.tables:
        return []
    if not isinstance(t.tables, list):
        return [(False, "turn_value.tables must list tables")]
    try:
        tables = tables_of(config)
    except ValueError as exc:
        return [(False, str(exc))]
    many = len(tables) > 1
    return [
        (t.method == "ranking", "turn_value.tables is read under method ranking only"),
        (not many or all(c * t.iterations <= TABLE_CHUNKS for tb in tables for c in tb.chunks.values()),
         f"turn_value.tables: a table of several labels at most {TABLE_CHUNKS} chunks against an opponent over a run "
         "(label_chunks x iterations)"),
    ]


TURN_VALUE_METHODS = ("monte_carlo", "ranking")
LABEL_OPPONENTS = ("heuristic", "random")
TURN_VALUE_GATES = ("none", "careless")


def _positive_chunks(chunks, against: list) -> bool:
    if isinstance(chunks, dict):
        return set(chunks) == set(against) and all(type(v) is int and v > 0 for v in chunks.values())
    return type(chunks) is int and chunks > 0


MAX_GAMES = 200_000
"""The most deals ``games`` may play an iteration: their records are held in memory for the fit
(ten times the shipped configs' 20,000)."""


def _turn_value_checks(t: TurnValueSettings) -> list[tuple[bool, str]]:
    ranking = t.method == "ranking"
    against = t.label_against if isinstance(t.label_against, list) else [t.label_against]
    return [
        (t.method in TURN_VALUE_METHODS, f"turn_value.method must be one of {', '.join(TURN_VALUE_METHODS)}, "
                                         f"not {t.method!r}"),
        (t.iterations > 0 and t.games > 0 and t.epochs > 0, "turn_value.iterations, games and epochs must be positive"),
        (t.games <= MAX_GAMES, f"turn_value.games must be at most {MAX_GAMES:,} deals an iteration, not {t.games:,}"),
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
