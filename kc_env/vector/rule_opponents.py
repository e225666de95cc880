"""The rule-based opponents played inside ``LearnerGames``' compiled step: greedy and the
heuristic (with any evaluation weights) choose and move for every waiting game in one call, the
games shared among the cores, until each game's learner is to act, its deal has ended, or an
opponent asked from Python (``act_batch``, an ``Agent``) must choose. ``learner_step`` is the
whole step when no opponent is asked from Python (the learner's moves, the opponents' turns, the
next deals); ``play_rule_based`` plays the compiled opponents between the outside ones.

Asked from Python, a rule-based opponent costs a round trip per move of every turn (the env
asked the heuristic about 20 times a step, 17 rows on average, median 4, mostly on one core).
Here each game's whole run of opponent turns is one iteration of a parallel loop. The actions
are the same: each decision is the one function the batched agents call on the same
observation and mask (``greedy.greedy_action``, ``search.heuristic_action_on``, whose desk
keeps nothing a decision reads), and each move is ``kernel.advance`` as the Python path applies
it (``tests/test_rule_opponents.py``). A chosen action the mask forbids (none does) is left
to the Python path, which asks again and refuses it with its message.

``Plays``: per opponent kind (``LearnerGames``' numbering, 0 = random, played in the kernel)
how it is played (``OUTSIDE``, ``GREEDY``, ``HEURISTIC``) and the row of ``weights`` its
heuristic takes (``Kinds``), with the cores' desks and scratch.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np
from numba import prange

from ..agents.greedy import greedy_action
from ..agents.heuristic.search import SERIAL_ROWS, alloc_desks, heuristic_action_on, lane_desk
from ..compiled import njit, njit_parallel, take_next
from . import kernel as K

OUTSIDE, GREEDY, HEURISTIC = 0, 1, 2
"""How an opponent kind is played: asked from Python, or greedy or the heuristic compiled here."""
HOW = {"greedy": GREEDY, "heuristic": HEURISTIC}
"""``agents.batch.compiled_form``'s names as ``Plays.how`` codes."""

Kinds = namedtuple("Kinds", "how rows weights")
Kinds.__doc__ = """``Plays`` without the desks and scratch: what one game's decisions read."""
Plays = namedtuple("Plays", "how rows weights desks scratch")
Plays.__doc__ = """What the compiled opponents need: ``how[k]`` and ``rows[k]`` per opponent
kind ``k`` (int64), the heuristics' ``weights`` (float64 ``[r, len(WEIGHT_NAMES)]``), one
heuristic desk per core (``search.Desks``) and one row of the kernel's scratch per core."""


