"""One game in one byte buffer: the compiled steps of the AEC env (``kings_corner_v0.raw_env``)
and, through it, ``KingsCorner-v0``.

A call from Python into a numba function costs about 0.35 us for every argument it checks (a
``Games`` namedtuple costs more than its seven arrays), which for one game per call is most of
the call. So a ``SingleGame`` keeps everything one game needs in ONE ``uint8`` buffer, ``mem``:
the kernel's state arrays (``Games`` of one row), the rules section of the observation, the match
scores, a scratch row, and the output observation and mask; each compiled entry point takes
``mem`` and at most two ints and rebuilds the ``Games`` views inside (free in compiled code). The
arrays are also numpy views of ``mem`` in Python (``SingleGame.state``), so ``VecGame``'s
loaders and readers (``load``, ``to_state``...) work on it unchanged.

The rules are the kernel's (``kernel.py``), unchanged: ``step`` is ``kernel.is_legal`` then
``kernel.apply_action``; ``observe`` is ``kernel.encode`` plus the match scores (which the
vector env, one deal per episode, has no use for) and ``kernel.write_mask``.
"""

from __future__ import annotations

import numpy as np

from ..compiled import njit
from ..engine import GameState
from ..rules import Rules
from . import kernel as K
from .game import VecGame

# -- the buffer's layout: (name, dtype, shape), 8-byte aligned, int64 first --------------------

_FIELDS = (
    ("pinfo", np.int64, (1, 8, K.PINFO)),
    ("hands", np.int64, (1, K.MAX_SEATS)),
    ("S", np.int64, (1, K.NUM_S)),
    ("R", np.int64, (1, K.NUM_R)),
    ("mt", np.int64, (1, K.MT_N + 1)),
    ("scratch", np.int64, (K.NUM_ACTIONS,)),
    ("scores", np.float64, (K.MAX_SEATS + 1,)),
    ("rules_vec", np.float32, (K.RULES_SIZE,)),
    ("obs", np.float32, (K.OBS_SIZE,)),
    ("piles", np.int8, (1, 8, K.PILE_CAP)),
    ("stock", np.int8, (1, K.STOCK_CAP)),
    ("mask", np.int8, (K.NUM_ACTIONS,)),
)


def _layout() -> tuple[dict[str, tuple[int, int]], int]:
    at, spans = 0, {}
    for name, dtype, shape in _FIELDS:
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        spans[name] = (at, at + size)
        at += (size + 7) // 8 * 8
    return spans, at


SPANS, MEM_SIZE = _layout()
_PINFO0, _PINFO1 = SPANS["pinfo"]
_HANDS0, _HANDS1 = SPANS["hands"]
_S0, _S1 = SPANS["S"]
_R0, _R1 = SPANS["R"]
_MT0, _MT1 = SPANS["mt"]
_SCRATCH0, _SCRATCH1 = SPANS["scratch"]
_SCORES0, _SCORES1 = SPANS["scores"]
_RULES0, _RULES1 = SPANS["rules_vec"]
_OBS0, _OBS1 = SPANS["obs"]
_PILES0, _PILES1 = SPANS["piles"]
_STOCK0, _STOCK1 = SPANS["stock"]
_MASK0, _MASK1 = SPANS["mask"]
_NP, _PC, _SC, _MTW = K.PINFO, K.PILE_CAP, K.STOCK_CAP, K.MT_N + 1
_NS, _NR, _NA, _MS = K.NUM_S, K.NUM_R, K.NUM_ACTIONS, K.MAX_SEATS

OVER, CUT_OFF, ILLEGAL = 8, 9, -1
"""What ``step`` returns besides the seat to act next (0..5): the deal ended, it was cut off after
``max_moves``, or the action was illegal (nothing changed)."""


@njit(inline="always")
def _games(mem):
    """The ``Games`` of one row that lives in ``mem``."""
    return K.Games(piles=mem[_PILES0:_PILES1].view(np.int8).reshape((1, 8, _PC)),
                   pinfo=mem[_PINFO0:_PINFO1].view(np.int64).reshape((1, 8, _NP)),
                   hands=mem[_HANDS0:_HANDS1].view(np.int64).reshape((1, _MS)),
                   stock=mem[_STOCK0:_STOCK1].view(np.int8).reshape((1, _SC)),
                   S=mem[_S0:_S1].view(np.int64).reshape((1, _NS)),
                   R=mem[_R0:_R1].view(np.int64).reshape((1, _NR)),
                   mt=mem[_MT0:_MT1].view(np.int64).reshape((1, _MTW)))


