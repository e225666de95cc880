"""The heuristic's evaluation: what ending the turn in a position is worth to the seat.

``evaluate`` scores the table as the next players will find it, from what the seat can see:
the cards it still holds (each one, and its penalty), which of them have a place to go (a top
they fit, as likely as that top is to survive the others' turns) or none (a king with no corner
or side), and what the position offers the others: for every pile top the chance that the
player holds one of the unseen cards that fit it (both fitting cards in sight make a dead end),
empty sides (any card), empty corners (kings), side piles that can move away and open a space.
What the others may gain is weighted by how close to going out they are and by how soon they
play. A card's place may be worth more while another player is close to going out
(``fit_close`` on top of ``fit`` while someone holds at most ``close`` cards). With the stock
empty, an idle turn is scored by the blocked deal it may bring. While the race is level
(another player holds fewer than ``level`` cards more than the seat, as it decides), the cards
held and what the others may gain count ``level_card`` and ``level_opp`` times as much: 1 in the
shipped weights, tuned by ``kc train``'s evolution strategy for the learned agents. The weights
are ``weights.HEURISTIC_WEIGHTS``.

Positions are rows of a turn-search table (``turns.alloc``: a ``kernel.Games``, seat 0 to act); what the
turn cannot change is read once per decision from the observation into ``ctx``
(``read_context``). What the evaluation works out from ``ctx`` and the weights alone (each
card's cost, the chances that a place survives or that a player can use it, the weight of each
player) is worked out once per decision too (``prepare``, into a ``Scorer``), with the very
expressions ``evaluate`` once wrote inline, so that ``score`` gives the same float64 bits while the search scores
each position without allocating or counting references.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...compiled import njit
from ...vector import kernel as K
from .. import view
from .weights import (
    W_BLOCK,
    W_BLOCK_POINTS,
    W_CARD,
    W_CLOSE,
    W_CORNER,
    W_DANGER,
    W_DANGER_MULTI,
    W_DEAD,
    W_DECAY,
    W_FIT,
    W_FIT_CLOSE,
    W_HALF,
    W_LEVEL,
    W_LEVEL_CARD,
    W_LEVEL_OPP,
    W_MULTI,
    W_OPENING,
    W_OPP,
    W_PENALTY,
    W_SPACE,
)

WIN_VALUE = 1.0e6

# What the search never changes, read once from the observation (a float64 array ``ctx``).
C_SEEN = 0  # 54: 1 for a card in the seat's hand or on a pile
C_PEN = C_SEEN + 54  # 54: each card's penalty, scaled 0 (cheapest) .. 1 (costliest)
C_OTHERS = C_PEN + 54  # 5: the hand sizes of the next seats, in playing order
C_NUM_OTHERS = C_OTHERS + 5
C_UNSEEN = C_NUM_OTHERS + 1  # cards the seat cannot see (other hands and the stock)
C_UNSEEN_JOKERS = C_UNSEEN + 1
C_UNSEEN_KINGS = C_UNSEEN_JOKERS + 1  # unseen kings and jokers
C_DRAWS = C_UNSEEN_KINGS + 1  # 1 if the next player draws before playing
C_STOCK = C_DRAWS + 1  # cards in the stock
C_IDLE = C_STOCK + 1  # turns in a row with no draw, play or pile move before this one
C_FEWEST = C_IDLE + 1  # the fewest cards another player holds
C_MINE = C_FEWEST + 1  # the cards the seat holds as it decides
C_POINTS = C_MINE + 1  # 54: each card's penalty in points, under a penalty table (else 0)
C_SIZE = C_POINTS + 54

# What ``evaluate`` works out from ``ctx`` and the weights alone, once per decision (``prepare``;
# a float64 array ``pre``). ``k`` below is a number of unseen cards that fit a pile (at most 4
# suits and 2 jokers); a power for a larger ``k`` is computed where it is needed.
POWERS = 8
P_FIT = 0  # what a card with a place is spared (``fit``, with ``fit_close`` when someone is close)
P_COST = P_FIT + 1  # 54: what each card held costs (``card`` and its penalty)
P_KEEP = P_COST + 54  # 5 x POWERS: for the j-th next player, the chance that they cannot take
#   a place that k unseen cards fit (``miss ** k``)
P_KEEP_KINGS = P_KEEP + 5 * POWERS  # 5: the same for an empty corner and the unseen kings
P_GAIN = P_KEEP_KINGS + 5  # 5 x POWERS: the chance that they hold one of k fitting cards
P_CORNER_GAIN = P_GAIN + 5 * POWERS  # 5: what the last empty corner offers them
P_WEIGHT = P_CORNER_GAIN + 5  # 5: how much what they may gain counts (weight x danger)
P_BLOCK_MISS = P_WEIGHT + 5  # 5: the chance that they hold none of the unseen cards (a block)
P_SIZE = P_BLOCK_MISS + 5

Scorer = namedtuple("Scorer", "w ctx pre fitting keep")
Scorer.__doc__ = """What ``score`` reads besides the position: the weights ``w``, the decision's
``ctx`` and ``pre`` (``prepare``), and two scratch arrays (per pile, the fitting unseen cards
and the chance that the pile stays as it is)."""


@njit
def read_context(obs, R, ctx):
    """``ctx`` from the observation (``R``: a rules row, ``view.read_rules``, in row 0)."""
    ctx[:] = 0.0
    for c in range(54):
        if obs[view.OBS_HAND + c] > 0.5:
            ctx[C_SEEN + c] = 1.0
        for p in range(view.NUM_PILES):
            if obs[view.PILE_START + p * view.PILE_BLOCK + view.OFF_CARDS + c] > 0.5:
                ctx[C_SEEN + c] = 1.0
    for c in range(52 + R[0, K.R_JOKERS]):
        if ctx[C_SEEN + c] == 0.0:
            ctx[C_UNSEEN] += 1.0
            if c >= 52:
                ctx[C_UNSEEN_JOKERS] += 1.0
            if c >= 52 or K.RANK[c] == 13:
                ctx[C_UNSEEN_KINGS] += 1.0
    n_others = view.num_players(obs) - 1
    ctx[C_NUM_OTHERS] = n_others
    for j in range(n_others):
        ctx[C_OTHERS + j] = view.obs_count(obs[view.OBS_OTHERS + j], view.CARD_SCALE)
    ctx[C_FEWEST] = ctx[C_OTHERS]
    for j in range(n_others):
        ctx[C_FEWEST] = min(ctx[C_FEWEST], ctx[C_OTHERS + j])
    ctx[C_MINE] = view.obs_count(obs[view.OBS_HAND_SIZE], view.CARD_SCALE)
    ctx[C_STOCK] = view.obs_count(obs[view.OBS_STOCK], view.CARD_SCALE)
    ctx[C_IDLE] = view.obs_count(obs[view.OBS_IDLE], n_others + 1.0)
    if ctx[C_STOCK] > 0 and R[0, K.R_DRAW] != K.DRAW_END:
        ctx[C_DRAWS] = 1.0
    pen = view.card_penalties(obs)
    lo = pen[0]
    hi = pen[0]
    for c in range(52):
        lo = min(lo, pen[c])
        hi = max(hi, pen[c])
    scale = 0.25 if view.wins_only(obs) else 1.0  # penalties only break ties when deals are won
    if hi > lo:
        for c in range(54):
            ctx[C_PEN + c] = scale * min(1.0, (pen[c] - lo) / (hi - lo))
    if view.lowest_wins(obs):  # every hand left at the end, a blocked deal's too, costs its penalty
        for c in range(54):
            ctx[C_POINTS + c] = pen[c]


@K.borrowing
def fitting_unseen(g, d, p, ctx):
    """How many unseen cards may be played onto pile ``p`` (-1 for an empty pile): 0 is a dead
    end, e.g. a red 8 once both black 7s are in sight."""
    pinfo = g.pinfo
    if pinfo[d, p, K.LEN] == 0:
        return -1
    r = pinfo[d, p, K.TOP_RANK] - 1  # the rank wanted
    if r < 1:
        return 0
    col = pinfo[d, p, K.TOP_COLOUR]
    same = K.same_suit_corner(g, d, p)
    suit_here = K.corner_suit(g, d, p) if same else -1
    k = int(ctx[C_UNSEEN_JOKERS])
    for suit in range(4):
        c = suit * 13 + r - 1
        if ctx[C_SEEN + c] == 0.0:
            if same:
                if suit_here < 0 or suit == suit_here:
                    k += 1
            elif col < 0 or K.COLOUR[c] != col:
                k += 1
    return k


@K.borrowing
def _twin(rank, colour, k):
    """The ``k``-th (0 or 1) card of ``rank`` and ``colour`` (black: clubs, spades; red:
    diamonds, hearts)."""
    suit = (0 if k == 0 else 3) if colour == 0 else (1 if k == 0 else 2)
    return suit * 13 + rank - 1


@K.borrowing
def _is_top(g, d, c):
    for p in range(8):
        n = g.pinfo[d, p, K.LEN]
        if n > 0 and g.piles[d, p, n - 1] == c:
            return True
    return False


@K.borrowing
def _hand_value(g, sc, d, empty_side):
    """The seat's own hand: each card and its penalty (``P_COST``), less what a card with a place is spared
    (``P_FIT``, times the chance that the place is still there on the seat's next turn,
    ``sc.keep``), more what a card with no live place costs (see the module docstring)."""
    pinfo, R, w, ctx, pre, keep = g.pinfo, g.R, sc.w, sc.ctx, sc.pre, sc.keep
    fit = pre[P_FIT]
    value = 0.0
    hand = g.hands[d, 0]
    m = hand
    while m:
        c = K.low_bit_index(m)
        m &= m - 1
        value -= pre[P_COST + c]
        if c >= 52:
            value += fit
            continue
        best = -1.0
        for p in range(8):
            if (pinfo[d, p, K.LEN] > 0 or K.RANK[c] == 13) and (pinfo[d, p, K.ACC] >> c) & 1:
                best = max(best, keep[p])
        if best >= 0.0:
            value += fit * best
            continue
        if K.RANK[c] == 13:
            if not (empty_side and R[d, K.R_KINGS_ON_SIDES]):
                value -= w[W_DEAD]
            continue
        buried = 0
        for k in range(2):  # the two cards one rank up, of the other colour
            parent = _twin(K.RANK[c] + 1, 1 - K.COLOUR[c], k)
            if ctx[C_SEEN + parent] == 1.0 and not (hand >> parent) & 1 and not _is_top(g, d, parent):
                buried += 1
        if buried >= 2:
            value -= w[W_DEAD]
        elif buried == 1:
            value -= w[W_HALF]
    return value


@K.borrowing
def _openings(g, d, empty_corner):
    """Side piles that may move away as a whole (onto a pile, or a king into a corner)."""
    piles, pinfo, R = g.piles, g.pinfo, g.R
    count = 0
    for s in range(4):
        n = pinfo[d, s, K.LEN]
        if n == 0:
            continue
        c = piles[d, s, 0]
        if empty_corner and c < 52 and K.RANK[c] == 13 and (R[d, K.R_SAME_SUIT] == 0 or n == 1):
            count += 1
            continue
        if R[d, K.R_PILE_MOVES] != K.MOVES_NONE:
            wanted = K.card_rank(g, d, c) + 1  # a whole pile goes onto a top one rank above its bottom
            for q in range(8):  # (part_start is 0 only then: the cheap rank test first)
                if q != s and pinfo[d, q, K.LEN] > 0 and pinfo[d, q, K.TOP_RANK] == wanted \
                        and K.part_start(g, d, s, q) == 0:
                    count += 1
                    break
    return count



@K.borrowing
def _block_value(g, sc, d, space):
    """An idle turn with the stock empty brings the deal closer to blocked (RULES.md 4.8): at once
    when the others have all been idle, else as likely as each of them is to hold nothing that
    fits (nothing is sure to fit while a space is open). A block is worth ``block`` to a seat
    behind (more cards than the fewest) and costs it to a seat ahead; under ``fewest_cards`` a
    block decides the deal, so it counts five times."""
    ctx, fitting = sc.ctx, sc.fitting
    n_others = int(ctx[C_NUM_OTHERS])
    p_block = 1.0
    for j in range(max(0, n_others - int(ctx[C_IDLE]))):  # the others who must pass too
        if space:
            p_block = 0.0
            break
        miss = sc.pre[P_BLOCK_MISS + j]
        for p in range(8):
            if fitting[p] > 0:
                p_block *= miss ** fitting[p]
    me = K.popcount(g.hands[d, 0])
    fewest = ctx[C_FEWEST]
    sign = 0.0
    if me < fewest:
        sign = -1.0
    elif me > fewest:
        sign = 1.0
    if g.R[d, K.R_FEWEST]:
        sign *= 5.0
        if me < fewest:
            sign = 5.0  # the fewest cards win a blocked deal
    return sc.w[W_BLOCK] * p_block * sign


@njit
def scorer(w, ctx):
    """A ``Scorer`` for the weights ``w`` and the decision's ``ctx`` (allocated and ``prepare``d)."""
    sc = Scorer(w, ctx, np.zeros(P_SIZE, dtype=np.float64), np.zeros(8, dtype=np.int64), np.zeros(8, dtype=np.float64))
    prepare(sc)
    return sc


