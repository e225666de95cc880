"""The observation of one seat: a fixed-length float32 vector, the same length for every rule set
and 2 to 6 players, holding only what that seat may see (DESIGN.md, Observations).

Layout version ``OBS_LAYOUT_VERSION = 2``, ``OBS_SIZE = 1599`` values. The first 1584 values
are layout 1 exactly (``LAYOUT_SIZES[1]``): a model trained on layout 1 reads them and nothing
else (``agents.policy_model``), and every rule value layout 1 knew is written where it was. The
rule values added since (issue 19) come after them, with the one fact of the deal they need. ``LAYOUT`` lists the
slices in order as (name, size, meaning) and ``SLICES[name]`` is each one's ``slice``. Seats are
written relative to the viewer: offset 0 is the viewer, offset 1 the seat on its left (the next
to play), and so on. Cards are one-hot by card id (``kc_env.cards``: ``suit * 13 + rank - 1``
with suits C D H S, jokers 52 and 53). Piles come in the engine's order N E S W NE SE SW NW;
each pile has the same block of six slices, ``pile_{P}_...``.

| offset | name | size | meaning |
|---|---|---|---|
| 0 | hand | 54 | the viewer's own cards, one-hot by card id |
| 54 | hand_size | 1 | the viewer's number of cards / 54 |
| 55 + 179 k | pile_{P}_cards | 54 | the cards of pile P (k = 0..7 for N E S W NE SE SW NW), one-hot |
| 109 + 179 k | pile_{P}_top | 54 | its top card, one-hot (all 0 when empty) |
| 163 + 179 k | pile_{P}_bottom | 54 | its bottom card, one-hot (all 0 when empty) |
| 217 + 179 k | pile_{P}_length | 1 | its number of cards / 13 |
| 218 + 179 k | pile_{P}_top_rank | 13 | the rank the top card stands for, one-hot A..K (a joker's value) |
| 231 + 179 k | pile_{P}_top_colour | 3 | the colour the top stands for: black, red, none (a joker king) |
| 1487 | others_hand_sizes | 5 | cards in the hands of seats at offsets 1..5 / 54 (0: no such seat) |
| 1492 | stock_size | 1 | cards in the stock / 54 |
| 1493 | scores | 6 | match totals by seat offset 0..5, / scale (below), clipped to [-2, 2] |
| 1499 | drawn | 1 | the seat to act has drawn this turn |
| 1500 | played | 1 | the seat to act has played a card this turn |
| 1501 | moved | 1 | the seat to act has moved a pile this turn |
| 1502 | idle_turns | 1 | turns in a row with no draw, play or move / number of players |
| 1503 | my_turn | 1 | it is the viewer's turn |
| 1504 | to_act | 6 | seat offset of the player to act, one-hot |
| 1510 | dealer | 6 | seat offset of the dealer, one-hot |
| 1516 | num_players | 5 | number of players, one-hot 2..6 |
| 1521 | rule_{variant} | 46 | one one-hot per variant of ``RULE_CHOICES``, values in that order |
| 1567 | rule_hand_size | 1 | ``hand_size`` / 26 |
| 1568 | rule_target | 1 | ``target`` / 1000, clipped to 1 (0 under ``single``; ``Rules`` allows up to 10,000) |
| 1569 | rule_chips | 1 | ``chips`` / 1000, clipped to 1 (``Rules`` allows up to 10,000) |
| 1570 | rule_penalty | 14 | the penalty table in force, A 2 .. 10 J Q K JK, / 25 (at most 4: ``Rules`` allows 0 to 100) |
| 1584 | rule_{variant}_more | 14 | layout 2: one one-hot per variant of ``MORE_CHOICES``, values in that order |
| 1598 | first_turn | 1 | no turn of this deal has ended yet (``cross_king_move: first_turn``) |

The 46 rule values are, in order: draw 3 (start end stuck), kings_on_sides 2 (true false),
cross_kings 2 (to_corner stay), pile_moves 3 (whole none partial), must_play 2 (optional all),
king_first 2 (false true), fill_spaces_first 2 (false true), corner_build 2 (alternate
same_suit), clear_complete_piles 2 (false true), blocked 2 (no_winner fewest_cards), jokers 2
(0 2), scoring 11 (standard wikipedia pip kleplek kings_double per_card custom winner_collects
wins chips single), table 7 (standard wikipedia pip kleplek kings_double per_card custom),
tie_break 2 (extra_deal shared), chips_per_card 2 (false true). Since layout 2, ``true`` of
king_first is its value ``before_others`` and ``true`` of chips_per_card ``to_winner``; a value
added in layout 2 also sets the layout-1 slot of its nearest old value (``LEGACY``:
king_first before_ending and chips_per_card to_pot as true, must_play all_moves as all, scoring
card_chips as chips).

The 14 values of layout 2 (``MORE_CHOICES``) are, in order: must_play 1 (all_moves),
king_first 1 (before_ending), scoring 1 (card_chips), chips_per_card 1 (to_pot), blocked_when 2
(idle_round no_moves), extra_chip 2 (could_not_play did_not_play), first_player 2
(left_of_dealer random), cross_king_move 2 (any_time first_turn), joker_on_empty_side 2 (false
true). A variant that is new in layout 2 has all its values; one that layout 1 knew has only
its new ones (all 0 while an old value is in force).

The score scale is ``rules.chips`` under ``chips``, 1 under ``single``, else ``rules.target``;
``scores`` is all 0 when no match totals are given (an episode of one deal).

What the vector leaves out: the other hands' cards and the order (and content) of the stock.
``decode(vector)`` rebuilds a readable ``SeatView`` from the vector alone, so rule-based agents
see exactly what a learned policy sees. Its one loss: when both jokers lie inside one pile
(neither on top nor at the bottom), which is which is not recorded, and ``decode`` puts the
lower id lower.
"""

