"""The heuristic's search: the rest of its own turn, walked on the vector kernel.

From the observation it builds a turn-search table (``turns.alloc``, ``view.seat_row``) and walks, depth first, the
sequences of card plays and pile moves the kernel allows this turn (the first move comes from
the mask). Every position where it may end the turn is scored by ``evaluation.evaluate``; it
plays the first move of the best sequence. What it leaves out are its filters, not rules:

- equivalent moves are searched once: a card into the first empty side only, a king (or a side
  pile) into the first empty corner only (after the first move);
- a part of a pile moves only as the turn's first pile move and only when the card it uncovers
  takes a card from the hand, and the turn may not end until a card has been played after it
  (rearrangements could be undone and redone for ever, and they swamp the search);
- equal positions reached in different orders are searched once (``turns.position_hash``), the
  search stops after ``MAX_NODES`` positions or at the first way out, and a longer sequence
  loses a tie.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import prange

from ... import compiled
from ...compiled import njit, njit_parallel
from ...vector import kernel as K
from .. import turns, view
from ..greedy import batch_arrays, greedy_action
from ..turns import MAX_DEPTH, make_move, position_hash
from .evaluation import C_SIZE, P_SIZE, WIN_VALUE, Scorer, prepare, read_context, score
from .weights import HEURISTIC_WEIGHTS

MAX_MOVES_PER_NODE = 200
MAX_NODES = 400
"""Positions the heuristic's search visits per decision before it scores the rest unexpanded."""
DEPTH_COST = 1.0e-6
PENDING_KEY = turns.FLAG_KEYS[2]
NO_CANDIDATE = -1.0e18
"""The value ``turn_candidates`` leaves in a slot it found no position for."""
ROWS = MAX_DEPTH + 2  # the filters try a move one row below the deepest position searched
SEEN_SIZE = 4096
"""Slots of the set of positions searched (a decision inserts at most ``MAX_NODES`` positions
and its first moves, so it is never full)."""
SERIAL_ROWS = 8
"""A batch of fewer rows is decided on one core: starting the threads costs more than they save."""


Walk = namedtuple("Walk", "pending moves nmoves next_move scratch seen used nodes line hashes")
Walk.__doc__ = """The search's scratch arrays (``alloc_desks``): per row ``d`` the
pending flag (``pending[d]``: a part of a pile moved, no card played since), the moves searched
there (``moves[d, :nmoves[d]]``) and the next one to try (``next_move[d]``); ``scratch`` for the
kernel's legal moves, ``seen`` the hashes of the positions searched (``_seen_before``, the
open-addressing set of ``turns.seen_before``) and ``used[:nodes[1]]`` its slots filled (cleared
for the next decision), ``nodes[0]`` the positions searched, ``line`` the moves from the root
to the row searched, and ``hashes[d]`` row ``d``'s ``turns.position_hash`` (``_moved_hash``)."""

Desk = namedtuple("Desk", "g walk ctx pre fitting keep first")
Desk.__doc__ = """Everything one decision writes, kept from one decision to the next so that a
batch allocates nothing per row: the turn-search table ``g`` (``turns.alloc``), the ``Walk``, the
decision's ``ctx`` (``evaluation.read_context``), the evaluation's ``pre``, ``fitting`` and
``keep`` (``evaluation.Scorer``) and the first moves (``first``). ``lane_desk`` cuts one out of
``Desks``."""

Desks = namedtuple("Desks", "piles pinfo hands stock S R mt pending moves nmoves next_move scratch seen used nodes "
                            "line hashes ctx pre fitting keep first")
Desks.__doc__ = """One ``Desk`` for each of several cores (``alloc_desks``): the same arrays with a first
axis, one row per lane."""

Kept = namedtuple("Kept", "values lines lengths")
Kept.__doc__ = """The best distinct positions the search keeps (``turn_candidates``): their values,
the moves to each (``lines[i, :lengths[i]]``); empty arrays keep none."""


