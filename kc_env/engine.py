"""The game of one deal as plain data and functions (RULES.md sections 2 to 4).

No RL library is imported here. The public names are those of ``DESIGN.md``::

    state = new_deal(rules, num_players=3, seed=7)
    for move in legal_moves(state): ...
    apply(state, move)              # in place; IllegalMove leaves the state exactly as it was
    state.current_player, state.is_over, state.winner, state.blocked
    deal_penalties(state)
    from_text(TEXT, rules) / to_text(state)

Piles are numbered 0..7 in the order N, E, S, W (the sides), NE, SE, SW, NW (the corners);
a pile is a list of cards bottom to top. The stock is a list whose *last* element is its top.

Jokers (RULES.md 4.9) take a value when played, a (rank, colour) pair kept in
``GameState.joker_value``; colour -1 means "no colour" (a joker king, and what follows from it).
"""

from __future__ import annotations

import numbers
import random
from dataclasses import dataclass, field
from typing import NamedTuple

from .cards import (
    ACE,
    BLACK,
    COLOUR,
    JOKER_MASK,
    JOKER_WORDS,
    KING,
    KING_MASK,
    RANK,
    RANK_COLOUR_MASK,
    RANK_MASK,
    RANK_NAMES,
    RED,
    SUIT,
    SUIT_COLOUR,
    card_name,
    cards_of,
    deck,
    mask_of,
    parse_card,
    unique_name,
)
from .rules import MAX_CLEARED, Rules

PILE_NAMES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
PILE_INDEX = {name: i for i, name in enumerate(PILE_NAMES)}
SIDES = (0, 1, 2, 3)
CORNERS = (4, 5, 6, 7)
NUM_PILES = 8
ALL_REAL = (1 << 52) - 1
NO_COLOUR = -1


class PlayCard(NamedTuple):
    """Play ``card`` from hand onto ``pile``.

    Each move type carries its ``kind`` so that moves of different types never compare equal
    (plain tuples would make ``PlayCard(7, 0) == MovePile(7, 0)``).
    """

    card: int
    pile: int
    kind: str = "play"


class MovePile(NamedTuple):
    """Move a pile (or, under ``pile_moves: partial``, its top part) from ``src`` onto ``dst``."""

    src: int
    dst: int
    kind: str = "move"


class EndTurn(NamedTuple):
    """Close the turn (and draw, under ``draw: end``)."""

    kind: str = "end"


END_TURN = EndTurn()
Move = PlayCard | MovePile | EndTurn


class IllegalMove(ValueError):
    """A move the rules do not allow now; the message says why. The state is unchanged."""


class PositionError(ValueError):
    """A position text that cannot be read; the message names the line."""


@dataclass
class GameState:
    """One deal. Mutated in place by ``apply``; ``copy()`` gives an independent copy."""

    rules: Rules
    num_players: int
    dealer: int
    piles: list[list[int]]
    hands: list[list[int]]
    stock: list[int]  # last element is the top
    current_player: int = 0
    drawn: bool = False  # the player to act has drawn this turn
    played: bool = False  # ... has played a card this turn
    moved: bool = False  # ... has moved a pile this turn
    opened: bool = False  # ... has moved a whole pile, leaving its place empty (RULES.md 4.8)
    idle_turns: int = 0  # turns in a row without lasting progress (RULES.md 4.8)
    cleared: int = 0  # complete piles cleared into the stock this deal (RULES.md 4.7)
    first_turn: bool = True  # no turn of this deal has ended yet (cross_king_move, RULES.md 4.3)
    is_over: bool = False
    winner: int | None = None
    blocked: bool = False
    move_count: int = 0
    turns_without_play: list[int] = field(default_factory=list)  # per seat, for chips
    joker_value: dict[int, tuple[int, int]] = field(default_factory=dict)
    seed: int | None = None
    rng: random.Random = field(default_factory=random.Random, repr=False)
    accepts: list[int] = field(default_factory=list, repr=False)  # per pile: cards it takes
    top_value: list[tuple[int, int] | None] = field(default_factory=list, repr=False)

    def copy(self) -> GameState:
        """An independent copy (piles, hands, stock and the random generator)."""
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return GameState(
            rules=self.rules, num_players=self.num_players, dealer=self.dealer,
            piles=[list(p) for p in self.piles], hands=[list(h) for h in self.hands],
            stock=list(self.stock), current_player=self.current_player, drawn=self.drawn,
            played=self.played, moved=self.moved, opened=self.opened, idle_turns=self.idle_turns,
            cleared=self.cleared, first_turn=self.first_turn,
            is_over=self.is_over, winner=self.winner, blocked=self.blocked,
            move_count=self.move_count, turns_without_play=list(self.turns_without_play),
            joker_value=dict(self.joker_value), seed=self.seed, rng=rng,
            accepts=list(self.accepts), top_value=list(self.top_value),
        )

    def snapshot(self) -> tuple:
        """Everything that defines the state, as a comparable value (for tests and replays)."""
        return (
            self.rules, self.num_players, self.dealer, tuple(map(tuple, self.piles)),
            tuple(map(tuple, self.hands)), tuple(self.stock), self.current_player, self.drawn,
            self.played, self.moved, self.idle_turns, self.is_over, self.winner, self.blocked,
            self.move_count, tuple(self.turns_without_play), tuple(sorted(self.joker_value.items())),
            self.seed, self.rng.getstate(), self.opened, self.cleared, self.first_turn,
        )


# -- values and fits -------------------------------------------------------------------------

def value(state: GameState, c: int) -> tuple[int, int]:
    """(rank, colour) that a card stands for: its own, or a played joker's value."""
    if c >= 52:
        return state.joker_value[c]
    return RANK[c], COLOUR[c]


def _corner_suit(pile: list[int]) -> int | None:
    """The suit a same-suit corner follows: its king's, or the first real card's above a joker king."""
    for c in pile:
        if c < 52:
            return SUIT[c]
    return None


def _is_same_suit_corner(state: GameState, p: int) -> bool:
    return p >= 4 and state.rules.corner_build == "same_suit"


