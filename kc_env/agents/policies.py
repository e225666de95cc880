"""The decision logic of the rule-based agents, as plain functions over numpy arrays.

``greedy_action(obs, mask)`` and ``heuristic_action(obs, mask)`` take the observation vector of
the seat to act (``kc_env.observation``, layout 1, float32 of ``OBS_SIZE``) and its action mask
(int8 of 497) and return an action index whose mask entry is 1. They read nothing else: no game
state, no hidden card, no global random generator. Both are deterministic (ties go to the lower
action index), so a batched environment can run them inside compiled code.

Every function here uses only what numba's nopython mode supports (numpy arrays, ints,
floats, loops), and is compiled with ``numba.njit(cache=True)`` when numba imports; without numba
the same functions run as plain Python (slowly, but identically). ``NUMBA`` says which.

greedy
    Sheds a card whenever it can: the legal card play of the costliest card (by the penalty table
    in the observation), then the higher rank, then the lower action index. With no card play it
    makes a pile move that empties a side (so the next play can fill it), else ends the turn.

heuristic
    Searches the rest of its own turn. From the position in the observation it builds a small
    model of the table (hand, piles with every card, the value each card stands for) and walks,
    depth first, the sequences of card plays and pile moves it may make this turn (the first
    move comes from the mask, later ones from its own move generator, which follows every
    variant: draw timing does not matter inside a turn; kings on sides, pile moves whole / none /
    partial, must_play, king_first, fill_spaces_first, same-suit corners, jokers, cleared piles).
    Every position where it may end the turn is scored by ``evaluate``; it plays the first move of
    the best sequence. Equal positions reached by different orders are searched once
    (a Zobrist hash), the search stops after ``MAX_NODES`` positions, and a longer sequence loses
    a tie (so a plan never cycles under partial pile moves).

    ``evaluate`` scores the table as the next players will find it, from what the seat can see:
    the cards it still holds (each one, and its penalty), which of them have a place to go (a
    top they fit, a parent card still live, or none: a dead card that needs a space), and what
    the position offers the others: for every pile top the chance that the player holds one of
    the unseen cards that fit it (both fitting cards out means a dead end), empty sides (any card),
    empty corners (kings), side piles that can move away and open a space. What the others may
    gain is weighted by how close to going out they are and by how soon they play. The weights
    are ``HEURISTIC_WEIGHTS`` (names in ``WEIGHT_NAMES``), tuned with ``kc eval``.
"""

from __future__ import annotations

import numpy as np

from ..observation import OBS_SIZE, PILE_BLOCK, PILE_START, SLICES

try:  # numba is optional: without it the same functions run as plain Python
    import numba

    NUMBA = True
except ImportError:  # pragma: no cover - exercised by the fallback test through py_func
    numba = None
    NUMBA = False


def maybe_njit(fn):
    """``numba.njit(cache=True)`` when numba imports, else the function unchanged.

    The compiled function keeps the plain one as ``fn.py_func`` either way.
    """
    if numba is None:
        fn.py_func = fn
        return fn
    return numba.njit(cache=True)(fn)


# -- fixed facts: the observation layout and the cards --------------------------------------------

NUM_CARDS = 54
NUM_PILES = 8
MOVE_OFFSET = 432
END_TURN_ACTION = 496
NUM_ACTIONS = 497
MAX_PILE = 14  # K down to A is 13 cards; one spare
MAX_DEPTH = 48  # plays and pile moves in one turn that the search follows
MAX_MOVES_PER_NODE = 200
MAX_NODES = 400
"""Positions the heuristic's search visits per decision before it scores the rest unexpanded."""