@njit
def alloc_desks(lanes, shuffles):
    """``lanes`` fresh desks (``Desks``); their tables shuffle a cleared pile into the stock only
    with ``shuffles`` (a desk that decides positions where a complete pile leaves the table needs
    it: ``view.clears_piles``). The arrays a decision writes before it reads them (the moves, the
    slots used, the first moves and the kernel's scratch) are left as they come."""
    g = turns.alloc(lanes * ROWS, shuffles)
    mt = g.mt.reshape((lanes, ROWS, g.mt.shape[1]))
    steps = MAX_DEPTH + 1
    return Desks(g.piles.reshape((lanes, ROWS, 8, K.PILE_CAP)), g.pinfo.reshape((lanes, ROWS, 8, K.PINFO)),
                 g.hands.reshape((lanes, ROWS, K.MAX_SEATS)), g.stock.reshape((lanes, ROWS, K.STOCK_CAP)),
                 g.S.reshape((lanes, ROWS, K.NUM_S)), g.R.reshape((lanes, ROWS, K.NUM_R)), mt,
                 np.zeros((lanes, steps), dtype=np.int64), np.empty((lanes, steps, MAX_MOVES_PER_NODE), dtype=np.int64),
                 np.zeros((lanes, steps), dtype=np.int64), np.zeros((lanes, steps), dtype=np.int64),
                 np.empty((lanes, K.NUM_ACTIONS), dtype=np.int64), np.zeros((lanes, SEEN_SIZE), dtype=np.int64),
                 np.empty((lanes, SEEN_SIZE), dtype=np.int64), np.zeros((lanes, 2), dtype=np.int64),
                 np.zeros((lanes, steps), dtype=np.int64), np.zeros((lanes, ROWS), dtype=np.int64),
                 np.zeros((lanes, C_SIZE), dtype=np.float64),
                 np.zeros((lanes, P_SIZE), dtype=np.float64), np.zeros((lanes, 8), dtype=np.int64),
                 np.zeros((lanes, 8), dtype=np.float64), np.empty((lanes, K.NUM_ACTIONS), dtype=np.int64))


@njit
def lane_desk(desks, t):
    """Lane ``t`` of ``desks`` as a ``Desk`` (views, no copies)."""
    x = desks
    g = K.Games(x.piles[t], x.pinfo[t], x.hands[t], x.stock[t], x.S[t], x.R[t], x.mt[t])
    walk = Walk(x.pending[t], x.moves[t], x.nmoves[t], x.next_move[t], x.scratch[t], x.seen[t], x.used[t],
                x.nodes[t], x.line[t], x.hashes[t])
    return Desk(g, walk, x.ctx[t], x.pre[t], x.fitting[t], x.keep[t], x.first[t])


@K.borrowing
def _seen_before(walk, h):
    """Whether ``h`` was in ``walk.seen`` already (``turns.seen_before``), noting each slot it
    fills in ``walk.used``."""
    slot = turns.seen_before(walk.seen, h)
    if slot < 0:
        return True
    walk.used[walk.nodes[1]] = slot
    walk.nodes[1] += 1
    return False


@K.borrowing
def _clear(walk):
    """The walk as new for the next decision: no position seen, none searched."""
    for k in range(walk.nodes[1]):
        walk.seen[walk.used[k]] = 0
    walk.nodes[0] = 0
    walk.nodes[1] = 0
    walk.pending[0] = 0


@K.borrowing
def _useful_pile_move(g, d, s, q):
    """Whether the legal move of (part of) pile ``s`` onto non-empty pile ``q`` is worth
    searching: a whole pile always; a part only as the first pile move of the turn and only if
    the card it uncovers takes a card from the hand (the move is tried in row ``d + 1``)."""
    i = K.part_start(g, d, s, q)
    if i <= 0:
        return i == 0
    if g.S[d, K.MOVED]:
        return False
    make_move(g, d, K.move_action(s, q))
    return (g.hands[d + 1, 0] & g.pinfo[d + 1, s, K.ACC]) != 0


@K.borrowing
def _generate(g, d, walk):
    """The moves searched in row ``d`` into ``walk.moves[d]``: the kernel's legal moves, less the
    filters of the module docstring, card plays first, then kings into the first empty corner,
    then the other pile moves. Returns (count, whether the turn may end here)."""
    pinfo, scratch, out = g.pinfo, walk.scratch, walk.moves[d]
    n = K.legal_actions(g, d, scratch)
    may_end = n > 0 and scratch[n - 1] == K.END_TURN_ACTION and walk.pending[d] == 0
    first_side = -1
    first_corner = -1
    for p in range(8):
        if pinfo[d, p, K.LEN] == 0:
            if p < 4 and first_side < 0:
                first_side = p
            if p >= 4 and first_corner < 0:
                first_corner = p
    count = 0
    for i in range(n):  # card plays
        a = scratch[i]
        if not K.is_play(a) or count >= MAX_MOVES_PER_NODE:
            continue
        p = K.play_pile_of(a)
        if pinfo[d, p, K.LEN] == 0 and p != first_side and p != first_corner:
            continue
        out[count] = a
        count += 1
    for i in range(n):  # side piles with a king at the bottom into the first empty corner
        a = scratch[i]
        if K.is_pile_move(a) and pinfo[d, K.move_dst(a), K.LEN] == 0:
            if K.move_dst(a) == first_corner and count < MAX_MOVES_PER_NODE:
                out[count] = a
                count += 1
    for i in range(n):  # the other pile moves
        a = scratch[i]
        if K.is_pile_move(a):
            s, q = K.move_src(a), K.move_dst(a)
            if pinfo[d, q, K.LEN] > 0 and count < MAX_MOVES_PER_NODE and _useful_pile_move(g, d, s, q):
                out[count] = a
                count += 1
    return count, may_end