def _accepts(state: GameState, p: int) -> int:
    """Bitmask of the cards that may be played from hand onto pile ``p`` (before forced plays)."""
    pile = state.piles[p]
    if not pile:
        if p >= 4:
            return KING_MASK | JOKER_MASK
        jokers = JOKER_MASK if state.rules.joker_on_empty_side else 0
        return (ALL_REAL if state.rules.kings_on_sides else ALL_REAL & ~KING_MASK) | jokers
    rank, colour = state.top_value[p]
    if rank == 1:
        return 0
    if _is_same_suit_corner(state, p):
        suit = _corner_suit(pile)
        below = RANK_MASK[rank - 1]
        if suit is not None:
            below &= mask_of(c for c in range(52) if SUIT[c] == suit)
        return below | JOKER_MASK
    if colour == NO_COLOUR:
        return RANK_MASK[rank - 1] | JOKER_MASK
    return RANK_COLOUR_MASK[rank - 1][1 - colour] | JOKER_MASK


def _joker_value_on(state: GameState, p: int, below: tuple[int, int] | None) -> tuple[int, int]:
    """The value a joker takes on pile ``p`` over a card of value ``below`` (None: empty corner)."""
    if below is None:
        return KING, NO_COLOUR
    rank, colour = below
    if _is_same_suit_corner(state, p):
        suit = _corner_suit(state.piles[p])
        return rank - 1, NO_COLOUR if suit is None else SUIT_COLOUR[suit]
    return rank - 1, NO_COLOUR if colour == NO_COLOUR else 1 - colour


def _link_ok(prev: tuple[int, int], c: int, v: tuple[int, int], corner_suit: int | None) -> bool:
    """Whether a card ``c`` of value ``v`` may lie on a card of value ``prev`` in a pile.

    Ranks must step down by one. On a same-suit corner (``corner_suit`` not None) a real card
    must be of the corner's suit, whatever its colour (a joker always is); elsewhere colours
    alternate (no colour matches anything).
    """
    if v[0] != prev[0] - 1:
        return False
    if corner_suit is not None:
        return c >= 52 or SUIT[c] == corner_suit
    return prev[1] == NO_COLOUR or v[1] == NO_COLOUR or v[1] != prev[1]


def _refresh(state: GameState, p: int) -> None:
    """Recompute the cached top value and acceptance mask of pile ``p``."""
    pile = state.piles[p]
    state.top_value[p] = value(state, pile[-1]) if pile else None
    state.accepts[p] = _accepts(state, p)


def _refresh_all(state: GameState) -> None:
    state.top_value = [None] * NUM_PILES
    state.accepts = [0] * NUM_PILES
    for p in range(NUM_PILES):
        _refresh(state, p)


def pile_is_legal(state: GameState, p: int) -> bool:
    """Whether pile ``p`` is a legal pile: each card one rank below the one under it, colours
    alternating (or in the king's suit on a same-suit corner), a corner starting with a king or a
    joker, no side starting with a joker, nothing on an ace, and every joker's value the one its
    place gives it."""
    pile = state.piles[p]
    if not pile:
        return True
    bottom = pile[0]
    if p >= 4:
        if bottom < 52 and RANK[bottom] != KING:
            return False
    elif bottom >= 52 and not state.rules.joker_on_empty_side:
        return False
    if bottom >= 52 and state.joker_value.get(bottom) != (KING, NO_COLOUR):
        return False
    corner_suit = _corner_suit(pile) if _is_same_suit_corner(state, p) else None
    prev = value(state, bottom)
    saved = state.piles[p]
    for i in range(1, len(pile)):
        c = pile[i]
        if c >= 52:
            if prev[0] == ACE:  # RULES.md 1: nothing is built on an ace, a joker neither
                return False
            state.piles[p] = pile[:i]  # the joker's value is judged by what lies below it
            expected = _joker_value_on(state, p, prev)
            state.piles[p] = saved
            if state.joker_value.get(c) != expected:
                return False
            v = expected
        else:
            v = (RANK[c], COLOUR[c])
        if not _link_ok(prev, c, v, corner_suit):
            return False
        prev = v
    return True


# -- dealing -------------------------------------------------------------------------------

def new_deal(rules: Rules | str | None = None, num_players: int = 2, seed: int | None = None,
             dealer: int = 0) -> GameState:
    """Shuffle and deal (RULES.md 2): hands one card at a time from the dealer's left, four
    cards onto the sides (kings in the cross by ``cross_kings``), then the first turn begins."""
    rules = Rules.coerce(rules)
    num_players = _whole(num_players, num_players)  # np.int64(3) too, as the envs take it
    rules.check_players(num_players)
    seat = _whole(dealer)  # np.int64(1) too, as the envs take seats
    if seat is None or not 0 <= seat < num_players:
        raise ValueError(f"dealer must be a seat 0..{num_players - 1}, not {dealer!r}")
    dealer = seat
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    seed = check_seed(seed)
    rng = random.Random(seed)
    cards = deck(rules.jokers)
    rng.shuffle(cards)
    first_seat = rng.randrange(num_players) if rules.first_player == "random" else None
    return deal_from(rules, num_players, cards, dealer, first_seat, seed=seed, rng=rng)


def deal_from(rules: Rules, num_players: int, stock: list[int], dealer: int = 0, first_seat: int | None = None,
              seed: int = 0, rng: random.Random | None = None) -> GameState:
    """Deal from ``stock`` (a whole deck, its top the last element; taken over, not copied) as
    ``new_deal`` deals after its shuffle: the hands, the cross, then the first turn of
    ``first_seat`` (None: the dealer's left). ``rng`` goes on to whatever the deal draws at
    random later (default: seeded with ``seed``); chance-node games deal with it (kc_env.openspiel)."""
    hands: list[list[int]] = [[] for _ in range(num_players)]
    for i in range(rules.hand_size * num_players):
        hands[(dealer + 1 + i) % num_players].append(stock.pop())
    state = GameState(rules=rules, num_players=num_players, dealer=dealer,
                      piles=[[] for _ in range(NUM_PILES)], hands=hands, stock=stock,
                      current_player=(dealer + 1) % num_players, seed=seed, rng=rng or random.Random(seed),
                      turns_without_play=[0] * num_players)
    _deal_cross(state)
    if first_seat is not None:
        state.current_player = first_seat
    _refresh_all(state)
    _begin_turn(state)
    return state


