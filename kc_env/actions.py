"""The flat action layout: one ``Discrete(497)`` for every rule set and player count.

Layout version ``ACTION_LAYOUT_VERSION = 1``. Piles are numbered as in ``engine``:
0 N, 1 E, 2 S, 3 W, 4 NE, 5 SE, 6 SW, 7 NW. Cards are the ids of ``cards`` (0..51, jokers 52
and 53).

| indices  | count | action                  | index formula                  | name          |
|----------|-------|-------------------------|--------------------------------|---------------|
| 0..431   | 432   | play card ``c`` on ``p`` | ``PLAY_OFFSET + c * 8 + p``    | ``play 9H->N`` |
| 432..495 | 64    | move pile ``s`` onto ``d`` | ``MOVE_OFFSET + s * 8 + d``  | ``move W->N``  |
| 496      | 1     | end the turn            | ``END_TURN_ACTION``            | ``end turn``   |

The eight indices with ``s == d`` (``move N->N``...) exist so that the formula has no holes;
they are never legal. Plays of the jokers (cards 52 and 53) are never legal without jokers.
The second joker is named ``JK2`` (``play JK2->N``) so that every index has its own name and
``parse(name(i)) == i`` for every ``i``.

Every table (the move of each index, the name of each index, the index of each name) is built
once at import; ``encode``, ``decode`` and ``name`` only index.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from . import engine
from .cards import NUM_CARDS
from .engine import END_TURN, EndTurn, GameState, Move, MovePile, PlayCard

ACTION_LAYOUT_VERSION = 1
NUM_PILES = engine.NUM_PILES
PLAY_OFFSET = 0
MOVE_OFFSET = PLAY_OFFSET + NUM_CARDS * NUM_PILES  # 432
END_TURN_ACTION = MOVE_OFFSET + NUM_PILES * NUM_PILES  # 496
NUM_ACTIONS = END_TURN_ACTION + 1  # 497


# The index formulas, once. Plain functions of ints that compiled code uses too: the vector
# kernel compiles them (``kernel.play_action``...), so its moves and these agree by construction.
def play_action(card: int, pile: int) -> int:
    """The index of playing ``card`` onto ``pile``."""
    return PLAY_OFFSET + card * NUM_PILES + pile


def move_action(src: int, dst: int) -> int:
    """The index of moving pile ``src`` (or its part) onto pile ``dst``."""
    return MOVE_OFFSET + src * NUM_PILES + dst


def play_card_of(a: int) -> int:
    """The card of the card play ``a``."""
    return (a - PLAY_OFFSET) // NUM_PILES


def play_pile_of(a: int) -> int:
    """The pile of the card play ``a``."""
    return (a - PLAY_OFFSET) % NUM_PILES


def move_src(a: int) -> int:
    """The pile that the pile move ``a`` takes cards from."""
    return (a - MOVE_OFFSET) // NUM_PILES


def move_dst(a: int) -> int:
    """The pile that the pile move ``a`` lays them on."""
    return (a - MOVE_OFFSET) % NUM_PILES


def is_play(a: int) -> bool:
    """Whether ``a`` is a card play."""
    return PLAY_OFFSET <= a < MOVE_OFFSET


def is_pile_move(a: int) -> bool:
    """Whether ``a`` is a pile move."""
    return MOVE_OFFSET <= a < END_TURN_ACTION


def _build_moves() -> tuple[Move, ...]:
    plays = [PlayCard(c, p) for c in range(NUM_CARDS) for p in range(NUM_PILES)]
    pile_moves = [MovePile(s, d) for s in range(NUM_PILES) for d in range(NUM_PILES)]
    return tuple(plays + pile_moves + [END_TURN])


MOVES: tuple[Move, ...] = _build_moves()
"""The move of every action index."""
NAMES: tuple[str, ...] = tuple(engine.move_name(m) for m in MOVES)
"""The readable name of every action index (``play 9H->N``, ``move W->N``, ``end turn``)."""
_INDEX_OF_NAME = {n: i for i, n in enumerate(NAMES)}

assert len(MOVES) == NUM_ACTIONS == 497
assert len(_INDEX_OF_NAME) == NUM_ACTIONS, "action names must be unique"


def whole_number(action: Any) -> int | None:
    """``action`` as an int when it is a whole number: an int, a numpy integer or a 0-d integer
    array (what SB3's ``predict`` returns), by ``operator.index``; never a bool (``True`` is not
    action 1) nor a float. None otherwise; whether it is in 0..NUM_ACTIONS-1 is the caller's."""
    if isinstance(action, (bool, np.bool_)):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def whole_in(name: str, value: Any, low: int, high: int) -> int:
    """``value`` of the setting ``name`` as an int when it is a whole number (``whole_number``) from
    ``low`` to ``high``; else ``ValueError`` in one line naming the setting and the range."""
    number = whole_number(value)
    if number is None or not low <= number <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high:,}, not {value!r}")
    return number


