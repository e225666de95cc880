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

from .. import observation as obs_mod
from ..compiled import njit
from ..observation import PILE_BLOCK, PILE_START, SLICES
from ..rules import ALIASES, DEAL_RULES, WIN_SYSTEMS, scored_by_penalties
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
OBS_PENALTY = SLICES["rule_penalty"].start  # A 2 .. K JK, / PENALTY_SCALE
OBS_FIRST_TURN = SLICES["first_turn"].start
CARD_SCALE = float(obs_mod.CARD_SCALE)
PILE_SCALE = float(obs_mod.PILE_SCALE)
PENALTY_SCALE = float(obs_mod.PENALTY_SCALE)
NUM_PILES = 8
NO_LIMIT = np.int64(1) << 40  # the row's max_moves: a turn walked here is never cut off


def _rule_reads() -> tuple[np.ndarray, np.ndarray]:
    """What ``read_rules`` loops over, from ``rules.DEAL_RULES``: rows (kernel column, position
    in the vector, code) for every value a one-hot rule slice shows, layout 1's before layout 2's
    (a value layout 1 does not know sets its old value's slot too, and the later row wins); and
    rows (kernel column, position, scale) for a rule held as a number."""
    onehots, numbers = [], []
    for rule in DEAL_RULES:
        for name in rule.shown:
            if name in obs_mod.RULE_SCALES:
                numbers.append((rule.column, SLICES[name].start, obs_mod.RULE_SCALES[name]))
                continue
            for value, at in obs_mod.rule_positions(rule.field, name).items():
                value = ALIASES[rule.field] if value is True and rule.field in ALIASES else value
                onehots.append((name.endswith("_more"), rule.column, at, rule.code(value)))
    onehots.sort(key=lambda row: row[0])  # stable: layout 1's rows first
    return np.array([row[1:] for row in onehots], dtype=np.int64), np.array(numbers, dtype=np.int64)


RULE_ONEHOTS, RULE_NUMBERS = _rule_reads()
_WINS_ONLY = np.array([s in WIN_SYSTEMS for s in obs_mod.RULE_CHOICES["scoring"]], dtype=np.bool_)
"""Per value of the observation's scoring one-hot, whether it counts deals won alone (``Rules.counts_wins``)."""
_LOWEST_WINS = np.array([scored_by_penalties(s) for s in obs_mod.RULE_CHOICES["scoring"]], dtype=np.bool_)
"""Per value of the observation's scoring one-hot, whether a penalty table scores it (``Rules.lowest_wins``)."""
_SCORING = SLICES["rule_scoring"].start
_CLEAR = SLICES["rule_clear_complete_piles"].start + obs_mod.RULE_CHOICES["clear_complete_piles"].index(True)


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
def card_penalty(obs, c):
    """The penalty of card id ``c`` by the table in the observation (float64). It allocates
    nothing: greedy calls it, and greedy may be compiled without reference counting (the
    heuristic's search, a ``kernel.borrowing`` function, passes ``_nrt=False`` on to it)."""
    if c >= 52:
        return obs[OBS_PENALTY + 13] * PENALTY_SCALE
    return obs[OBS_PENALTY + K.RANK[c] - 1] * PENALTY_SCALE


@njit
def card_penalties(obs):
    """The penalty of every card id by the table in the observation (float64 of 54). It allocates:
    only for code compiled with reference counting (the heuristic's ``read_context``), not for
    anything a ``kernel.borrowing`` function may call (``card_penalty`` is)."""
    out = np.zeros(54, dtype=np.float64)
    for c in range(54):
        out[c] = card_penalty(obs, c)
    return out


@njit
def num_players(obs):
    """The number of players at the table."""
    return obs_argmax(obs, OBS_NUM_PLAYERS, 5) + 2


@njit
def wins_only(obs):
    """Whether deals are scored by wins alone (``Rules.counts_wins``: ``wins`` or ``single``):
    penalties then only break ties."""
    return _WINS_ONLY[obs_argmax(obs, _SCORING, _WINS_ONLY.shape[0])]


@njit
def lowest_wins(obs):
    """Whether a penalty table scores the deals (``Rules.lowest_wins``): every hand left at the
    end of a deal, a blocked one too, costs its player its penalty."""
    return _LOWEST_WINS[obs_argmax(obs, _SCORING, _LOWEST_WINS.shape[0])]


@njit
def clears_piles(obs):
    """Whether a complete pile leaves the table (``clear_complete_piles``)."""
    return obs[_CLEAR] > 0.5


@K.borrowing
def read_rules(obs, R, b):
    """Row ``b`` of the kernel's rules array from the rule slices of the observation: a loop over
    ``rules.DEAL_RULES`` (``RULE_ONEHOTS``, ``RULE_NUMBERS``), the penalty table, no cut-off."""
    R[b, :] = 0
    for i in range(RULE_ONEHOTS.shape[0]):
        if obs[RULE_ONEHOTS[i, 1]] > 0.5:
            R[b, RULE_ONEHOTS[i, 0]] = RULE_ONEHOTS[i, 2]
    for i in range(RULE_NUMBERS.shape[0]):
        R[b, RULE_NUMBERS[i, 0]] = obs_count(obs[RULE_NUMBERS[i, 1]], RULE_NUMBERS[i, 2])
    R[b, K.R_MAX_MOVES] = NO_LIMIT
    R[b, K.R_REWARD] = K.REWARD_WIN_LOSS
    for i in range(14):
        R[b, K.R_PEN + i] = obs_count(obs[OBS_PENALTY + i], PENALTY_SCALE)


@K.borrowing
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


@K.borrowing
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