from __future__ import annotations

import array
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .cards import NUM_CARDS, RANK, card_name
from .engine import NUM_PILES, PILE_NAMES, GameState
from .rules import MAX_HAND_SIZE, MAX_PENALTY, MAX_PLAYERS, MIN_PLAYERS, RANK_KEYS, RULE_CODES, Rules

OBS_LAYOUT_VERSION = 2
CARD_SCALE = 54  # hand and stock sizes
PILE_SCALE = 13  # the longest pile: K down to A
HAND_SIZE_SCALE = 26
BIG_SCALE = 1000  # target and chips
PENALTY_SCALE = 25
PENALTY_CLIP = 4.0
assert PENALTY_SCALE * PENALTY_CLIP == MAX_PENALTY, "every penalty Rules allows is held exactly, never clipped"
assert MAX_HAND_SIZE < HAND_SIZE_SCALE, "every hand size Rules allows is below 1"
SCORE_CLIP = 2.0
NO_COLOUR = -1

RULE_CHOICES: dict[str, tuple] = {
    "draw": ("start", "end", "stuck"),
    "kings_on_sides": (True, False),
    "cross_kings": ("to_corner", "stay"),
    "pile_moves": ("whole", "none", "partial"),
    "must_play": ("optional", "all"),
    "king_first": (False, True),
    "fill_spaces_first": (False, True),
    "corner_build": ("alternate", "same_suit"),
    "clear_complete_piles": (False, True),
    "blocked": ("no_winner", "fewest_cards"),
    "jokers": (0, 2),
    "scoring": ("standard", "wikipedia", "pip", "kleplek", "kings_double", "per_card", "custom",
                "winner_collects", "wins", "chips", "single"),
    "table": ("standard", "wikipedia", "pip", "kleplek", "kings_double", "per_card", "custom"),
    "tie_break": ("extra_deal", "shared"),
    "chips_per_card": (False, True),
}
"""The one-hot rule variants of layout 1, frozen here: a change in ``rules.CHOICES`` must come
with a new layout version (a test compares ``RULE_CHOICES`` and ``MORE_CHOICES`` with it)."""
MORE_CHOICES: dict[str, tuple] = {
    "must_play": ("all_moves",),
    "king_first": ("before_ending",),
    "scoring": ("card_chips",),
    "chips_per_card": ("to_pot",),
    "blocked_when": ("idle_round", "no_moves"),
    "extra_chip": ("could_not_play", "did_not_play"),
    "first_player": ("left_of_dealer", "random"),
    "cross_king_move": ("any_time", "first_turn"),
    "joker_on_empty_side": (False, True),
}
"""The rule values layout 2 added, frozen here: every value of a new variant, only the new values
of a variant layout 1 knew."""
LEGACY: dict[str, dict] = {
    "king_first": {"before_others": True, "before_ending": True},
    "chips_per_card": {"to_winner": True, "to_pot": True},
    "must_play": {"all_moves": "all"},
    "scoring": {"card_chips": "chips"},
}
"""Per variant, the layout-1 value whose slot a value of today sets (the nearest old value)."""
LAYOUT_SIZES = {1: 1584, 2: 1599}
"""The vector's length in each layout version; each starts with the one before it."""
PENALTY_KEYS = (*RANK_KEYS, "JK")