OFF_CARDS = SLICES["pile_N_cards"].start - PILE_START
OFF_TOP = SLICES["pile_N_top"].start - PILE_START
OFF_BOTTOM = SLICES["pile_N_bottom"].start - PILE_START
OFF_LENGTH = SLICES["pile_N_length"].start - PILE_START
OFF_TOP_RANK = SLICES["pile_N_top_rank"].start - PILE_START
OFF_TOP_COLOUR = SLICES["pile_N_top_colour"].start - PILE_START
OBS_HAND = SLICES["hand"].start
OBS_OTHERS = SLICES["others_hand_sizes"].start
OBS_STOCK = SLICES["stock_size"].start
OBS_NUM_PLAYERS = SLICES["num_players"].start
OBS_DRAW = SLICES["rule_draw"].start  # start end stuck
OBS_KINGS_ON_SIDES = SLICES["rule_kings_on_sides"].start  # true false
OBS_PILE_MOVES = SLICES["rule_pile_moves"].start  # whole none partial
OBS_MUST_PLAY = SLICES["rule_must_play"].start  # optional all
OBS_KING_FIRST = SLICES["rule_king_first"].start  # false true
OBS_FILL_SPACES = SLICES["rule_fill_spaces_first"].start  # false true
OBS_CORNER_BUILD = SLICES["rule_corner_build"].start  # alternate same_suit
OBS_CLEAR = SLICES["rule_clear_complete_piles"].start  # false true
OBS_JOKERS = SLICES["rule_jokers"].start  # 0 2
OBS_SCORING = SLICES["rule_scoring"].start
OBS_PENALTY = SLICES["rule_penalty"].start  # A 2 .. K JK, / 25
CARD_SCALE = 54.0
PILE_SCALE = 13.0
PENALTY_SCALE = 25.0
SCORING_WINS, SCORING_SINGLE = 8, 10  # positions in the scoring one-hot

