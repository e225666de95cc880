"""The turn search: every position where the seat to act may end its turn, walked on the vector
kernel from what the seat sees.

A table is a small kernel state (``kernel.Games``, made by ``alloc``), one row per depth of the
walk: row 0 is the position in the observation (``view.seat_row``), row ``d + 1`` is row ``d``
after one more move (``make_move``: the kernel's own ``play_card`` / ``move_pile``, nothing else). The legal moves of
a row are the kernel's ``legal_actions``, so the search follows every rule variant exactly as
the engine does (``tests/test_turns.py`` compares it with a walk of the reference engine).

``turn_ends(obs)`` lists every distinct position where the turn may end (``end turn`` is legal
there, or the seat has gone out), each with one sequence of moves that reaches it and the
seat's observation there (its afterstate, before the turn ends). The heuristic
(``heuristic.search``) walks the same rows with its own filters; learned agents score the
afterstates.

Positions are told apart by a Zobrist hash of where each card lies (hand or pile), the turn's
played / moved flags and, for the heuristic, a flag of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..compiled import njit
from ..vector import kernel as K
from . import view

MAX_DEPTH = 48
"""Moves in one turn that a walk follows (a turn of 13 plays and every pile move fits easily)."""
ZOBRIST = np.random.default_rng(20240601).integers(1, 2**62, size=(54, view.NUM_PILES + 1), dtype=np.int64)
"""A random key per (card, place): place 0 the hand, 1..8 the piles (fixed seed: deterministic)."""
FLAG_KEYS = np.random.default_rng(20241201).integers(1, 2**62, size=3, dtype=np.int64)
"""Keys of the played and moved flags and of the searcher's own flag (``position_hash``)."""


@njit
def alloc(rows, shuffles):
    """A table of ``rows`` rows: a ``kernel.Games``, with a random generator per row only if the
    stock may be shuffled in a turn (``shuffles``: under ``clear_complete_piles`` a complete pile
    goes into the stock); it shuffles placeholders, so its state (all zeros) does not matter."""
    piles = np.zeros((rows, 8, K.PILE_CAP), dtype=np.int8)
    pinfo = np.zeros((rows, 8, K.PINFO), dtype=np.int64)
    hands = np.zeros((rows, K.MAX_SEATS), dtype=np.int64)
    stock = np.zeros((rows, K.STOCK_CAP), dtype=np.int8)
    S = np.zeros((rows, K.NUM_S), dtype=np.int64)
    R = np.zeros((rows, K.NUM_R), dtype=np.int64)
    mt = np.zeros((rows, K.MT_N + 1 if shuffles else 1), dtype=np.int64)
    return K.Games(piles, pinfo, hands, stock, S, R, mt)


@K.borrowing
def load(obs, g, rows):
    """Row 0 of the table ``g`` from the observation; the rules row copied to every row."""
    view.seat_row(obs, g, np.int64(0))
    for d in range(1, rows):
        for k in range(K.NUM_R):
            g.R[d, k] = g.R[0, k]


@K.borrowing
def make_move(g, d, a):
    """Row ``d + 1`` = row ``d`` after the card play or pile move ``a`` (legal in row ``d``)."""
    copy_row(g, d, d + 1)
    if K.is_play(a):
        K.play_card(g, d + 1, K.play_card_of(a), K.play_pile_of(a))
    else:
        K.move_pile(g, d + 1, K.move_src(a), K.move_dst(a))


@K.borrowing
def copy_row(g, d, to):
    """Row ``to`` = row ``d``, the rules, the random generator and the order of the stock aside
    (a turn never draws: no walk reads which card lies where in the stock, only how many there
    are; loops, not slice copies, which would need reference counting)."""
    piles, pinfo = g.piles, g.pinfo
    for p in range(8):
        for i in range(pinfo[d, p, K.LEN]):  # a pile's cards above its length are never read
            piles[to, p, i] = piles[d, p, i]
        for k in range(K.PINFO):
            pinfo[to, p, k] = pinfo[d, p, k]
    for seat in range(K.MAX_SEATS):
        g.hands[to, seat] = g.hands[d, seat]
    for k in range(K.NUM_S):
        g.S[to, k] = g.S[d, k]


@K.borrowing
def position_hash(g, d):
    """The Zobrist hash of where each card lies in row ``d`` (the seat's hand, each pile)."""
    piles, pinfo = g.piles, g.pinfo
    h = np.int64(0)
    m = g.hands[d, 0]
    while m:
        h ^= ZOBRIST[K.low_bit_index(m), 0]
        m &= m - 1
    for p in range(8):
        for i in range(pinfo[d, p, K.LEN]):
            h ^= ZOBRIST[piles[d, p, i], p + 1]
    return h


@K.borrowing
def seen_before(table, h):
    """Insert ``h`` into the open-addressing set ``table`` (size a power of two): the slot it
    filled, or -1 if ``h`` was there already (or the set is full)."""
    size = table.shape[0]
    i = h & (size - 1)
    for _ in range(size):
        if table[i] == h:
            return -1
        if table[i] == 0:
            table[i] = h
            return i
        i = (i + 1) & (size - 1)
    return -1


