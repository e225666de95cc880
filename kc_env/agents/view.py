"""What a seat sees, read from its observation vector into arrays the compiled agents use.

``seat_row(obs, g, b)`` builds row ``b`` of a ``kc_env.vector.kernel`` state (``kernel.Games``)
from the observation of the seat to act alone: its hand, every pile with its cards in order
and the value each played joker stands for, the turn's flags and the rules row. The seat sits
at seat 0 of the row; what it cannot see (the other hands and the stock) is left as
placeholders: the others' hands are empty and the stock holds ``stock_size`` cards of id -1.
No move within a turn reads them (a draw happens only between turns), so walking the turn on
this row with the kernel's own ``legal_actions``, ``play_card`` and ``move_pile`` follows the
rules exactly as the engine does.

The one thing the vector does not record, which of the two jokers is which when both lie inside
one pile (``observation.decode``), does not change any move: the lower id is put lower.

The small readers (``obs_argmax``, ``obs_count``, ``card_penalties``) are shared by greedy and
the heuristic's evaluation.
"""

from __future__ import annotations

import numpy as np

from ..compiled import njit
from ..observation import PILE_BLOCK, PILE_START, SLICES
from ..vector import kernel as K

OFF_CARDS = SLICES["pile_N_cards"].start - PILE_START
OFF_TOP = SLICES["pile_N_top"].start - PILE_START
OFF_BOTTOM = SLICES["pile_N_bottom"].start - PILE_START
OFF_LENGTH = SLICES["pile_N_length"].start - PILE_START
OFF_TOP_RANK = SLICES["pile_N_top_rank"].start - PILE_START
OBS_HAND = SLICES["hand"].start
OBS_HAND_SIZE = SLICES["hand_size"].start
OBS_OTHERS = SLICES["others_hand_sizes"].start
OBS_STOCK = SLICES["stock_size"].start
OBS_DRAWN = SLICES["drawn"].start
OBS_PLAYED = SLICES["played"].start
OBS_MOVED = SLICES["moved"].start
OBS_IDLE = SLICES["idle_turns"].start
OBS_NUM_PLAYERS = SLICES["num_players"].start
OBS_SCORING = SLICES["rule_scoring"].start
OBS_PENALTY = SLICES["rule_penalty"].start  # A 2 .. K JK, / 25
CARD_SCALE = 54.0
PILE_SCALE = 13.0
PENALTY_SCALE = 25.0
HAND_SIZE_SCALE = 26.0
SCORING_WINS, SCORING_SINGLE = 8, 10  # positions in the scoring one-hot
NUM_PILES = 8

# the rules row from the rule one-hots: (kernel column, where the one-hot starts, its size)
_DRAW = SLICES["rule_draw"].start  # start end stuck: the kernel's DRAW_* codes
_KINGS_ON_SIDES = SLICES["rule_kings_on_sides"].start  # true false
_CROSS_KINGS = SLICES["rule_cross_kings"].start  # to_corner stay
_PILE_MOVES = SLICES["rule_pile_moves"].start  # whole none partial: the kernel's MOVES_* codes
_MUST_PLAY = SLICES["rule_must_play"].start  # optional all
_KING_FIRST = SLICES["rule_king_first"].start  # false true
_FILL = SLICES["rule_fill_spaces_first"].start  # false true
_CORNER_BUILD = SLICES["rule_corner_build"].start  # alternate same_suit
_CLEAR = SLICES["rule_clear_complete_piles"].start  # false true
_BLOCKED = SLICES["rule_blocked"].start  # no_winner fewest_cards
_JOKERS = SLICES["rule_jokers"].start  # 0 2
_HAND_SIZE = SLICES["rule_hand_size"].start
# layout 2's values (observation.MORE_CHOICES): a one-hot of the new values only, or of all values
_ALL_MOVES = SLICES["rule_must_play_more"].start  # all_moves
_BEFORE_ENDING = SLICES["rule_king_first_more"].start  # before_ending
_BLOCKED_WHEN = SLICES["rule_blocked_when_more"].start  # idle_round no_moves
_CROSS_KING_MOVE = SLICES["rule_cross_king_move_more"].start  # any_time first_turn
_JOKER_SIDE = SLICES["rule_joker_on_empty_side_more"].start  # false true
_FIRST_PLAYER = SLICES["rule_first_player_more"].start  # left_of_dealer random
OBS_FIRST_TURN = SLICES["first_turn"].start
NO_LIMIT = np.int64(1) << 40  # the row's max_moves: a turn walked here is never cut off


