"""``greedy``: sheds a card whenever it can.

``greedy_action(obs, mask)`` (compiled) takes the observation vector of the seat to act and its
action mask and returns the legal card play of the costliest card (by the penalty table in the
observation), then the higher rank, then onto a pile rather than into an empty side, then the
lower action index. With no card play it makes a pile move that empties a side (so the next
play can fill it), else ends the turn. It reads nothing else and is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import prange

from ..compiled import njit, njit_parallel
from ..vector import kernel as K
from . import view
from .base import Agent, legal_actions


@njit
def greedy_action(obs, mask):
    """Greedy's action (see the module docstring); ``mask`` must hold a legal action. It allocates
    nothing: the heuristic's search (``kernel.borrowing``) calls it, and numba compiles it then
    without reference counting, which would leak any array made here (the disk cache keeps
    whichever version compiled first, for every caller)."""
    best = -1
    best_key = -1.0
    for a in range(K.MOVE_OFFSET):
        if mask[a] != 0:
            c = K.play_card_of(a)
            p = K.play_pile_of(a)
            space = p < 4 and obs[view.PILE_START + p * view.PILE_BLOCK + view.OFF_LENGTH] == 0.0
            pen = view.card_penalty(obs, c)
            key = pen * 100.0 + K.RANK[c] + (0.0 if space else 0.5)  # a space only when nothing else
            if key > best_key:
                best_key = key
                best = a
    if best >= 0:
        return best
    for a in range(K.MOVE_OFFSET, K.END_TURN_ACTION):
        if mask[a] != 0:
            src = K.move_src(a)
            if src < 4 and _moves_whole_pile(obs, src, K.move_dst(a)):
                return a
    if mask[K.END_TURN_ACTION] != 0:
        return K.END_TURN_ACTION
    for a in range(K.NUM_ACTIONS):  # only pile moves that do not open a side are left
        if mask[a] != 0:
            return a
    return K.END_TURN_ACTION


@njit
def _moves_whole_pile(obs, src, dst):
    """Whether a legal move of ``src`` onto ``dst`` takes the whole pile (so ``src`` empties)."""
    sb = view.PILE_START + src * view.PILE_BLOCK
    db = view.PILE_START + dst * view.PILE_BLOCK
    n = view.obs_count(obs[sb + view.OFF_LENGTH], view.PILE_SCALE)
    m = view.obs_count(obs[db + view.OFF_LENGTH], view.PILE_SCALE)
    if n == 0:
        return False
    if m == 0:
        return True  # a king-bottomed side into an empty corner
    bottom_rank = view.obs_argmax(obs, sb + view.OFF_TOP_RANK, 13) + n  # top rank + n - 1, 1-based
    return bottom_rank == view.obs_argmax(obs, db + view.OFF_TOP_RANK, 13)  # one below the top's rank


SERIAL_ROWS = 1024
"""A batch of fewer rows is decided on one core: a decision takes about a microsecond, and waking
the threads of a parallel loop on a busy machine can take milliseconds (the vector env's batches
of greedy opponents ran 10 to 40 times faster so, on 2 cores shared with other jobs)."""


@njit_parallel
def _greedy_loop(obs, masks, out):
    for i in prange(obs.shape[0]):
        out[i] = greedy_action(obs[i], masks[i])


@njit
def _greedy_rows(obs, masks, out):
    for i in range(obs.shape[0]):
        out[i] = greedy_action(obs[i], masks[i])


def greedy_actions(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``greedy_action`` for every row of a batch (or one row); a batch of ``SERIAL_ROWS`` rows or
    more is shared among the cores."""
    obs, masks = batch_arrays(obs, masks)
    out = np.zeros(len(obs), dtype=np.int64)
    if len(obs) < SERIAL_ROWS:
        _greedy_rows(obs, masks, out)
    else:
        _greedy_loop(obs, masks, out)
    return out


def batch_arrays(obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A batch of observation vectors and masks as the contiguous 2-d float32 and int8 arrays the
    compiled loops take."""
    obs = np.ascontiguousarray(np.atleast_2d(obs)[:, :K.OBS_SIZE], dtype=np.float32)
    return obs, np.ascontiguousarray(np.atleast_2d(masks), dtype=np.int8)


class GreedyAgent(Agent):
    """Plays the costliest card it can; with no card play, a pile move that opens a side; else ends
    the turn. Deterministic: the same observation always gives the same action."""

    spec = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        """``seed`` is accepted for the common interface; greedy uses no randomness."""

    def act(self, obs: Mapping[str, np.ndarray]) -> int:
        """The greedy action for this observation."""
        legal_actions(obs)  # refuses a mask with no legal action
        return int(greedy_action(vector(obs), mask(obs)))

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for a batch of observation vectors and masks (compiled, on all cores)."""
        return greedy_actions(obs, masks)


def vector(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The observation vector as the contiguous float32 array the compiled agents take."""
    return np.ascontiguousarray(obs["observation"], dtype=np.float32)


def mask(obs: Mapping[str, np.ndarray]) -> np.ndarray:
    """The action mask as the contiguous int8 array the compiled agents take."""
    return np.ascontiguousarray(obs["action_mask"], dtype=np.int8)
