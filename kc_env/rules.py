"""The rules in force: every variant of RULES.md sections 4 and 5, and the presets of section 6.

``Rules`` is a frozen dataclass. Defaults live only in its field defaults; a preset only
overrides fields (``PRESETS``). Loading from a dict or a YAML file is strict: an unknown key
or a bad value raises ``RulesError`` naming the key and listing what is allowed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PENALTY_TABLES: dict[str, dict[str, int]] = {
    # rank name -> penalty; "JK" is the joker (absent: a joker costs what a king costs)
    "standard": {"A": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 1, "8": 1, "9": 1, "10": 1,
                 "J": 1, "Q": 1, "K": 10},
    "wikipedia": {"A": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 1, "8": 1, "9": 1, "10": 1,
                  "J": 2, "Q": 2, "K": 10},
    "pip": {"A": 25, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
            "J": 10, "Q": 10, "K": 10},
    "kleplek": {"A": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 5, "7": 5, "8": 5, "9": 5, "10": 5,
                "J": 10, "Q": 10, "K": 10},
    "kings_double": {"A": 1, "2": 1, "3": 1, "4": 1, "5": 1, "6": 1, "7": 1, "8": 1, "9": 1, "10": 1,
                     "J": 1, "Q": 1, "K": 2},
    "per_card": {r: 1 for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")},
}
"""RULES.md 5.1: the named penalty tables, by rank name."""
RANK_KEYS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
MAX_CLEARED = 52
"""RULES.md 4.7: a deal in which this many piles have been cleared ends (blocked) with the turn."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6
"""RULES.md 2.2: a table seats 2 to 6 players (``kc_env.game_info.GAME_INFO`` shows them)."""
MAX_HAND_SIZE = 25
"""RULES.md 2.2: the most cards a hand may be dealt, (54 - 4) / 2 (two players, jokers in)."""
MAX_PENALTY = 100
"""RULES.md 5.1: the costliest card a custom table may name (the observation holds it exactly)."""
MAX_TARGET = MAX_CHIPS = 10_000
"""RULES.md 5: the largest ``target`` and ``chips``."""
MAX_SHOWN = 40
"""The most characters of a text value an error message shows."""

SYSTEMS = ("winner_collects", "wins", "chips", "single", "card_chips")
"""RULES.md 5.2: scoring systems that are not a plain penalty table."""
SCORING_VALUES = tuple(PENALTY_TABLES) + ("custom",) + SYSTEMS
CHIP_SYSTEMS = ("chips", "card_chips")
"""RULES.md 5.2: the systems played for chips (each starts with ``chips``, no target)."""
WIN_SYSTEMS = ("wins", "single")
"""RULES.md 5.2: the systems that count deals won, whatever the cards left in hand."""


def scored_by_penalties(scoring: str) -> bool:
    """Whether ``scoring`` is a penalty table (RULES.md 5.1): every hand left at the end of a deal,
    a blocked one too, adds its penalty to its player's total, and the lowest total wins."""
    return scoring in PENALTY_TABLES or scoring == "custom"


class RulesError(ValueError):
    """A rule set that cannot be used: names the key and what is allowed."""