def _deal_cross(state: GameState) -> None:
    """Turn four cards onto the sides; under ``to_corner`` kings go to corners and sides refill.

    A joker cannot start a side (RULES.md 4.9): one turned up goes to the bottom of the stock.
    If the stock holds no more real cards (hands may take all but four cards, and a king sent
    to a corner uses one of those), the side is left empty, to be filled from hand.
    """
    to_corner = state.rules.cross_kings == "to_corner"
    for side in SIDES:
        while not state.piles[side] and any(c < 52 for c in state.stock):
            c = state.stock.pop()
            if c >= 52 and state.rules.joker_on_empty_side:  # it stands for a king of no colour
                state.joker_value[c] = (KING, NO_COLOUR)
            elif c >= 52:
                state.stock.insert(0, c)
                continue
            if to_corner and c < 52 and RANK[c] == KING:
                corner = next((k for k in CORNERS if not state.piles[k]), None)
                if corner is not None:
                    state.piles[corner].append(c)
                    continue
            state.piles[side].append(c)


# -- legal moves -----------------------------------------------------------------------------

def _hand_mask(state: GameState) -> int:
    return mask_of(state.hands[state.current_player])


def _raw_plays(state: GameState, hand: int) -> list[PlayCard]:
    plays = []
    for p in range(NUM_PILES):
        m = hand & state.accepts[p]
        while m:
            low = m & -m
            plays.append(PlayCard(low.bit_length() - 1, p))
            m ^= low
    return plays


def _forced_plays(state: GameState, hand: int, plays: list[PlayCard]) -> tuple[list[PlayCard], str | None]:
    """Apply ``king_first`` then ``fill_spaces_first`` (RULES.md 4.5); returns the plays and which
    rule forced them (None if neither applies).

    Where RULES.md is silent: only a real king in hand triggers ``king_first`` (a joker may go
    into a corner but is not a king in hand); ``king_first`` also stops pile moves while it
    applies, ``fill_spaces_first`` restricts card plays only, so pile moves stay legal under it.
    """
    rules = state.rules
    if rules.king_first == "before_others" and _king_and_open_corner(state, hand):
        return [m for m in plays if m.pile >= 4 and m.card < 52 and RANK[m.card] == KING], "king_first"
    if rules.fill_spaces_first:
        into_sides = [m for m in plays if m.pile < 4 and not state.piles[m.pile]]
        if into_sides:
            return into_sides, "fill_spaces_first"
    return plays, None


def _king_and_open_corner(state: GameState, hand: int) -> bool:
    """Whether the player holds a (real) king while a corner is empty (RULES.md 4.5)."""
    return bool(hand & KING_MASK) and any(not state.piles[k] for k in CORNERS)


def _king_side_may_move(state: GameState) -> bool:
    """RULES.md 4.3 ``cross_king_move``: a king-bottomed side moves into a corner at any time, or
    only in the deal's first turn."""
    return state.rules.cross_king_move == "any_time" or state.first_turn


def _pile_moves(state: GameState) -> list[MovePile]:
    """Every pile move allowed by ``pile_moves`` (before ``king_first``), by source then destination."""
    piles = state.piles
    rules = state.rules
    mode = rules.pile_moves
    full = [p for p in range(NUM_PILES) if piles[p]]
    moves = []
    for p in full:  # king-bottomed sides into empty corners, under every mode
        bottom = piles[p][0]
        if (p < 4 and bottom < 52 and RANK[bottom] == KING and _fits_a_corner(state, piles[p])
                and _king_side_may_move(state)):
            moves.extend(MovePile(p, k) for k in CORNERS if not piles[k])
    if mode == "none":
        return moves
    if mode == "whole" and not rules.jokers and rules.corner_build == "alternate":
        # Fast path: a whole pile moves exactly when its bottom card is among the cards the
        # (non-empty) destination accepts; one mask test per destination.
        source_of = {piles[p][0]: p for p in full}
        bottoms = mask_of(source_of)
        accepts = state.accepts
        for q in full:
            m = accepts[q] & bottoms
            while m:
                low = m & -m
                p = source_of[low.bit_length() - 1]
                if p != q:
                    moves.append(MovePile(p, q))
                m ^= low
        moves.sort()
        return moves
    for p in full:
        for q in full:
            if q != p and _part_start(state, p, q) is not None:
                moves.append(MovePile(p, q))
    moves.sort()
    return moves


def _pile_move_ok(state: GameState, p: int, q: int) -> bool:
    """Whether moving pile ``p`` (or its top part) onto pile ``q`` is allowed by ``pile_moves``."""
    piles = state.piles
    if p == q or not piles[p]:
        return False
    if not piles[q]:
        bottom = piles[p][0]
        return (p < 4 and q >= 4 and bottom < 52 and RANK[bottom] == KING
                and _fits_a_corner(state, piles[p]) and _king_side_may_move(state))
    return state.rules.pile_moves != "none" and _part_start(state, p, q) is not None


def _fits_a_corner(state: GameState, pile: list[int]) -> bool:
    """Whether a king-bottomed side pile may become a corner pile. Under ``same_suit`` only a
    lone king may: the cards on a side alternate colour, so the next one is never of the king's
    suit, and a corner must follow its king's suit (RULES.md 4.6)."""
    return state.rules.corner_build == "alternate" or len(pile) == 1


def _part_start(state: GameState, p: int, q: int, later: bool = False) -> int | None:
    """Where the part of pile ``p`` that may move onto non-empty pile ``q`` starts, or None.

    A part that leaves cards behind (``partial``) may only be the turn's first pile move
    (RULES.md 4.4, so that no part goes back and forth in one turn); ``later`` ignores that
    limit (to tell why a move is illegal)."""
    pile = state.piles[p]
    top_rank = state.top_value[q][0]
    i = value(state, pile[0])[0] - (top_rank - 1)
    if i < 0 or i >= len(pile) or (i > 0 and (state.rules.pile_moves != "partial" or (state.moved and not later))):
        return None
    x = pile[i]
    if x < 52 and not state.accepts[q] >> x & 1:
        return None
    # A real card that fits carries the rest of an alternating part with it; jokers, and a
    # same-suit corner (which does not alternate colours) at either end, need the whole walk.
    same_suit = _is_same_suit_corner(state, p) or _is_same_suit_corner(state, q)
    needs_walk = same_suit or any(c >= 52 for c in pile[i:])
    if needs_walk and not _part_fits(state, pile[i:], q):
        return None
    return i


