"""The compiled core of the vector env: the rules of ``kc_env.engine`` over a structure of
arrays, one row per game, in numba ``nopython`` functions (``cache=True``).

Every function here mirrors one function of the reference engine (named in its docstring) and
must stay equal to it: ``tests/test_vector_diff.py`` plays thousands of deals through both and
compares every observation, mask, reward and ending. Read ``engine.py`` first; this file is
the same rules in a form that compiles.

The state of ``B`` games is one named structure, ``Games`` (a namedtuple of arrays, made by
``alloc_games``; ``VecGame.state``), and the vector env's per-game buffers another,
``EnvBuffers`` (rng, opponent kinds, move log, rules vectors, observations, masks, rewards,
status...; ``KingsCornerVecEnv``). numba passes a namedtuple of arrays into compiled code as one
value, and the state travels whole: the batched entry points take both (``apply_batch(idx,
acts, g)``, ``env_advance(idx, modes, acts, g, e)``, ``new_episodes``, ``learner_step`` (the vector
env's whole step when every opponent is random), ``keep_endings``, ``deal_batch``,
``legal_batch``, ``encode_batch``, ``refresh_batch``, ``end_cut_off_batch``, ``play_random``),
and the rule functions (``accepts``, ``pile_moves``, ``legal_actions``, ``play_card``,
``apply_action``, ``deal``, ``encode``, ...) take ``g`` and a game number ``b``, so that other
compiled code (``kc_env.agents.turns``, the heuristic, the play-outs) calls them on a ``Games``
of its own. The rule functions compile without reference counting (``borrowing``). Action
indices are built and read with ``kc_env.actions``' formulas, compiled here (``play_action``,
``move_src``...). The rules row's columns and codes are ``rules.RULE_CODES``'. Code outside
compiled functions reads games through ``VecGame``'s methods (``to_act``, ``over``,
``winners``, ``cut_off``, ``turn_started``...), not through the columns below.

State of game ``b`` (the fields of ``Games``):

- ``piles[b, p, i]`` (int8): card ``i`` from the bottom of pile ``p`` (0..7: N E S W NE SE SW NW).
- ``pinfo[b, p]`` (int64 x 4): ``LEN``, the value its top stands for (``TOP_RANK``,
  ``TOP_COLOUR``; 0 and 0 when empty), and ``ACC``, the bitmask of the cards it accepts from hand
  (the engine's ``accepts`` cache).
- ``hands[b, seat]`` (int64): bitmask of each hand (bit ``c`` for card ``c``; bits 0..53 only, so
  the sign bit is never used and plain int64 arithmetic is safe).
- ``stock[b, i]`` (int8): the stock, ``S[b, SLEN]`` cards, the top is the last one.
- ``S[b, k]`` (int64): the scalars of the state, columns named below (``CUR``, ``OVER``...).
- ``R[b, k]`` (int64): the rules, columns named below; ``R_PEN + r - 1`` is the penalty of rank
  ``r`` and ``R_PEN + 13`` the joker's.
- ``mt[b]`` (int64 x 625): the deal's random generator (below).

A played joker's value is ``S[b, JR + j]``, ``S[b, JC + j]`` for joker ``52 + j``; colour ``-1``
is "no colour" as in the engine. Integers are int64 throughout (numba turns uint64 mixed with
int64 into floats); the only uint64 values are the random generators' states.

Randomness inside a deal is the engine's own: ``random.Random(seed)`` shuffles the deck and,
under ``clear_complete_piles``, the stock. ``mt_seed``, ``mt_shuffle`` and friends are CPython's
Mersenne Twister and ``Random.shuffle``, bit for bit, with each game's generator state in
``mt[b]`` (624 words and the index, the tuple of ``Random.getstate()``), so ``deal`` gives
``engine.new_deal``'s deal for the same seed and dealer, and a reshuffle the engine's order.
The differential test checks both, generator state included.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import prange

from .. import actions as _actions
from .. import cards as _cards
from .. import observation as _obs
from .. import rules as _rules
from ..compiled import njit, njit_parallel, take_next
from ..game_info import GAME_INFO

# -- card tables (frozen into the compiled code as constants) --------------------------------

RANK = np.array(_cards.RANK, dtype=np.int64)
COLOUR = np.array(_cards.COLOUR, dtype=np.int64)
SUIT = np.array(_cards.SUIT, dtype=np.int64)
SUIT_COLOUR = np.array(_cards.SUIT_COLOUR, dtype=np.int64)
RANK_MASK = np.array(_cards.RANK_MASK, dtype=np.int64)
RANK_COLOUR_MASK = np.array(_cards.RANK_COLOUR_MASK, dtype=np.int64)
SUIT_MASK = np.array([_cards.mask_of(c for c in range(52) if _cards.SUIT[c] == s) for s in range(4)],
                     dtype=np.int64)
KING_MASK = np.int64(_cards.KING_MASK)
JOKER_MASK = np.int64(_cards.JOKER_MASK)
ALL_REAL = np.int64((1 << 52) - 1)
NO_COLOUR = -1
KING = 13

# -- layout of the state arrays ------------------------------------------------------------

MAX_SEATS = GAME_INFO.max_num_players
PILE_CAP = 16  # a pile holds at most 13 cards (K down to A)
STOCK_CAP = 56
NUM_ACTIONS = GAME_INFO.num_distinct_actions
MOVE_OFFSET = GAME_INFO.move_offset
END_TURN_ACTION = GAME_INFO.end_turn_action
assert GAME_INFO.num_piles == 8, "the kernel's pile loops assume 8 piles"

# the action layout's formulas (``kc_env.actions``), compiled: the one way compiled code builds an
# action index or reads one
play_action = njit(inline="always")(_actions.play_action)
move_action = njit(inline="always")(_actions.move_action)
play_card_of = njit(inline="always")(_actions.play_card_of)
play_pile_of = njit(inline="always")(_actions.play_pile_of)
move_src = njit(inline="always")(_actions.move_src)
move_dst = njit(inline="always")(_actions.move_dst)
is_play = njit(inline="always")(_actions.is_play)
is_pile_move = njit(inline="always")(_actions.is_pile_move)

LEN, TOP_RANK, TOP_COLOUR, ACC = 0, 1, 2, 3
PINFO = 4

# columns of S
CUR, DRAWN, PLAYED, MOVED, IDLE, OVER, WINNER, BLOCKED, MOVES, DEALER, NP, SLEN, OPENED = range(13)
TRUNC = 13  # the env cut the deal off after max_moves
JR, JC = 14, 16  # joker values: rank at JR + j, colour at JC + j
LEARNER = 18  # the vector env's learner seat
LSTEPS = 19  # learner actions this episode (an illegal one that ends it too)
LOGLEN = 20  # moves logged this deal
CLEARED = 21  # complete piles cleared into the stock this deal (engine.GameState.cleared)
FIRST = 22  # no turn of the deal has ended yet (engine.GameState.first_turn)
MAX_CLEARED = _rules.MAX_CLEARED
NUM_S = 24

# columns of R: each rule a deal reads at its column of ``rules.RULE_CODES`` (a flag is 1 when the
# rule's value is the second one there), then the env's two and the penalties
_RULE = {rule.field: rule for rule in _rules.DEAL_RULES}
R_DRAW = _RULE["draw"].column
R_KINGS_ON_SIDES = _RULE["kings_on_sides"].column
R_TO_CORNER = _RULE["cross_kings"].column
R_PILE_MOVES = _RULE["pile_moves"].column
R_MUST_PLAY = _RULE["must_play"].column
R_KING_FIRST = _RULE["king_first"].column
R_FILL_FIRST = _RULE["fill_spaces_first"].column
R_SAME_SUIT = _RULE["corner_build"].column
R_CLEAR = _RULE["clear_complete_piles"].column
R_FEWEST = _RULE["blocked"].column
R_JOKERS = _RULE["jokers"].column  # how many
R_HAND_SIZE = _RULE["hand_size"].column
R_NO_MOVES = _RULE["blocked_when"].column
R_FIRST_RANDOM = _RULE["first_player"].column
R_CROSS_FIRST_TURN = _RULE["cross_king_move"].column
R_JOKER_SIDE = _RULE["joker_on_empty_side"].column
R_MAX_MOVES = len(_rules.DEAL_RULES)  # the env cuts a deal off after this many moves
R_REWARD = R_MAX_MOVES + 1  # REWARD_*
R_PEN = R_REWARD + 1  # 14 penalties: ranks A..K, then the joker
NUM_R = R_PEN + 14
DRAW_START, DRAW_END, DRAW_STUCK = (_RULE["draw"].code(v) for v in ("start", "end", "stuck"))
MOVES_WHOLE, MOVES_NONE, MOVES_PARTIAL = (_RULE["pile_moves"].code(v) for v in ("whole", "none", "partial"))
MUST_OPTIONAL, MUST_ALL, MUST_ALL_MOVES = (_RULE["must_play"].code(v) for v in ("optional", "all", "all_moves"))
KING_FIRST_OFF, KING_FIRST_BEFORE_OTHERS, KING_FIRST_BEFORE_ENDING = (
    _RULE["king_first"].code(v) for v in (False, "before_others", "before_ending"))
REWARD_WIN_LOSS, REWARD_SCORE = 0, 1

# -- observation layout (kc_env.observation, layout 2) ----------------------------------------

OBS_SIZE = _obs.OBS_SIZE
RULES_START = _obs.RULES_START
RULES_SIZE = OBS_SIZE - RULES_START
O_HAND_SIZE = _obs.SLICES["hand_size"].start
O_PILES = _obs.PILE_START
O_PILE_BLOCK = _obs.PILE_BLOCK
O_CARDS, O_TOP, O_BOTTOM = _obs._CARDS, _obs._TOP, _obs._BOTTOM  # inside a pile block
O_LENGTH = _obs._LENGTH
O_TOP_RANK = _obs._TOP_RANK
O_TOP_COLOUR = _obs._TOP_COLOUR
O_OTHERS = _obs.SLICES["others_hand_sizes"].start
O_STOCK = _obs.SLICES["stock_size"].start
O_SCORES = _obs.SLICES["scores"].start
O_DRAWN = _obs.SLICES["drawn"].start
O_PLAYED = _obs.SLICES["played"].start
O_MOVED = _obs.SLICES["moved"].start
O_IDLE = _obs.SLICES["idle_turns"].start
O_MY_TURN = _obs.SLICES["my_turn"].start
O_TO_ACT = _obs.SLICES["to_act"].start
O_DEALER = _obs.SLICES["dealer"].start
O_NUM_PLAYERS = _obs.SLICES["num_players"].start
O_FIRST_TURN = _obs.SLICES["first_turn"].start

MT_N = 624  # Mersenne Twister state words; mt[b, MT_N] is the index (Random.getstate()[1])

# -- the state as named structures (numba passes a namedtuple of arrays by value and reads
# ``g.S[b, CUR]`` as fast as a positional array) -------------------------------------------

Games = namedtuple("Games", "piles pinfo hands stock S R mt")
Games.__doc__ = """The state of ``size`` games, one row each (layout in the module docstring): what
the batched entry points and the rule functions take as ``g`` (``play_card(g, b, card, pile)``)."""

EnvBuffers = namedtuple("EnvBuffers", "rng opp_kind kinds log rules_vecs obs masks rewards status opp_obs opp_mask "
                                      "deal_seeds")
EnvBuffers.__doc__ = """The vector env's per-game buffers beside ``Games``, what ``new_episodes`` and
``env_advance`` take as ``e``: ``rng`` (uint64, each game's SplitMix64 state: deal seeds, dealers,
learner seats, random opponents), ``opp_kind[b, seat]`` (this deal's kind per seat: 0 the learner
or a random opponent played here, k > 0 the env's k-th outside policy), ``kinds[b, j]`` (the kind
of the opponent ``j + 1`` seats to the learner's left, for the next deals), ``log[b]`` (int16,
every move of the deal, ``S[b, LOGLEN]`` of them), ``rules_vecs[b]`` (the observation's rules
section), the learner's ``obs[b]``, ``masks[b]`` (bool) and ``rewards[b]``, ``status[b]``
(``READY``...), the waiting outside opponent's ``opp_obs[b]`` and ``opp_mask[b]`` (int8), and
``deal_seeds[b]``, the seed of the deal in play."""


Endings = namedtuple("Endings", "S status deal_seeds rewards obs logs waiting")
Endings.__doc__ = """What the episodes that ended in a step leave behind (``keep_ending``), row ``b`` for
game ``b``, kept before their next deals overwrite it: its scalars
``S``, ``status`` (``DONE`` or ``ILLEGAL``), the deal's seed, the learner's reward, its last
observation and, with ``logs`` of one row per game (else none), the deal's moves; ``waiting[0]``:
how many of them still wait for a deal (``learner_step``)."""


def alloc_endings(size: int, log_size: int) -> Endings:
    """``Endings`` for ``size`` games; ``log_size`` 0 keeps no moves."""
    return Endings(S=np.zeros((size, NUM_S), dtype=np.int64),
                   status=np.zeros(size, dtype=np.int64), deal_seeds=np.zeros(size, dtype=np.int64),
                   rewards=np.zeros(size, dtype=np.float64), obs=np.zeros((size, OBS_SIZE), dtype=np.float32),
                   logs=np.zeros((size if log_size else 0, log_size), dtype=np.int16),
                   waiting=np.zeros(1, dtype=np.int64))


def alloc_games(size: int) -> Games:
    """Zeroed state arrays for ``size`` games."""
    return Games(piles=np.zeros((size, 8, PILE_CAP), dtype=np.int8), pinfo=np.zeros((size, 8, PINFO), dtype=np.int64),
                 hands=np.zeros((size, MAX_SEATS), dtype=np.int64), stock=np.zeros((size, STOCK_CAP), dtype=np.int8),
                 S=np.zeros((size, NUM_S), dtype=np.int64), R=np.zeros((size, NUM_R), dtype=np.int64),
                 mt=np.zeros((size, MT_N + 1), dtype=np.int64))


# status of a game after env_advance
READY, DONE, NEED_OPP, ILLEGAL = 0, 1, 2, 3
# what env_advance does first, per game
MODE_ACT, MODE_RESUME, MODE_OPP = 0, 1, 2

borrowing = njit(_nrt=False)
"""How the rule functions and the compiled agents' walks over a state compile: ``njit`` without
numba's reference counting (``_nrt=False``). They take the state whole and neither allocate nor
keep an array, so counting the references to its arrays (numba counts one for every field read
from a namedtuple) would only cost: the compiled engine (``play_random``) plays about twice the
moves per second without it. What such a function calls compiles so too unless it says
otherwise (numba passes the flag on): a callee that allocates is marked ``njit(_nrt=True)``,
else it fails to compile."""

stepping = njit(_nrt=False, inline="always")
"""The vector env's per-game steps (``advance``, ``new_episode``, ``keep_ending``): ``borrowing``,
and inlined into the loops that call them (numba's own inlining), which pass the state
(``Games``, ``EnvBuffers``: about a hundred machine words) on to them once per game."""

_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.array([
    0, 1, 48, 2, 57, 49, 28, 3, 61, 58, 50, 42, 38, 29, 17, 4, 62, 55, 59, 36, 53, 51, 43, 22, 45, 39,
    33, 30, 24, 18, 12, 5, 63, 47, 56, 27, 60, 41, 37, 16, 54, 35, 52, 21, 44, 32, 23, 11, 46, 26, 40,
    15, 34, 20, 31, 10, 25, 14, 19, 9, 13, 8, 7, 6], dtype=np.int64)


# -- bits ------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def low_bit_index(m):
    """Index of the lowest set bit of ``m`` (m != 0, bits 0..53); unsigned, as ``popcount``."""
    return _DEBRUIJN_INDEX[np.int64((np.uint64(m & -m) * _DEBRUIJN) >> np.uint64(58))]


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a mask of bits 0..53. In unsigned arithmetic: the signed form's
    multiply overflows int64, which LLVM may take for impossible, and it then folded
    ``popcount(x) > 1`` to True for one card of index 8 or more (``tests/test_popcount.py``)."""
    y = np.uint64(x)
    y = y - ((y >> np.uint64(1)) & np.uint64(0x5555555555555555))
    y = (y & np.uint64(0x3333333333333333)) + ((y >> np.uint64(2)) & np.uint64(0x3333333333333333))
    y = (y + (y >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((y * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def bit(c):
    return np.int64(1) << c


# -- CPython's random.Random: Mersenne Twister, seeding by an int, shuffle --------------------

_M32 = 0xFFFFFFFF


def _init_genrand_19650218() -> np.ndarray:
    mt = np.zeros(MT_N + 1, dtype=np.int64)
    mt[0] = 19650218
    for i in range(1, MT_N):
        mt[i] = (1812433253 * (int(mt[i - 1]) ^ (int(mt[i - 1]) >> 30)) + i) & _M32
    mt[MT_N] = MT_N
    return mt


_MT_19650218 = _init_genrand_19650218()


@njit(cache=True)
def mt_seed(mt, b, seed):
    """``random.Random(seed)`` for an int 0 <= seed < 2**63: init_by_array over its 32-bit words
    (one word below 2**32, else two, low first). CPython's loops with their index wrapping
    written out: each step needs the word before it, so the loops run in order, and the wrap
    (``mt[0] = mt[623]``, go on at 1) comes where it falls in each."""
    row = mt[b]
    for i in range(MT_N + 1):
        row[i] = _MT_19650218[i]  # init_genrand(19650218), the same for every seed
    low, high = seed & _M32, (seed >> 32) & _M32
    prev = row[0]
    for k in range(MT_N):  # max(624, key length) steps: i = 1..623, then 1 again after the wrap
        i = k + 1 if k + 1 < MT_N else 1
        j = k & 1 if high else 0
        prev = ((row[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + (high if j else low) + j) & _M32
        row[i] = prev
        if i == MT_N - 1:
            row[0] = prev
    for k in range(MT_N - 1):  # 623 steps: i = 2..623, then 1 after the wrap
        i = k + 2 if k + 2 < MT_N else 1
        prev = ((row[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - i) & _M32
        row[i] = prev
        if i == MT_N - 1:
            row[0] = prev
    row[0] = 0x80000000


@njit(cache=True)
def mt_twist(mt, b):
    """The generation step of genrand_uint32: the next 624 words, in the three stretches where
    word ``k + 397`` is still the old one, is already new, and the last word (its neighbour is
    the new word 0): branch-free, so the first two compile to vector code."""
    row = mt[b]
    for k in range(MT_N - 397):
        y = (row[k] & 0x80000000) | (row[k + 1] & 0x7FFFFFFF)
        row[k] = row[k + 397] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    for k in range(MT_N - 397, MT_N - 1):
        y = (row[k] & 0x80000000) | (row[k + 1] & 0x7FFFFFFF)
        row[k] = row[k + 397 - MT_N] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    y = (row[MT_N - 1] & 0x80000000) | (row[0] & 0x7FFFFFFF)
    row[MT_N - 1] = row[396] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    row[MT_N] = 0


@njit(cache=True)
def mt_next(mt, b):
    """genrand_uint32 of CPython's _randommodule.c."""
    if mt[b, MT_N] >= MT_N:
        mt_twist(mt, b)
    y = mt[b, mt[b, MT_N]]
    mt[b, MT_N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & _M32


@njit(cache=True)
def mt_randbelow(mt, b, n):
    """Random._randbelow_with_getrandbits(n) for 1 <= n < 2**32."""
    k = 0
    while (n >> k) > 0:
        k += 1
    r = mt_next(mt, b) >> (32 - k)
    while r >= n:
        r = mt_next(mt, b) >> (32 - k)
    return r


@njit(cache=True)
def mt_shuffle(mt, b, x, n):
    """Random.shuffle of the first ``n`` items of the row ``x``."""
    for i in range(n - 1, 0, -1):
        j = mt_randbelow(mt, b, i + 1)
        t = x[i]
        x[i] = x[j]
        x[j] = t


# -- values and fits (engine: value, _corner_suit, _accepts, _joker_value_on, _link_ok) --------

@borrowing
def card_rank(g, b, c):
    """engine.value(state, c)[0]."""
    S = g.S
    if c >= 52:
        return S[b, JR + c - 52]
    return RANK[c]


@borrowing
def card_colour(g, b, c):
    """engine.value(state, c)[1]."""
    S = g.S
    if c >= 52:
        return S[b, JC + c - 52]
    return COLOUR[c]


@borrowing
def corner_suit(g, b, p):
    """engine._corner_suit: the suit of the first real card from the bottom, -1 for None."""
    piles, pinfo = g.piles, g.pinfo
    for i in range(pinfo[b, p, LEN]):
        c = piles[b, p, i]
        if c < 52:
            return SUIT[c]
    return -1


@borrowing
def same_suit_corner(g, b, p):
    """engine._is_same_suit_corner."""
    R = g.R
    return p >= 4 and R[b, R_SAME_SUIT] != 0


@borrowing
def accepts(g, b, p):
    """engine._accepts: bitmask of the cards that may be played from hand onto pile ``p``."""
    pinfo, R = g.pinfo, g.R
    if pinfo[b, p, LEN] == 0:
        if p >= 4:
            return KING_MASK | JOKER_MASK
        jokers = JOKER_MASK if R[b, R_JOKER_SIDE] else np.int64(0)
        if R[b, R_KINGS_ON_SIDES]:
            return ALL_REAL | jokers
        return (ALL_REAL & ~KING_MASK) | jokers
    rank = pinfo[b, p, TOP_RANK]
    colour = pinfo[b, p, TOP_COLOUR]
    if rank == 1:
        return np.int64(0)
    if same_suit_corner(g, b, p):
        suit = corner_suit(g, b, p)
        below = RANK_MASK[rank - 1]
        if suit >= 0:
            below &= SUIT_MASK[suit]
        return below | JOKER_MASK
    if colour == NO_COLOUR:
        return RANK_MASK[rank - 1] | JOKER_MASK
    return RANK_COLOUR_MASK[rank - 1, 1 - colour] | JOKER_MASK


@borrowing
def joker_value_on(g, b, p):
    """engine._joker_value_on(state, p, top_value[p]): (rank, colour) a joker takes on pile ``p``."""
    pinfo = g.pinfo
    if pinfo[b, p, LEN] == 0:
        return KING, NO_COLOUR
    rank = pinfo[b, p, TOP_RANK]
    colour = pinfo[b, p, TOP_COLOUR]
    if same_suit_corner(g, b, p):
        suit = corner_suit(g, b, p)
        if suit < 0:
            return rank - 1, NO_COLOUR
        return rank - 1, SUIT_COLOUR[suit]
    if colour == NO_COLOUR:
        return rank - 1, NO_COLOUR
    return rank - 1, 1 - colour


@borrowing
def link_ok(prev_rank, prev_colour, c, rank, colour, suit):
    """engine._link_ok (``suit`` -1 for None)."""
    if rank != prev_rank - 1:
        return False
    if suit >= 0:
        return c >= 52 or SUIT[c] == suit
    return prev_colour == NO_COLOUR or colour == NO_COLOUR or colour != prev_colour


@borrowing
def refresh(g, b, p):
    """engine._refresh: the cached top value and acceptance mask of pile ``p``."""
    piles, pinfo = g.piles, g.pinfo
    n = pinfo[b, p, LEN]
    if n:
        top = piles[b, p, n - 1]
        pinfo[b, p, TOP_RANK] = card_rank(g, b, top)
        pinfo[b, p, TOP_COLOUR] = card_colour(g, b, top)
    else:
        pinfo[b, p, TOP_RANK] = 0
        pinfo[b, p, TOP_COLOUR] = 0
    pinfo[b, p, ACC] = accepts(g, b, p)


# -- pile moves (engine: _pile_moves, _fits_a_corner, _part_start, _part_fits) -----------------

@borrowing
def part_fits(g, b, p, i, q):
    """engine._part_fits(state, piles[p][i:], q)."""
    piles, pinfo, S = g.piles, g.pinfo, g.S
    same = same_suit_corner(g, b, q)
    suit = corner_suit(g, b, q) if same else -1
    prev_rank = pinfo[b, q, TOP_RANK]
    prev_colour = pinfo[b, q, TOP_COLOUR]
    unsuited = 0  # bit k: a joker of colour k laid on a same-suit corner before its suit is known
    for j in range(i, pinfo[b, p, LEN]):
        c = piles[b, p, j]
        if c >= 52:
            rank = prev_rank - 1
            if same:
                colour = NO_COLOUR if suit < 0 else SUIT_COLOUR[suit]
            else:
                colour = NO_COLOUR if prev_colour == NO_COLOUR else 1 - prev_colour
            old = S[b, JC + c - 52]
            if colour != NO_COLOUR and old != NO_COLOUR and colour != old:
                return False
            if same and suit < 0 and old != NO_COLOUR:
                unsuited |= 1 << old
        else:
            rank = RANK[c]
            colour = COLOUR[c]
            if j > i and not link_ok(prev_rank, prev_colour, c, rank, colour, suit):
                return False
            if same and suit < 0:
                suit = SUIT[c]
                if unsuited & ~(1 << SUIT_COLOUR[suit]):
                    return False
        prev_rank = rank
        prev_colour = colour
    return True


@borrowing
def part_start(g, b, p, q):
    """engine._part_start: where the part of pile ``p`` that may move onto the non-empty pile
    ``q`` starts, or -1."""
    piles, pinfo, S, R = g.piles, g.pinfo, g.S, g.R
    n = pinfo[b, p, LEN]
    i = card_rank(g, b, piles[b, p, 0]) - (pinfo[b, q, TOP_RANK] - 1)
    if i < 0 or i >= n or (i > 0 and (R[b, R_PILE_MOVES] != MOVES_PARTIAL or S[b, MOVED])):
        return -1  # a part that leaves cards behind only as the turn's first pile move
    x = piles[b, p, i]
    if x < 52 and not (pinfo[b, q, ACC] >> x) & 1:
        return -1
    needs_walk = same_suit_corner(g, b, p) or same_suit_corner(g, b, q)
    if not needs_walk:
        for j in range(i, n):
            if piles[b, p, j] >= 52:
                needs_walk = True
                break
    if needs_walk and not part_fits(g, b, p, i, q):
        return -1
    return i


@borrowing
def pile_moves(g, b, out, k, first_only):
    """engine._pile_moves: appends the action indices to ``out`` from ``k`` on, returns the new
    count (``first_only``: stop at the first one, for ``has_play_or_pile_move``)."""
    piles, pinfo, S, R = g.piles, g.pinfo, g.S, g.R
    empty_corners = 0
    for c in range(4, 8):
        if pinfo[b, c, LEN] == 0:
            empty_corners += 1
    mode = R[b, R_PILE_MOVES]
    for p in range(8):
        n = pinfo[b, p, LEN]
        if n == 0:
            continue
        bottom = piles[b, p, 0]
        if p < 4 and empty_corners > 0 and bottom < 52 and RANK[bottom] == KING and (
                R[b, R_SAME_SUIT] == 0 or n == 1) and (R[b, R_CROSS_FIRST_TURN] == 0 or S[b, FIRST]):
            for c in range(4, 8):
                if pinfo[b, c, LEN] == 0:
                    out[k] = move_action(p, c)
                    k += 1
                    if first_only:
                        return k
        if mode == MOVES_NONE:
            continue
        bottom_rank = card_rank(g, b, bottom)
        for q in range(8):
            if q == p or pinfo[b, q, LEN] == 0:
                continue
            if mode == MOVES_WHOLE and pinfo[b, q, TOP_RANK] != bottom_rank + 1:
                continue
            if part_start(g, b, p, q) >= 0:
                out[k] = move_action(p, q)
                k += 1
                if first_only:
                    return k
    return k


@borrowing
def legal_actions(g, b, out):
    """engine.legal_moves as action indices written to ``out``; returns how many (0 once over).
    Card plays first, then pile moves, then end turn (the engine's order)."""
    pinfo, hands, S, R = g.pinfo, g.hands, g.S, g.R
    if S[b, OVER]:
        return 0
    hand = hands[b, S[b, CUR]]
    k = np.int64(0)  # not a literal 0, which would compile pile_moves once more for it
    king_and_corner = False
    if R[b, R_KING_FIRST] and hand & KING_MASK:
        for c in range(4, 8):
            if pinfo[b, c, LEN] == 0:
                king_and_corner = True
    if king_and_corner and R[b, R_KING_FIRST] == KING_FIRST_BEFORE_OTHERS:  # only kings into corners, no pile moves
        for p in range(4, 8):
            m = hand & pinfo[b, p, ACC] & KING_MASK
            while m:
                c = low_bit_index(m)
                m &= m - 1
                out[k] = play_action(c, p)
                k += 1
        plays = k
    else:
        fill = False
        if R[b, R_FILL_FIRST]:
            for p in range(4):
                if pinfo[b, p, LEN] == 0 and hand & pinfo[b, p, ACC]:
                    fill = True
        for p in range(8):
            if fill and (p >= 4 or pinfo[b, p, LEN] != 0):
                continue
            m = hand & pinfo[b, p, ACC]
            while m:
                c = low_bit_index(m)
                m &= m - 1
                out[k] = play_action(c, p)
                k += 1
        plays = k
        k = pile_moves(g, b, out, k, False)
    must = R[b, R_MUST_PLAY]  # engine._end_held_by
    may_end = not ((must != MUST_OPTIONAL and plays > 0) or (must == MUST_ALL_MOVES and k > 0))
    if may_end and not (king_and_corner and R[b, R_KING_FIRST] == KING_FIRST_BEFORE_ENDING):
        out[k] = END_TURN_ACTION
        k += 1
    return k


@borrowing
def has_play_or_pile_move(g, b, scratch):
    """engine.has_play_or_pile_move (for ``draw: stuck``)."""
    pinfo, hands, S = g.pinfo, g.hands, g.S
    hand = hands[b, S[b, CUR]]
    for p in range(8):
        if hand & pinfo[b, p, ACC]:
            return True
    return pile_moves(g, b, scratch, np.int64(0), np.bool_(True)) > 0


@borrowing
def is_legal(g, b, a, scratch):
    """Whether action ``a`` is among ``legal_actions`` (any int; False outside 0..496)."""
    if a < 0 or a >= NUM_ACTIONS:
        return False
    n = legal_actions(g, b, scratch)
    for i in range(n):
        if scratch[i] == a:
            return True
    return False


# -- applying moves (engine: apply, _play, _move_pile, _after_pile_grew, _end_turn, ...) ------

@borrowing
def draw_card(g, b):
    hands, stock, S = g.hands, g.stock, g.S
    S[b, SLEN] -= 1
    hands[b, S[b, CUR]] |= bit(stock[b, S[b, SLEN]])


@borrowing
def after_pile_grew(g, b, p):
    """engine._after_pile_grew: a complete pile goes into the stock, which is reshuffled."""
    piles, pinfo, stock, S, R, mt = g.piles, g.pinfo, g.stock, g.S, g.R, g.mt
    n = pinfo[b, p, LEN]
    if R[b, R_CLEAR] and n == 13:
        for i in range(n):
            c = piles[b, p, i]
            if c >= 52:
                S[b, JR + c - 52] = 0
                S[b, JC + c - 52] = 0
            stock[b, S[b, SLEN]] = c
            S[b, SLEN] += 1
        pinfo[b, p, LEN] = 0
        mt_shuffle(mt, b, stock[b], S[b, SLEN])
        S[b, CLEARED] += 1
    refresh(g, b, p)


@borrowing
def play_card(g, b, c, p):
    """engine._play."""
    piles, pinfo, hands, S = g.piles, g.pinfo, g.hands, g.S
    seat = S[b, CUR]
    hands[b, seat] &= ~bit(c)
    if c >= 52:
        rank, colour = joker_value_on(g, b, p)
        S[b, JR + c - 52] = rank
        S[b, JC + c - 52] = colour
    n = pinfo[b, p, LEN]
    piles[b, p, n] = c
    pinfo[b, p, LEN] = n + 1
    S[b, PLAYED] = 1
    after_pile_grew(g, b, p)
    if hands[b, seat] == 0:
        S[b, OVER] = 1
        S[b, WINNER] = seat


@borrowing
def move_pile(g, b, p, q):
    """engine._move_pile."""
    piles, pinfo, S = g.piles, g.pinfo, g.S
    i = 0 if pinfo[b, q, LEN] == 0 else part_start(g, b, p, q)
    n = pinfo[b, p, LEN]
    for j in range(i, n):
        c = piles[b, p, j]
        if c >= 52:
            rank, colour = joker_value_on(g, b, q)
            S[b, JR + c - 52] = rank
            S[b, JC + c - 52] = colour
        m = pinfo[b, q, LEN]
        piles[b, q, m] = c
        pinfo[b, q, LEN] = m + 1
        pinfo[b, q, TOP_RANK] = card_rank(g, b, c)
        pinfo[b, q, TOP_COLOUR] = card_colour(g, b, c)
    pinfo[b, p, LEN] = i
    S[b, MOVED] = 1
    if i == 0:
        S[b, OPENED] = 1
    refresh(g, b, p)
    after_pile_grew(g, b, q)


@borrowing
def begin_turn(g, b, scratch):
    """engine._begin_turn: the start-of-turn draw (``start``), or the draw when stuck."""
    S, R = g.S, g.R
    S[b, DRAWN] = 0
    S[b, PLAYED] = 0
    S[b, MOVED] = 0
    S[b, OPENED] = 0
    draw = R[b, R_DRAW]
    if S[b, SLEN] == 0 or draw == DRAW_END:
        return
    if draw == DRAW_START or not has_play_or_pile_move(g, b, scratch):
        draw_card(g, b)
        S[b, DRAWN] = 1


@borrowing
def finish_blocked(g, b):
    """engine._finish_blocked."""
    hands, S, R = g.hands, g.S, g.R
    S[b, BLOCKED] = 1
    S[b, OVER] = 1
    S[b, WINNER] = -1
    if R[b, R_FEWEST]:
        fewest = 99
        count = 0
        winner = -1
        for seat in range(S[b, NP]):
            size = popcount(hands[b, seat])
            if size < fewest:
                fewest = size
                count = 1
                winner = seat
            elif size == fewest:
                count += 1
        if count == 1:
            S[b, WINNER] = winner


@borrowing
def is_blocked(g, b, scratch):
    """engine.is_blocked, when a turn ends (its flags cleared)."""
    S, R = g.S, g.R
    limit = S[b, NP] * (2 if R[b, R_NO_MOVES] else 1)  # engine.idle_limit
    if S[b, IDLE] >= limit or S[b, CLEARED] >= MAX_CLEARED:
        return True
    return R[b, R_NO_MOVES] != 0 and S[b, SLEN] == 0 and not anyone_can_move(g, b, scratch)


@borrowing
def anyone_can_move(g, b, scratch):
    """engine.anyone_can_move."""
    pinfo, hands, S = g.pinfo, g.hands, g.S
    for seat in range(S[b, NP]):
        for p in range(8):
            if hands[b, seat] & pinfo[b, p, ACC]:
                return True
    return pile_moves(g, b, scratch, np.int64(0), np.bool_(True)) > 0


@borrowing
def end_turn(g, b, scratch):
    """engine._end_turn."""
    S, R = g.S, g.R
    seat = S[b, CUR]
    drew = S[b, DRAWN]
    if R[b, R_DRAW] == DRAW_END and S[b, SLEN] > 0:
        draw_card(g, b)
        drew = 1
    if S[b, PLAYED] or S[b, OPENED] or drew:  # engine.made_progress
        S[b, IDLE] = 0
    else:
        S[b, IDLE] += 1
    S[b, DRAWN] = 0
    S[b, PLAYED] = 0
    S[b, MOVED] = 0
    S[b, OPENED] = 0
    S[b, FIRST] = 0
    if is_blocked(g, b, scratch):
        finish_blocked(g, b)
        return
    S[b, CUR] = (seat + 1) % S[b, NP]
    begin_turn(g, b, scratch)


@borrowing
def apply_action(g, b, a, scratch):
    """engine.apply of a legal action index, then the env's truncation after max_moves
    (``kings_corner_v0.raw_env.step``)."""
    S, R = g.S, g.R
    S[b, MOVES] += 1
    if a < MOVE_OFFSET:
        play_card(g, b, play_card_of(a), play_pile_of(a))
    elif a < END_TURN_ACTION:
        move_pile(g, b, move_src(a), move_dst(a))
    else:
        end_turn(g, b, scratch)
    if not S[b, OVER] and S[b, MOVES] >= R[b, R_MAX_MOVES]:
        S[b, TRUNC] = 1


# -- dealing (engine: new_deal, _deal_cross) --------------------------------------------------

@borrowing
def deal(g, b, seed, dealer, n, scratch):
    """engine.new_deal(rules, n, seed=seed, dealer=dealer) into game ``b``: shuffle, hands one
    card at a time from the dealer's left, the cross (kings to corners under ``to_corner``, a
    joker to the bottom of the stock), then the first turn begins. ``LEARNER`` is kept."""
    piles, pinfo, hands, stock, S, R, mt = g.piles, g.pinfo, g.hands, g.stock, g.S, g.R, g.mt
    learner = S[b, LEARNER]
    S[b, :] = 0
    S[b, LEARNER] = learner
    S[b, WINNER] = -1
    S[b, NP] = n
    S[b, DEALER] = dealer
    mt_seed(mt, b, seed)
    size = 52 + R[b, R_JOKERS]
    for c in range(size):
        stock[b, c] = c
    mt_shuffle(mt, b, stock[b], size)
    for seat in range(MAX_SEATS):
        hands[b, seat] = 0
    top = size
    for i in range(R[b, R_HAND_SIZE] * n):
        top -= 1
        hands[b, (dealer + 1 + i) % n] |= bit(stock[b, top])
    for p in range(8):
        pinfo[b, p, LEN] = 0
    real = 0
    for i in range(top):
        if stock[b, i] < 52:
            real += 1
    for side in range(4):
        while pinfo[b, side, LEN] == 0 and real > 0:
            top -= 1
            c = stock[b, top]
            if c >= 52 and R[b, R_JOKER_SIDE]:  # it stands for a king of no colour
                S[b, JR + c - 52] = KING
                S[b, JC + c - 52] = NO_COLOUR
            elif c >= 52:  # a joker cannot start a side: to the bottom of the stock
                for i in range(top, 0, -1):
                    stock[b, i] = stock[b, i - 1]
                stock[b, 0] = c
                top += 1
                continue
            if c < 52:
                real -= 1
            if c < 52 and R[b, R_TO_CORNER] and RANK[c] == KING:
                corner = -1
                for k in range(4, 8):
                    if pinfo[b, k, LEN] == 0:
                        corner = k
                        break
                if corner >= 0:
                    piles[b, corner, 0] = c
                    pinfo[b, corner, LEN] = 1
                    continue
            piles[b, side, 0] = c
            pinfo[b, side, LEN] = 1
    S[b, SLEN] = top
    S[b, CUR] = (dealer + 1) % n
    S[b, FIRST] = 1
    if R[b, R_FIRST_RANDOM]:  # engine: rng.randrange(n)
        S[b, CUR] = mt_randbelow(mt, b, n)
    for p in range(8):
        refresh(g, b, p)
    begin_turn(g, b, scratch)


# -- rewards (kings_corner_v0: _give_win_loss, _give_score) -----------------------------------

@borrowing
def hand_penalty(hand, R, b):
    """engine.hand_penalty by the rules' table (``R_PEN`` columns)."""
    total = 0
    m = hand
    while m:
        c = low_bit_index(m)
        m &= m - 1
        if c >= 52:
            total += R[b, R_PEN + 13]
        else:
            total += R[b, R_PEN + RANK[c] - 1]
    return total


@borrowing
def seat_reward(g, b, seat):
    """The reward ``kings_corner_v0`` gives ``seat`` when a one-deal episode ends (0 if cut off)."""
    hands, S, R = g.hands, g.S, g.R
    if S[b, TRUNC] or not S[b, OVER]:
        return 0.0
    n = S[b, NP]
    winner = S[b, WINNER]
    if R[b, R_REWARD] == REWARD_WIN_LOSS:
        if winner < 0:
            return 0.0
        if seat == winner:
            return 1.0
        return -1.0 / (n - 1)
    top = 1
    for i in range(14):
        if R[b, R_PEN + i] > top:
            top = R[b, R_PEN + i]
    norm = R[b, R_HAND_SIZE] * top
    penalty = 0 if seat == winner else hand_penalty(hands[b, seat], R, b)
    return 0.0 + (-penalty / norm)


# -- observations and masks (observation.encode, actions.legal_mask) --------------------------

@borrowing
def encode(g, b, seat, rules_vec, out):
    """observation.encode(state, seat, totals=None) written into the float32 row ``out``."""
    piles, pinfo, hands, S = g.piles, g.pinfo, g.hands, g.S
    out[:RULES_START] = 0.0
    for i in range(RULES_SIZE):  # a loop, not a slice copy, which would need reference counting
        out[RULES_START + i] = rules_vec[i]
    n = S[b, NP]
    hand = hands[b, seat]
    m = hand
    while m:
        out[low_bit_index(m)] = 1.0
        m &= m - 1
    out[O_HAND_SIZE] = popcount(hand) / 54.0
    for p in range(8):
        length = pinfo[b, p, LEN]
        if length == 0:
            continue
        at = O_PILES + p * O_PILE_BLOCK
        for i in range(length):
            out[at + O_CARDS + piles[b, p, i]] = 1.0
        out[at + O_TOP + piles[b, p, length - 1]] = 1.0
        out[at + O_BOTTOM + piles[b, p, 0]] = 1.0
        out[at + O_LENGTH] = length / 13.0
        out[at + O_TOP_RANK + pinfo[b, p, TOP_RANK] - 1] = 1.0
        colour = pinfo[b, p, TOP_COLOUR]
        out[at + O_TOP_COLOUR + (2 if colour == NO_COLOUR else colour)] = 1.0
    for k in range(1, n):
        out[O_OTHERS + k - 1] = popcount(hands[b, (seat + k) % n]) / 54.0
    out[O_STOCK] = S[b, SLEN] / 54.0
    out[O_DRAWN] = S[b, DRAWN]
    out[O_PLAYED] = S[b, PLAYED]
    out[O_MOVED] = S[b, MOVED]
    out[O_IDLE] = min(S[b, IDLE] / n, 1.0)
    out[O_MY_TURN] = 1.0 if (S[b, OVER] == 0 and S[b, CUR] == seat) else 0.0
    out[O_TO_ACT + (S[b, CUR] - seat) % n] = 1.0
    out[O_DEALER + (S[b, DEALER] - seat) % n] = 1.0
    out[O_NUM_PLAYERS + n - 2] = 1.0
    out[O_FIRST_TURN] = S[b, FIRST]


@borrowing
def write_mask(g, b, out, scratch):
    """actions.legal_mask(state) into the row ``out`` (any numeric dtype); returns the count."""
    out[:] = 0
    n = legal_actions(g, b, scratch)
    for i in range(n):
        out[scratch[i]] = 1
    return n


# -- batched entry points (``g``: a ``Games``) ------------------------------------------------

@njit(cache=True)
def apply_batch(idx, acts, g):
    """Apply ``acts[i]`` for the player to act in game ``idx[i]`` (no legality check: the caller
    has checked the mask)."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    for i in range(idx.shape[0]):
        apply_action(g, idx[i], acts[i], scratch)


@njit(cache=True)
def deal_batch(idx, seeds, dealers, nps, g):
    """``deal`` game ``idx[i]`` with ``seeds[i]``, ``dealers[i]`` and ``nps[i]`` players."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    for i in range(idx.shape[0]):
        deal(g, idx[i], seeds[i], dealers[i], nps[i], scratch)


@njit(cache=True)
def legal_batch(idx, g, out):
    """The legal mask of the player to act in each game ``idx[i]``, into ``out[i]``."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    for i in range(idx.shape[0]):
        write_mask(g, idx[i], out[i], scratch)


@borrowing
def encode_batch(idx, seats, g, rules_vecs, out):
    """The observation of seat ``seats[i]`` in game ``idx[i]``, into ``out[i]``."""
    for i in range(idx.shape[0]):
        b = idx[i]
        encode(g, b, seats[i], rules_vecs[b], out[i])


@borrowing
def refresh_batch(idx, g):
    """Recompute every pile's cache of games loaded from outside."""
    for i in range(idx.shape[0]):
        for p in range(8):
            refresh(g, idx[i], p)


@borrowing
def end_cut_off_batch(idx, g):
    """End each deal of games ``idx`` that was cut off after ``max_moves`` (``TRUNC``, not
    ``OVER``) as a blocked deal (``finish_blocked``, as ``match.truncate`` ends one)."""
    for i in range(idx.shape[0]):
        b = idx[i]
        if g.S[b, TRUNC] and not g.S[b, OVER]:
            finish_blocked(g, b)


# -- the vector env's loop: learner action, then opponents until the learner is to act ---------

@njit(cache=True)
def splitmix64(state, b):
    """Next 64 random bits of game ``b``'s generator (SplitMix64), as uint64."""
    z = state[b] + np.uint64(0x9E3779B97F4A7C15)
    state[b] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def randbelow(state, b, n):
    """A random int in 0..n-1 (n >= 1) from game ``b``'s generator."""
    return np.int64((splitmix64(state, b) >> np.uint64(11)) % np.uint64(n))


@borrowing
def opponents_play(g, e, b, scratch):
    """Opponents play in game ``b`` until the learner is to act (READY), the deal has ended
    (DONE) or an outside opponent must choose (NEED_OPP, its view written to ``e.opp_obs[b]``,
    ``e.opp_mask[b]``). Random opponents choose here, from ``e.rng``."""
    S, rng, opp_kind, log, rules_vecs, opp_obs, opp_mask = g.S, e.rng, e.opp_kind, e.log, e.rules_vecs, e.opp_obs, e.opp_mask
    learner = S[b, LEARNER]
    cap = log.shape[1]
    while True:
        if S[b, OVER] or S[b, TRUNC]:
            return DONE
        seat = S[b, CUR]
        if seat == learner:
            return READY
        if opp_kind[b, seat] != 0:
            encode(g, b, seat, rules_vecs[b], opp_obs[b])
            write_mask(g, b, opp_mask[b], scratch)
            return NEED_OPP
        n = legal_actions(g, b, scratch)
        a = scratch[randbelow(rng, b, n)]
        if S[b, LOGLEN] < cap:
            log[b, S[b, LOGLEN]] = a
        S[b, LOGLEN] += 1
        apply_action(g, b, a, scratch)


@stepping
def new_episode(g, e, b, fixed_seat, fixed_dealer, max_redeals, scratch):
    """Deal game ``b``'s next episode and play its opponents until the learner is to act. The
    deal seed (63 bits, into ``e.deal_seeds``), dealer and learner seat are drawn from the game's
    own generator (a fixed seat or dealer >= 0 is kept); a deal that ends before the learner's
    first action is dealt again (``gym_env``'s rule), at most ``max_redeals`` times (then status
    DONE). ``e.kinds[b, j]`` is the kind of the opponent ``j + 1`` seats to the learner's left.
    Returns the game's status (``e.status[b]``)."""
    S, rng, opp_kind = g.S, e.rng, e.opp_kind
    n = S[b, NP]
    for _ in range(max_redeals):
        seed = np.int64(splitmix64(rng, b) >> np.uint64(1))
        dealer = randbelow(rng, b, n) if fixed_dealer < 0 else fixed_dealer
        learner = randbelow(rng, b, n) if fixed_seat < 0 else fixed_seat
        S[b, LEARNER] = learner
        deal(g, b, seed, dealer, n, scratch)
        e.deal_seeds[b] = seed
        for seat in range(n):
            opp_kind[b, seat] = 0 if seat == learner else e.kinds[b, (seat - learner) % n - 1]
        st = opponents_play(g, e, b, scratch)
        if st != DONE:
            break
    e.status[b] = st
    if st == READY:
        encode(g, b, learner, e.rules_vecs[b], e.obs[b])
        write_mask(g, b, e.masks[b], scratch)
    return st


@njit(cache=True)
def new_episodes(idx, g, e, fixed_seat, fixed_dealer, max_redeals):
    """``new_episode`` for each game ``idx[i]``. Returns how many games wait for an outside
    opponent (``NEED_OPP``)."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    waiting = 0
    for i in range(idx.shape[0]):
        waiting += new_episode(g, e, idx[i], fixed_seat, fixed_dealer, max_redeals, scratch) == NEED_OPP
    return waiting


@njit(cache=True)
def legal_choices(masks, rows, acts, legal):
    """``legal[i]``: whether ``acts[i]`` is a legal action in row ``rows[i]`` of ``masks`` (one
    outside 0 .. NUM_ACTIONS - 1 is not). The vector env checks with it every action it is handed
    (the learner's under ``illegal_action="raise"``, every outside opponent's) before any of them
    reaches ``env_advance``; ``apply_action`` itself checks nothing."""
    for i in range(len(acts)):
        a = acts[i]
        legal[i] = 0 <= a < NUM_ACTIONS and masks[rows[i], a] != 0


@stepping
def advance(g, e, b, mode, a, scratch):
    """Advance game ``b`` of the vector env (state ``g``, buffers ``e``) as far as it can go.

    ``mode``: ``MODE_ACT`` applies the learner's action ``a`` (status ``ILLEGAL`` and reward -1
    if ``e.masks[b]``, the learner's current mask, forbids it), ``MODE_OPP`` applies an outside
    opponent's ``a``, ``MODE_RESUME`` only continues. Then ``opponents_play``. On ``READY`` and
    ``DONE`` (``e.rewards[b]``: the learner's reward) the learner's observation and mask are
    written to ``e.obs[b]`` and ``e.masks[b]`` (on ``ILLEGAL`` only the mask, all False). Every
    move played is appended to ``e.log[b]``. Returns the game's status (``e.status[b]``)."""
    S, log, masks = g.S, e.log, e.masks
    learner = S[b, LEARNER]
    if mode != MODE_RESUME:
        if mode == MODE_ACT:
            S[b, LSTEPS] += 1  # every learner step, as SB3's Monitor counts: an ending illegal one too
            if a < 0 or a >= NUM_ACTIONS or not masks[b, a]:
                e.rewards[b] = -1.0
                e.status[b] = ILLEGAL
                masks[b, :] = False
                return ILLEGAL
        if S[b, LOGLEN] < log.shape[1]:
            log[b, S[b, LOGLEN]] = a
        S[b, LOGLEN] += 1
        apply_action(g, b, a, scratch)
    st = opponents_play(g, e, b, scratch)
    e.status[b] = st
    if st == READY or st == DONE:
        encode(g, b, learner, e.rules_vecs[b], e.obs[b])
        if st == DONE:
            e.rewards[b] = seat_reward(g, b, learner)
            masks[b, :] = False
        else:
            write_mask(g, b, masks[b], scratch)
    return st


@njit(cache=True)
def env_advance(idx, modes, acts, g, e):
    """``advance`` each game ``b = idx[i]`` in mode ``modes[i]`` with action ``acts[i]``.
    Returns how many games wait for an outside opponent (``NEED_OPP``)."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    waiting = 0
    for i in range(idx.shape[0]):
        waiting += advance(g, e, idx[i], modes[i], acts[i], scratch) == NEED_OPP
    return waiting


@stepping
def keep_ending(g, e, b, ends, k):
    """Copy what game ``b``'s ended episode leaves behind into row ``k`` of ``ends`` (an
    ``Endings``; the env keeps game ``b`` in row ``b``), before its next deal overwrites it: its
    scalars, status, deal seed, the learner's reward, last observation and (when ``ends.logs``
    has rows, ``record=True``) its moves."""
    for c in range(NUM_S):
        ends.S[k, c] = g.S[b, c]
    ends.status[k] = e.status[b]
    ends.deal_seeds[k] = e.deal_seeds[b]
    ends.rewards[k] = e.rewards[b]
    for i in range(OBS_SIZE):
        ends.obs[k, i] = e.obs[b, i]
    if ends.logs.shape[0]:
        for i in range(min(g.S[b, LOGLEN], e.log.shape[1])):
            ends.logs[k, i] = e.log[b, i]


@njit(cache=True)
def keep_endings(idx, g, e, ends):
    """``keep_ending`` for each game ``idx[i]``, into its own row."""
    for i in range(idx.shape[0]):
        keep_ending(g, e, idx[i], ends, idx[i])


SERIAL_GAMES = 16
"""``learner_step`` plays fewer games on the calling core: starting the threads costs more."""


def learner_step(acts, g, e, ends, old_obs, fixed_seat, fixed_dealer, max_redeals, rewards, dones):
    """The vector env's whole step in one call, when every opponent is random (none waits
    outside): game ``b`` plays the learner's action ``acts[b]`` and its opponents (``advance``),
    its reward goes to ``e.rewards[b]`` and ``rewards[b]`` (float32); when its episode ends
    (``dones[b]`` set), what it leaves is kept in row ``b`` of ``ends`` (``keep_ending``; an
    illegal action's episode keeps the observation it had, ``old_obs[b]``) and its next episode
    is dealt (``new_episode``). Every game's generators are its own, so each game draws what
    ``env_advance`` then ``new_episodes`` would, whichever core plays it: the games are shared
    among the cores in equal runs (from ``SERIAL_GAMES`` games on). ``ends.waiting[0]`` counts
    the ended games whose next deal still ended before the learner's first action after
    ``max_redeals`` deals (status DONE)."""
    ends.waiting[0] = 0
    args = (acts, g, e, ends, old_obs, fixed_seat, fixed_dealer, max_redeals, rewards, dones)
    lanes = numba.get_num_threads()
    if lanes > 1 and acts.shape[0] >= SERIAL_GAMES:
        _learner_lanes(*args, lanes)
    else:
        _learner_games(*args, 0, acts.shape[0])


@njit_parallel
def _learner_lanes(acts, g, e, ends, old_obs, fixed_seat, fixed_dealer, max_redeals, rewards, dones, lanes):
    n = acts.shape[0]
    for t in prange(lanes):
        _learner_games(acts, g, e, ends, old_obs, fixed_seat, fixed_dealer, max_redeals, rewards, dones,
                       t * n // lanes, (t + 1) * n // lanes)


@njit(cache=True)
def _learner_games(acts, g, e, ends, old_obs, fixed_seat, fixed_dealer, max_redeals, rewards, dones, start, stop):
    """``learner_step`` for games ``start`` .. ``stop - 1``."""
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    for b in range(start, stop):
        e.rewards[b] = 0.0
        st = advance(g, e, b, MODE_ACT, acts[b], scratch)
        rewards[b] = e.rewards[b]
        if st == DONE or st == ILLEGAL:
            if st == ILLEGAL:
                for i in range(OBS_SIZE):
                    e.obs[b, i] = old_obs[b, i]
            dones[b] = True
            keep_ending(g, e, b, ends, b)
            if new_episode(g, e, b, fixed_seat, fixed_dealer, max_redeals, scratch) == DONE:
                take_next(ends.waiting)


@njit(cache=True)
def play_random(idx, g, rng, max_steps):
    """Every seat random: play up to ``max_steps`` moves in each game ``idx[i]`` (stopping at the
    end of the deal). Returns the number of moves played (the compiled engine's benchmark)."""
    S = g.S
    scratch = np.empty(NUM_ACTIONS, dtype=np.int64)
    total = 0
    for i in range(idx.shape[0]):
        b = idx[i]
        for _ in range(max_steps):
            if S[b, OVER] or S[b, TRUNC]:
                break
            n = legal_actions(g, b, scratch)
            apply_action(g, b, scratch[randbelow(rng, b, n)], scratch)
            total += 1
    return total


@njit(cache=True)
def sample_masks(masks, rng, out):
    """A uniformly random legal action per row of ``masks`` (SplitMix64 stream ``rng[i]`` per
    row), into ``out``; -1 for a row with no legal action. For random baselines and benchmarks.
    The ``r``-th legal action in index order, ``r`` drawn below their count: the count in one
    pass without a branch (random masks mispredict one half the time), then the action found
    by counting 32 entries at a time from the nearer end (a mask holds few legal actions, and
    the last, ending the turn, is often one)."""
    width = masks.shape[1]
    for i in range(masks.shape[0]):
        row = masks[i]
        n = 0
        for a in range(width):
            n += row[a] != 0
        if n == 0:
            out[i] = -1
            continue
        r = randbelow(rng, i, n)
        out[i] = nth_legal_from_start(row, r) if r < n - 1 - r else nth_legal_from_end(row, n - 1 - r)


@njit(cache=True)
def nth_legal_from_start(row, r):
    """The index of the ``r``-th (from 0) nonzero entry of ``row``, which has more than ``r``."""
    width = row.shape[0]
    a = 0
    while a + 32 <= width:
        c = 0
        for j in range(a, a + 32):
            c += row[j] != 0
        if c > r:
            break
        r -= c
        a += 32
    while True:
        if row[a] != 0:
            if r == 0:
                return a
            r -= 1
        a += 1


@njit(cache=True)
def nth_legal_from_end(row, r):
    """The index of the ``r``-th (from 0) nonzero entry of ``row`` counted from its end."""
    a = row.shape[0]
    while a >= 32:
        c = 0
        for j in range(a - 32, a):
            c += row[j] != 0
        if c > r:
            break
        r -= c
        a -= 32
    while True:
        a -= 1
        if row[a] != 0:
            if r == 0:
                return a
            r -= 1