def new_plays(how: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> Plays:
    """``Plays`` for these kinds, with a desk and scratch row for each of numba's threads."""
    lanes = max(1, numba.get_num_threads())
    return Plays(np.ascontiguousarray(how, dtype=np.int64), np.ascontiguousarray(rows, dtype=np.int64),
                 np.ascontiguousarray(np.atleast_2d(weights), dtype=np.float64), alloc_desks(lanes, True),
                 np.empty((lanes, K.NUM_ACTIONS), dtype=np.int64))


@K.stepping
def _play_game(g, e, b, plays, desk, scratch):
    """Game ``b``'s compiled opponents choose and move while it waits for one of them; returns
    how many decisions they made."""
    made = 0
    while e.status[b] == K.NEED_OPP:
        kind = e.opp_kind[b, g.S[b, K.CUR]]
        how = plays.how[kind]
        if how == GREEDY:
            a = greedy_action(e.opp_obs[b], e.opp_mask[b])
        elif how == HEURISTIC:
            a = heuristic_action_on(e.opp_obs[b], e.opp_mask[b], plays.weights[plays.rows[kind]], desk)
        else:
            return made
        if a < 0 or a >= K.NUM_ACTIONS or e.opp_mask[b, a] == 0:
            return made
        K.advance(g, e, b, K.MODE_OPP, a, scratch)
        made += 1
    return made


@njit
def _play_lane(idx, g, e, how, rows, weights, desks, scratch, t, taken):
    """Lane ``t`` plays the next game of ``idx`` not yet taken (``taken[0]``, shared among the
    lanes: ``compiled.take_next``) until none is left; returns its decisions."""
    plays = Kinds(how, rows, weights)
    desk = lane_desk(desks, t)
    made = 0
    i = take_next(taken)
    while i < idx.shape[0]:
        made += _play_game(g, e, idx[i], plays, desk, scratch[t])
        i = take_next(taken)
    return made


@njit_parallel  # a parallel loop takes no tuple of tuples: Plays comes apart
def _play_parallel(idx, g, e, how, rows, weights, desks, scratch, made, taken):
    for t in prange(made.shape[0]):
        made[t] = _play_lane(idx, g, e, how, rows, weights, desks, scratch, t, taken)


@njit
def _play_serial(idx, g, e, how, rows, weights, desks, scratch, taken):
    return _play_lane(idx, g, e, how, rows, weights, desks, scratch, np.int64(0), taken)


@K.stepping
def _step_game(b, a, g, e, ends, ended, old_obs, seating, rewards, dones, plays, desk, scratch):
    """Game ``b``'s whole step (``LearnerGames.step``): the learner's action ``a``, the opponents'
    turns (random in the kernel, the compiled ones here) until the learner is to act again or the
    deal has ended; an ended episode is kept in row ``b`` of ``ends`` (counted in ``ended``; an
    illegal action's with the observation it had, ``old_obs[b]``) and the next one dealt,
    opponents and all (a deal still ended before the learner's first action is counted in
    ``ends.waiting``: ``LearnerGames._new_episodes`` deals it again). ``seating``: the fixed
    seat, the fixed dealer (-1: drawn) and the deals per round. Returns the decisions made."""
    e.rewards[b] = 0.0
    K.advance(g, e, b, K.MODE_ACT, a, scratch)
    made = _play_game(g, e, b, plays, desk, scratch)
    st = e.status[b]
    rewards[b] = e.rewards[b]
    if st == K.DONE or st == K.ILLEGAL:
        if st == K.ILLEGAL:
            for i in range(K.OBS_SIZE):
                e.obs[b, i] = old_obs[b, i]
        dones[b] = True
        K.keep_ending(g, e, b, ends, b)
        take_next(ended)
        K.new_episode(g, e, b, seating[0], seating[1], seating[2], scratch)
        made += _play_game(g, e, b, plays, desk, scratch)
        if e.status[b] == K.DONE:
            take_next(ends.waiting)
    return made


@njit
def _step_lane(acts, g, e, ends, ended, old_obs, seating, rewards, dones, plays, desks, scratch, t, taken):
    """Lane ``t`` steps the next game not yet taken until none is left; returns its decisions."""
    desk = lane_desk(desks, t)
    made = 0
    b = take_next(taken)
    while b < acts.shape[0]:
        made += _step_game(b, acts[b], g, e, ends, ended, old_obs, seating, rewards, dones, plays, desk, scratch[t])
        b = take_next(taken)
    return made


@njit_parallel
def _step_parallel(acts, g, e, ends, ended, old_obs, seating, rewards, dones, how, rows, weights, desks, scratch,
                   made, taken):
    for t in prange(made.shape[0]):
        made[t] = _step_lane(acts, g, e, ends, ended, old_obs, seating, rewards, dones, Kinds(how, rows, weights),
                             desks, scratch, t, taken)


@njit
def _step_serial(acts, g, e, ends, ended, old_obs, seating, rewards, dones, how, rows, weights, desks, scratch, taken):
    return _step_lane(acts, g, e, ends, ended, old_obs, seating, rewards, dones, Kinds(how, rows, weights), desks,
                      scratch, np.int64(0), taken)


def learner_step(acts: np.ndarray, g: K.Games, e: K.EnvBuffers, ends: K.Endings, old_obs: np.ndarray,
                 seating: np.ndarray, rewards: np.ndarray, dones: np.ndarray, plays: Plays) -> tuple[int, int]:
    """``LearnerGames.step`` in one call when every opponent is random or compiled here and some
    are compiled (with every one random, ``kernel.learner_step``, the same step without the
    agents, is faster on one core than this loop on two): every game's ``_step_game``, the games
    shared among the cores (on the calling core below ``search.SERIAL_ROWS`` games). Returns the
    episodes ended and the decisions of the compiled opponents."""
    ended, taken = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    ends.waiting[0] = 0
    args = (acts, g, e, ends, ended, old_obs, seating, rewards, dones, plays.how, plays.rows, plays.weights,
            plays.desks, plays.scratch)
    if acts.shape[0] < SERIAL_ROWS:
        made = int(_step_serial(*args, taken))
    else:
        lanes = np.zeros(plays.scratch.shape[0], dtype=np.int64)
        _step_parallel(*args, lanes, taken)
        made = int(lanes.sum())
    return int(ended[0]), made


def play_rule_based(idx: np.ndarray, g: K.Games, e: K.EnvBuffers, plays: Plays) -> int:
    """Every game ``idx[i]`` waiting for an opponent (status ``NEED_OPP``) whose opponent is
    compiled plays on until it no longer waits for one (see the module docstring); fewer than
    ``search.SERIAL_ROWS`` games are played on the calling core. Returns the decisions made."""
    taken = np.zeros(1, dtype=np.int64)
    if idx.shape[0] < SERIAL_ROWS:
        return int(_play_serial(idx, g, e, *plays, taken))
    made = np.zeros(plays.scratch.shape[0], dtype=np.int64)
    _play_parallel(idx, g, e, *plays, made, taken)
    return int(made.sum())