@K.borrowing
def _unseen(ctx):
    return max(ctx[C_UNSEEN], 1.0)


@K.borrowing
def _miss(ctx, j):
    """The chance that the ``j``-th next player holds none of the cards that fit one place
    (before drawing, if they draw)."""
    return 1.0 - min(1.0, (ctx[C_OTHERS + j] + ctx[C_DRAWS]) / _unseen(ctx))


@K.borrowing
def prepare(sc):
    """``sc.pre`` from ``sc.ctx`` and ``sc.w``: what ``score`` needs that no position changes."""
    w, ctx, pre = sc.w, sc.ctx, sc.pre
    fit = w[W_FIT] + (w[W_FIT_CLOSE] if ctx[C_FEWEST] <= w[W_CLOSE] else 0.0)
    level = ctx[C_FEWEST] < ctx[C_MINE] + w[W_LEVEL]
    card = w[W_CARD] * (w[W_LEVEL_CARD] if level else 1.0)
    pre[P_FIT] = fit
    points = w[W_BLOCK_POINTS] if ctx[C_STOCK] == 0 else 0.0  # the deal may block: the hand is charged
    for c in range(54):
        pre[P_COST + c] = card + w[W_PENALTY] * ctx[C_PEN + c] + points * ctx[C_POINTS + c]
    n_others = int(ctx[C_NUM_OTHERS])
    kings = ctx[C_UNSEEN_KINGS]
    unseen = _unseen(ctx)
    weight = w[W_OPP] * (w[W_LEVEL_OPP] if level else 1.0)
    danger_weight = w[W_DANGER]
    if n_others > 1:
        weight *= w[W_MULTI]
        danger_weight = w[W_DANGER_MULTI]
    for j in range(n_others):
        miss = _miss(ctx, j)
        for k in range(POWERS):
            pre[P_KEEP + j * POWERS + k] = miss ** k
        pre[P_KEEP_KINGS + j] = miss ** kings
        h = ctx[C_OTHERS + j]
        danger = 1.0 + danger_weight * max(0.0, 3.0 - h)
        pre[P_WEIGHT + j] = weight * danger
        weight *= w[W_DECAY]
        pre[P_BLOCK_MISS + j] = 1.0 - min(1.0, ctx[C_OTHERS + j] / unseen)