@dataclass(frozen=True)
class Rules:
    """Every variant of RULES.md 4 and 5; the default of each field is the first value listed there."""

    draw: str = "start"
    kings_on_sides: bool = True
    cross_kings: str = "to_corner"
    pile_moves: str = "whole"
    must_play: str = "optional"
    king_first: bool | str = False
    fill_spaces_first: bool = False
    corner_build: str = "alternate"
    clear_complete_piles: bool = False
    blocked: str = "no_winner"
    jokers: int = 0
    hand_size: int = 7
    scoring: str = "standard"
    table: str = "standard"
    custom_table: Mapping[str, int] | None = field(default=None, hash=False, compare=True)
    target: int | None = None
    tie_break: str = "extra_deal"
    chips: int = 50
    chips_per_card: bool | str = False
    blocked_when: str = "idle_round"
    extra_chip: str = "could_not_play"
    first_player: str = "left_of_dealer"
    cross_king_move: str = "any_time"
    joker_on_empty_side: bool = False

    def __post_init__(self) -> None:
        for name, alias in ALIASES.items():
            if getattr(self, name) is True:
                object.__setattr__(self, name, alias)
        for name in SCALAR_FIELDS:
            _check_scalar(f"rule {name!r}", getattr(self, name))
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if not any(type(value) is type(a) and value == a for a in allowed):
                also = f" (true means {ALIASES[name]})" if name in ALIASES else ""
                raise RulesError(
                    f"rule {name!r} cannot be {_brief(value)}; allowed: {', '.join(map(_show, allowed))}{also}"
                )
        _check_count("rule 'hand_size'", self.hand_size, 1, MAX_HAND_SIZE)
        _check_count("rule 'chips'", self.chips, 1, MAX_CHIPS)
        if self.scoring == "single":
            object.__setattr__(self, "target", None)
        elif self.target is None:
            object.__setattr__(self, "target", usual_target(self.scoring, self.table))
        else:
            _check_count("rule 'target'", self.target, 1, MAX_TARGET, f" with scoring {self.scoring!r}")
        uses_custom = self.scoring == "custom" or self.table == "custom"
        if uses_custom:
            object.__setattr__(self, "custom_table", _check_custom_table(self.custom_table))
        elif self.custom_table is not None:
            raise RulesError("rule 'custom_table' is given but neither 'scoring' nor 'table' is 'custom'")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "standard", **overrides: Any) -> Rules:
        """The named rule set of RULES.md 6, with any fields overridden."""
        _check_preset(name)
        return cls.from_dict({**PRESETS[name], **overrides})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Strictly from a mapping; the key ``preset`` picks the base rule set (default ``standard``)."""
        if not isinstance(data, Mapping):
            raise RulesError(f"rules must be a mapping of variant names to values, not {type(data).__name__}")
        data = dict(data)
        base = data.pop("preset", "standard")
        _check_preset(base)
        known = {f.name for f in dataclasses.fields(cls)}
        for key in data:
            if key not in known:
                raise RulesError(f"unknown rule {_brief(key)}; allowed: preset, {', '.join(sorted(known))}")
        return cls(**{**PRESETS[base], **data})

    @classmethod
    def from_yaml(cls, path: str | Path) -> Rules:
        """Strictly from a YAML file holding one mapping (see ``from_dict``)."""
        import yaml

        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise RulesError(f"{path}: cannot read ({exc.strerror or exc})") from None
        except (yaml.YAMLError, RecursionError) as exc:
            raise RulesError(f"{path}: not valid YAML: {' '.join(str(exc).split())[:200]}") from None
        except ValueError as exc:  # not UTF-8, a number of 5,000 digits (not its advice), 2026-13-45
            raise RulesError(f"{path}: not valid YAML: {str(exc).split(';')[0][:200]}") from None
        try:
            return cls.from_dict(data or {})
        except RulesError as exc:
            raise RulesError(f"{path}: {exc}") from None

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Rules written as ``kc --rules`` takes them: a preset name, a YAML file (``.yaml``,
        ``.yml`` or an existing file), or ``preset,key=value,...`` with each value read as YAML
        (``read_overrides``)."""
        if text.endswith((".yaml", ".yml")) or _is_file(text):
            return cls.from_yaml(text)
        name, *pairs = text.split(",")
        return cls.preset(name.strip(), **read_overrides(pairs, "rule"))

    @classmethod
    def coerce(cls, value: Rules | str | Mapping[str, Any] | None) -> Rules:
        """A ``Rules`` from a ``Rules``, a preset name, a mapping, or ``None`` (the default)."""
        if value is None:
            return cls()
        if isinstance(value, Rules):
            return value
        if isinstance(value, str):
            return cls.preset(value)
        return cls.from_dict(value)

    def replace(self, **changes: Any) -> Rules:
        """A copy with some fields changed (validated). A target not named follows the scoring when
        it was the usual one of the old scoring (``usual_target``; ``single`` keeps none)."""
        data = {**self.to_dict(), **changes}
        if "target" not in changes and self.target in (None, usual_target(self.scoring, self.table)):
            data["target"] = None
        return self.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain data (``Rules.from_dict(r.to_dict()) == r``)."""
        d = dataclasses.asdict(self)
        if d["custom_table"] is not None:
            d["custom_table"] = dict(d["custom_table"])
        return d

    # -- derived facts --------------------------------------------------------------------
    @property
    def deck_size(self) -> int:
        """52, or 54 with jokers."""
        return 52 + self.jokers

    # the scoring system's questions (RULES.md 5), answered here only
    @property
    def lowest_wins(self) -> bool:
        """Whether a penalty table scores the match: the lowest total wins (RULES.md 5.1)."""
        return scored_by_penalties(self.scoring)

    @property
    def single_deal(self) -> bool:
        """Whether the match is one deal, its winner the match's (``single``)."""
        return self.scoring == "single"

    @property
    def plays_for_chips(self) -> bool:
        """Whether the match is played for chips (``chips``, ``card_chips``): it ends when a
        player cannot pay, the most chips win."""
        return self.scoring in CHIP_SYSTEMS

    @property
    def has_target(self) -> bool:
        """Whether the match ends when a total reaches ``target`` (every system but ``single`` and
        the chip systems, which keep a ``target`` they never use)."""
        return not (self.single_deal or self.plays_for_chips)

    @property
    def counts_wins(self) -> bool:
        """Whether deals count by who won them alone (``wins``, ``single``): the cards left in hand
        cost nothing."""
        return self.scoring in WIN_SYSTEMS

    def penalty_table(self) -> dict[str, int]:
        """The table that prices cards left in hand: ``scoring`` if it is a table, else ``table``."""
        name = self.scoring if self.scoring in PENALTY_TABLES or self.scoring == "custom" else self.table
        values = dict(self.custom_table) if name == "custom" else dict(PENALTY_TABLES[name])
        values.setdefault("JK", values["K"])
        return values

    def check_players(self, num_players: int) -> None:
        """RULES.md 2.2: 2 to 6 players, and enough cards for every hand plus the four sides."""
        if type(num_players) is not int or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise RulesError(f"num_players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {num_players!r}")
        need = num_players * self.hand_size + 4
        if need > self.deck_size:
            raise RulesError(
                f"cannot deal {self.hand_size} cards to each of {num_players} players: that needs "
                f"{num_players} x {self.hand_size} + 4 = {need} cards and the deck holds {self.deck_size}"
            )