RANK = np.array([c % 13 + 1 for c in range(52)] + [0, 0], dtype=np.int64)
SUIT = np.array([c // 13 for c in range(52)] + [-1, -1], dtype=np.int64)
COLOUR = np.array([1 if c // 13 in (1, 2) else 0 for c in range(52)] + [-1, -1], dtype=np.int64)
ZOBRIST = np.random.default_rng(20240601).integers(1, 2**62, size=(NUM_CARDS, NUM_PILES + 1), dtype=np.int64)
"""A random key per (card, place): place 0 the hand, 1..8 the piles (fixed seed: deterministic)."""

# rule flags, as the slots of the ``rules`` array built by ``read_rules``
R_DRAW, R_KOS, R_PILE_MOVES, R_MUST_ALL, R_KING_FIRST, R_FILL, R_SAME_SUIT, R_CLEAR, R_JOKERS, R_WINS = range(10)
PM_WHOLE, PM_NONE, PM_PARTIAL = 0, 1, 2

WEIGHT_NAMES = (
    "card",  # each card in hand
    "penalty",  # a card's penalty, scaled 0 (cheapest) .. 1 (costliest)
    "fit",  # a card in hand that fits a top now
    "dead",  # a card in hand with no live place (needs a space)
    "half_dead",  # a card with one of its two parents buried
    "opp",  # each play the next player may make (expected)
    "opp_decay",  # factor for each seat further away
    "danger",  # extra weight on a player per card below 3 in hand
    "space",  # an empty side left to the others (any card fits)
    "corner",  # an empty corner (kings fit), times the chance they hold one
    "opening",  # a side pile the next player may move away to open a space
    "multi",  # factor on 'opp' with more than two players
)
HEURISTIC_WEIGHTS = np.array(
    [1.0, 0.35, 0.25, 0.45, 0.12, 0.8, 0.6, 0.6, 1.3, 0.8, 1.0, 0.7], dtype=np.float64
)
"""The tuned weights of ``evaluate``, in the order of ``WEIGHT_NAMES``."""
W_CARD, W_PENALTY, W_FIT, W_DEAD, W_HALF, W_OPP, W_DECAY, W_DANGER, W_SPACE, W_CORNER, W_OPENING, W_MULTI = range(12)
WIN_VALUE = 1.0e6
DEPTH_COST = 1.0e-6


# -- reading the observation ----------------------------------------------------------------------

@maybe_njit
def _argmax(obs, start, size):
    best = 0
    for i in range(1, size):
        if obs[start + i] > obs[start + best]:
            best = i
    return best


@maybe_njit
def _count(x, scale):
    return int(np.floor(x * scale + 0.5))


@maybe_njit
def read_rules(obs):
    """The variants the policies need, as an int array indexed by the ``R_*`` slots."""
    rules = np.zeros(10, dtype=np.int64)
    rules[R_DRAW] = _argmax(obs, OBS_DRAW, 3)
    rules[R_KOS] = 1 if obs[OBS_KINGS_ON_SIDES] > 0.5 else 0
    rules[R_PILE_MOVES] = _argmax(obs, OBS_PILE_MOVES, 3)
    rules[R_MUST_ALL] = 1 if obs[OBS_MUST_PLAY + 1] > 0.5 else 0
    rules[R_KING_FIRST] = 1 if obs[OBS_KING_FIRST + 1] > 0.5 else 0
    rules[R_FILL] = 1 if obs[OBS_FILL_SPACES + 1] > 0.5 else 0
    rules[R_SAME_SUIT] = 1 if obs[OBS_CORNER_BUILD + 1] > 0.5 else 0
    rules[R_CLEAR] = 1 if obs[OBS_CLEAR + 1] > 0.5 else 0
    rules[R_JOKERS] = 2 if obs[OBS_JOKERS + 1] > 0.5 else 0
    scoring = _argmax(obs, OBS_SCORING, 11)
    rules[R_WINS] = 1 if scoring == SCORING_WINS or scoring == SCORING_SINGLE else 0
    return rules


@maybe_njit
def card_penalties(obs):
    """The penalty of every card id by the table in the observation (float64 of 54)."""
    out = np.zeros(NUM_CARDS, dtype=np.float64)
    for c in range(52):
        out[c] = obs[OBS_PENALTY + RANK[c] - 1] * PENALTY_SCALE
    out[52] = obs[OBS_PENALTY + 13] * PENALTY_SCALE
    out[53] = out[52]
    return out


@maybe_njit
def read_piles(obs, cards, vrank, vcol, length, suit):
    """Fill the piles' cards bottom to top, the (rank, colour) each stands for, their lengths and
    the suit of each pile's first real card (-1: none). Real cards sit by rank; jokers fill the
    gaps (the top and bottom ones are known), their colour follows the pile's alternation."""
    for p in range(NUM_PILES):
        base = PILE_START + p * PILE_BLOCK
        n = _count(obs[base + OFF_LENGTH], PILE_SCALE)
        length[p] = n
        suit[p] = -1
        if n == 0:
            continue
        top_rank = _argmax(obs, base + OFF_TOP_RANK, 13) + 1
        slot = _argmax(obs, base + OFF_TOP_COLOUR, 3)
        top_colour = -1 if slot == 2 else slot
        bottom_rank = top_rank + n - 1
        for i in range(n):
            cards[p, i] = -1
        cards[p, 0] = _argmax(obs, base + OFF_BOTTOM, NUM_CARDS)
        cards[p, n - 1] = _argmax(obs, base + OFF_TOP, NUM_CARDS)
        for c in range(52):
            if obs[base + OFF_CARDS + c] > 0.5:
                i = bottom_rank - RANK[c]
                if 0 <= i < n:
                    cards[p, i] = c
        for j in (52, 53):  # a joker inside the pile: the free place
            if obs[base + OFF_CARDS + j] > 0.5 and cards[p, 0] != j and cards[p, n - 1] != j:
                for i in range(n):
                    if cards[p, i] == -1:
                        cards[p, i] = j
                        break
        for i in range(n):
            vrank[p, i] = bottom_rank - i
            c = cards[p, i]
            vcol[p, i] = COLOUR[c] if c >= 0 and c < 52 else -1
            if c >= 0 and c < 52 and suit[p] < 0:
                suit[p] = SUIT[c]
        vcol[p, n - 1] = top_colour
        for i in range(n - 2, -1, -1):  # a joker's colour from the card above it
            if vcol[p, i] < 0 and vcol[p, i + 1] >= 0 and (p < 4 or True):
                c = cards[p, i]
                if c >= 52:
                    vcol[p, i] = 1 - vcol[p, i + 1]


# -- greedy -----------------------------------------------------------------------------------------

@maybe_njit
def greedy_action(obs, mask):
    """Greedy: the card play of the costliest card (then the higher rank, then the lower index);
    with no card play, a pile move that empties a side; else end the turn. ``mask`` must hold a
    legal action."""
    pen = card_penalties(obs)
    best = -1
    best_key = -1.0
    for a in range(MOVE_OFFSET):
        if mask[a] != 0:
            c = a // NUM_PILES
            key = pen[c] * 100.0 + RANK[c] + (14 if c >= 52 else 0)
            if key > best_key:
                best_key = key
                best = a
    if best >= 0:
        return best
    for a in range(MOVE_OFFSET, END_TURN_ACTION):
        if mask[a] != 0:
            src = (a - MOVE_OFFSET) // NUM_PILES
            dst = (a - MOVE_OFFSET) % NUM_PILES
            if src < 4 and _moves_whole_pile(obs, src, dst):
                return a
    if mask[END_TURN_ACTION] != 0:
        return END_TURN_ACTION
    for a in range(NUM_ACTIONS):  # only pile moves that do not open a side are left
        if mask[a] != 0:
            return a
    return END_TURN_ACTION


@maybe_njit
def _moves_whole_pile(obs, src, dst):
    """Whether a legal move of ``src`` onto ``dst`` takes the whole pile (so ``src`` empties)."""
    sb = PILE_START + src * PILE_BLOCK
    db = PILE_START + dst * PILE_BLOCK
    n = _count(obs[sb + OFF_LENGTH], PILE_SCALE)
    m = _count(obs[db + OFF_LENGTH], PILE_SCALE)
    if n == 0:
        return False
    if m == 0:
        return True  # a king-bottomed side into an empty corner
    bottom_rank = _argmax(obs, sb + OFF_TOP_RANK, 13) + n  # top rank + n - 1, 1-based
    return bottom_rank == _argmax(obs, db + OFF_TOP_RANK, 13)  # one below the top's rank


# -- the heuristic: a model of the table for the search ---------------------------------------------

@maybe_njit
def _copy_level(d, hand, cards, vrank, vcol, length, suit, nhand):
    hand[d + 1, :] = hand[d, :]
    cards[d + 1, :, :] = cards[d, :, :]
    vrank[d + 1, :, :] = vrank[d, :, :]
    vcol[d + 1, :, :] = vcol[d, :, :]
    length[d + 1, :] = length[d, :]
    suit[d + 1, :] = suit[d, :]
    nhand[d + 1] = nhand[d]


@maybe_njit
def _accepts(rules, vrank, vcol, length, suit, p, c):
    """Whether card ``c`` may be played onto pile ``p`` (before forced plays)."""
    n = length[p]
    if n == 0:
        if p >= 4:
            return c >= 52 or RANK[c] == 13
        if c >= 52:
            return False
        return rules[R_KOS] == 1 or RANK[c] != 13
    r = vrank[p, n - 1]
    if r <= 1:
        return False
    if c >= 52:
        return True
    if RANK[c] != r - 1:
        return False
    if p >= 4 and rules[R_SAME_SUIT] == 1:
        return suit[p] < 0 or SUIT[c] == suit[p]
    col = vcol[p, n - 1]
    return col < 0 or COLOUR[c] != col


@maybe_njit
def _play(rules, d, hand, cards, vrank, vcol, length, suit, nhand, c, p):
    """Play card ``c`` onto pile ``p`` at level ``d`` (in place)."""
    n = length[p]
    cards[d, p, n] = c
    if c >= 52:
        if n == 0:
            vrank[d, p, n] = 13
            vcol[d, p, n] = -1
        else:
            vrank[d, p, n] = vrank[d, p, n - 1] - 1
            if p >= 4 and rules[R_SAME_SUIT] == 1:
                vcol[d, p, n] = -1 if suit[d, p] < 0 else (1 if suit[d, p] in (1, 2) else 0)
            else:
                below = vcol[d, p, n - 1]
                vcol[d, p, n] = -1 if below < 0 else 1 - below
    else:
        vrank[d, p, n] = RANK[c]
        vcol[d, p, n] = COLOUR[c]
        if suit[d, p] < 0:
            suit[d, p] = SUIT[c]
    length[d, p] = n + 1
    hand[d, c] = 0
    nhand[d] -= 1
    _maybe_clear(rules, d, length, suit, p)


@maybe_njit
def _maybe_clear(rules, d, length, suit, p):
    if rules[R_CLEAR] == 1 and length[d, p] >= 13:
        length[d, p] = 0
        suit[d, p] = -1


@maybe_njit
def _part_start(rules, cards, vrank, vcol, length, suit, s, q):
    """Where the part of pile ``s`` that may move onto non-empty pile ``q`` starts, or -1."""
    n = length[s]
    m = length[q]
    if n == 0 or m == 0 or s == q:
        return -1
    need = vrank[q, m - 1] - 1
    if need < 1:
        return -1
    i = vrank[s, 0] - need
    if i < 0 or i >= n:
        return -1
    if i > 0 and rules[R_PILE_MOVES] != PM_PARTIAL:
        return -1
    same = q >= 4 and rules[R_SAME_SUIT] == 1
    corner_suit = suit[q]
    prev_col = vcol[q, m - 1]
    for j in range(i, n):  # walk the part as it would lie on q
        c = cards[s, j]
        col = vcol[s, j]
        if same:
            if c < 52:
                if corner_suit >= 0 and SUIT[c] != corner_suit:
                    return -1
                corner_suit = SUIT[c]
        elif prev_col >= 0 and col >= 0 and col == prev_col:
            return -1
        prev_col = col
    return i


@maybe_njit
def _move(rules, d, cards, vrank, vcol, length, suit, s, q):
    """Move pile ``s`` (or its part from the right card) onto ``q`` at level ``d`` (in place)."""
    n = length[d, s]
    m = length[d, q]
    i = 0
    if m > 0:
        i = _part_start(rules, cards[d], vrank[d], vcol[d], length[d], suit[d], s, q)
        if i < 0:
            i = 0
    for j in range(i, n):
        cards[d, q, m + j - i] = cards[d, s, j]
        vrank[d, q, m + j - i] = vrank[d, s, j]
        vcol[d, q, m + j - i] = vcol[d, s, j]
        c = cards[d, s, j]
        if c < 52 and suit[d, q] < 0:
            suit[d, q] = SUIT[c]
    length[d, q] = m + n - i
    length[d, s] = i
    if i == 0:
        suit[d, s] = -1
    _maybe_clear(rules, d, length, suit, q)


@maybe_njit
def _generate(rules, hand, cards, vrank, vcol, length, suit, out):
    """The moves of the seat at one level into ``out`` (action indices); returns (count, may_end).

    Equivalent moves are listed once: a card into the first empty side only, a king into the
    first empty corner only.
    """
    count = 0
    king_first = False
    if rules[R_KING_FIRST] == 1:
        has_king = False
        for c in range(52):
            if hand[c] == 1 and RANK[c] == 13:
                has_king = True
        has_corner = False
        for p in range(4, 8):
            if length[p] == 0:
                has_corner = True
        king_first = has_king and has_corner
    first_side = -1
    first_corner = -1
    for p in range(8):
        if length[p] == 0:
            if p < 4 and first_side < 0:
                first_side = p
            if p >= 4 and first_corner < 0:
                first_corner = p
    into_side = False
    if rules[R_FILL] == 1 and first_side >= 0 and not king_first:
        for c in range(NUM_CARDS):
            if hand[c] == 1 and _accepts(rules, vrank, vcol, length, suit, first_side, c):
                into_side = True
    plays = 0
    for p in range(8):
        if length[p] == 0 and p != first_side and p != first_corner:
            continue
        if king_first and not (p >= 4 and length[p] == 0):
            continue
        if into_side and not (p < 4 and length[p] == 0):
            continue
        for c in range(NUM_CARDS):
            if hand[c] == 1 and _accepts(rules, vrank, vcol, length, suit, p, c):
                if king_first and (c >= 52 or RANK[c] != 13):
                    continue
                if count < MAX_MOVES_PER_NODE:
                    out[count] = c * NUM_PILES + p
                    count += 1
                plays += 1
    if not king_first:
        if first_corner >= 0:
            for s in range(4):
                c = cards[s, 0]
                if length[s] > 0 and c < 52 and RANK[c] == 13:
                    if rules[R_SAME_SUIT] == 0 or length[s] == 1:
                        if count < MAX_MOVES_PER_NODE:
                            out[count] = MOVE_OFFSET + s * NUM_PILES + first_corner
                            count += 1
        if rules[R_PILE_MOVES] != PM_NONE:
            for s in range(8):
                for q in range(8):
                    if _part_start(rules, cards, vrank, vcol, length, suit, s, q) >= 0:
                        if count < MAX_MOVES_PER_NODE:
                            out[count] = MOVE_OFFSET + s * NUM_PILES + q
                            count += 1
    may_end = not (rules[R_MUST_ALL] == 1 and plays > 0)
    return count, may_end


@maybe_njit
def _apply(rules, d, hand, cards, vrank, vcol, length, suit, nhand, a):
    """Copy level ``d`` to ``d + 1`` and make action ``a`` there."""
    _copy_level(d, hand, cards, vrank, vcol, length, suit, nhand)
    if a < MOVE_OFFSET:
        _play(rules, d + 1, hand, cards, vrank, vcol, length, suit, nhand, a // NUM_PILES, a % NUM_PILES)
    else:
        s = (a - MOVE_OFFSET) // NUM_PILES
        q = (a - MOVE_OFFSET) % NUM_PILES
        _move(rules, d + 1, cards, vrank, vcol, length, suit, s, q)


@maybe_njit
def _hash(hand, cards, length):
    h = np.int64(0)
    for c in range(NUM_CARDS):
        if hand[c] == 1:
            h ^= ZOBRIST[c, 0]
    for p in range(NUM_PILES):
        for i in range(length[p]):
            h ^= ZOBRIST[cards[p, i], p + 1] * (i + 1)
    return h


@maybe_njit
def _seen_before(table, h):
    """Insert ``h`` into the open-addressing set ``table``; True if it was there already."""
    size = table.shape[0]
    i = h & (size - 1)
    for _ in range(size):
        if table[i] == h:
            return True
        if table[i] == 0:
            table[i] = h
            return False
        i = (i + 1) & (size - 1)
    return False


# -- the heuristic: scoring a position where the turn may end ---------------------------------------

@maybe_njit
def _fitting_unseen(rules, vrank, vcol, length, suit, p, seen, unseen_jokers):
    """How many unseen cards fit on pile ``p`` (-1 for an empty pile)."""
    n = length[p]
    if n == 0:
        return -1
    r = vrank[p, n - 1]
    if r <= 1:
        return 0
    k = unseen_jokers
    col = vcol[p, n - 1]
    for c in range(52):
        if RANK[c] == r - 1 and seen[c] == 0:
            if p >= 4 and rules[R_SAME_SUIT] == 1:
                if suit[p] < 0 or SUIT[c] == suit[p]:
                    k += 1
            elif col < 0 or COLOUR[c] != col:
                k += 1
    return k


@maybe_njit
def _is_top(cards, length, c):
    for p in range(NUM_PILES):
        if length[p] > 0 and cards[p, length[p] - 1] == c:
            return True
    return False


@maybe_njit
def evaluate(rules, w, hand, cards, vrank, vcol, length, suit, nhand, seen, pen_scaled, others, n_others,
             unseen, unseen_jokers, draws):
    """The value, for the seat to act, of ending its turn in this position (higher is better)."""
    if nhand == 0:
        return WIN_VALUE
    value = 0.0
    empty_corner = False
    empty_side = False
    for p in range(NUM_PILES):
        if length[p] == 0:
            if p >= 4:
                empty_corner = True
            else:
                empty_side = True
    # the seat's own hand
    for c in range(NUM_CARDS):
        if hand[c] == 0:
            continue
        value -= w[W_CARD] + w[W_PENALTY] * pen_scaled[c]
        if c >= 52:
            value += w[W_FIT]
            continue
        fits = False
        for p in range(NUM_PILES):
            if length[p] > 0 and _accepts(rules, vrank, vcol, length, suit, p, c):
                fits = True
                break
        if RANK[c] == 13:
            if empty_corner:
                value += w[W_FIT]
            elif not (empty_side and rules[R_KOS] == 1):
                value -= w[W_DEAD]
            continue
        if fits:
            value += w[W_FIT]
            continue
        buried = 0
        for parent in range(52):
            if RANK[parent] == RANK[c] + 1 and COLOUR[parent] != COLOUR[c]:
                if seen[parent] == 1 and hand[parent] == 0 and not _is_top(cards, length, parent):
                    buried += 1
        if buried >= 2:
            value -= w[W_DEAD]
        elif buried == 1:
            value -= w[W_HALF]
    # what the table offers the others, the next player first
    kings_unseen = unseen_jokers
    for c in range(52):
        if RANK[c] == 13 and seen[c] == 0:
            kings_unseen += 1
    openings = 0
    if rules[R_PILE_MOVES] != PM_NONE or empty_corner:
        for s in range(4):
            if length[s] == 0:
                continue
            c = cards[s, 0]
            if empty_corner and c < 52 and RANK[c] == 13 and (rules[R_SAME_SUIT] == 0 or length[s] == 1):
                openings += 1
                continue
            if rules[R_PILE_MOVES] != PM_NONE:
                for q in range(NUM_PILES):
                    if q != s and length[q] > 0 and _part_start(rules, cards, vrank, vcol, length, suit, s, q) == 0:
                        openings += 1
                        break
    weight = w[W_OPP]
    if n_others > 1:
        weight *= w[W_MULTI]
    for j in range(n_others):
        h = others[j]
        if h <= 0 and draws == 0:
            continue
        held = h + draws
        q = min(1.0, held / max(unseen, 1))
        gain = 0.0
        for p in range(NUM_PILES):
            k = _fitting_unseen(rules, vrank, vcol, length, suit, p, seen, unseen_jokers)
            if k > 0:
                gain += 1.0 - (1.0 - q) ** k
            elif k < 0:
                if p < 4:
                    gain += w[W_SPACE]
                elif kings_unseen > 0:
                    gain += w[W_CORNER] * (1.0 - (1.0 - q) ** kings_unseen)
        gain += w[W_OPENING] * openings
        danger = 1.0 + w[W_DANGER] * max(0, 3 - h)
        value -= weight * danger * gain
        weight *= w[W_DECAY]
    return value


# -- the heuristic: the search -----------------------------------------------------------------------

@maybe_njit
def heuristic_action_w(obs, mask, w):
    """The heuristic's action with the weights ``w`` (see ``WEIGHT_NAMES``)."""
    rules = read_rules(obs)
    D = MAX_DEPTH + 1
    hand = np.zeros((D, NUM_CARDS), dtype=np.int64)
    cards = np.zeros((D, NUM_PILES, MAX_PILE), dtype=np.int64)
    vrank = np.zeros((D, NUM_PILES, MAX_PILE), dtype=np.int64)
    vcol = np.zeros((D, NUM_PILES, MAX_PILE), dtype=np.int64)
    length = np.zeros((D, NUM_PILES), dtype=np.int64)
    suit = np.zeros((D, NUM_PILES), dtype=np.int64)
    nhand = np.zeros(D, dtype=np.int64)
    read_piles(obs, cards[0], vrank[0], vcol[0], length[0], suit[0])
    seen = np.zeros(NUM_CARDS, dtype=np.int64)
    for c in range(NUM_CARDS):
        if obs[OBS_HAND + c] > 0.5:
            hand[0, c] = 1
            nhand[0] += 1
            seen[c] = 1
    for p in range(NUM_PILES):
        for i in range(length[0, p]):
            seen[cards[0, p, i]] = 1
    deck = 52 + rules[R_JOKERS]
    n_seen = 0
    for c in range(deck):
        n_seen += seen[c]
    unseen = deck - n_seen
    unseen_jokers = 0
    for c in range(52, 52 + rules[R_JOKERS]):
        if seen[c] == 0:
            unseen_jokers += 1
    n_players = _argmax(obs, OBS_NUM_PLAYERS, 5) + 2
    others = np.zeros(n_players - 1, dtype=np.int64)
    for j in range(n_players - 1):
        others[j] = _count(obs[OBS_OTHERS + j], CARD_SCALE)
    stock = _count(obs[OBS_STOCK], CARD_SCALE)
    draws = 1 if stock > 0 and rules[R_DRAW] != 1 else 0
    pen = card_penalties(obs)
    pen_scaled = _scale_penalties(pen, rules)
    # depth-first search over the turn's sequences of moves
    moves = np.zeros((D, MAX_MOVES_PER_NODE), dtype=np.int64)
    nmoves = np.zeros(D, dtype=np.int64)
    next_i = np.zeros(D, dtype=np.int64)
    table = np.zeros(4096, dtype=np.int64)
    _seen_before(table, _hash(hand[0], cards[0], length[0]))
    count = 0
    for a in range(NUM_ACTIONS):  # the root's moves come from the mask
        if mask[a] != 0 and count < MAX_MOVES_PER_NODE:
            moves[0, count] = a
            count += 1
    nmoves[0] = count
    best_action = -1
    best_value = -1.0e18
    nodes = 0
    root_i = 0
    while root_i < nmoves[0]:
        a = moves[0, root_i]
        root_i += 1
        if a == END_TURN_ACTION:
            v = evaluate(rules, w, hand[0], cards[0], vrank[0], vcol[0], length[0], suit[0], nhand[0], seen,
                         pen_scaled, others, n_players - 1, unseen, unseen_jokers, draws)
            if v > best_value:
                best_value = v
                best_action = a
            continue
        _apply(rules, 0, hand, cards, vrank, vcol, length, suit, nhand, a)
        if _seen_before(table, _hash(hand[1], cards[1], length[1])):
            continue
        nodes += 1
        v = _best_below(rules, w, hand, cards, vrank, vcol, length, suit, nhand, seen, pen_scaled, others,
                        n_players - 1, unseen, unseen_jokers, draws, moves, nmoves, next_i, table, nodes)
        if v > best_value:
            best_value = v
            best_action = a
    if best_action < 0:
        return greedy_action(obs, mask)
    return best_action


@maybe_njit
def _scale_penalties(pen, rules):
    lo = pen[0]
    hi = pen[0]
    for c in range(52):
        lo = min(lo, pen[c])
        hi = max(hi, pen[c])
    out = np.zeros(NUM_CARDS, dtype=np.float64)
    if hi > lo:
        for c in range(NUM_CARDS):
            out[c] = min(1.0, (pen[c] - lo) / (hi - lo))
    if rules[R_WINS] == 1:
        out *= 0.25  # penalties only break ties when deals are won, not scored
    return out


@maybe_njit
def _best_below(rules, w, hand, cards, vrank, vcol, length, suit, nhand, seen, pen_scaled, others, n_others,
                unseen, unseen_jokers, draws, moves, nmoves, next_i, table, nodes):
    """The best value reachable from level 1 (an iterative depth-first search)."""
    best = -1.0e18
    d = 1
    count, may_end = _generate(rules, hand[1], cards[1], vrank[1], vcol[1], length[1], suit[1], moves[1])
    nmoves[1] = count
    next_i[1] = 0
    if may_end or count == 0:
        best = evaluate(rules, w, hand[1], cards[1], vrank[1], vcol[1], length[1], suit[1], nhand[1], seen,
                        pen_scaled, others, n_others, unseen, unseen_jokers, draws) - DEPTH_COST
        if best >= WIN_VALUE - 1.0:
            return best
    while d >= 1:
        if next_i[d] >= nmoves[d] or d >= MAX_DEPTH or nodes >= MAX_NODES:
            d -= 1
            continue
        a = moves[d, next_i[d]]
        next_i[d] += 1
        _apply(rules, d, hand, cards, vrank, vcol, length, suit, nhand, a)
        if _seen_before(table, _hash(hand[d + 1], cards[d + 1], length[d + 1])):
            continue
        nodes += 1
        d += 1
        count, may_end = _generate(rules, hand[d], cards[d], vrank[d], vcol[d], length[d], suit[d], moves[d])
        nmoves[d] = count
        next_i[d] = 0
        if may_end or count == 0 or nodes >= MAX_NODES:
            v = evaluate(rules, w, hand[d], cards[d], vrank[d], vcol[d], length[d], suit[d], nhand[d], seen,
                         pen_scaled, others, n_others, unseen, unseen_jokers, draws) - DEPTH_COST * d
            if v > best:
                best = v
                if v >= WIN_VALUE - 1.0:
                    return best
    return best


@maybe_njit
def heuristic_action(obs, mask):
    """The heuristic's action with the tuned ``HEURISTIC_WEIGHTS``."""
    return heuristic_action_w(obs, mask, HEURISTIC_WEIGHTS)


__all__ = [
    "NUMBA", "maybe_njit", "greedy_action", "heuristic_action", "heuristic_action_w", "evaluate",
    "read_rules", "read_piles", "card_penalties", "HEURISTIC_WEIGHTS", "WEIGHT_NAMES", "MAX_NODES",
    "OBS_SIZE",
]