@K.borrowing
def _step(g, pending, d, a):
    """Row ``d + 1`` after move ``a``, with the search's pending flag (a part of a pile moved, no
    card played since)."""
    make_move(g, d, a)
    if K.is_play(a):
        pending[d + 1] = 0
    else:
        pending[d + 1] = 1 if g.pinfo[d + 1, K.move_src(a), K.LEN] > 0 else pending[d]


@K.borrowing
def _moved_hash(g, d, a, h):
    """``turns.position_hash`` of row ``d + 1``, row ``d`` after the move ``a`` of seat 0, from
    ``h``, row ``d``'s: the keys of the cards that moved (a complete pile that went into the
    stock takes all of its own)."""
    piles, pinfo, Z = g.piles, g.pinfo, turns.ZOBRIST
    if K.is_play(a):
        c, p = K.play_card_of(a), K.play_pile_of(a)
        h ^= Z[c, 0]
        n = pinfo[d, p, K.LEN]
        if pinfo[d + 1, p, K.LEN] == n + 1:
            return h ^ Z[c, p + 1]
        for i in range(n):  # cleared: the pile's cards and the one played left the table
            h ^= Z[piles[d, p, i], p + 1]
        return h
    s, q = K.move_src(a), K.move_dst(a)
    start, n, m = pinfo[d + 1, s, K.LEN], pinfo[d, s, K.LEN], pinfo[d, q, K.LEN]
    kept = pinfo[d + 1, q, K.LEN] == m + n - start
    for j in range(start, n):
        x = piles[d, s, j]
        h ^= Z[x, s + 1]
        if kept:
            h ^= Z[x, q + 1]
    if not kept:  # cleared: the pile's own cards left the table too
        for j in range(m):
            h ^= Z[piles[d, q, j], q + 1]
    return h


@K.borrowing
def _hash(walk, d):
    """Row ``d``'s key in ``walk.seen``: its position hash, and the pending flag's key."""
    h = walk.hashes[d]
    if walk.pending[d]:
        h ^= PENDING_KEY
    return h


@njit
def heuristic_action_w(obs, mask, w):
    """The heuristic's action with the weights ``w`` (float64, in the order of
    ``weights.WEIGHT_NAMES``)."""
    return _decide(obs, mask, w, new_desk(view.clears_piles(obs)))


@njit
def new_desk(shuffles):
    """A ``Desk`` for ``heuristic_action_on`` (``shuffles``: ``view.clears_piles`` of the
    observations it will decide), to keep for decision after decision."""
    return lane_desk(alloc_desks(1, shuffles), 0)


@njit
def heuristic_action_on(obs, mask, w, desk):
    """``heuristic_action_w`` on a kept ``desk`` (``new_desk``): the same action, nothing
    allocated."""
    return _decide(obs, mask, w, desk)


@njit
def _decide(obs, mask, w, desk):
    """``_best_first_move`` keeping no lines, on ``desk``; the one legal action when there is only
    one (what the search would choose: a lone first move is the best, and one it skips leaves
    greedy's, which is the lone legal action too)."""
    only = -1
    for a in range(K.NUM_ACTIONS):
        if mask[a] != 0:
            if only >= 0:
                only = -2
                break
            only = a
    if only >= 0:
        return only
    none = Kept(np.zeros(0, dtype=np.float64), np.zeros((0, MAX_DEPTH), dtype=np.int64), np.zeros(0, dtype=np.int64))
    return _best_first_move(obs, mask, w, none, desk)