def _part_fits(state: GameState, part: list[int], q: int) -> bool:
    """Walk a moving part as it would lie on pile ``q``.

    A played joker is judged by the card it stands for (RULES.md 4.9): it keeps its rank (the
    walk steps ranks down) and its colour, so a joker standing for a red card only moves where a
    red card may lie; a joker of no colour takes the colour its new place gives it. On a
    joker-king corner under ``same_suit`` the suit is set by the first real card, so jokers laid
    before it must be of that suit's colour too.
    """
    same_suit = _is_same_suit_corner(state, q)
    suit = _corner_suit(state.piles[q]) if same_suit else None  # a joker-king corner takes one later
    unsuited: list[int] = []  # colours of jokers laid on a same-suit corner before its suit is known
    prev = state.top_value[q]
    for j, c in enumerate(part):
        if c >= 52:  # the value _joker_value_on gives it once the cards below are in place
            if same_suit:
                v = prev[0] - 1, NO_COLOUR if suit is None else SUIT_COLOUR[suit]
            else:
                v = _joker_value_on(state, q, prev)
            old_colour = state.joker_value[c][1]
            if NO_COLOUR not in (v[1], old_colour) and v[1] != old_colour:
                return False
            if same_suit and suit is None:
                unsuited.append(old_colour)
        else:
            v = (RANK[c], COLOUR[c])
            if j > 0 and not _link_ok(prev, c, v, suit):  # the join itself was checked by accepts
                return False
            if same_suit and suit is None:
                suit = SUIT[c]
                if any(colour not in (NO_COLOUR, SUIT_COLOUR[suit]) for colour in unsuited):
                    return False
        prev = v
    return True


def legal_moves(state: GameState) -> list[Move]:
    """Every legal move of the player to act (empty once the deal is over).

    Card plays first (by pile, then card id), then pile moves, then ``END_TURN`` when the turn
    may end. Under the forced-play variants some card plays are left out (RULES.md 4.5).
    """
    if state.is_over:
        return []
    hand = _hand_mask(state)
    plays, forced = _forced_plays(state, hand, _raw_plays(state, hand))
    moves: list[Move] = list(plays)
    if forced != "king_first":
        moves.extend(_pile_moves(state))
    if _end_held_by(state, hand, plays, len(moves) - len(plays)) is None:
        moves.append(END_TURN)
    return moves


def _end_held_by(state: GameState, hand: int, plays: list[PlayCard], pile_moves: int) -> str | None:
    """The rule that keeps the turn from ending now (RULES.md 4.5), or None: ``"card"`` for
    ``must_play`` with a card play left, ``"pile"`` for ``all_moves`` with a pile move left,
    ``"king"`` for ``king_first: before_ending`` with a king in hand and a corner empty.
    ``pile_moves`` counts the pile moves open now. No text is made here: it is on the hot path
    (``legal_moves``); ``why_illegal`` words it."""
    rules = state.rules
    if rules.must_play in ("all", "all_moves") and plays:
        return "card"
    if rules.must_play == "all_moves" and pile_moves:
        return "pile"
    if rules.king_first == "before_ending" and _king_and_open_corner(state, hand):
        return "king"
    return None


def has_play_or_pile_move(state: GameState) -> bool:
    """Whether the player to act has any card play or pile move (used by ``draw: stuck``)."""
    hand = _hand_mask(state)
    return any(hand & a for a in state.accepts) or bool(_pile_moves(state))


# -- why a move is illegal -----------------------------------------------------------------

def why_illegal(state: GameState, move: Move) -> str | None:
    """The reason ``move`` is illegal now, or None if it is legal."""
    if state.is_over:
        return "the deal is over"
    if isinstance(move, PlayCard):
        return _why_play_illegal(state, move)
    if isinstance(move, MovePile):
        return _why_pile_move_illegal(state, move)
    if isinstance(move, EndTurn):
        hand = _hand_mask(state)
        plays, forced = _forced_plays(state, hand, _raw_plays(state, hand))
        open_moves = [] if forced == "king_first" or state.rules.must_play != "all_moves" else _pile_moves(state)
        held = _end_held_by(state, hand, plays, len(open_moves))
        if held == "card":
            return f"must_play is {state.rules.must_play!r} and {move_name(plays[0])} can still be played"
        if held == "pile":
            return f"must_play is 'all_moves' and {move_name(open_moves[0])} can still be made"
        if held == "king":
            return "king_first is 'before_ending': a king in hand goes into the empty corner before the turn ends"
        return None
    return f"not a move: {move!r}"


def _why_play_illegal(state: GameState, move: PlayCard) -> str | None:
    card, p = move.card, move.pile
    if type(p) is not int or not 0 <= p < NUM_PILES:
        return f"no pile {p!r} (piles are 0..7: {', '.join(PILE_NAMES)})"
    if type(card) is not int or not 0 <= card < 54:
        hint = " (a card is a Python int: int(card))" if type(card) is not int and hasattr(card, "__index__") else ""
        return f"no card {card!r}{hint}"
    if card not in state.hands[state.current_player]:
        return f"{unique_name(card)} is not in player {state.current_player}'s hand"
    if not state.accepts[p] >> card & 1:  # names are formatted only for a refusal: this is the hot path
        return f"{card_name(card)} may not go on {PILE_NAMES[p]}: {_why_not_fit(state, card, p)}"
    if not (state.rules.king_first == "before_others" or state.rules.fill_spaces_first):
        return None
    hand = _hand_mask(state)
    plays, forced = _forced_plays(state, hand, _raw_plays(state, hand))
    if move not in plays:
        if forced == "king_first":
            return "king_first: while you hold a king and a corner is empty, only kings go into corners"
        return "fill_spaces_first: while a side is empty and a card can go there, play into the empty sides"
    return None


def _why_not_fit(state: GameState, card: int, p: int) -> str:
    pile = state.piles[p]
    if not pile:
        if p >= 4:
            return "only a king (or a joker) may go into an empty corner"
        if card >= 52:
            return "a joker may not start a side pile"
        return "kings_on_sides is false: a king may not go onto an empty side"
    top = _top_name(state, p)
    if state.top_value[p][0] == 1:
        return f"nothing is built on an ace ({top})"
    if _is_same_suit_corner(state, p):
        return f"on a same-suit corner the card must be one rank below {top} and of the king's suit"
    return f"it does not fit on {top} (one rank lower and the other colour)"


