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
from .numpy_draws import below, pointers

PLAYED_CAP = 64
"""At most this many moves a ``play`` call plays (then it returns, and is called again)."""

# -- the buffer's layout: (name, dtype, shape), 8-byte aligned, int64 first --------------------

_FIELDS = (
    ("pinfo", np.int64, (1, 8, K.PINFO)),
    ("hands", np.int64, (1, K.MAX_SEATS)),
    ("S", np.int64, (1, K.NUM_S)),
    ("R", np.int64, (1, K.NUM_R)),
    ("mt", np.int64, (1, K.MT_N + 1)),
    ("scratch", np.int64, (K.NUM_ACTIONS,)),
    ("draws", np.int64, (1 + 2 * K.MAX_SEATS,)),
    ("played", np.int64, (1 + PLAYED_CAP,)),
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
_DRAWS0, _DRAWS1 = SPANS["draws"]
_PLAYED0, _PLAYED1 = SPANS["played"]
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
def _scratch(mem):
    """The kernel's scratch row (legal actions) in ``mem``."""
    return mem[_SCRATCH0:_SCRATCH1].view(np.int64)


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
        K.write_mask(g, b, mask, _scratch(mem))
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
    scratch = _scratch(mem)
    if not K.is_legal(g, b, np.int64(a), scratch):
        return ILLEGAL
    K.apply_action(g, b, np.int64(a), scratch)
    return _ending(mem, g)


@njit(inline="always")
def _ending(mem, g):
    """What ``step`` and ``play`` return after their moves: ``OVER``, ``CUT_OFF``, or the seat to
    act next, whose observation and mask are then written (``_observe``)."""
    S, b = g.S, np.int64(0)
    if S[b, K.OVER]:
        return OVER
    if S[b, K.TRUNC]:
        return CUT_OFF
    seat = S[b, K.CUR]
    _observe(mem, g, seat, np.bool_(True))
    return seat


@njit(inline="always")
def _in_order(legal, n):
    """Sort ``legal[:n]`` ascending and drop repeats, in place (the order of ``np.flatnonzero``
    of the mask); returns how many are left."""
    for i in range(1, n):
        a = legal[i]
        j = i - 1
        while j >= 0 and legal[j] > a:
            legal[j + 1] = legal[j]
            j -= 1
        legal[j + 1] = a
    k = np.int64(0)
    for i in range(n):
        if k == 0 or legal[i] != legal[k - 1]:
            legal[k] = legal[i]
            k += 1
    return k


@njit(cache=True)
def play(mem, a, until):
    """``step(mem, a)`` (``a`` < 0: no action, go on from here), then, while the deal goes on and
    the seat to act is not ``until`` and has draws (``SingleGame.set_draws``), that seat's action
    drawn as the ``random`` agent draws it (``rng.choice`` of the legal actions in index order:
    ``numpy_draws.below`` on its generator). Every move played goes into ``played`` (its count
    first, each ``seat << 9 | action``, as ``raw_env``'s log), at most ``PLAYED_CAP``. Returns
    ``ILLEGAL`` (nothing played) or ``count << 4 | code``: the count of moves played and, as
    ``step`` returns it, ``OVER``, ``CUT_OFF`` or the seat to act next (``until``, a seat without
    draws, or any seat once ``PLAYED_CAP`` moves are played), whose observation and mask are then
    written."""
    g = _games(mem)
    b = np.int64(0)
    S = g.S
    scratch = _scratch(mem)
    played = mem[_PLAYED0:_PLAYED1].view(np.int64)
    draws = mem[_DRAWS0:_DRAWS1].view(np.int64)
    k = 0
    played[0] = 0
    if a >= 0:
        if not K.is_legal(g, b, np.int64(a), scratch):
            return ILLEGAL
        played[1] = S[b, K.CUR] << 9 | a
        k = 1
        K.apply_action(g, b, np.int64(a), scratch)
    ours = draws[0] == mem.ctypes.data  # the addresses were written for this very buffer
    while not (S[b, K.OVER] or S[b, K.TRUNC]) and k < PLAYED_CAP:
        seat = S[b, K.CUR]
        function = draws[1 + 2 * seat]
        if seat == until or function == 0 or not ours:
            break
        n = _in_order(scratch, K.legal_actions(g, b, scratch))
        choice = scratch[below(function, draws[2 + 2 * seat], n)]
        k += 1
        played[k] = seat << 9 | choice
        K.apply_action(g, b, choice, scratch)
    played[0] = k
    return k << 4 | _ending(mem, g)


@njit(cache=True)
def is_legal(mem, a):
    """Whether ``a`` (0..496) is legal for the player to act (``kernel.is_legal``)."""
    return K.is_legal(_games(mem), np.int64(0), np.int64(a), _scratch(mem))


@njit(cache=True)
def deal(mem, seed, dealer, n):
    """``engine.new_deal(rules, n, seed=seed, dealer=dealer)`` (``kernel.deal``)."""
    g = _games(mem)
    K.deal(g, np.int64(0), np.int64(seed), np.int64(dealer), np.int64(n), _scratch(mem))


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
        self.address = self.mem.ctypes.data
        self.draws = views["draws"]
        self.played = views["played"]
        self.drawn_by: list[np.random.Generator | None] = [None] * K.MAX_SEATS
        """The generator each seat's draws come from (kept alive while its addresses are in
        ``mem``), or None."""

    def set_draws(self, seat: int, rng: np.random.Generator | None) -> None:
        """From now on ``play`` draws ``seat``'s actions from ``rng`` as the ``random`` agent
        (``rng.choice`` of the legal actions), or (None) leaves them to the caller."""
        self.drawn_by[seat] = rng
        function, state = (0, 0) if rng is None else pointers(rng)
        self.draws[1 + 2 * seat], self.draws[2 + 2 * seat] = function, state
        self.draws[0] = self.address  # a copy of mem (pickle, deepcopy) draws nothing

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


__all__ = ["SingleGame", "step", "play", "observe", "is_legal", "deal", "OVER", "CUT_OFF", "ILLEGAL", "PLAYED_CAP"]