def whole_or_given(value: Any) -> Any:
    """``value`` as an int when ``whole_number`` reads one (``np.int64(3)`` is 3), else ``value``
    itself, for the caller's own check to refuse by name: an env's ``num_players`` or ``max_moves``
    taken the way an action is."""
    number = whole_number(value)
    return value if number is None else number


def _check_index(i: int) -> int:
    try:
        i = operator.index(i)
    except TypeError:
        raise TypeError(f"an action is a whole number 0..{NUM_ACTIONS - 1}, not {i!r}") from None
    if not 0 <= i < NUM_ACTIONS:
        raise ValueError(f"action {i} is outside 0..{NUM_ACTIONS - 1}")
    return i


def encode(move: Move) -> int:
    """The action index of an engine move (``PlayCard``, ``MovePile`` or ``END_TURN``)."""
    if isinstance(move, PlayCard):
        card, pile = operator.index(move.card), operator.index(move.pile)
        if 0 <= card < NUM_CARDS and 0 <= pile < NUM_PILES:
            return play_action(card, pile)
    elif isinstance(move, MovePile):
        src, dst = operator.index(move.src), operator.index(move.dst)
        if 0 <= src < NUM_PILES and 0 <= dst < NUM_PILES:
            return move_action(src, dst)
    elif isinstance(move, EndTurn):
        return END_TURN_ACTION
    else:
        raise TypeError(f"not a move: {move!r}")
    raise ValueError(f"move out of range (cards 0..{NUM_CARDS - 1}, piles 0..{NUM_PILES - 1}): {move!r}")


def decode(i: int) -> Move:
    """The engine move of action index ``i`` (any integer type, numpy included)."""
    return MOVES[_check_index(i)]


def name(i: int) -> str:
    """The readable name of action index ``i``: ``play 9H->N``, ``move W->N``, ``end turn``."""
    return NAMES[_check_index(i)]


MAX_MOVE_TEXT = 64
"""The longest text ``parse`` reads as a move (``play JK2->NE`` is 12 characters): a longer one is
refused without being echoed whole."""


def parse(text: str, state: GameState | None = None) -> int:
    """The action index of a move written as text (every form ``engine.parse_move`` reads, and
    the names of ``name``, e.g. ``play JK2->N``).

    A joker written ``JK`` means the first joker (52); given ``state``, it means the joker that
    the player to act holds, when that player holds only the other one.
    """
    if len(text) > MAX_MOVE_TEXT:
        raise ValueError(f"not a move: {text[:MAX_MOVE_TEXT]!r}... ({len(text):,} characters; a move is a few)")
    key = " ".join(text.split())
    index = _INDEX_OF_NAME[key] if key in _INDEX_OF_NAME else encode(engine.parse_move(text))
    move = MOVES[index]
    if isinstance(move, PlayCard) and move.card == 52 and state is not None:
        hand = state.hands[state.current_player]
        if 52 not in hand and 53 in hand:
            return encode(PlayCard(53, move.pile))
    return index


def legal_actions(state: GameState) -> list[int]:
    """The indices of the legal moves of the player to act (empty once the deal is over)."""
    return [encode(m) for m in engine.legal_moves(state)]


def legal_mask(state: GameState) -> np.ndarray:
    """An ``int8`` array of ``NUM_ACTIONS``: 1 at the index of every legal move, else 0.

    On a live turn it is never all zero (``END_TURN`` or a card play is always legal); once the
    deal is over it is all zero.
    """
    # Every env builds this at every step: each index is stored straight into a bytearray (the
    # formulas of ``play_action`` and ``move_action``, inline) and numpy wraps it without a copy, which is about
    # half the time of building the list of indices with ``encode`` and fancy-assigning it.
    mask = bytearray(NUM_ACTIONS)
    for move in engine.legal_moves(state):
        kind = move.kind
        if kind == "play":
            mask[PLAY_OFFSET + move.card * NUM_PILES + move.pile] = 1
        elif kind == "move":
            mask[MOVE_OFFSET + move.src * NUM_PILES + move.dst] = 1
        else:
            mask[END_TURN_ACTION] = 1
    return np.frombuffer(mask, dtype=np.int8)


__all__ = [
    "ACTION_LAYOUT_VERSION", "PLAY_OFFSET", "MOVE_OFFSET", "END_TURN_ACTION", "NUM_ACTIONS", "MOVES",
    "NAMES", "encode", "decode", "name", "parse", "legal_actions", "legal_mask", "play_action", "move_action",
    "play_card_of", "play_pile_of", "move_src", "move_dst", "is_play", "is_pile_move",
]