def _pile_block(name: str) -> list[tuple[str, int, str]]:
    return [
        (f"pile_{name}_cards", NUM_CARDS, f"the cards of pile {name}, one-hot"),
        (f"pile_{name}_top", NUM_CARDS, f"the top card of {name}, one-hot"),
        (f"pile_{name}_bottom", NUM_CARDS, f"the bottom card of {name}, one-hot"),
        (f"pile_{name}_length", 1, f"cards in {name} / {PILE_SCALE}"),
        (f"pile_{name}_top_rank", 13, f"rank the top of {name} stands for, one-hot A..K"),
        (f"pile_{name}_top_colour", 3, f"colour the top of {name} stands for: black, red, none"),
    ]


LAYOUT: tuple[tuple[str, int, str], ...] = tuple(
    [("hand", NUM_CARDS, "the viewer's cards, one-hot"),
     ("hand_size", 1, f"the viewer's number of cards / {CARD_SCALE}")]
    + [row for name in PILE_NAMES for row in _pile_block(name)]
    + [("others_hand_sizes", MAX_PLAYERS - 1, f"hand sizes of seat offsets 1..5 / {CARD_SCALE}"),
       ("stock_size", 1, f"cards in the stock / {CARD_SCALE}"),
       ("scores", MAX_PLAYERS, "match totals by seat offset / score scale, clipped to [-2, 2]"),
       ("drawn", 1, "the seat to act has drawn this turn"),
       ("played", 1, "the seat to act has played a card this turn"),
       ("moved", 1, "the seat to act has moved a pile this turn"),
       ("idle_turns", 1, "idle turns in a row / number of players"),
       ("my_turn", 1, "it is the viewer's turn"),
       ("to_act", MAX_PLAYERS, "seat offset of the player to act, one-hot"),
       ("dealer", MAX_PLAYERS, "seat offset of the dealer, one-hot"),
       ("num_players", MAX_PLAYERS - MIN_PLAYERS + 1, f"number of players, one-hot {MIN_PLAYERS}..{MAX_PLAYERS}")]
    + [(f"rule_{k}", len(v), f"rules: {k}, one-hot {' '.join(map(str, v))}") for k, v in RULE_CHOICES.items()]
    + [("rule_hand_size", 1, f"rules: hand_size / {HAND_SIZE_SCALE}"),
       ("rule_target", 1, f"rules: target / {BIG_SCALE}, clipped to 1 (0 under single)"),
       ("rule_chips", 1, f"rules: chips / {BIG_SCALE}, clipped to 1"),
       ("rule_penalty", len(PENALTY_KEYS), f"penalty table A..K, JK / {PENALTY_SCALE} (at most 4: Rules allows 0..100)")]
    + [(f"rule_{k}_more", len(v), f"rules (layout 2): {k}, one-hot {' '.join(map(str, v))}")
       for k, v in MORE_CHOICES.items()]
    + [("first_turn", 1, "no turn of this deal has ended yet")]
)
"""Every slice of the vector in order: (name, size, meaning)."""


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size, _ in LAYOUT:
        out[name] = slice(start, start + size)
        start += size
    return out


SLICES: dict[str, slice] = _slices()
"""``SLICES[name]``: where each named slice lies in the vector."""
OBS_SIZE = sum(size for _, size, _ in LAYOUT)
PILE_START = SLICES["pile_N_cards"].start
PILE_BLOCK = sum(size for _, size, _ in _pile_block("N"))
RULES_START = SLICES["rule_draw"].start
# offsets inside a pile block
_CARDS, _TOP, _BOTTOM = 0, NUM_CARDS, 2 * NUM_CARDS
_LENGTH = 3 * NUM_CARDS
_TOP_RANK = _LENGTH + 1
_TOP_COLOUR = _TOP_RANK + 13


def _bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    low[SLICES["scores"]], high[SLICES["scores"]] = -SCORE_CLIP, SCORE_CLIP
    high[SLICES["rule_penalty"]] = PENALTY_CLIP
    return low, high


LOW, HIGH = _bounds()
"""Per-value bounds of the vector (for a ``gymnasium.spaces.Box``)."""