@K.borrowing
def _keep_factor(pre, j, k):
    """``miss ** k`` of the ``j``-th next player (``P_KEEP``; ``miss`` is its ``k = 1`` entry)."""
    if k < POWERS:
        return pre[P_KEEP + j * POWERS + k]
    return pre[P_KEEP + j * POWERS + 1] ** k


@njit(_nrt=True)  # it allocates; the search scores with ``score`` and a ``Scorer`` made once
def evaluate(g, w, d, ctx):
    """The value, for the seat to act, of ending its turn in row ``d`` of the table ``g``."""
    return score(g, d, scorer(w, ctx))


@K.borrowing
def score(g, d, sc):
    """``evaluate`` with the decision's ``Scorer`` (``prepare``d for its weights and ``ctx``)."""
    pinfo, w, ctx, pre, fitting, keep = g.pinfo, sc.w, sc.ctx, sc.pre, sc.fitting, sc.keep
    if g.hands[d, 0] == 0:
        return WIN_VALUE
    empty_side = np.bool_(False)  # not a literal False: one compiled version of the callees
    empty_corner = np.bool_(False)
    empty_corners = 0
    for p in range(8):
        if pinfo[d, p, K.LEN] == 0:
            if p < 4:
                empty_side = True
            else:
                empty_corner = True
                empty_corners += 1
    for p in range(8):
        fitting[p] = fitting_unseen(g, d, p, ctx)
    openings = _openings(g, d, empty_corner)
    kings = ctx[C_UNSEEN_KINGS]
    n_others = int(ctx[C_NUM_OTHERS])
    # the chance that each pile is still as it is when the seat plays again
    for p in range(8):
        keep[p] = 1.0
    for j in range(n_others):
        for p in range(8):
            k = fitting[p]
            if k > 0:
                keep[p] *= _keep_factor(pre, j, k)
            elif k < 0 and p >= 4 and empty_corners == 1:
                keep[p] *= pre[P_KEEP_KINGS + j]
    for p in range(4):
        if pinfo[d, p, K.LEN] == 0:
            keep[p] = 0.0  # an empty side is the others' to fill first
    value = _hand_value(g, sc, d, empty_side)
    for j in range(n_others):
        gain = w[W_OPENING] * openings
        for p in range(8):
            k = fitting[p]
            if k > 0:  # the chance that the player holds a card that fits here
                gain += 1.0 - _keep_factor(pre, j, k)
            elif k < 0:
                if p < 4:
                    gain += w[W_SPACE]
                elif kings > 0:
                    gain += w[W_CORNER] * (1.0 - pre[P_KEEP_KINGS + j])
        value -= pre[P_WEIGHT + j] * gain
    if ctx[C_STOCK] == 0 and g.S[d, K.PLAYED] == 0 and g.S[d, K.MOVED] == 0:
        value += _block_value(g, sc, d, empty_side or openings > 0)
    return value