@njit(inline="always")  # inlined: called with a literal offset from many places, each a compile of its own
def obs_argmax(obs, start, size):
    """The position of the largest value of ``obs[start:start + size]`` (the first on a tie)."""
    best = 0
    for i in range(1, size):
        if obs[start + i] > obs[start + best]:
            best = i
    return best


@njit
def obs_count(x, scale):
    """A count the observation stores divided by ``scale``."""
    return int(np.floor(x * scale + 0.5))


@njit
def card_penalties(obs):
    """The penalty of every card id by the table in the observation (float64 of 54)."""
    out = np.zeros(54, dtype=np.float64)
    for c in range(52):
        out[c] = obs[OBS_PENALTY + K.RANK[c] - 1] * PENALTY_SCALE
    out[52] = obs[OBS_PENALTY + 13] * PENALTY_SCALE
    out[53] = out[52]
    return out


@njit
def num_players(obs):
    """The number of players at the table."""
    return obs_argmax(obs, OBS_NUM_PLAYERS, 5) + 2


@njit
def wins_only(obs):
    """Whether deals are scored by wins alone (``wins`` or ``single``): penalties then only break
    ties."""
    scoring = obs_argmax(obs, OBS_SCORING, 11)
    return scoring == SCORING_WINS or scoring == SCORING_SINGLE


@njit
def clears_piles(obs):
    """Whether a complete pile leaves the table (``clear_complete_piles``)."""
    return obs[_CLEAR + 1] > 0.5


@njit
def read_rules(obs, R, b):
    """Row ``b`` of the kernel's rules array from the rule slices of the observation."""
    R[b, :] = 0
    R[b, K.R_DRAW] = obs_argmax(obs, _DRAW, 3)
    R[b, K.R_KINGS_ON_SIDES] = obs[_KINGS_ON_SIDES] > 0.5
    R[b, K.R_PILE_MOVES] = obs_argmax(obs, _PILE_MOVES, 3)
    R[b, K.R_MUST_PLAY] = obs[_MUST_PLAY + 1] > 0.5
    if obs[_ALL_MOVES] > 0.5:
        R[b, K.R_MUST_PLAY] = K.MUST_ALL_MOVES
    R[b, K.R_KING_FIRST] = obs[_KING_FIRST + 1] > 0.5
    if obs[_BEFORE_ENDING] > 0.5:
        R[b, K.R_KING_FIRST] = K.KING_FIRST_BEFORE_ENDING
    R[b, K.R_NO_MOVES] = obs[_BLOCKED_WHEN + 1] > 0.5
    R[b, K.R_CROSS_FIRST_TURN] = obs[_CROSS_KING_MOVE + 1] > 0.5
    R[b, K.R_JOKER_SIDE] = obs[_JOKER_SIDE + 1] > 0.5
    R[b, K.R_FIRST_RANDOM] = obs[_FIRST_PLAYER + 1] > 0.5
    R[b, K.R_FILL_FIRST] = obs[_FILL + 1] > 0.5
    R[b, K.R_SAME_SUIT] = obs[_CORNER_BUILD + 1] > 0.5
    R[b, K.R_CLEAR] = obs[_CLEAR + 1] > 0.5
    R[b, K.R_FEWEST] = obs[_BLOCKED + 1] > 0.5
    R[b, K.R_HAND_SIZE] = obs_count(obs[_HAND_SIZE], HAND_SIZE_SCALE)
    R[b, K.R_MAX_MOVES] = NO_LIMIT
    R[b, K.R_REWARD] = K.REWARD_WIN_LOSS
    R[b, K.R_JOKERS] = 2 if obs[_JOKERS + 1] > 0.5 else 0
    R[b, K.R_TO_CORNER] = obs[_CROSS_KINGS] > 0.5
    for i in range(14):
        R[b, K.R_PEN + i] = obs_count(obs[OBS_PENALTY + i], PENALTY_SCALE)