def score_scale(rules: Rules) -> float:
    """What match totals are divided by: ``chips`` under chips, 1 under single, else ``target``."""
    if rules.plays_for_chips:
        return float(rules.chips)
    if rules.single_deal or not rules.target:
        return 1.0
    return float(rules.target)


RULE_SCALES = {"rule_hand_size": HAND_SIZE_SCALE, "rule_target": BIG_SCALE, "rule_chips": BIG_SCALE}
"""What each rule slice that holds a number divides it by (clipped to 1; a target of None is 0)."""


def rule_positions(field: str, name: str) -> dict:
    """Where the one-hot slice ``name`` of the rule ``field`` (a slice of its ``RuleCode.shown``)
    puts each value it shows: {value: index in the vector}. A value of today that layout 1 does
    not know is shown in its layout-1 slice by its ``LEGACY`` value (and in ``..._more``)."""
    start = SLICES[name].start
    if name.endswith("_more"):
        return {value: start + i for i, value in enumerate(MORE_CHOICES[field])}
    return {value: start + i for i, value in enumerate(RULE_CHOICES[field])}


@lru_cache(maxsize=64)
def rules_vector(rules: Rules) -> np.ndarray:
    """The rule slices (from ``rule_draw`` to the end) of the vector for ``rules`` (cached): each
    rule of ``rules.RULE_CODES`` in its slices, then the penalty table in force."""
    out = np.zeros(OBS_SIZE - RULES_START, dtype=np.float32)
    for rule in RULE_CODES:
        value = getattr(rules, rule.field)
        for name in rule.shown:
            if name in RULE_SCALES:
                out[SLICES[name].start - RULES_START] = min((value or 0) / RULE_SCALES[name], 1.0)
                continue
            shown = value if name.endswith("_more") else LEGACY.get(rule.field, {}).get(value, value)
            at = _index_of(rule_positions(rule.field, name), shown)
            if at is not None:
                out[at - RULES_START] = 1
    table = rules.penalty_table()
    start = SLICES["rule_penalty"].start - RULES_START
    for i, key in enumerate(PENALTY_KEYS):
        out[start + i] = min(table[key] / PENALTY_SCALE, PENALTY_CLIP)
    out.setflags(write=False)
    return out


def _index_of(positions: dict, value) -> int | None:
    """The position of ``value`` in ``positions`` (True is not 1), or None."""
    return next((at for v, at in positions.items() if v == value and type(v) is type(value)), None)


# Where ``encode`` writes each value, found once (a ``SLICES`` lookup per value costs).
_HAND = SLICES["hand"].start
_HAND_SIZE = SLICES["hand_size"].start
_OTHERS = SLICES["others_hand_sizes"].start
_STOCK = SLICES["stock_size"].start
_SCORES = SLICES["scores"].start
_DRAWN = SLICES["drawn"].start
_PLAYED = SLICES["played"].start
_MOVED = SLICES["moved"].start
_IDLE = SLICES["idle_turns"].start
_MY_TURN = SLICES["my_turn"].start
_TO_ACT = SLICES["to_act"].start
_DEALER = SLICES["dealer"].start
_NUM_PLAYERS = SLICES["num_players"].start
_FIRST_TURN = SLICES["first_turn"].start
_PILE_SLOTS = tuple(tuple(PILE_START + p * PILE_BLOCK + offset
                          for offset in (_CARDS, _TOP, _BOTTOM, _LENGTH, _TOP_RANK, _TOP_COLOUR))
                    for p in range(NUM_PILES))
"""Per pile: where its cards, top, bottom, length, top_rank and top_colour slices start."""
_COLOUR_SLOT = {0: 0, 1: 1, NO_COLOUR: 2}  # black, red, none


@lru_cache(maxsize=256)
def _template(rules: Rules, num_players: int) -> bytes:
    """The values fixed for a whole deal (the rules and the number of players) as float32
    bytes, every other value 0: ``encode`` starts each vector from a copy of this."""
    vec = np.zeros(OBS_SIZE, dtype=np.float32)
    vec[_NUM_PLAYERS + num_players - MIN_PLAYERS] = 1
    vec[RULES_START:] = rules_vector(rules)
    return vec.tobytes()