@K.borrowing
def _full_hash(g, d):
    h = position_hash(g, d)
    if g.S[d, K.PLAYED]:
        h ^= FLAG_KEYS[0]
    if g.S[d, K.MOVED]:
        h ^= FLAG_KEYS[1]
    return h


@njit
def walk_ends(g, max_nodes, ends, lengths):
    """Every distinct position reachable from row 0 of the table ``g`` where the turn may end: the moves to the
    ``i``-th one are ``ends[i, :lengths[i]]``, one of the shortest ways there. Returns (how many,
    whether the walk was complete: False if it stopped at ``max_nodes`` positions, at
    ``MAX_DEPTH`` moves or when ``ends`` was full).

    Breadth first, each position walked once: node ``n`` is its parent's position after
    ``action[n]``, and its row is made again by replaying the line from row 0."""
    parent = np.zeros(max_nodes, dtype=np.int64)
    action = np.zeros(max_nodes, dtype=np.int64)
    depth = np.zeros(max_nodes, dtype=np.int64)
    line = np.zeros(MAX_DEPTH + 1, dtype=np.int64)
    moves = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    size = 1
    while size < 2 * max_nodes:
        size *= 2
    table = np.zeros(size, dtype=np.int64)
    seen_before(table, _full_hash(g, np.int64(0)))
    parent[0] = -1
    nodes = 1
    found = 0
    complete = True
    for n in range(max_nodes):
        if n >= nodes:
            break
        d = depth[n]
        m = n
        for i in range(d - 1, -1, -1):  # the line from row 0 to node n
            line[i] = action[m]
            m = parent[m]
        replay(g, line, d)
        count = K.legal_actions(g, d, moves)
        if count == 0 or moves[count - 1] == K.END_TURN_ACTION:  # gone out, or may end here
            if found < ends.shape[0]:
                ends[found, :d] = line[:d]
                lengths[found] = d
                found += 1
            else:
                complete = False
        for k in range(count):
            a = moves[k]
            if a == K.END_TURN_ACTION:
                continue
            if d >= MAX_DEPTH:
                complete = False
                break
            make_move(g, d, a)
            if seen_before(table, _full_hash(g, d + 1)) < 0:
                continue
            if nodes >= max_nodes:
                complete = False
                break
            parent[nodes] = n
            action[nodes] = a
            depth[nodes] = d + 1
            nodes += 1
    return found, complete


@K.borrowing
def replay(g, line, length):
    """Row ``length`` of the table ``g`` = row 0 after the moves ``line[:length]``."""
    for d in range(length):
        make_move(g, d, line[d])


@njit
def afterstate(obs, g, d, out):
    """The seat's observation in row ``d``, as the env would show it there: the kernel's
    ``encode`` of the row (hand, piles, stock, flags), with what the row leaves out (the others'
    hand sizes, the match totals, the dealer, the idle count) copied from ``obs``."""
    K.encode(g, d, np.int64(0), obs[K.RULES_START:], out)
    out[K.O_OTHERS:K.O_OTHERS + 5] = obs[K.O_OTHERS:K.O_OTHERS + 5]
    out[K.O_SCORES:K.O_SCORES + 6] = obs[K.O_SCORES:K.O_SCORES + 6]
    out[K.O_IDLE] = obs[K.O_IDLE]
    out[K.O_DEALER:K.O_DEALER + 6] = obs[K.O_DEALER:K.O_DEALER + 6]


@dataclass(frozen=True)
class TurnEnd:
    """A position where the seat may end its turn: the moves that reach it (``actions``, action
    indices, none for ending the turn at once) and the seat's observation there."""

    actions: tuple[int, ...]
    observation: np.ndarray


def turn_ends(obs: np.ndarray, max_nodes: int = 100_000, max_ends: int = 20_000) -> tuple[list[TurnEnd], bool]:
    """Every distinct position where the seat to act in ``obs`` may end its turn (its turn must
    be under way: ``my_turn`` set), with one way to reach each; and whether the list is complete
    (the walk stops after ``max_nodes`` positions or ``max_ends`` ends)."""
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    if obs.shape != (K.OBS_SIZE,):
        raise ValueError(f"turn_ends takes one observation vector of {K.OBS_SIZE} values, not shape {obs.shape}")
    if obs[K.O_MY_TURN] < 0.5:
        raise ValueError("turn_ends needs the observation of the seat to act (my_turn is 0)")
    tab = alloc(MAX_DEPTH + 1, True)
    load(obs, tab, MAX_DEPTH + 1)
    ends = np.zeros((max_ends, MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(max_ends, dtype=np.int64)
    found, complete = walk_ends(tab, max_nodes, ends, lengths)
    out = []
    for i in range(found):
        n = int(lengths[i])
        replay(tab, ends[i], n)
        vec = np.zeros(K.OBS_SIZE, dtype=np.float32)
        afterstate(obs, tab, n, vec)
        out.append(TurnEnd(tuple(int(a) for a in ends[i, :n]), vec))
    return out, bool(complete)