@njit(inline="always")
def _observe(mem, g, seat, live):
    """The observation of ``seat`` (``kernel.encode``, then the match scores, seat first) and,
    when ``live``, the legal mask of the player to act (else all 0) into ``mem``'s outputs."""
    b = np.int64(0)
    obs = mem[_OBS0:_OBS1].view(np.float32)
    K.encode(g, b, seat, mem[_RULES0:_RULES1].view(np.float32), obs)
    scores = mem[_SCORES0:_SCORES1].view(np.float64)
    n = g.S[b, K.NP]
    if scores[n] != 0.0:  # scores[n], past the seats: 1 in a match (totals written below it)
        for k in range(n):
            obs[K.O_SCORES + k] = scores[(seat + k) % n]
    mask = mem[_MASK0:_MASK1].view(np.int8)
    if live:
        K.write_mask(g, b, mask, mem[_SCRATCH0:_SCRATCH1].view(np.int64))
    else:
        mask[:] = 0


@njit(cache=True)
def observe(mem, seat, live):
    """``_observe``: what ``raw_env.observe(agent)`` returns for ``seat`` (``live``: it is the
    agent to act and the game goes on)."""
    _observe(mem, _games(mem), np.int64(seat), np.bool_(live))


@njit(cache=True)
def step(mem, a):
    """Play action ``a`` for the player to act, as ``engine.apply`` (which refuses an illegal
    action) and then ``raw_env.step``'s ending checks: returns ``ILLEGAL`` (nothing changed),
    ``OVER``, ``CUT_OFF`` (after ``max_moves``), or the seat to act next, whose observation and
    mask are then written (``_observe``), since ``last()`` asks for them next."""
    g = _games(mem)
    b = np.int64(0)
    scratch = mem[_SCRATCH0:_SCRATCH1].view(np.int64)
    if not K.is_legal(g, b, np.int64(a), scratch):
        return ILLEGAL
    K.apply_action(g, b, np.int64(a), scratch)
    S = g.S
    if S[b, K.OVER]:
        return OVER
    if S[b, K.TRUNC]:
        return CUT_OFF
    seat = S[b, K.CUR]
    _observe(mem, g, seat, np.bool_(True))
    return seat


@njit(cache=True)
def is_legal(mem, a):
    """Whether ``a`` (0..496) is legal for the player to act (``kernel.is_legal``)."""
    return K.is_legal(_games(mem), np.int64(0), np.int64(a), mem[_SCRATCH0:_SCRATCH1].view(np.int64))


@njit(cache=True)
def deal(mem, seed, dealer, n):
    """``engine.new_deal(rules, n, seed=seed, dealer=dealer)`` (``kernel.deal``)."""
    g = _games(mem)
    K.deal(g, np.int64(0), np.int64(seed), np.int64(dealer), np.int64(n), mem[_SCRATCH0:_SCRATCH1].view(np.int64))


class SingleGame(VecGame):
    """A ``VecGame`` of one game whose arrays live in one buffer (see the module docstring): the
    compiled calls above take ``self.mem``. ``obs`` and ``mask`` are the views the calls write."""

    def __init__(self) -> None:
        super().__init__(1)
        self.mem = np.zeros(MEM_SIZE, dtype=np.uint8)
        views = {name: self.mem[a:b].view(dtype).reshape(shape)
                 for (name, dtype, shape), (a, b) in zip(_FIELDS, SPANS.values(), strict=True)}
        self.state = K.Games(**{name: views[name] for name in K.Games._fields})
        self.rules_vecs = views["rules_vec"].reshape(1, -1)
        self.scores = views["scores"]
        self.obs = views["obs"]
        self.mask = views["mask"]

    def set_totals(self, scaled: list[float] | None) -> None:
        """The match totals by seat, already scaled and clipped as ``observation.encode`` writes
        them (None outside a match: the scores stay 0)."""
        self.scores[:] = 0.0
        if scaled is not None:
            self.scores[:len(scaled)] = scaled
            self.scores[len(scaled)] = 1.0

    def deal_one(self, rules: Rules, n: int, seed: int, dealer: int) -> None:
        """Deal ``engine.new_deal(rules, n, seed=seed, dealer=dealer)`` (rules already set with
        ``set_rules``)."""
        deal(self.mem, seed, dealer, n)
        self.seeds[0] = seed

    def load_state(self, state: GameState, max_moves: int, reward: str) -> None:
        """Copy an engine state in (``VecGame.load``)."""
        self.load(0, state, max_moves, reward)


__all__ = ["SingleGame", "step", "observe", "is_legal", "deal", "OVER", "CUT_OFF", "ILLEGAL"]