def _top_name(state: GameState, p: int) -> str:
    """The top card of non-empty pile ``p`` by name; a joker with the card it stands for."""
    top = state.piles[p][-1]
    if top < 52:
        return card_name(top)
    rank, colour = state.top_value[p]
    if colour == NO_COLOUR:
        return f"JK as a {RANK_NAMES[rank]} of no colour"
    return f"JK as a {('black', 'red')[colour]} {RANK_NAMES[rank]}"


def _why_pile_move_illegal(state: GameState, move: MovePile) -> str | None:
    p, q = move.src, move.dst
    for x in (p, q):
        if type(x) is not int or not 0 <= x < NUM_PILES:
            return f"no pile {x!r} (piles are 0..7: {', '.join(PILE_NAMES)})"
    src, dst = PILE_NAMES[p], PILE_NAMES[q]
    if p == q:
        return "a pile cannot move onto itself"
    if not state.piles[p]:
        return f"{src} is empty"
    if _pile_move_ok(state, p, q):
        hand = _hand_mask(state)
        if state.rules.king_first == "before_others" and _forced_plays(state, hand, _raw_plays(state, hand))[1] == "king_first":
            return "king_first: while you hold a king and a corner is empty, no pile may move"
        return None
    if not state.piles[q]:
        if q < 4:
            return f"piles never move onto an empty side ({dst})"
        bottom = state.piles[p][0]
        if p < 4 and bottom < 52 and RANK[bottom] == KING and not _king_side_may_move(state):
            return "cross_king_move is 'first_turn': a king's side moves into a corner only in the deal's first turn"
        if p < 4 and bottom < 52 and RANK[bottom] == KING:
            return (f"corner_build is 'same_suit': only a lone king may move into the empty corner {dst} "
                    f"(the cards on {card_name(bottom)} are not of its suit)")
        return f"only a side pile with a king at the bottom may move into the empty corner {dst}"
    if state.rules.pile_moves == "none":
        return "pile_moves is 'none': only a king-bottomed side pile may move, into an empty corner"
    top = _top_name(state, q)
    if state.rules.pile_moves == "partial":
        if _part_start(state, p, q, later=True) is not None:
            return (f"pile_moves is 'partial': a part that leaves cards on {src} may only be the first pile "
                    "move of a turn")
        return f"no part of {src} fits on {top} ({dst})"
    bottom = state.piles[p][0]
    if _is_same_suit_corner(state, q) and bottom < 52 and state.accepts[q] >> bottom & 1:
        return f"on the same-suit corner {dst} every card of the moving pile {src} must be of the corner's suit"
    return f"the bottom card {card_name(bottom)} of {src} does not fit on {top} ({dst})"


# -- applying moves ----------------------------------------------------------------------------

def apply(state: GameState, move: Move) -> GameState:
    """Make ``move`` for the player to act, in place, and return the state.

    Raises ``IllegalMove`` (with the reason) and leaves the state untouched if it is illegal.
    """
    reason = why_illegal(state, move)
    if reason is not None:
        raise IllegalMove(f"{_describe(move)} by player {state.current_player}: {reason}")
    state.move_count += 1
    if isinstance(move, PlayCard):
        _play(state, move.card, move.pile)
    elif isinstance(move, MovePile):
        _move_pile(state, move.src, move.dst)
    else:
        _end_turn(state)
    return state


def _describe(move: Move) -> str:
    try:
        return move_name(move)
    except Exception:  # a malformed move still gets a readable error
        return repr(move)


def _play(state: GameState, card: int, p: int) -> None:
    hand = state.hands[state.current_player]
    hand.remove(card)
    if card >= 52:
        state.joker_value[card] = _joker_value_on(state, p, state.top_value[p])
    state.piles[p].append(card)
    state.played = True
    _after_pile_grew(state, p)
    if not hand:
        _finish(state, winner=state.current_player)


def _move_pile(state: GameState, p: int, q: int) -> None:
    pile = state.piles[p]
    i = 0 if not state.piles[q] else _part_start(state, p, q)
    part = pile[i:]
    del pile[i:]
    for c in part:  # jokers take the value their new place gives them
        if c >= 52:
            state.joker_value[c] = _joker_value_on(state, q, state.top_value[q])
        state.piles[q].append(c)
        state.top_value[q] = value(state, c)
    state.moved = True
    state.opened = state.opened or i == 0
    _refresh(state, p)
    _after_pile_grew(state, q)


def _after_pile_grew(state: GameState, p: int) -> None:
    """Refresh pile ``p``; under ``clear_complete_piles`` a pile K..A goes into the stock."""
    if state.rules.clear_complete_piles and len(state.piles[p]) == 13:
        cleared = state.piles[p]
        state.piles[p] = []
        for c in cleared:
            state.joker_value.pop(c, None)
        state.stock.extend(cleared)
        state.rng.shuffle(state.stock)
        state.cleared += 1
    _refresh(state, p)


def _end_turn(state: GameState) -> None:
    rules = state.rules
    seat = state.current_player
    drew = state.drawn
    if not state.played and (rules.extra_chip == "did_not_play" or not _raw_plays(state, _hand_mask(state))):
        state.turns_without_play[seat] += 1  # before the end-turn draw: could the hand play?
    if rules.draw == "end" and state.stock:
        state.hands[seat].append(state.stock.pop())
        drew = True
    state.idle_turns = 0 if made_progress(state, drew) else state.idle_turns + 1
    state.drawn = state.played = state.moved = state.opened = state.first_turn = False
    if is_blocked(state):
        end_blocked(state)
        return
    state.current_player = (seat + 1) % state.num_players
    _begin_turn(state)


def made_progress(state: GameState, drew: bool) -> bool:
    """RULES.md 4.8: whether the turn ending now made lasting progress: a card left the hand, a
    card was drawn, or a pile move left its place empty. A part moved from pile to pile
    (``partial``) is no progress: it can be moved back."""
    return state.played or state.opened or drew


def is_blocked(state: GameState) -> bool:
    """RULES.md 4.8, checked when a turn ends (its flags cleared): ``idle_limit`` turns in a row
    without lasting progress, under ``blocked_when: no_moves`` an empty stock with no move open
    to anyone, or the ``MAX_CLEARED``-th cleared pile."""
    if state.idle_turns >= idle_limit(state) or state.cleared >= MAX_CLEARED:
        return True
    return state.rules.blocked_when == "no_moves" and not state.stock and not anyone_can_move(state)


