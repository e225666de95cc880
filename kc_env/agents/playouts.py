"""Play-outs from a seat's view: the cards it cannot see dealt anew, then the deal played to its
end on the vector kernel.

``redeal(obs, ..., b, rng)`` makes row ``b`` of a kernel state the position in the observation
with the unseen cards (the other hands and the stock) dealt at random: each other hand gets as
many cards as the vector says it holds, the stock the rest. What the seat sees is unchanged (its
hand, the piles, every count), so the row is one position consistent with its view (it does not
infer from the others' past plays which cards they lack: a uniform re-deal, the usual
determinization).

``line_values(obs, lines, lengths, redeals, w, seed, max_moves, others)`` values each line of
moves (a turn from ``obs``, e.g. ``heuristic.search.turn_candidates``) as the win share the seat
gets when it plays the line, ends its turn and the deal is then played to its end, the seat by
the heuristic (weights ``w``) and every other seat by ``OTHERS[others]`` (the heuristic, greedy
or random), averaged over ``redeals`` re-deals; every line is played on the same re-deals, so
their differences are not blurred by the luck of the deal. Rows run on all cores.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from ..compiled import njit, njit_parallel
from ..vector import kernel as K
from . import turns, view
from .greedy import greedy_action
from .heuristic.search import heuristic_action_on, new_desk
from .heuristic.weights import HEURISTIC_WEIGHTS

OTHERS = ("heuristic", "greedy", "random")
"""What the other seats may play in a play-out, by code (``others``)."""


@njit
def redeal(obs, g, b, rng, max_moves):
    """Row ``b`` of ``g``: the position of ``obs`` with the unseen cards dealt anew from the SplitMix64
    generator ``rng[b]`` (see the module docstring); deals are cut off after ``max_moves`` more
    moves."""
    piles, pinfo, hands, stock, S, R, mt = g.piles, g.pinfo, g.hands, g.stock, g.S, g.R, g.mt
    view.seat_row(obs, g, b)
    seen = hands[b, 0]
    for p in range(8):
        for i in range(pinfo[b, p, K.LEN]):
            seen |= K.bit(piles[b, p, i])
    unseen = np.empty(54, dtype=np.int64)
    n = 0
    for c in range(52 + R[b, K.R_JOKERS]):
        if not (seen >> c) & 1:
            unseen[n] = c
            n += 1
    for i in range(n - 1, 0, -1):
        j = K.randbelow(rng, b, i + 1)
        unseen[i], unseen[j] = unseen[j], unseen[i]
    at = 0
    for j in range(1, S[b, K.NP]):
        size = view.obs_count(obs[view.OBS_OTHERS + j - 1], view.CARD_SCALE)
        for i in range(size):
            hands[b, j] |= K.bit(unseen[at + i])
        at += size
    S[b, K.SLEN] = n - at
    for i in range(n - at):
        stock[b, i] = unseen[at + i]
    S[b, K.DEALER] = view.obs_argmax(obs, K.O_DEALER, K.MAX_SEATS)
    R[b, K.R_MAX_MOVES] = max_moves
    if mt.shape[1] > K.MT_N:
        K.mt_seed(mt, b, np.int64(K.splitmix64(rng, b) >> np.uint64(1)))


@njit
def other_action(code, ob, mask, w, desk, g, b, rng, scratch):
    """The move of a seat that plays ``OTHERS[code]`` in row ``b`` (``ob`` and ``mask`` its
    view; the heuristic with the weights ``w`` on ``desk``, a ``heuristic.search.new_desk`` kept
    for the deal's decisions; random draws from ``rng[b]``)."""
    if code == 0:
        return heuristic_action_on(ob, mask, w, desk)
    if code == 1:
        return greedy_action(ob, mask)
    return scratch[K.randbelow(rng, b, K.legal_actions(g, b, scratch))]


Table = namedtuple("Table", "g w scratch rng ob mask desk")
Table.__doc__ = """One deal on a table of its own, as the trainers' compiled deal loops play it (the
turn-value labeller, the turn-PPO rollouts, the shipped duel): the kernel state ``g`` (the deal in
row ``TABLE_ROW``), the heuristic's weights ``w`` and its ``desk``, the kernel's ``scratch``, the
random generator ``rng`` of the seats that play random, and the observation ``ob`` and ``mask`` of
the seat to act (``to_act``)."""
TABLE_ROW = np.int64(0)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit
def new_table(rules_row, seed, dealer, num_players, base, stream):
    """A ``Table`` dealt from ``seed`` by ``dealer`` under the rules row ``rules_row``, its random
    seats drawing from the generator numbered ``stream`` of ``base``."""
    g = turns.alloc(1, True)
    g.R[0, :] = rules_row
    scratch = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    K.deal(g, TABLE_ROW, seed, dealer, num_players, scratch)
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(base) * GOLDEN + np.uint64(stream)
    return Table(g, HEURISTIC_WEIGHTS.copy(), scratch, rng, np.zeros(K.OBS_SIZE, dtype=np.float32),
                 np.zeros(K.NUM_ACTIONS, dtype=np.int8), new_desk(True))


@njit
def to_act(t, rules_vec):
    """The seat to act at table ``t``, its observation (rules vector ``rules_vec``) and mask
    written into ``t.ob`` and ``t.mask``; -1 once the deal is over, a deal cut off being ended as
    blocked, as ``match.truncate`` ends one (under ``blocked: fewest_cards`` the seat with the
    fewest cards wins it)."""
    g, b = t.g, TABLE_ROW
    if g.S[b, K.OVER] or g.S[b, K.TRUNC]:
        if not g.S[b, K.OVER]:
            K.finish_blocked(g, b)
        return -1
    seat = g.S[b, K.CUR]
    K.encode(g, b, seat, rules_vec, t.ob)
    K.write_mask(g, b, t.mask, t.scratch)
    return seat


@njit
def others_move(t, code):
    """The seat to act at table ``t`` (``to_act``) plays its move as ``OTHERS[code]``."""
    a = other_action(code, t.ob, t.mask, t.w, t.desk, t.g, TABLE_ROW, t.rng, t.scratch)
    K.apply_action(t.g, TABLE_ROW, a, t.scratch)


@njit
def play_to_end(g, b, w, rules_vec, others, rng):
    """Seat 0 plays the heuristic (weights ``w``) in row ``b``, the other seats ``OTHERS[others]``,
    until the deal ends or is cut off; a deal cut off is ended as blocked, as ``match.truncate``
    ends one (under ``blocked: fewest_cards`` the seat with the fewest cards wins it)."""
    ob = np.zeros(K.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    scratch = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    S = g.S
    K.encode(g, b, S[b, K.CUR], rules_vec, ob)
    desk = new_desk(view.clears_piles(ob))  # the heuristic's scratch arrays, for every decision
    while not (S[b, K.OVER] or S[b, K.TRUNC]):
        seat = S[b, K.CUR]
        K.encode(g, b, seat, rules_vec, ob)
        K.write_mask(g, b, mask, scratch)
        code = 0 if seat == 0 else others
        K.apply_action(g, b, other_action(code, ob, mask, w, desk, g, b, rng, scratch), scratch)
    if not S[b, K.OVER]:
        K.finish_blocked(g, b)


@K.borrowing
def seat_share(g, b, seat):
    """What the deal in row ``b`` was worth to ``seat``: 1 for a win, 1 / players for a deal
    nobody won (blocked, or cut off and not ended), else 0.

    ``match.win_share`` on the kernel's state. It stays compiled because the compiled play-outs
    (``line_share``, the turn-value trainer's labelling) call it inside numba, which cannot call
    the Python one; tests/test_play_loop.py holds the two equal on every kind of deal end."""
    S = g.S
    if S[b, K.WINNER] < 0:
        return 1.0 / S[b, K.NP]
    return 1.0 if S[b, K.WINNER] == seat else 0.0


@njit
def line_share(g, b, line, w, rules_vec, others, rng):
    """The seat's share of the deal in row ``b`` when it plays ``line``, ends its turn and the
    deal is played to its end (``play_to_end``)."""
    scratch = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    for a in line:
        K.apply_action(g, b, a, scratch)
    if not g.S[b, K.OVER]:
        K.apply_action(g, b, K.END_TURN_ACTION, scratch)
    play_to_end(g, b, w, rules_vec, others, rng)
    return seat_share(g, b, np.int64(0))


@njit_parallel
def line_values(obs, lines, lengths, redeals, w, seed, max_moves, others):
    """The value of each line ``lines[i, :lengths[i]]`` (see the module docstring): float64 of
    ``len(lines)``."""
    n_lines = lines.shape[0]
    rows = n_lines * redeals
    # numba cannot hand a namedtuple to a prange loop's body (numba#4846): the loop takes the
    # table's arrays and each row makes its ``Games`` again
    piles, pinfo, hands, stock, S, R, mt = turns.alloc(rows, view.clears_piles(obs))
    rng = np.zeros(rows, dtype=np.uint64)
    shares = np.zeros(rows, dtype=np.float64)
    rules_vec = obs[K.RULES_START:].copy()
    for j in prange(rows):
        i = np.int64(j)  # prange counts in uint64: as int64 the kernel's functions are compiled once, not twice
        rng[i] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(i % redeals)  # one re-deal for every line
        g = K.Games(piles, pinfo, hands, stock, S, R, mt)
        redeal(obs, g, i, rng, max_moves)
        line = i // redeals
        shares[i] = line_share(g, i, lines[line, :lengths[line]], w, rules_vec, others, rng)
    out = np.zeros(n_lines, dtype=np.float64)
    for i in range(rows):
        out[i // redeals] += shares[i] / redeals
    return out
