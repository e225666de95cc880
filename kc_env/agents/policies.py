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
    in the observation), then the higher rank, then onto a pile rather than into an empty side,
    then the lower action index. With no card play it makes a pile move that empties a side (so
    the next play can fill it), else ends the turn.

heuristic
    Searches the rest of its own turn. From the position in the observation it builds a small
    model of the table (hand, piles with every card, the value each card stands for) and walks,
    depth first, the sequences of card plays and pile moves it may make this turn (the first
    move comes from the mask, later ones from its own move generator, which follows every
    variant: kings on sides, pile moves whole / none / partial, must_play, king_first,
    fill_spaces_first, same-suit corners, jokers, cleared piles; draw timing does not matter
    inside a turn). Every position where it may end the turn is scored by ``evaluate``; it plays
    the first move of the best sequence. Equal positions reached in different orders are searched
    once (a Zobrist hash), the search stops after ``MAX_NODES`` positions or at the first way
    out, and a longer sequence loses a tie. A part of a pile moves only as the turn's first pile
    move and only to play a card after it, so turns end under partial pile moves.

    ``evaluate`` scores the table as the next players will find it, from what the seat can see:
    the cards it still holds (each one, and its penalty), which of them have a place to go (a
    top they fit, as likely as that top is to survive the others' turns) or none (a king with no
    corner or side), and what the position offers the others: for every pile top the chance that
    the player holds one of the unseen cards that fit it (both fitting cards in sight make a dead
    end), empty sides (any card), empty corners (kings), side piles that can move away and open a
    space. What the others may gain is weighted by how close to going out they are and by how
    soon they play. A card's place may be worth more while another player is close to going out
    (``fit_close`` on top of ``fit`` while someone holds at most ``close`` cards; 0 in the shipped
    weights, the trained models' priors set it). With the stock empty, an idle turn is scored by
    the blocked deal it may bring. The weights are ``HEURISTIC_WEIGHTS`` (names in
    ``WEIGHT_NAMES``), tuned with ``kc eval`` (``docs/agents.md``).
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


def maybe_njit(fn=None, *, signature: str | list[str] | None = None):
    """``numba.njit(cache=True)`` when numba imports, else the function unchanged.

    Use it bare (``@maybe_njit``: compiled for the argument types of each call) or with a
    ``signature`` (or a list of them: compiled at import for exactly those types; callers' literal
    ints are cast rather than compiled again, which keeps the first compilation short).
    The compiled function keeps the plain one as ``fn.py_func`` either way.
    """
    def wrap(f):
        if numba is None:
            f.py_func = f
            return f
        if signature is None:
            return numba.njit(cache=True)(f)
        return numba.njit(signature, cache=True)(f)

    return wrap if fn is None else wrap(fn)


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
OBS_MOVED = SLICES["moved"].start
OBS_PLAYED = SLICES["played"].start
OBS_IDLE = SLICES["idle_turns"].start
OBS_NUM_PLAYERS = SLICES["num_players"].start
OBS_DRAW = SLICES["rule_draw"].start  # start end stuck
OBS_KINGS_ON_SIDES = SLICES["rule_kings_on_sides"].start  # true false
OBS_PILE_MOVES = SLICES["rule_pile_moves"].start  # whole none partial
OBS_MUST_PLAY = SLICES["rule_must_play"].start  # optional all
OBS_KING_FIRST = SLICES["rule_king_first"].start  # false true
OBS_FILL_SPACES = SLICES["rule_fill_spaces_first"].start  # false true
OBS_CORNER_BUILD = SLICES["rule_corner_build"].start  # alternate same_suit
OBS_CLEAR = SLICES["rule_clear_complete_piles"].start  # false true
OBS_BLOCKED = SLICES["rule_blocked"].start  # no_winner fewest_cards
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
(R_DRAW, R_KOS, R_PILE_MOVES, R_MUST_ALL, R_KING_FIRST, R_FILL, R_SAME_SUIT, R_CLEAR, R_JOKERS, R_WINS,
 R_FEWEST) = range(11)
PM_WHOLE, PM_NONE, PM_PARTIAL = 0, 1, 2

WEIGHT_NAMES = (
    "card",  # each card in hand
    "penalty",  # a card's penalty, scaled 0 (cheapest) .. 1 (costliest)
    "fit",  # a card in hand that fits a top now
    "dead",  # a card in hand with no live place (needs a space)
    "half_dead",  # a card with one of its two parents buried
    "opp",  # each play the next player may make (expected)
    "decay",  # factor on "opp" for each seat further away
    "danger",  # extra weight on a player per card below 3 in hand
    "space",  # an empty side left to the others (any card fits)
    "corner",  # an empty corner (kings fit), times the chance they hold one
    "opening",  # a side pile the next player may move away to open a space
    "multi",  # factor on 'opp' with more than two players
    "danger_multi",  # 'danger' with more than two players
    "block",  # a deal blocked by an idle turn: lost chance when ahead, saved loss when behind
    "fit_close",  # added to "fit" while another player is close to going out (0: never)
    "close",  # close to going out: holding at most this many cards (for "fit_close")
)
HEURISTIC_WEIGHTS = np.array(
    [1.0, 0.35, 0.25, 0.45, 0.12, 3.0, 0.6, 2.25, 1.3, 0.8, 1.0, 0.7, 0.5, 4.0, 0.0, 5.0], dtype=np.float64
)
"""The tuned weights of ``evaluate``, in the order of ``WEIGHT_NAMES``."""
(W_CARD, W_PENALTY, W_FIT, W_DEAD, W_HALF, W_OPP, W_DECAY, W_DANGER, W_SPACE, W_CORNER, W_OPENING, W_MULTI,
 W_DANGER_MULTI, W_BLOCK, W_FIT_CLOSE, W_CLOSE) = range(16)
WIN_VALUE = 1.0e6
DEPTH_COST = 1.0e-6


# -- reading the observation ----------------------------------------------------------------------

@maybe_njit(signature=["int64(float32[::1], int64, int64)", "int64(float32[:], int64, int64)"])
def _argmax(obs, start, size):
    best = 0
    for i in range(1, size):
        if obs[start + i] > obs[start + best]:
            best = i
    return best


@maybe_njit(signature="int64(float64, float64)")
def _count(x, scale):
    return int(np.floor(x * scale + 0.5))


@maybe_njit
def read_rules(obs):
    """The variants the policies need, as an int array indexed by the ``R_*`` slots."""
    rules = np.zeros(11, dtype=np.int64)
    rules[R_DRAW] = _argmax(obs, OBS_DRAW, 3)
    rules[R_KOS] = 1 if obs[OBS_KINGS_ON_SIDES] > 0.5 else 0
    rules[R_PILE_MOVES] = _argmax(obs, OBS_PILE_MOVES, 3)
    rules[R_MUST_ALL] = 1 if obs[OBS_MUST_PLAY + 1] > 0.5 else 0
    rules[R_KING_FIRST] = 1 if obs[OBS_KING_FIRST + 1] > 0.5 else 0
    rules[R_FILL] = 1 if obs[OBS_FILL_SPACES + 1] > 0.5 else 0
    rules[R_SAME_SUIT] = 1 if obs[OBS_CORNER_BUILD + 1] > 0.5 else 0
    rules[R_CLEAR] = 1 if obs[OBS_CLEAR + 1] > 0.5 else 0
    rules[R_JOKERS] = 2 if obs[OBS_JOKERS + 1] > 0.5 else 0
    rules[R_FEWEST] = 1 if obs[OBS_BLOCKED + 1] > 0.5 else 0
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


# -- greedy -----------------------------------------------------------------------------------------

@maybe_njit
def greedy_action(obs, mask):
    """Greedy: the card play of the costliest card (then the higher rank, then a pile over an empty
    side, then the lower index); with no card play, a pile move that empties a side; else end
    the turn. ``mask`` must hold a legal action."""
    pen = card_penalties(obs)
    best = -1
    best_key = -1.0
    for a in range(MOVE_OFFSET):
        if mask[a] != 0:
            c = a // NUM_PILES
            p = a % NUM_PILES
            space = p < 4 and obs[PILE_START + p * PILE_BLOCK + OFF_LENGTH] == 0.0
            key = pen[c] * 100.0 + RANK[c] + (0.0 if space else 0.5)  # a space only when nothing else
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
# One row of ``st`` per search level holds a whole position: the seat's hand (1 per card held),
# each pile's cards bottom to top with the (rank, colour) each stands for (colour -1: none), each
# pile's length and suit (of its first real card, -1: none), the number of cards in hand,
# whether a partial pile move waits for a card play, and whether a pile has moved this turn.
# The heuristic makes a partial move only as the first pile move of its turn, and only to play
# a card after it: rearrangements could otherwise be undone and redone for ever.

S_HAND = 0
S_CARDS = S_HAND + NUM_CARDS
S_RANK = S_CARDS + NUM_PILES * MAX_PILE
S_COL = S_RANK + NUM_PILES * MAX_PILE
S_LEN = S_COL + NUM_PILES * MAX_PILE
S_SUIT = S_LEN + NUM_PILES
S_NHAND = S_SUIT + NUM_PILES
S_PENDING = S_NHAND + 1  # 1 after a partial pile move until a card is played
S_MOVED = S_PENDING + 1  # 1 once a pile has moved this turn: no partial move after that
S_PLAYED = S_MOVED + 1  # 1 once a card has been played this turn
S_SIZE = S_PLAYED + 1

# What the search never changes, read once from the observation (a float64 array ``ctx``).
C_SEEN = 0  # 54: 1 for a card in the seat's hand or on a pile
C_PEN = C_SEEN + NUM_CARDS  # 54: each card's penalty, scaled 0 (cheapest) .. 1 (costliest)
C_OTHERS = C_PEN + NUM_CARDS  # 5: the hand sizes of the next seats, in playing order
C_NUM_OTHERS = C_OTHERS + 5
C_UNSEEN = C_NUM_OTHERS + 1  # cards the seat cannot see (other hands and the stock)
C_UNSEEN_JOKERS = C_UNSEEN + 1
C_UNSEEN_KINGS = C_UNSEEN_JOKERS + 1  # unseen kings and jokers
C_DRAWS = C_UNSEEN_KINGS + 1  # 1 if the next player draws before playing
C_STOCK = C_DRAWS + 1  # cards in the stock
C_IDLE = C_STOCK + 1  # turns in a row with no draw, play or pile move before this one
C_FEWEST = C_IDLE + 1  # the fewest cards another player holds
C_SIZE = C_FEWEST + 1


@maybe_njit
def read_position(obs, rules, st, ctx):
    """Fill level 0 of ``st`` and the context ``ctx`` from the observation alone.

    A pile's real cards sit by rank (ranks step down by one from the bottom); jokers fill the
    gaps (a top or bottom joker is known) and take the colour the alternation gives them.
    """
    for c in range(NUM_CARDS):
        if obs[OBS_HAND + c] > 0.5:
            st[0, S_HAND + c] = 1
            st[0, S_NHAND] += 1
            ctx[C_SEEN + c] = 1.0
    for p in range(NUM_PILES):
        base = PILE_START + p * PILE_BLOCK
        at = p * MAX_PILE
        n = _count(obs[base + OFF_LENGTH], PILE_SCALE)
        st[0, S_LEN + p] = n
        st[0, S_SUIT + p] = -1
        if n == 0:
            continue
        top_rank = _argmax(obs, base + OFF_TOP_RANK, 13) + 1
        slot = _argmax(obs, base + OFF_TOP_COLOUR, 3)
        bottom_rank = top_rank + n - 1
        for i in range(n):
            st[0, S_CARDS + at + i] = -1
        st[0, S_CARDS + at] = _argmax(obs, base + OFF_BOTTOM, NUM_CARDS)
        st[0, S_CARDS + at + n - 1] = _argmax(obs, base + OFF_TOP, NUM_CARDS)
        for c in range(52):
            if obs[base + OFF_CARDS + c] > 0.5:
                i = bottom_rank - RANK[c]
                if 0 <= i < n:
                    st[0, S_CARDS + at + i] = c
        for j in range(52, 54):
            if obs[base + OFF_CARDS + j] > 0.5 and st[0, S_CARDS + at] != j and st[0, S_CARDS + at + n - 1] != j:
                for i in range(n):
                    if st[0, S_CARDS + at + i] == -1:
                        st[0, S_CARDS + at + i] = j
                        break
        for i in range(n):
            c = st[0, S_CARDS + at + i]
            st[0, S_RANK + at + i] = bottom_rank - i
            st[0, S_COL + at + i] = COLOUR[c] if 0 <= c < 52 else -1
            if 0 <= c < 52 and st[0, S_SUIT + p] < 0:
                st[0, S_SUIT + p] = SUIT[c]
            if c >= 0:
                ctx[C_SEEN + c] = 1.0
        st[0, S_COL + at + n - 1] = -1 if slot == 2 else slot
        for i in range(n - 2, -1, -1):
            if st[0, S_CARDS + at + i] >= 52 and st[0, S_COL + at + i + 1] >= 0 and not (p >= 4 and i == 0):
                st[0, S_COL + at + i] = 1 - st[0, S_COL + at + i + 1]
    st[0, S_MOVED] = 1 if obs[OBS_MOVED] > 0.5 else 0
    st[0, S_PLAYED] = 1 if obs[OBS_PLAYED] > 0.5 else 0
    deck = 52 + rules[R_JOKERS]
    unseen = 0
    for c in range(deck):
        if ctx[C_SEEN + c] == 0.0:
            unseen += 1
            if c >= 52:
                ctx[C_UNSEEN_JOKERS] += 1.0
            if c >= 52 or RANK[c] == 13:
                ctx[C_UNSEEN_KINGS] += 1.0
    ctx[C_UNSEEN] = unseen
    n_others = _argmax(obs, OBS_NUM_PLAYERS, 5) + 1
    ctx[C_NUM_OTHERS] = n_others
    for j in range(n_others):
        ctx[C_OTHERS + j] = _count(obs[OBS_OTHERS + j], CARD_SCALE)
    ctx[C_FEWEST] = ctx[C_OTHERS]
    for j in range(n_others):
        ctx[C_FEWEST] = min(ctx[C_FEWEST], ctx[C_OTHERS + j])
    ctx[C_STOCK] = _count(obs[OBS_STOCK], CARD_SCALE)
    ctx[C_IDLE] = _count(obs[OBS_IDLE], n_others + 1.0)
    if ctx[C_STOCK] > 0 and rules[R_DRAW] != 1:
        ctx[C_DRAWS] = 1.0
    pen = card_penalties(obs)
    lo = pen[0]
    hi = pen[0]
    for c in range(52):
        lo = min(lo, pen[c])
        hi = max(hi, pen[c])
    scale = 0.25 if rules[R_WINS] == 1 else 1.0  # penalties only break ties when deals are won
    if hi > lo:
        for c in range(NUM_CARDS):
            ctx[C_PEN + c] = scale * min(1.0, (pen[c] - lo) / (hi - lo))


@maybe_njit(signature="boolean(int64[::1], int64[:, ::1], int64, int64, int64)")
def _accepts(rules, st, d, p, c):
    """Whether card ``c`` may be played onto pile ``p`` at level ``d`` (before forced plays)."""
    n = st[d, S_LEN + p]
    if n == 0:
        if p >= 4:
            return c >= 52 or RANK[c] == 13
        if c >= 52:
            return False
        return rules[R_KOS] == 1 or RANK[c] != 13
    r = st[d, S_RANK + p * MAX_PILE + n - 1]
    if r <= 1:
        return False
    if c >= 52:
        return True
    if RANK[c] != r - 1:
        return False
    if p >= 4 and rules[R_SAME_SUIT] == 1:
        return st[d, S_SUIT + p] < 0 or SUIT[c] == st[d, S_SUIT + p]
    col = st[d, S_COL + p * MAX_PILE + n - 1]
    return col < 0 or COLOUR[c] != col


@maybe_njit(signature="void(int64[::1], int64[:, ::1], int64, int64)")
def _maybe_clear(rules, st, d, p):
    """Under ``clear_complete_piles`` a pile of thirteen cards leaves the table."""
    if rules[R_CLEAR] == 1 and st[d, S_LEN + p] >= 13:
        st[d, S_LEN + p] = 0
        st[d, S_SUIT + p] = -1


@maybe_njit(signature="void(int64[::1], int64[:, ::1], int64, int64, int64)")
def _play(rules, st, d, c, p):
    """Play card ``c`` onto pile ``p`` at level ``d`` (in place)."""
    n = st[d, S_LEN + p]
    at = p * MAX_PILE + n
    st[d, S_CARDS + at] = c
    if c >= 52:
        if n == 0:
            st[d, S_RANK + at] = 13
            st[d, S_COL + at] = -1
        else:
            st[d, S_RANK + at] = st[d, S_RANK + at - 1] - 1
            corner_suit = st[d, S_SUIT + p]
            if p >= 4 and rules[R_SAME_SUIT] == 1:
                st[d, S_COL + at] = -1 if corner_suit < 0 else (1 if corner_suit == 1 or corner_suit == 2 else 0)
            else:
                below = st[d, S_COL + at - 1]
                st[d, S_COL + at] = -1 if below < 0 else 1 - below
    else:
        st[d, S_RANK + at] = RANK[c]
        st[d, S_COL + at] = COLOUR[c]
        if st[d, S_SUIT + p] < 0:
            st[d, S_SUIT + p] = SUIT[c]
    st[d, S_LEN + p] = n + 1
    st[d, S_HAND + c] = 0
    st[d, S_NHAND] -= 1
    st[d, S_PENDING] = 0
    st[d, S_PLAYED] = 1
    _maybe_clear(rules, st, d, p)


@maybe_njit(signature="int64(int64[::1], int64[:, ::1], int64, int64, int64)")
def _part_start(rules, st, d, s, q):
    """Where the part of pile ``s`` that may move onto non-empty pile ``q`` starts, or -1."""
    n = st[d, S_LEN + s]
    m = st[d, S_LEN + q]
    if n == 0 or m == 0 or s == q:
        return -1
    need = st[d, S_RANK + q * MAX_PILE + m - 1] - 1
    if need < 1:
        return -1
    i = st[d, S_RANK + s * MAX_PILE] - need
    if i < 0 or i >= n:
        return -1
    if i > 0 and rules[R_PILE_MOVES] != PM_PARTIAL:
        return -1
    same = q >= 4 and rules[R_SAME_SUIT] == 1
    corner_suit = st[d, S_SUIT + q]
    prev_col = st[d, S_COL + q * MAX_PILE + m - 1]
    for j in range(i, n):  # walk the part as it would lie on q
        c = st[d, S_CARDS + s * MAX_PILE + j]
        col = st[d, S_COL + s * MAX_PILE + j]
        if same:
            if c < 52:
                if corner_suit >= 0 and SUIT[c] != corner_suit:
                    return -1
                corner_suit = SUIT[c]
        elif prev_col >= 0 and col >= 0 and col == prev_col:
            return -1
        prev_col = col
    return i


@maybe_njit(signature="void(int64[::1], int64[:, ::1], int64, int64, int64)")
def _move(rules, st, d, s, q):
    """Move pile ``s`` (or its part from the right card) onto ``q`` at level ``d`` (in place)."""
    n = st[d, S_LEN + s]
    m = st[d, S_LEN + q]
    i = 0
    if m > 0:
        i = max(0, _part_start(rules, st, d, s, q))
    for j in range(i, n):
        src = s * MAX_PILE + j
        dst = q * MAX_PILE + m + j - i
        st[d, S_CARDS + dst] = st[d, S_CARDS + src]
        st[d, S_RANK + dst] = st[d, S_RANK + src]
        st[d, S_COL + dst] = st[d, S_COL + src]
        c = st[d, S_CARDS + src]
        if c < 52 and st[d, S_SUIT + q] < 0:
            st[d, S_SUIT + q] = SUIT[c]
    st[d, S_LEN + q] = m + n - i
    st[d, S_LEN + s] = i
    st[d, S_MOVED] = 1
    if i > 0:
        st[d, S_PENDING] = 1
    if i == 0:
        st[d, S_SUIT + s] = -1
    _maybe_clear(rules, st, d, q)


@maybe_njit(signature="boolean(int64[::1], int64[:, ::1], int64, int64, int64)")
def _useful_pile_move(rules, st, d, s, q):
    """Whether moving (part of) pile ``s`` onto non-empty pile ``q`` is worth searching: a whole
    pile always (it opens a space or joins two piles); a part only as the first pile move of the
    turn and only if the card it uncovers takes a card from the seat's hand. Mere rearrangements
    are left out: they could be undone and redone for ever, and they swamp the search."""
    i = _part_start(rules, st, d, s, q)
    if i < 0:
        return False
    if i == 0:
        return True
    if st[d, S_MOVED] == 1:
        return False
    n = st[d, S_LEN + s]
    st[d, S_LEN + s] = i  # look at the pile as the move would leave it
    opens = False
    for c in range(NUM_CARDS):
        if st[d, S_HAND + c] == 1 and _accepts(rules, st, d, s, c):
            opens = True
            break
    st[d, S_LEN + s] = n
    return opens


@maybe_njit(signature="void(int64[::1], int64[:, ::1], int64, int64)")
def _apply(rules, st, d, a):
    """Copy level ``d`` to ``d + 1`` and make action ``a`` there."""
    for k in range(S_SIZE):
        st[d + 1, k] = st[d, k]
    if a < MOVE_OFFSET:
        _play(rules, st, d + 1, a // NUM_PILES, a % NUM_PILES)
    else:
        _move(rules, st, d + 1, (a - MOVE_OFFSET) // NUM_PILES, (a - MOVE_OFFSET) % NUM_PILES)


@maybe_njit(signature="Tuple((int64, boolean))(int64[::1], int64[:, ::1], int64, int64[::1])")
def _generate(rules, st, d, out):
    """The seat's moves at level ``d`` into ``out`` (action indices); returns (count, may_end).

    Equivalent moves are listed once: a card into the first empty side only, a king (or a side
    pile) into the first empty corner only.
    """
    first_side = -1
    first_corner = -1
    for p in range(NUM_PILES):
        if st[d, S_LEN + p] == 0:
            if p < 4 and first_side < 0:
                first_side = p
            if p >= 4 and first_corner < 0:
                first_corner = p
    king_first = False
    if rules[R_KING_FIRST] == 1 and first_corner >= 0:
        for c in range(52):
            if st[d, S_HAND + c] == 1 and RANK[c] == 13:
                king_first = True
    into_side = False
    if rules[R_FILL] == 1 and first_side >= 0 and not king_first:
        for c in range(NUM_CARDS):
            if st[d, S_HAND + c] == 1 and _accepts(rules, st, d, first_side, c):
                into_side = True
    held = np.empty(NUM_CARDS, dtype=np.int64)
    n_held = 0
    for c in range(NUM_CARDS):
        if st[d, S_HAND + c] == 1:
            held[n_held] = c
            n_held += 1
    count = 0
    plays = 0
    for p in range(NUM_PILES):
        empty = st[d, S_LEN + p] == 0
        if empty and p != first_side and p != first_corner:
            continue
        if king_first and not (p >= 4 and empty):
            continue
        if into_side and not (p < 4 and empty):
            continue
        for h in range(n_held):
            c = held[h]
            if _accepts(rules, st, d, p, c):
                if king_first and (c >= 52 or RANK[c] != 13):
                    continue
                plays += 1
                if count < MAX_MOVES_PER_NODE:
                    out[count] = c * NUM_PILES + p
                    count += 1
    if not king_first:
        if first_corner >= 0:
            for s in range(4):
                n = st[d, S_LEN + s]
                c = st[d, S_CARDS + s * MAX_PILE]
                if n > 0 and c < 52 and RANK[c] == 13 and (rules[R_SAME_SUIT] == 0 or n == 1):
                    if count < MAX_MOVES_PER_NODE:
                        out[count] = MOVE_OFFSET + s * NUM_PILES + first_corner
                        count += 1
        if rules[R_PILE_MOVES] != PM_NONE:
            for s in range(NUM_PILES):
                for q in range(NUM_PILES):
                    if _useful_pile_move(rules, st, d, s, q) and count < MAX_MOVES_PER_NODE:
                        out[count] = MOVE_OFFSET + s * NUM_PILES + q
                        count += 1
    may_end = not (rules[R_MUST_ALL] == 1 and plays > 0) and st[d, S_PENDING] == 0
    return count, may_end


@maybe_njit(signature="int64(int64[:, ::1], int64)")
def _hash(st, d):
    """A Zobrist hash of the position at level ``d`` (which card lies where)."""
    h = np.int64(0)
    for c in range(NUM_CARDS):
        if st[d, S_HAND + c] == 1:
            h ^= ZOBRIST[c, 0]
    for p in range(NUM_PILES):
        for i in range(st[d, S_LEN + p]):
            h ^= ZOBRIST[st[d, S_CARDS + p * MAX_PILE + i], p + 1]
    if st[d, S_PENDING] == 1:
        h ^= ZOBRIST[0, 0] * 3 + 1
    return h


@maybe_njit(signature="boolean(int64[::1], int64)")
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

@maybe_njit(signature="int64(int64[::1], int64[:, ::1], int64, int64, float64[::1])")
def _fitting_unseen(rules, st, d, p, ctx):
    """How many unseen cards may be played onto pile ``p`` (-1 for an empty pile): 0 is a dead
    end, e.g. a red 8 once both black 7s are in sight."""
    n = st[d, S_LEN + p]
    if n == 0:
        return -1
    r = st[d, S_RANK + p * MAX_PILE + n - 1] - 1  # the rank wanted
    if r < 1:
        return 0
    col = st[d, S_COL + p * MAX_PILE + n - 1]
    corner_suit = st[d, S_SUIT + p]
    same = p >= 4 and rules[R_SAME_SUIT] == 1
    k = int(ctx[C_UNSEEN_JOKERS])
    for suit in range(4):
        c = suit * 13 + r - 1
        if ctx[C_SEEN + c] == 0.0:
            if same:
                if corner_suit < 0 or suit == corner_suit:
                    k += 1
            elif col < 0 or COLOUR[c] != col:
                k += 1
    return k


@maybe_njit(signature="int64(int64, int64, int64)")
def _twin(rank, colour, k):
    """The ``k``-th (0 or 1) card of ``rank`` and ``colour`` (black: clubs, spades; red:
    diamonds, hearts)."""
    suit = (0 if k == 0 else 3) if colour == 0 else (1 if k == 0 else 2)
    return suit * 13 + rank - 1


@maybe_njit(signature="boolean(int64[:, ::1], int64, int64)")
def _is_top(st, d, c):
    for p in range(NUM_PILES):
        n = st[d, S_LEN + p]
        if n > 0 and st[d, S_CARDS + p * MAX_PILE + n - 1] == c:
            return True
    return False


@maybe_njit(signature="float64(int64[::1], float64[::1], int64[:, ::1], int64, float64[::1], boolean, float64[::1], float64)")
def _hand_value(rules, w, st, d, ctx, empty_side, keep, fit):
    """The seat's own hand: each card and its penalty, less what a card with a place is spared
    (``fit``, times the chance that the place is still there on the seat's next turn, ``keep``),
    more what a card with no live place costs (see the module docstring)."""
    value = 0.0
    for c in range(NUM_CARDS):
        if st[d, S_HAND + c] == 0:
            continue
        value -= w[W_CARD] + w[W_PENALTY] * ctx[C_PEN + c]
        if c >= 52:
            value += fit
            continue
        best = -1.0
        for p in range(NUM_PILES):
            if (st[d, S_LEN + p] > 0 or RANK[c] == 13) and _accepts(rules, st, d, p, c):
                best = max(best, keep[p])
        if best >= 0.0:
            value += fit * best
            continue
        if RANK[c] == 13:
            if not (empty_side and rules[R_KOS] == 1):
                value -= w[W_DEAD]
            continue
        buried = 0
        for k in range(2):  # the two cards one rank up, of the other colour
            parent = _twin(RANK[c] + 1, 1 - COLOUR[c], k)
            if ctx[C_SEEN + parent] == 1.0 and st[d, S_HAND + parent] == 0 and not _is_top(st, d, parent):
                buried += 1
        if buried >= 2:
            value -= w[W_DEAD]
        elif buried == 1:
            value -= w[W_HALF]
    return value


@maybe_njit(signature="int64(int64[::1], int64[:, ::1], int64, boolean)")
def _openings(rules, st, d, empty_corner):
    """Side piles that may move away as a whole (onto a pile, or a king into a corner)."""
    count = 0
    for s in range(4):
        n = st[d, S_LEN + s]
        if n == 0:
            continue
        c = st[d, S_CARDS + s * MAX_PILE]
        if empty_corner and c < 52 and RANK[c] == 13 and (rules[R_SAME_SUIT] == 0 or n == 1):
            count += 1
            continue
        if rules[R_PILE_MOVES] != PM_NONE:
            for q in range(NUM_PILES):
                if _part_start(rules, st, d, s, q) == 0:
                    count += 1
                    break
    return count


@maybe_njit(signature="float64(int64[::1], float64[::1], int64[:, ::1], int64, float64[::1], int64[::1], boolean)")
def _block_value(rules, w, st, d, ctx, fitting, space):
    """An idle turn with the stock empty brings the deal closer to blocked (RULES.md 4.8): at once
    when the others have all been idle, else as likely as each of them is to hold nothing that
    fits (nothing is sure to fit while a space is open). A block is worth ``block`` to a seat
    behind (more cards than the fewest) and costs it to a seat ahead; under ``fewest_cards`` a
    block decides the deal, so it counts five times."""
    n_others = int(ctx[C_NUM_OTHERS])
    unseen = max(ctx[C_UNSEEN], 1.0)
    p_block = 1.0
    for j in range(max(0, n_others - int(ctx[C_IDLE]))):  # the others who must pass too
        if space:
            p_block = 0.0
            break
        miss = 1.0 - min(1.0, ctx[C_OTHERS + j] / unseen)
        for p in range(NUM_PILES):
            if fitting[p] > 0:
                p_block *= miss ** fitting[p]
    me = st[d, S_NHAND]
    fewest = ctx[C_FEWEST]
    sign = 0.0
    if me < fewest:
        sign = -1.0
    elif me > fewest:
        sign = 1.0
    if rules[R_FEWEST] == 1:
        sign *= 5.0
        if me < fewest:
            sign = 5.0  # the fewest cards win a blocked deal
    return w[W_BLOCK] * p_block * sign


@maybe_njit(signature="float64(int64[::1], float64[::1], int64[:, ::1], int64, float64[::1])")
def evaluate(rules, w, st, d, ctx):
    """The value, for the seat to act, of ending its turn in the position at level ``d``."""
    if st[d, S_NHAND] == 0:
        return WIN_VALUE
    empty_side = False
    empty_corner = False
    for p in range(NUM_PILES):
        if st[d, S_LEN + p] == 0:
            if p < 4:
                empty_side = True
            else:
                empty_corner = True
    fitting = np.zeros(NUM_PILES, dtype=np.int64)
    for p in range(NUM_PILES):
        fitting[p] = _fitting_unseen(rules, st, d, p, ctx)
    openings = _openings(rules, st, d, empty_corner)
    unseen = max(ctx[C_UNSEEN], 1.0)
    kings = ctx[C_UNSEEN_KINGS]
    n_others = int(ctx[C_NUM_OTHERS])
    # the chance that each pile is still as it is when the seat plays again
    keep = np.ones(NUM_PILES, dtype=np.float64)
    empty_corners = 0
    for p in range(4, NUM_PILES):
        if st[d, S_LEN + p] == 0:
            empty_corners += 1
    for j in range(n_others):
        miss = 1.0 - min(1.0, (ctx[C_OTHERS + j] + ctx[C_DRAWS]) / unseen)
        for p in range(NUM_PILES):
            if fitting[p] > 0:
                keep[p] *= miss ** fitting[p]
            elif fitting[p] < 0 and p >= 4 and empty_corners == 1:
                keep[p] *= miss ** kings
    for p in range(4):
        if st[d, S_LEN + p] == 0:
            keep[p] = 0.0  # an empty side is the others' to fill first
    fit = w[W_FIT] + (w[W_FIT_CLOSE] if ctx[C_FEWEST] <= w[W_CLOSE] else 0.0)
    value = _hand_value(rules, w, st, d, ctx, empty_side, keep, fit)
    weight = w[W_OPP]
    danger_weight = w[W_DANGER]
    if n_others > 1:
        weight *= w[W_MULTI]
        danger_weight = w[W_DANGER_MULTI]
    for j in range(n_others):
        h = ctx[C_OTHERS + j]
        q = min(1.0, (h + ctx[C_DRAWS]) / unseen)
        gain = w[W_OPENING] * openings
        for p in range(NUM_PILES):
            k = fitting[p]
            if k > 0:  # the chance that the player holds a card that fits here
                gain += 1.0 - (1.0 - q) ** k
            elif k < 0:
                if p < 4:
                    gain += w[W_SPACE]
                elif kings > 0:
                    gain += w[W_CORNER] * (1.0 - (1.0 - q) ** kings)
        danger = 1.0 + danger_weight * max(0.0, 3.0 - h)
        value -= weight * danger * gain
        weight *= w[W_DECAY]
    if ctx[C_STOCK] == 0 and st[d, S_PLAYED] == 0 and st[d, S_MOVED] == 0:
        value += _block_value(rules, w, st, d, ctx, fitting, empty_side or openings > 0)
    return value


# -- the heuristic: the search -----------------------------------------------------------------------

@maybe_njit
def heuristic_action_w(obs, mask, w):
    """The heuristic's action with the weights ``w`` (float64, in the order of ``WEIGHT_NAMES``)."""
    rules = read_rules(obs)
    st = np.zeros((MAX_DEPTH + 1, S_SIZE), dtype=np.int64)
    ctx = np.zeros(C_SIZE, dtype=np.float64)
    read_position(obs, rules, st, ctx)
    moves = np.zeros((MAX_DEPTH + 1, MAX_MOVES_PER_NODE), dtype=np.int64)
    nmoves = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    table = np.zeros(4096, dtype=np.int64)
    _seen_before(table, _hash(st, 0))
    count = 0
    for a in range(NUM_ACTIONS):  # the first move always comes from the mask
        if mask[a] != 0 and count < MAX_MOVES_PER_NODE:
            if MOVE_OFFSET <= a < END_TURN_ACTION:
                src = (a - MOVE_OFFSET) // NUM_PILES
                dst = (a - MOVE_OFFSET) % NUM_PILES
                if st[0, S_LEN + dst] > 0 and not _useful_pile_move(rules, st, 0, src, dst):
                    continue
            moves[0, count] = a
            count += 1
    nmoves[0] = count
    nodes = np.zeros(1, dtype=np.int64)
    best_action = -1
    best_value = -1.0e18
    for k in range(count):
        a = moves[0, k]
        if a == END_TURN_ACTION:
            v = evaluate(rules, w, st, 0, ctx)
        else:
            _apply(rules, st, 0, a)
            if _seen_before(table, _hash(st, 1)):
                continue
            nodes[0] += 1
            v = _search(rules, w, st, ctx, moves, nmoves, table, nodes)
        if v > best_value:
            best_value = v
            best_action = a
    if best_action < 0:
        return greedy_action(obs, mask)
    return best_action


@maybe_njit(signature="float64(int64[::1], float64[::1], int64[:, ::1], float64[::1], int64[:, ::1], int64[::1], int64[::1], int64[::1])")
def _search(rules, w, st, ctx, moves, nmoves, table, nodes):
    """The best value of a position where the turn may end, reachable from level 1 (depth first,
    iterative; a position met before in this search is skipped, a longer way loses a tie, and
    the search stops at the first way out)."""
    best = -1.0e18
    next_i = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    d = 1
    while d >= 1:
        if next_i[d] == 0:  # first visit of this level's position
            count, may_end = _generate(rules, st, d, moves[d])
            nmoves[d] = count
            next_i[d] = 1
            stop = may_end or count == 0 or nodes[0] >= MAX_NODES or d >= MAX_DEPTH
            if stop and (st[d, S_PENDING] == 0 or st[d, S_NHAND] == 0):
                v = evaluate(rules, w, st, d, ctx) - DEPTH_COST * d
                if v > best:
                    best = v
                if v >= WIN_VALUE - 1.0:
                    return best
        k = next_i[d] - 1
        if k >= nmoves[d] or d >= MAX_DEPTH or nodes[0] >= MAX_NODES:
            next_i[d] = 0
            d -= 1
            continue
        next_i[d] += 1
        _apply(rules, st, d, moves[d, k])
        if _seen_before(table, _hash(st, d + 1)):
            continue
        nodes[0] += 1
        d += 1
    return best


@maybe_njit
def heuristic_action(obs, mask):
    """The heuristic's action with the tuned ``HEURISTIC_WEIGHTS``."""
    return heuristic_action_w(obs, mask, HEURISTIC_WEIGHTS.copy())


def evaluation_weights(weights) -> np.ndarray:
    """The heuristic's evaluation weights from a mapping ``{name: value}`` (names of
    ``WEIGHT_NAMES``; a name left out keeps its ``HEURISTIC_WEIGHTS`` value), as float64 in the
    order of ``WEIGHT_NAMES``. ``None`` gives the tuned defaults. Refuses an unknown name, or a
    value that is not a finite number, with a message that says which."""
    out = HEURISTIC_WEIGHTS.copy()
    if weights is None:
        return out
    if not hasattr(weights, "items"):
        raise ValueError(f"heuristic weights must be a mapping of weight names to numbers, not {weights!r}")
    for name, value in weights.items():
        if name not in WEIGHT_NAMES:
            raise ValueError(f"unknown heuristic weight {name!r} (known: {', '.join(WEIGHT_NAMES)})")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
            raise ValueError(f"heuristic weight {name} must be a finite number, not {value!r}")
        out[WEIGHT_NAMES.index(name)] = float(value)
    return out


def weights_by_name(weights: np.ndarray) -> dict[str, float]:
    """``weights`` (in the order of ``WEIGHT_NAMES``) as the mapping ``evaluation_weights`` reads."""
    return {name: float(v) for name, v in zip(WEIGHT_NAMES, np.asarray(weights, dtype=np.float64), strict=True)}


def actions(name: str, obs: np.ndarray, masks: np.ndarray, weights=None) -> np.ndarray:
    """``<name>_action`` (``greedy`` or ``heuristic``) for every row of a batch (or one row):
    the vector env's compiled loop over all cores when numba imports, else row by row. The
    heuristic plays with its evaluation ``weights`` (a mapping, see ``evaluation_weights``) when
    given, else with ``HEURISTIC_WEIGHTS``."""
    obs = np.ascontiguousarray(np.atleast_2d(obs)[:, :OBS_SIZE], dtype=np.float32)
    masks = np.ascontiguousarray(np.atleast_2d(masks), dtype=np.int8)
    if weights is not None and name != "heuristic":
        raise ValueError(f"only the heuristic has evaluation weights, not {name!r}")
    if NUMBA and len(obs) > 1:
        from ..vector.opponents import rule_based

        return rule_based(name, weights)(obs, masks)
    if weights is not None:
        w = evaluation_weights(weights)
        return np.array([heuristic_action_w(o, m, w.copy()) for o, m in zip(obs, masks, strict=True)], dtype=np.int64)
    act = globals()[f"{name}_action"]
    return np.array([act(o, m) for o, m in zip(obs, masks, strict=True)], dtype=np.int64)


__all__ = [
    "actions", "evaluation_weights", "weights_by_name", "NUMBA", "maybe_njit", "greedy_action", "heuristic_action", "heuristic_action_w", "evaluate",
    "read_rules", "read_position", "card_penalties", "HEURISTIC_WEIGHTS", "WEIGHT_NAMES", "MAX_NODES",
    "OBS_SIZE",
]