def idle_limit(state: GameState) -> int:
    """The turns in a row without lasting progress that block the deal (RULES.md 4.8): a full
    round, or two under ``blocked_when: no_moves`` (where they only back up the rule)."""
    return state.num_players * (2 if state.rules.blocked_when == "no_moves" else 1)


def anyone_can_move(state: GameState) -> bool:
    """Whether some player has a card play or there is a pile move (``blocked_when: no_moves``)."""
    return any(mask_of(h) & a for h in state.hands for a in state.accepts) or bool(_pile_moves(state))


def _begin_turn(state: GameState) -> None:
    """RULES.md 4.1: the start-of-turn draw (``start``), or the draw when stuck (``stuck``)."""
    state.drawn = state.played = state.moved = state.opened = False
    draw = state.rules.draw
    if not state.stock or draw == "end":
        return
    if draw == "start" or not has_play_or_pile_move(state):
        state.hands[state.current_player].append(state.stock.pop())
        state.drawn = True


def _finish(state: GameState, winner: int | None) -> None:
    state.is_over = True
    state.winner = winner


def end_blocked(state: GameState) -> None:
    """End the deal as blocked (RULES.md 4.8): no winner, or under ``blocked: fewest_cards`` the
    single player with the fewest cards wins. Environments call it to truncate a deal too."""
    state.blocked = True
    winner = None
    if state.rules.blocked == "fewest_cards":
        sizes = [len(h) for h in state.hands]
        fewest = min(sizes)
        if sizes.count(fewest) == 1:
            winner = sizes.index(fewest)
    _finish(state, winner)


# -- scoring a deal --------------------------------------------------------------------------

def hand_penalty(hand: list[int], table: dict[str, int]) -> int:
    """The penalty of a hand by a table of rank names (``"K"``, ``"10"``, ``"JK"``...)."""
    return sum(table["JK"] if c >= 52 else table[_RANK_KEY[RANK[c]]] for c in hand)


_RANK_KEY = {1: "A", 11: "J", 12: "Q", 13: "K"} | {r: str(r) for r in range(2, 11)}


def deal_penalties(state: GameState, table: dict[str, int] | None = None) -> list[int]:
    """RULES.md 5.1: what each seat adds for this finished deal (the winner adds 0; in a blocked
    deal every player without the win adds the penalty of their own hand)."""
    if not state.is_over:
        raise ValueError("the deal is not over yet")
    table = table or state.rules.penalty_table()
    return [0 if seat == state.winner else hand_penalty(h, table) for seat, h in enumerate(state.hands)]


# -- moves as text ---------------------------------------------------------------------------

def move_name(move: Move) -> str:
    """A readable name: ``play 9H->N``, ``move W->N``, ``end turn``. The second joker is
    ``JK2`` (``play JK2->N``), so that a name always says which card moves and a saved game
    replays exactly (``parse_move`` reads it back)."""
    if isinstance(move, PlayCard):
        card = unique_name(move.card)
        return f"play {card}->{PILE_NAMES[move.pile]}"
    if isinstance(move, MovePile):
        return f"move {PILE_NAMES[move.src]}->{PILE_NAMES[move.dst]}"
    if isinstance(move, EndTurn):
        return "end turn"
    raise TypeError(f"not a move: {move!r}")


def parse_move(text: str) -> Move:
    """A move from text: ``play 9H->N``, ``play 9H N``, ``9H N``, ``move W->N``, ``move W N``,
    ``end turn``, ``end``. Raises ``ValueError`` naming what could not be read."""
    words = text.replace("->", " ").split()
    if not words:
        raise ValueError("empty move: write e.g. '9H N', 'move W N' or 'end'")
    head = words[0].lower()
    if head == "end" and (len(words) == 1 or (len(words) == 2 and words[1].lower() == "turn")):
        return END_TURN
    if head == "move":
        if len(words) != 3:
            raise ValueError(f"cannot read {text!r}: write 'move SRC DST', e.g. 'move W N'")
        return MovePile(_parse_pile(words[1]), _parse_pile(words[2]))
    if head == "play":
        words = words[1:]
    if len(words) != 2:
        raise ValueError(f"cannot read {text!r}: write 'play CARD PILE' (e.g. '9H N'), 'move W N' or 'end'")
    return PlayCard(parse_card(words[0]), _parse_pile(words[1]))


def _parse_pile(word: str) -> int:
    name = word.upper()
    if name not in PILE_INDEX:
        raise ValueError(f"not a pile: {word!r} (piles are {', '.join(PILE_NAMES)})")
    return PILE_INDEX[name]


# -- positions as text -----------------------------------------------------------------------

def to_text(state: GameState) -> str:
    """The position as text (the format of ``DESIGN.md``; ``from_text`` reads it back)."""
    def cards_text(cards):
        return " ".join(unique_name(c) for c in cards) or "-"

    lines = [f"{name}: {cards_text(state.piles[p])}" for p, name in enumerate(PILE_NAMES)]
    lines += [f"hand {i}: {cards_text(h)}" for i, h in enumerate(state.hands)]
    lines.append(f"stock: {cards_text(reversed(state.stock))}")
    flags = [f for f, on in (("drawn", state.drawn), ("played", state.played), ("moved", state.moved),
                             ("opened", state.opened and state.rules.pile_moves == "partial"),
                             ("first", state.first_turn and state.rules.cross_king_move == "first_turn")) if on]
    lines.append(" ".join([f"turn: {state.current_player}"] + flags))
    if state.dealer:
        lines.append(f"dealer: {state.dealer}")
    if state.idle_turns:
        lines.append(f"idle: {state.idle_turns}")
    if state.cleared:
        lines.append(f"cleared: {state.cleared}")
    if any(state.turns_without_play):
        lines.append("unplayed: " + " ".join(map(str, state.turns_without_play)))
    if state.is_over:
        result = "blocked" if state.blocked else "out"
        lines.append(f"over: {result}" + ("" if state.winner is None else f" winner {state.winner}"))
    return "\n".join(lines) + "\n"