@njit
def _read_pile(obs, g, b, p):
    """Pile ``p`` in order, bottom to top: real cards sit by rank (ranks step down by one from the
    bottom), the jokers fill the gaps (one on top or at the bottom is named by the vector), and
    each joker gets the value it was given when laid on the card below it (kernel
    ``joker_value_on``)."""
    piles, pinfo, S = g.piles, g.pinfo, g.S
    base = PILE_START + p * PILE_BLOCK
    n = obs_count(obs[base + OFF_LENGTH], PILE_SCALE)
    pinfo[b, p, K.LEN] = n
    if n == 0:
        return
    bottom_rank = obs_argmax(obs, base + OFF_TOP_RANK, 13) + n  # the top's rank + n - 1
    for i in range(n):
        piles[b, p, i] = -1
    piles[b, p, 0] = obs_argmax(obs, base + OFF_BOTTOM, 54)
    piles[b, p, n - 1] = obs_argmax(obs, base + OFF_TOP, 54)
    for c in range(52):
        if obs[base + OFF_CARDS + c] > 0.5:
            piles[b, p, bottom_rank - K.RANK[c]] = c
    for j in range(52, 54):
        if obs[base + OFF_CARDS + j] > 0.5 and piles[b, p, 0] != j and piles[b, p, n - 1] != j:
            for i in range(n):
                if piles[b, p, i] == -1:
                    piles[b, p, i] = j
                    break
    pinfo[b, p, K.LEN] = 0
    for i in range(n):  # lay the cards again, bottom up, as the kernel values jokers
        c = piles[b, p, i]
        if c >= 52:
            rank, colour = K.joker_value_on(g, b, p)
            S[b, K.JR + c - 52] = rank
            S[b, K.JC + c - 52] = colour
        pinfo[b, p, K.LEN] = i + 1
        pinfo[b, p, K.TOP_RANK] = K.card_rank(g, b, c)
        pinfo[b, p, K.TOP_COLOUR] = K.card_colour(g, b, c)


@njit
def seat_row(obs, g, b):
    """Row ``b`` of the kernel state ``g`` from the observation of the seat to act (see the module
    docstring): the seat at seat 0, its turn under way with the flags the vector shows."""
    hands, stock, S, R = g.hands, g.stock, g.S, g.R
    read_rules(obs, R, b)
    S[b, :] = 0
    S[b, K.WINNER] = -1
    S[b, K.NP] = num_players(obs)
    hands[b, :] = 0
    for c in range(54):
        if obs[OBS_HAND + c] > 0.5:
            hands[b, 0] |= K.bit(c)
    for p in range(NUM_PILES):
        _read_pile(obs, g, b, p)
    for p in range(NUM_PILES):
        K.refresh(g, b, p)
    S[b, K.SLEN] = obs_count(obs[OBS_STOCK], CARD_SCALE)
    for i in range(S[b, K.SLEN]):
        stock[b, i] = -1
    S[b, K.DRAWN] = obs[OBS_DRAWN] > 0.5
    S[b, K.PLAYED] = obs[OBS_PLAYED] > 0.5
    S[b, K.MOVED] = obs[OBS_MOVED] > 0.5
    # whether a pile move left a space is not in the vector: every move does, but a partial one
    S[b, K.OPENED] = S[b, K.MOVED] and R[b, K.R_PILE_MOVES] != K.MOVES_PARTIAL
    S[b, K.IDLE] = obs_count(obs[OBS_IDLE], S[b, K.NP])
    S[b, K.FIRST] = obs[OBS_FIRST_TURN] > 0.5