@njit
def turn_candidates(obs, mask, w, top_v, top_line, top_len):
    """The heuristic's search, keeping the ``len(top_v)`` best distinct positions where it may end
    its turn: their values in ``top_v`` (best first; ``NO_CANDIDATE`` for a slot left empty), the
    moves to each in ``top_line[i, :top_len[i]]`` (none: end the turn now). Returns the
    heuristic's own action (the first move of ``top_line[0]`` unless no move beat the fallback)."""
    top_v[:] = NO_CANDIDATE
    top_len[:] = 0
    best = _best_first_move(obs, mask, w, Kept(top_v, top_line, top_len), lane_desk(alloc_desks(1, view.clears_piles(obs)), 0))
    order = np.argsort(-top_v, kind="mergesort")
    top_v[:] = top_v[order]
    top_line[:] = top_line[order]
    top_len[:] = top_len[order]
    return best


@njit(_nrt=True)  # it copies slices; the search that calls it is ``kernel.borrowing``
def _keep(kept, v, line, n):
    """Put the line ``line[:n]`` of value ``v`` among the best kept, if it beats the worst. The
    slots stay in the order the lines were found (the worst goes, the new line comes last), so
    that among lines of equal value ``turn_candidates`` lists first the one found first, whose
    first move is the heuristic's own."""
    values, lines, lengths = kept
    k = values.shape[0]
    worst = 0
    for i in range(1, k):
        if values[i] < values[worst]:
            worst = i
    if v > values[worst]:
        for i in range(worst, k - 1):
            values[i] = values[i + 1]
            lines[i] = lines[i + 1]
            lengths[i] = lengths[i + 1]
        values[k - 1] = v
        lines[k - 1, :n] = line[:n]
        lengths[k - 1] = n


@K.borrowing
def _first_moves(g, mask, out):
    """The first moves searched, into ``out`` (they always come from the mask: the filters only
    drop pile moves not worth searching); returns how many."""
    root = np.int64(0)  # rows as int64, not literals: one compiled version of each callee
    count = 0
    for a in range(K.NUM_ACTIONS):
        if mask[a] != 0 and count < MAX_MOVES_PER_NODE:
            if K.is_pile_move(a):
                src, dst = K.move_src(a), K.move_dst(a)
                if g.pinfo[0, dst, K.LEN] > 0 and not _useful_pile_move(g, root, src, dst):
                    continue
            out[count] = a
            count += 1
    return count


@njit
def _best_first_move(obs, mask, w, kept, desk):
    """The heuristic's search from ``obs`` with the weights ``w`` on ``desk`` (any desk: what an
    earlier decision left there is never read), offering the positions it scores to ``kept``."""
    g, walk, ctx = desk.g, desk.walk, desk.ctx
    _load(obs, g)
    _clear(walk)
    read_context(obs, g.R, ctx)
    sc = Scorer(w, ctx, desk.pre, desk.fitting, desk.keep)
    prepare(sc)
    return _first_move_searched(obs, mask, g, sc, walk, desk.first, kept)


@K.borrowing
def _load(obs, g):
    """``turns.load(obs, g, ROWS)``: row 0 from the observation, its rules copied to the other rows
    unless they hold them already (a desk's rows keep the last decision's rules: only
    ``view.seat_row`` writes a rules row, and only row 0, so rows 1.. are always equal)."""
    view.seat_row(obs, g, np.int64(0))
    R = g.R
    for k in range(K.NUM_R):
        if R[1, k] != R[0, k]:
            for d in range(1, ROWS):
                for j in range(K.NUM_R):
                    R[d, j] = R[0, j]
            return


@K.borrowing
def _first_move_searched(obs, mask, g, sc, walk, first, kept):
    root, child = np.int64(0), np.int64(1)  # rows as int64, not literals: one compiled version of each callee
    walk.hashes[root] = position_hash(g, root)
    _seen_before(walk, _hash(walk, root))
    count = _first_moves(g, mask, first)
    best_action = -1
    best_value = -1.0e18
    for k in range(count):
        a = first[k]
        if a == K.END_TURN_ACTION:
            v = score(g, root, sc)
            if kept.values.shape[0] > 0:
                _keep(kept, v, walk.line, root)
        else:
            _step(g, walk.pending, root, a)
            walk.hashes[child] = _moved_hash(g, root, a, walk.hashes[root])
            if _seen_before(walk, _hash(walk, child)):
                continue
            walk.nodes[0] += 1
            walk.line[0] = a
            v = _search(g, sc, walk, kept)
        if v > best_value:
            best_value = v
            best_action = a
    if best_action < 0:  # every first move led back to a position searched already
        return greedy_action(obs, mask)
    return best_action