def _joker_read(word: str, c: int, seen: dict[int, int], jokers: int, lineno: int) -> int:
    """The joker a position's ``word`` names: ``JK2`` (``JK1``) that one, a plain ``JK`` the first
    joker not yet written (``seen``); ``PositionError`` when the rules have no such joker."""
    if word.upper() in JOKER_WORDS:
        c = next((j for j in range(52, 52 + jokers) if j not in seen), 52 + jokers)
    if c >= 52 + jokers:
        raise PositionError(f"line {lineno}: more jokers than the rules' {jokers}")
    return c


def from_text(text: str, rules: Rules | str | None = None, seed: int = 0) -> GameState:
    """A position from text (see ``to_text``). Cards not written are out of this position.

    Lines: one per pile (``N: 9H 8S`` bottom to top, ``-`` for empty), ``hand I: ...`` for seats
    0.., ``stock: ...`` top card first, ``turn: I [drawn] [played] [moved] [opened]`` (``opened``: a
    pile move this turn left its place empty; implied by ``moved`` unless ``pile_moves`` is
    ``partial``; ``first``: no turn of the deal has ended yet, written under ``cross_king_move:
    first_turn``), and optionally ``dealer: I``, ``idle: K`` (turns in a
    row without lasting progress, RULES.md 4.8), ``cleared: K`` (piles cleared this deal, RULES.md
    4.7), ``unplayed: K0 K1 ..`` (turns
    each seat ended without playing a card, for chips) and ``over: out|blocked [winner I]``. A joker is
    ``JK``, the first not yet written; ``JK2`` is the second joker (``to_text`` writes it so).
    If the player to act has not drawn yet, the start of the turn happens now (RULES.md 4.1).
    Raises ``PositionError`` naming the line at fault.
    """
    rules = Rules.coerce(rules)
    piles: list[list[int] | None] = [None] * NUM_PILES
    hands: dict[int, list[int]] = {}
    stock: list[int] | None = None
    turn: tuple[int, set[str]] | None = None
    extra: dict[str, str] = {}
    seen: dict[int, int] = {}
    pile_lines = [0] * NUM_PILES

    def read_cards(words: list[str], lineno: int) -> list[int]:
        if words == ["-"]:
            return []
        out = []
        for w in words:
            try:
                c = parse_card(w)
            except ValueError as exc:
                raise PositionError(f"line {lineno}: {exc}") from None
            if c >= 52:
                c = _joker_read(w, c, seen, rules.jokers, lineno)
            if c in seen:
                raise PositionError(f"line {lineno}: {w} appears twice (also on line {seen[c]})")
            seen[c] = lineno
            out.append(c)
        return out

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if ":" not in line:
            raise PositionError(f"line {lineno}: expected 'NAME: ...', got {raw!r}")
        key, rest = (s.strip() for s in line.split(":", 1))
        words = rest.split()
        ukey = key.upper()
        if ukey in PILE_INDEX:
            if piles[PILE_INDEX[ukey]] is not None:
                raise PositionError(f"line {lineno}: pile {ukey} given twice")
            piles[PILE_INDEX[ukey]] = read_cards(words or ["-"], lineno)
            pile_lines[PILE_INDEX[ukey]] = lineno
        elif key.lower().startswith("hand"):
            seat = key.split()[-1]
            if not _is_count(seat) or int(seat) in hands:
                raise PositionError(f"line {lineno}: expected 'hand I:' with a new seat number, got {key!r}")
            hands[int(seat)] = read_cards(words or ["-"], lineno)
        elif key.lower() == "stock":
            stock = read_cards(words or ["-"], lineno)[::-1]
        elif key.lower() == "turn":
            if not words or not _is_count(words[0]) or not set(words[1:]) <= {"drawn", "played", "moved", "opened", "first"}:
                raise PositionError(f"line {lineno}: expected 'turn: I [drawn] [played] [moved] [opened] [first]', "
                                    f"got {raw!r}")
            turn = (int(words[0]), set(words[1:]))
            turn_line = lineno
        elif key.lower() in ("dealer", "idle", "over", "unplayed", "cleared"):
            extra[key.lower()] = rest
            extra[key.lower() + "_line"] = str(lineno)
        else:
            raise PositionError(f"line {lineno}: unknown line {key!r} "
                                "(piles, 'hand I', stock, turn, dealer, idle, cleared, unplayed, over)")

    missing = [PILE_NAMES[p] for p in range(NUM_PILES) if piles[p] is None]
    if missing:
        raise PositionError(f"the position lacks a line for pile {', '.join(missing)}")
    if sorted(hands) != list(range(len(hands))) or not 2 <= len(hands) <= 6:
        raise PositionError(f"the position needs hands 0..n-1 for 2 to 6 players, got seats {sorted(hands)}")
    if turn is None:
        raise PositionError("the position lacks a 'turn: I' line")
    n = len(hands)
    if turn[0] >= n:
        raise PositionError(f"line {turn_line}: turn {turn[0]} but there are {n} players")
    state = GameState(rules=rules, num_players=n, dealer=0, piles=piles, hands=[hands[i] for i in range(n)],
                      stock=stock or [], current_player=turn[0], drawn="drawn" in turn[1],
                      played="played" in turn[1], moved="moved" in turn[1], seed=seed,
                      opened="opened" in turn[1] or ("moved" in turn[1] and rules.pile_moves != "partial"),
                      first_turn="first" in turn[1],
                      rng=random.Random(seed), turns_without_play=[0] * n)
    _read_extras(state, extra)
    empty = [i for i, h in enumerate(state.hands) if not h]
    if empty and not state.is_over:  # RULES.md 3: going out ends the deal at once
        raise PositionError(f"hand {empty[0]} is empty, so the deal is over: add 'over: out winner {empty[0]}'")
    _value_jokers_from_text(state, pile_lines)
    _refresh_all(state)
    for p in range(NUM_PILES):
        if not pile_is_legal(state, p):
            raise PositionError(f"pile {PILE_NAMES[p]} is not a legal pile: {' '.join(map(card_name, state.piles[p]))}")
    if state.opened and not state.moved:
        raise PositionError(f"line {turn_line}: 'opened' (a pile move left its place empty) needs 'moved'")
    if not state.is_over and not (state.drawn or state.played or state.moved):
        _begin_turn(state)
    return state


def _is_count(word: str) -> bool:
    """A whole number as position text writes one: ASCII digits, at most six ('²' is no digit)."""
    return word.isascii() and word.isdigit() and len(word) <= 6