def read_overrides(pairs: Iterable[str], what: str = "setting") -> dict[str, Any]:
    """``key=value`` texts as a mapping, each value read as YAML (``5``, ``true``, ``null``,
    ``[a, b]``): ``kc --rules preset,key=value`` and ``kc train --set key=value`` read them so.
    A text without ``=``, or a value YAML cannot read, is a ``RulesError`` of one line naming
    the ``what`` and its key."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            raise RulesError(f"expected {what} key=value, got {pair[:40]!r}")
        key = key.strip()
        try:
            out[key] = yaml.safe_load(raw)
        except (yaml.YAMLError, ValueError, RecursionError) as exc:  # ValueError: 5,000 digits, 2026-13-45
            reason = " ".join(str(exc).split(";")[0].split())[:120]
            raise RulesError(f"{what} {key[:40]!r}: not a value: {reason}") from None
    return out


def _is_file(text: str) -> bool:
    """Whether ``text`` names a file (false for a name too long to be a file's)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


USUAL_TARGETS = {"pip": 100, "kleplek": 50}
"""RULES.md 5.1: the target a penalty table is usually played to (any other: 25)."""


def usual_target(scoring: str, table: str = "standard") -> int:
    """The target when none is given: the usual one of the penalty table that scores the deals
    (``scoring``, or ``table`` under ``winner_collects``), else 25."""
    name = table if scoring == "winner_collects" else scoring
    return USUAL_TARGETS.get(name, 25)


def _show(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _is_one_value(value: Any) -> bool:
    """Whether ``value`` is one value, not a collection of them (a list, a mapping, a set...)."""
    return isinstance(value, (str, bytes)) or not isinstance(value, Collection)


def _brief(value: Any) -> str:
    """``value`` as an error message shows it, whatever its size: the ``repr`` of a short value,
    the start of a long text, the length of a long number, only the type of a collection (a YAML
    alias lets a few hundred bytes stand for billions of strings)."""
    if isinstance(value, (str, bytes)):
        return repr(value) if len(value) <= MAX_SHOWN else f"{value[:MAX_SHOWN]!r}... ({len(value):,} long)"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**MAX_SHOWN:
        return f"a number of {_digits(abs(value)):,} digits"
    if not _is_one_value(value):
        name = type(value).__name__
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
    text = repr(value)
    return text if len(text) <= 2 * MAX_SHOWN else text[:2 * MAX_SHOWN] + "..."


def _digits(n: int) -> int:
    """How many decimal digits ``n`` > 0 has (``str`` refuses more than 4,300)."""
    guess = int((n.bit_length() - 1) * 0.30102999566398120) + 1
    return guess + (n >= 10**guess)


def _check_scalar(what: str, value: Any) -> None:
    if not _is_one_value(value):
        raise RulesError(f"{what} must be a single value, not {_brief(value)}")


def _check_count(what: str, value: Any, low: int, high: int, context: str = "") -> None:
    """``RulesError`` unless ``value`` is a whole number from ``low`` to ``high`` (not true)."""
    if type(value) is not int or not low <= value <= high:
        raise RulesError(f"{what} must be a whole number from {low} to {high}{context}, not {_brief(value)}")


def _check_preset(name: Any) -> None:
    _check_scalar("rule 'preset'", name)
    if not isinstance(name, str) or name not in PRESETS:
        raise RulesError(f"unknown preset {_brief(name)}; allowed: {', '.join(PRESETS)}")


def _check_custom_table(table: Any) -> dict[str, int]:
    if not isinstance(table, Mapping):
        raise RulesError(
            "rule 'custom_table' must map every rank (A 2 .. 10 J Q K, and optionally JK) to a penalty"
        )
    out = {}
    for key, value in table.items():
        _check_scalar("a custom_table key", key)
        k = str(key).upper()
        if k not in RANK_KEYS and k != "JK":
            raise RulesError(f"custom_table key {_brief(key)} is not a rank; allowed: {', '.join(RANK_KEYS)}, JK")
        _check_count(f"custom_table value for {_brief(key)}", value, 0, MAX_PENALTY)
        out[k] = value
    missing = [r for r in RANK_KEYS if r not in out]
    if missing:
        raise RulesError(f"custom_table lacks a penalty for {', '.join(missing)}")
    return out


SCALAR_FIELDS = tuple(f.name for f in dataclasses.fields(Rules) if f.name != "custom_table")
"""The rules that take one value each (``custom_table`` is a mapping)."""

CHOICES: dict[str, tuple] = {
    "draw": ("start", "end", "stuck"),
    "kings_on_sides": (True, False),
    "cross_kings": ("to_corner", "stay"),
    "pile_moves": ("whole", "none", "partial"),
    "must_play": ("optional", "all", "all_moves"),
    "king_first": (False, "before_others", "before_ending"),
    "fill_spaces_first": (False, True),
    "corner_build": ("alternate", "same_suit"),
    "clear_complete_piles": (False, True),
    "blocked": ("no_winner", "fewest_cards"),
    "jokers": (0, 2),
    "scoring": SCORING_VALUES,
    "table": tuple(PENALTY_TABLES) + ("custom",),
    "tie_break": ("extra_deal", "shared"),
    "chips_per_card": (False, "to_winner", "to_pot"),
    "blocked_when": ("idle_round", "no_moves"),
    "extra_chip": ("could_not_play", "did_not_play"),
    "first_player": ("left_of_dealer", "random"),
    "cross_king_move": ("any_time", "first_turn"),
    "joker_on_empty_side": (False, True),
}
"""The allowed values of every variant with a fixed choice, the default first."""
ALIASES: dict[str, str] = {"king_first": "before_others", "chips_per_card": "to_winner"}
"""Variants that were true/false once: ``true`` still reads as this value."""

DESCRIPTIONS: dict[str, str] = {
    "draw": "when a player draws: at the start of the turn, with the end-turn move, or only when stuck",
    "kings_on_sides": "whether a king may be played onto an empty side",
    "cross_kings": "a king turned up for a side at the deal goes to a corner, or stays",
    "pile_moves": "moving piles: whole piles, none (but king-bottomed sides into corners), or partial",
    "must_play": "all: the turn may not end while a card from hand can be played; all_moves: nor a pile move",
    "king_first": ("holding a king with a corner empty: before_others (true), only kings into corners; "
                   "before_ending, the turn may not end"),
    "fill_spaces_first": "while a side is empty and a card can go there, only plays into empty sides",
    "corner_build": "corner piles alternate colours, or follow the king's suit",
    "clear_complete_piles": "a pile K down to A is removed and shuffled into the stock",
    "blocked": "a blocked deal has no winner, or the fewest cards win",
    "jokers": "number of jokers in the deck (wild cards)",
    "hand_size": "cards dealt to each player (1 to 25)",
    "scoring": "a penalty table (lowest total wins) or another scoring system",
    "table": "penalty table used by winner_collects, chips_per_card and score rewards",
    "custom_table": "penalty per rank (A..K, JK), 0 to 100, for scoring or table 'custom'",
    "target": ("total that ends the match, 1 to 10000 (ignored by single; not given: pip 100, kleplek 50, else 25, "
               "winner_collects by its table; german sets 5)"),
    "tie_break": "a tie at the end of a match: one more deal, or all tied players win",
    "chips": "chips each player starts with under scoring chips or card_chips (1 to 10000)",
    "chips_per_card": "under chips, losers also pay their penalty in chips: to_winner (true), or to_pot",
    "blocked_when": "a deal is blocked after a round without progress, or also once nobody can move",
    "extra_chip": "under chips, a chip more for a turn without a play: one that could not play, or any",
    "first_player": "who starts a deal: the dealer's left, or a seat drawn at random",
    "cross_king_move": "under cross_kings stay, a king's side moves to a corner any time, or on the first turn",
    "joker_on_empty_side": "whether a joker may start a side pile (as a king of no colour)",
}



@dataclass(frozen=True)
class RuleCode:
    """How compiled code and the observation hold one rule (a row of ``RULE_CODES``)."""

    field: str
    """The ``Rules`` field."""
    column: int | None
    """Its column in the vector kernel's rules row (``kernel.R``), or None for a rule of the match
    (scoring, target, chips...), which no deal reads."""
    values: tuple | None
    """Its values in the order of their kernel codes (code ``i`` is ``values[i]``); None where the
    kernel holds the value itself (a count: ``jokers``, ``hand_size``) or holds nothing."""
    shown: tuple[str, ...]
    """The slices of the observation that show it (``observation.SLICES`` names): its one-hot of
    layout 1 and the one of the values layout 2 added (``..._more``), or one scaled number."""

    def code(self, value: Any) -> int:
        """The kernel's code of ``value``."""
        if self.values is None:
            return int(value)
        return next(i for i, v in enumerate(self.values) if v == value and type(v) is type(value))


RULE_CODES: tuple[RuleCode, ...] = (
    RuleCode("draw", 0, ("start", "end", "stuck"), ("rule_draw",)),
    RuleCode("kings_on_sides", 1, (False, True), ("rule_kings_on_sides",)),
    RuleCode("cross_kings", 2, ("stay", "to_corner"), ("rule_cross_kings",)),
    RuleCode("pile_moves", 3, ("whole", "none", "partial"), ("rule_pile_moves",)),
    RuleCode("must_play", 4, ("optional", "all", "all_moves"), ("rule_must_play", "rule_must_play_more")),
    RuleCode("king_first", 5, (False, "before_others", "before_ending"),
             ("rule_king_first", "rule_king_first_more")),
    RuleCode("fill_spaces_first", 6, (False, True), ("rule_fill_spaces_first",)),
    RuleCode("corner_build", 7, ("alternate", "same_suit"), ("rule_corner_build",)),
    RuleCode("clear_complete_piles", 8, (False, True), ("rule_clear_complete_piles",)),
    RuleCode("blocked", 9, ("no_winner", "fewest_cards"), ("rule_blocked",)),
    RuleCode("jokers", 10, None, ("rule_jokers",)),
    RuleCode("hand_size", 11, None, ("rule_hand_size",)),
    RuleCode("blocked_when", 12, ("idle_round", "no_moves"), ("rule_blocked_when_more",)),
    RuleCode("first_player", 13, ("left_of_dealer", "random"), ("rule_first_player_more",)),
    RuleCode("cross_king_move", 14, ("any_time", "first_turn"), ("rule_cross_king_move_more",)),
    RuleCode("joker_on_empty_side", 15, (False, True), ("rule_joker_on_empty_side_more",)),
    RuleCode("scoring", None, None, ("rule_scoring", "rule_scoring_more")),
    RuleCode("table", None, None, ("rule_table",)),
    RuleCode("target", None, None, ("rule_target",)),
    RuleCode("tie_break", None, None, ("rule_tie_break",)),
    RuleCode("chips", None, None, ("rule_chips",)),
    RuleCode("chips_per_card", None, None, ("rule_chips_per_card", "rule_chips_per_card_more")),
    RuleCode("extra_chip", None, None, ("rule_extra_chip_more",)),
)
"""Every rule the observation shows, declared once: the kernel's rules row (``vector.rules_row``),
the observation's rule slices (``observation.rules_vector``) and the compiled agents' reading of
them (``agents.view.read_rules``) are loops over it. The in-deal rules (a ``column``) come first,
at columns 0, 1, ...; ``custom_table`` is shown only through the penalty table in force."""
DEAL_RULES: tuple[RuleCode, ...] = tuple(r for r in RULE_CODES if r.column is not None)
"""The rules a deal reads (RULES.md 4), each at its column of the kernel's rules row."""
assert [r.column for r in DEAL_RULES] == list(range(len(DEAL_RULES))), "deal rules take columns 0, 1, ... in order"

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "bicycle": {"cross_kings": "stay", "must_play": "all", "scoring": "single"},
    "pagat": {"draw": "end", "cross_kings": "stay"},
    "printable": {"draw": "end", "cross_kings": "stay", "cross_king_move": "first_turn"},
    "wikihow": {"clear_complete_piles": True},
    "online": {"kings_on_sides": False, "scoring": "kings_double", "tie_break": "shared"},
    "german": {"scoring": "wins", "target": 5},
}
"""RULES.md 6: each named rule set as its overrides of the defaults."""