def encode(state: GameState, seat: int, totals: Sequence[float] | None = None) -> np.ndarray:
    """The observation vector of ``seat`` in ``state`` (a new float32 array of ``OBS_SIZE``).

    ``totals`` are the match totals by seat (raw: points or chips), or None outside a match.
    Only what ``seat`` may see is read: its own hand, the piles, the sizes of the other hands
    and of the stock, the turn flags, the match totals and the rules.
    """
    # Every env observes at every step, so this is written for speed. The vector is mostly
    # zeros plus a few dozen scattered values: a numpy call per slice or pile (fancy indexing,
    # about 1 us each) cost more than the values themselves. So the vector starts as a copy of
    # the deal's cached template (rules and player count already in it) in an ``array.array``,
    # each remaining value is one plain store, and numpy wraps that buffer without a copy.
    n = state.num_players
    if not 0 <= seat < n:
        raise ValueError(f"seat must be 0..{n - 1}, not {seat!r}")
    vec = array.array("f", _template(state.rules, n))
    hand = state.hands[seat]
    for c in hand:
        vec[_HAND + c] = 1.0
    vec[_HAND_SIZE] = len(hand) / CARD_SCALE
    for p, pile in enumerate(state.piles):
        if pile:
            cards, top, bottom, length, top_rank, top_colour = _PILE_SLOTS[p]
            for c in pile:
                vec[cards + c] = 1.0
            vec[top + pile[-1]] = 1.0
            vec[bottom + pile[0]] = 1.0
            vec[length] = len(pile) / PILE_SCALE
            rank, colour = state.top_value[p]  # the engine's cached value of the top card
            vec[top_rank + rank - 1] = 1.0
            vec[top_colour + _COLOUR_SLOT[colour]] = 1.0
    for k in range(1, n):
        vec[_OTHERS + k - 1] = len(state.hands[(seat + k) % n]) / CARD_SCALE
    vec[_STOCK] = len(state.stock) / CARD_SCALE
    if totals is not None:
        scale = score_scale(state.rules)
        for k in range(n):
            vec[_SCORES + k] = min(max(totals[(seat + k) % n] / scale, -SCORE_CLIP), SCORE_CLIP)
    cur = state.current_player
    vec[_DRAWN] = state.drawn
    vec[_PLAYED] = state.played
    vec[_MOVED] = state.moved
    vec[_IDLE] = min(state.idle_turns / n, 1.0)
    vec[_MY_TURN] = not state.is_over and cur == seat
    vec[_TO_ACT + (cur - seat) % n] = 1.0
    vec[_DEALER + (state.dealer - seat) % n] = 1.0
    vec[_FIRST_TURN] = state.first_turn
    return np.frombuffer(vec, dtype=np.float32)


# -- decoding --------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatView:
    """What one seat sees, rebuilt from its observation vector by ``decode``.

    Seats are offsets from the viewer (0 the viewer, 1 its left, ...). ``piles`` are the eight
    piles bottom to top (N E S W NE SE SW NW); ``top_values`` the (rank, colour) each top stands
    for (colour 0 black, 1 red, -1 none), None for an empty pile.
    """

    hand: tuple[int, ...]
    piles: tuple[tuple[int, ...], ...]
    top_values: tuple[tuple[int, int] | None, ...]
    others_hand_sizes: tuple[int, ...]
    stock_size: int
    scores: tuple[float, ...]
    drawn: bool
    played: bool
    moved: bool
    idle_turns: int
    my_turn: bool
    to_act: int
    dealer: int
    num_players: int
    rules: Rules

    @property
    def hand_size(self) -> int:
        """The number of cards in the viewer's hand."""
        return len(self.hand)

    def __str__(self) -> str:
        def cards(cs):
            return " ".join(card_name(c) for c in cs) or "-"

        lines = [f"{name}: {cards(self.piles[p])}" for p, name in enumerate(PILE_NAMES)]
        lines.append(f"hand: {cards(self.hand)}")
        lines.append(f"others: {' '.join(map(str, self.others_hand_sizes))}  stock: {self.stock_size}")
        flags = [f for f in ("drawn", "played", "moved") if getattr(self, f)]
        lines.append(f"to act: +{self.to_act}" + "".join(f" {f}" for f in flags))
        return "\n".join(lines)


