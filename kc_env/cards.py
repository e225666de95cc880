"""Cards: ids, ranks, colours, suits, and how cards are written (RULES.md section 1).

A card is an ``int``. Cards 0..51 are the standard deck, ``suit * 13 + (rank - 1)`` with
suits in the order clubs, diamonds, hearts, spades and ranks 1 (ace) to 13 (king).
Cards 52 and 53 are the two jokers (RULES.md 4.9).

Everything here is a table built once at import, so the engine's hot path only indexes.
"""

from __future__ import annotations

ACE, JACK, QUEEN, KING = 1, 11, 12, 13
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"} | {r: str(r) for r in range(2, 11)}
BLACK, RED = 0, 1
JOKERS = (52, 53)
NUM_CARDS = 54  # ids 0..53: every deck size uses the same ids

RANK: tuple[int, ...] = tuple(c % 13 + 1 for c in range(52)) + (0, 0)
"""Rank of each card, 1..13; 0 for a joker (a joker takes its rank from where it is played)."""
SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52)) + (-1, -1)
"""Suit index of each card (0 C, 1 D, 2 H, 3 S); -1 for a joker."""
COLOUR: tuple[int, ...] = tuple(RED if SUITS[c // 13] in "DH" else BLACK for c in range(52)) + (-1, -1)
"""BLACK or RED; -1 for a joker."""
SUIT_COLOUR = (BLACK, RED, RED, BLACK)


def is_joker(card: int) -> bool:
    """True for the two jokers (ids 52 and 53)."""
    return card >= 52


def card(rank: int, suit: int) -> int:
    """The id of the card of this rank (1..13) and suit index (0..3)."""
    return suit * 13 + rank - 1


def deck(jokers: int = 0) -> list[int]:
    """The ids of a fresh deck: 52 cards plus ``jokers`` jokers (0 or 2)."""
    return list(range(52 + jokers))


def mask_of(cards) -> int:
    """The bitmask (bit ``c`` set for card ``c``) of an iterable of cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards in a bitmask, lowest id first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


JOKER_MASK = mask_of(JOKERS)
RANK_MASK: tuple[int, ...] = tuple(
    mask_of(c for c in range(52) if RANK[c] == r) for r in range(14)
)
"""Bitmask of the four cards of each rank (index 0 is empty)."""
RANK_COLOUR_MASK: tuple[tuple[int, int], ...] = tuple(
    tuple(mask_of(c for c in range(52) if RANK[c] == r and COLOUR[c] == col) for col in (BLACK, RED))
    for r in range(14)
)
"""``RANK_COLOUR_MASK[rank][colour]``: the two cards of that rank and colour."""
KING_MASK = RANK_MASK[KING]


def fits_on(card_: int, top: int) -> bool:
    """RULES.md 1: ``card_`` fits on ``top`` when it is one rank lower and of the other colour.

    Only real cards; jokers are judged by what they stand for (see ``engine``).
    """
    return RANK[card_] == RANK[top] - 1 and COLOUR[card_] != COLOUR[top] and not is_joker(card_)


_NAME_TO_RANK = {v: k for k, v in RANK_NAMES.items()} | {"T": 10, "1": 1}
_SYMBOL_TO_SUIT = {s: i for i, s in enumerate(SUITS)} | {s: i for i, s in enumerate(SUIT_SYMBOLS)}


JOKER_WORDS = ("JK", "JOKER")
"""How a joker is written without its number (upper case): ``parse_card`` reads it as the first
joker; a position reads it as the first joker not yet written (``engine.from_text``)."""


def parse_card(text: str) -> int:
    """A card from text: ``9H``, ``10S``, ``TS``, ``KD``, ``AC``, ``9♥``, lower case too.

    A joker is ``JK`` (or ``JOKER``), always read as the first joker, 52; callers that hold
    two jokers number them (see ``engine.from_text``). Raises ``ValueError`` naming the text.
    """
    t = text.strip().upper()
    if t in JOKER_WORDS or t == "JK1":
        return 52
    if t == "JK2":
        return 53
    if len(t) < 2 or t[:-1] not in _NAME_TO_RANK or t[-1] not in _SYMBOL_TO_SUIT:
        raise ValueError(
            f"not a card: {text!r} (write rank then suit, e.g. 9H, 10S, KD, AC, 9♥, or JK for a joker)"
        )
    return card(_NAME_TO_RANK[t[:-1]], _SYMBOL_TO_SUIT[t[-1]])


def unique_name(c: int) -> str:
    """The card's own name: ``card_name``, but the second joker is ``JK2`` (as moves and position
    text name it), so that no two cards of a deck share one."""
    return "JK2" if c == 53 else card_name(c)


def card_name(c: int, symbols: bool = False) -> str:
    """The short name of a card: ``9H`` (or ``9♥`` with ``symbols``), ``JK`` for a joker."""
    if is_joker(c):
        return "JK"
    suits = SUIT_SYMBOLS if symbols else SUITS
    return RANK_NAMES[RANK[c]] + suits[SUIT[c]]