@K.borrowing
def _search(g, sc, walk, kept):
    """The best value of a position where the turn may end, reachable from row 1 of the table
    ``g`` (depth first, iterative; a position met before in this search is skipped, a longer way
    loses a tie, and the search stops at the first way out). ``walk.line[0]`` is the move into
    row 1; every position scored is offered to the kept best (``_keep``) when ``kept`` has room
    for any."""
    pending, moves, nmoves, next_i, nodes, line = walk.pending, walk.moves, walk.nmoves, walk.next_move, walk.nodes, walk.line
    best = -1.0e18
    next_i[:] = 0
    d = np.int64(1)  # int64 from the start: a literal 1 would compile every callee once more for it
    while d >= 1:
        if next_i[d] == 0:  # first visit of this row's position
            count, may_end = _generate(g, d, walk)
            nmoves[d] = count
            next_i[d] = 1
            stop = may_end or count == 0 or nodes[0] >= MAX_NODES or d >= MAX_DEPTH
            if stop and (pending[d] == 0 or g.hands[d, 0] == 0):
                v = score(g, d, sc) - DEPTH_COST * d
                if v > best:
                    best = v
                if kept.values.shape[0] > 0:
                    for j in range(1, d):  # the moves taken from rows 1 .. d - 1
                        line[j] = moves[j, next_i[j] - 2]
                    _keep(kept, v, line, d)
                if v >= WIN_VALUE - 1.0:
                    return best
        k = next_i[d] - 1
        if k >= nmoves[d] or d >= MAX_DEPTH or nodes[0] >= MAX_NODES:
            next_i[d] = 0
            d -= 1
            continue
        next_i[d] += 1
        a = moves[d, k]
        _step(g, pending, d, a)
        walk.hashes[d + 1] = _moved_hash(g, d, a, walk.hashes[d])
        if _seen_before(walk, _hash(walk, d + 1)):
            continue
        nodes[0] += 1
        d += 1
    return best


@njit
def heuristic_action(obs, mask):
    """The heuristic's action with the tuned ``HEURISTIC_WEIGHTS``."""
    return heuristic_action_w(obs, mask, HEURISTIC_WEIGHTS.copy())


@njit
def _decide_rows(obs, masks, table, which, out, desks, t, lanes):
    """Rows ``t``, ``t + lanes``, ``t + 2 lanes``... of the batch on lane ``t`` of ``desks``
    (every ``lanes``-th row: the costly positions, a few in a hundred, fall to every lane alike)."""
    desk = lane_desk(desks, t)
    for i in range(t, obs.shape[0], lanes):
        out[i] = _decide(obs[i], masks[i], table[which[i]], desk)


@njit_parallel
def _heuristic_loop(obs, masks, table, which, out, desks):
    lanes = desks.pending.shape[0]
    for t in prange(lanes):
        _decide_rows(obs, masks, table, which, out, desks, t, lanes)


@njit
def _heuristic_rows(obs, masks, table, which, out, desks):
    _decide_rows(obs, masks, table, which, out, desks, np.int64(0), np.int64(1))


def weighted_heuristic(table: np.ndarray, rows: np.ndarray | None = None):
    """The heuristic over a batch, the rows shared among the cores: row ``i`` with the evaluation
    weights ``table[rows[i]]`` (float64 ``[k, len(WEIGHT_NAMES)]``; every row with ``table[0]``
    when ``rows`` is None). Returns ``act_batch(obs, masks, rows=rows) -> actions``.

    The function keeps one desk (``Desks``) per core from call to call; calls take
    ``PARALLEL_LOCK`` (one batch at a time in a process, as every parallel loop). A batch of
    fewer than ``SERIAL_ROWS`` rows is decided on one core."""
    table = np.ascontiguousarray(table, dtype=np.float64)
    desks = []

    def act_batch(obs: np.ndarray, masks: np.ndarray, rows: np.ndarray | None = rows) -> np.ndarray:
        obs, masks = batch_arrays(obs, masks)
        out = np.zeros(len(obs), dtype=np.int64)
        which = np.zeros(len(obs), dtype=np.int64) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        with compiled.PARALLEL_LOCK:
            if not desks:
                desks.append(alloc_desks(max(1, numba.get_num_threads()), True))
            if len(obs) < SERIAL_ROWS:
                _heuristic_rows(obs, masks, table, which, out, desks[0])
            else:
                _heuristic_loop(obs, masks, table, which, out, desks[0])
        return out

    return act_batch