def check_seed(seed) -> int:
    """A deal's seed as a whole number >= 0 (``-42`` would deal seed 42's cards; floats and text
    are not seeds); ``ValueError`` otherwise."""
    number = _whole(seed)
    if number is None or number < 0:
        raise ValueError(f"a seed is a whole number >= 0, not {seed!r}")
    return number


def _whole(value, otherwise=None):
    """``value`` as an int when it is a whole number (an int or a numpy integer, never a bool),
    else ``otherwise``: the engine's one reading of a count, a seat or a seed."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return otherwise
    return int(value)


def _read_extras(state: GameState, extra: dict[str, str]) -> None:
    for key, attr in (("dealer", "dealer"), ("idle", "idle_turns"), ("cleared", "cleared")):
        if key in extra:
            if not _is_count(extra[key]):
                raise PositionError(f"line {extra[key + '_line']}: {key} must be a whole number, got {extra[key]!r}")
            setattr(state, attr, int(extra[key]))
    if state.dealer >= state.num_players:
        raise PositionError(f"line {extra['dealer_line']}: dealer {state.dealer} but there are {state.num_players} players")
    if state.idle_turns >= idle_limit(state) and "over" not in extra:
        raise PositionError(f"line {extra['idle_line']}: {state.idle_turns} idle turns in a row with "
                            f"{state.num_players} players: the deal would be blocked already (RULES.md 4.8)")
    if state.cleared >= MAX_CLEARED and "over" not in extra and not (state.played or state.moved):
        raise PositionError(f"line {extra['cleared_line']}: {state.cleared} piles cleared: the deal would be "
                            f"over already (RULES.md 4.7 ends it at {MAX_CLEARED})")
    if "over" in extra:
        words = extra["over"].split()
        ok = words[:1] in (["out"], ["blocked"]) and (len(words) == 1 or (
            len(words) == 3 and words[1] == "winner" and _is_count(words[2]) and int(words[2]) < state.num_players))
        if not ok:
            raise PositionError(f"line {extra['over_line']}: expected 'over: out|blocked [winner I]', got {extra['over']!r}")
        state.is_over = True
        state.blocked = words[0] == "blocked"
        state.winner = int(words[2]) if len(words) == 3 else None
        line = f"line {extra['over_line']}"
        if not state.blocked and (state.winner is None or state.hands[state.winner]):
            raise PositionError(f"{line}: a deal that ends by going out names a winner whose hand is empty")
        if state.blocked and state.winner is not None and state.rules.blocked != "fewest_cards":
            raise PositionError(f"{line}: a blocked deal has a winner only under blocked: fewest_cards")
    if "unplayed" in extra:
        words = extra["unplayed"].split()
        if len(words) != state.num_players or not all(_is_count(w) for w in words):
            raise PositionError(f"line {extra['unplayed_line']}: expected one count per player, got {extra['unplayed']!r}")
        state.turns_without_play = [int(w) for w in words]


def _value_jokers_from_text(state: GameState, pile_lines: list[int]) -> None:
    """Give each joker on a pile the value its place gives it (bottom to top); ``PositionError``
    naming the pile's line for a joker on an ace, which would stand for no card (RULES.md 1)."""
    for p in range(NUM_PILES):
        pile = state.piles[p]
        prev = None
        for i, c in enumerate(pile):
            if c >= 52:
                if prev is not None and prev[0] == ACE:
                    raise PositionError(f"line {pile_lines[p]}: a joker cannot lie on an ace")
                state.piles[p] = pile[:i]
                state.joker_value[c] = _joker_value_on(state, p, prev)
                state.piles[p] = pile
            prev = value(state, c)


def all_cards(state: GameState) -> list[int]:
    """Every card in the deal: hands, piles and stock (for invariant checks)."""
    out = [c for h in state.hands for c in h]
    out += [c for p in state.piles for c in p]
    out += state.stock
    return out


def redeal_unseen(state: GameState, seat: int, rng: random.Random | int) -> GameState:
    """A copy of ``state`` consistent with everything ``seat`` has seen, the cards it cannot see
    (the other hands and the stock) shuffled and dealt anew: each other hand keeps its size, the
    stock its size, the piles, ``seat``'s own hand and the turn stay as they are (OpenSpiel's
    ``resample_from_infostate``, for search agents). ``rng`` is a ``random.Random`` (or anything
    with its ``shuffle``, such as a numpy ``Generator``) or a seed; the copy's own generator,
    which shuffles the piles back into an empty stock, is drawn from it too, so nothing of the real
    deal's hidden order leaks into the copy. ``seat``'s observation of the copy is that of
    ``state`` (tested). The search agent re-deals with the compiled twin of this, which reads
    only the observation (``agents.playouts.redeal``; the two are compared in the tests)."""
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise ValueError(f"seat must be 0..{state.num_players - 1}, not {seat!r}")
    if isinstance(rng, int) and not isinstance(rng, bool):
        rng = random.Random(check_seed(rng))
    if not hasattr(rng, "shuffle"):
        raise TypeError(f"rng must be a random.Random, a numpy Generator or a seed, not {rng!r}")
    out = state.copy()
    others = [s for s in range(state.num_players) if s != seat]
    unseen = [c for s in others for c in out.hands[s]] + out.stock
    rng.shuffle(unseen)
    unseen = [int(c) for c in unseen]
    for s in others:
        size = len(out.hands[s])
        out.hands[s], unseen = unseen[:size], unseen[size:]
    out.stock = unseen
    out.rng = random.Random(int(rng.integers(2**63)) if hasattr(rng, "integers") else rng.getrandbits(63))
    return out


__all__ = [
    "PILE_NAMES", "PILE_INDEX", "SIDES", "CORNERS", "PlayCard", "MovePile", "EndTurn", "END_TURN",
    "Move", "IllegalMove", "PositionError", "GameState", "new_deal", "legal_moves", "apply",
    "why_illegal", "deal_penalties", "hand_penalty", "move_name", "parse_move", "to_text",
    "from_text", "pile_is_legal", "end_blocked", "all_cards", "redeal_unseen", "has_play_or_pile_move", "BLACK", "RED", "cards_of",
    "made_progress", "is_blocked", "idle_limit", "anyone_can_move", "MAX_CLEARED",
]