def decode(vec: np.ndarray) -> SeatView:
    """A readable ``SeatView`` from an observation vector alone (the inverse of ``encode``,
    up to the order of two jokers inside one pile; see the module docstring)."""
    vec = np.asarray(vec, dtype=np.float32)
    if vec.shape != (OBS_SIZE,):
        raise ValueError(f"an observation of layout {OBS_LAYOUT_VERSION} has shape ({OBS_SIZE},), not {vec.shape}")
    n = int(np.argmax(vec[SLICES["num_players"]])) + MIN_PLAYERS
    piles, tops = zip(*(_decode_pile(vec[PILE_START + p * PILE_BLOCK:][:PILE_BLOCK]) for p in range(NUM_PILES)), strict=True)
    return SeatView(
        hand=tuple(int(c) for c in np.flatnonzero(vec[SLICES["hand"]])),
        piles=tuple(piles),
        top_values=tuple(tops),
        others_hand_sizes=tuple(_count(x, CARD_SCALE) for x in vec[SLICES["others_hand_sizes"]][:n - 1]),
        stock_size=_count(vec[SLICES["stock_size"].start], CARD_SCALE),
        scores=tuple(float(x) for x in vec[SLICES["scores"]][:n]),
        drawn=bool(vec[SLICES["drawn"].start]),
        played=bool(vec[SLICES["played"].start]),
        moved=bool(vec[SLICES["moved"].start]),
        idle_turns=_count(vec[SLICES["idle_turns"].start], n),
        my_turn=bool(vec[SLICES["my_turn"].start]),
        to_act=int(np.argmax(vec[SLICES["to_act"]])),
        dealer=int(np.argmax(vec[SLICES["dealer"]])),
        num_players=n,
        rules=decode_rules(vec),
    )


def _count(x: float, scale: float) -> int:
    return int(round(float(x) * scale))


def _decode_pile(block: np.ndarray) -> tuple[tuple[int, ...], tuple[int, int] | None]:
    """Order a pile's cards bottom to top: ranks step down by one, so each real card's place
    follows from its rank; jokers fill the remaining places (top and bottom ones are known)."""
    length = _count(block[_LENGTH], PILE_SCALE)
    if length == 0:
        return (), None
    cards = [int(c) for c in np.flatnonzero(block[_CARDS:_CARDS + NUM_CARDS])]
    top = int(np.argmax(block[_TOP:_TOP + NUM_CARDS]))
    bottom = int(np.argmax(block[_BOTTOM:_BOTTOM + NUM_CARDS]))
    top_rank = int(np.argmax(block[_TOP_RANK:_TOP_RANK + 13])) + 1
    colour_slot = int(np.argmax(block[_TOP_COLOUR:_TOP_COLOUR + 3]))
    bottom_rank = top_rank + length - 1
    order: list[int | None] = [None] * length
    order[0], order[-1] = bottom, top
    for c in cards:
        if c < 52:
            order[bottom_rank - RANK[c]] = c
    free_jokers = iter(sorted(c for c in cards if c >= 52 and c not in (top, bottom)))
    order = [next(free_jokers) if c is None else c for c in order]
    return tuple(order), (top_rank, NO_COLOUR if colour_slot == 2 else colour_slot)


def decode_rules(vec: np.ndarray) -> Rules:
    """The ``Rules`` written in an observation vector (exact for targets and chips up to 1000
    and penalties up to 100; a custom table is read back from the penalty slice)."""
    fields: dict = {}
    for rule in RULE_CODES:
        for name in rule.shown:  # a value of layout 2 (``..._more``) comes after its layout-1 slot
            part = vec[SLICES[name]]
            if name in RULE_SCALES:
                fields[rule.field] = _count(part[0], RULE_SCALES[name])
            elif not name.endswith("_more") or part.max() > 0.5:
                fields[rule.field] = list(rule_positions(rule.field, name))[int(np.argmax(part))]
    if fields["scoring"] == "single":
        fields["target"] = None
    if "custom" in (fields["scoring"], fields["table"]):
        values = [_count(x, PENALTY_SCALE) for x in vec[SLICES["rule_penalty"]]]
        table = dict(zip(PENALTY_KEYS, values, strict=True))
        if table["JK"] == table["K"]:
            del table["JK"]
        fields["custom_table"] = table
    return Rules(**fields)


__all__ = [
    "OBS_LAYOUT_VERSION", "OBS_SIZE", "LAYOUT", "LAYOUT_SIZES", "SLICES", "LOW", "HIGH", "RULE_CHOICES",
    "MORE_CHOICES", "LEGACY", "SeatView",
    "RULE_SCALES", "encode", "decode", "decode_rules", "rules_vector", "rule_positions", "score_scale",
]
