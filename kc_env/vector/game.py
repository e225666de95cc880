"""Many deals at once as arrays: the Python side of the compiled kernel (``kernel.py``).

``VecGame`` holds ``size`` games in the kernel's structure of arrays. A game is dealt by the
kernel (``deal``: the engine's ``new_deal`` for the same seed and dealer, bit for bit) or
copied from an engine ``GameState`` (``load``), random generator included.

It plays games move by move with actions chosen outside (every seat), which is what the
differential test and the engine benchmark need; ``KingsCornerVecEnv`` builds the RL env on top.

```python
game = VecGame(4)
game.deal([0], "pagat", 3, seeds=[7], dealers=[0])  # == engine.new_deal("pagat", 3, seed=7)
game.load(1, engine.new_deal("pagat", 3, seed=8))  # or copy an engine state in
masks = game.legal_masks([0])               # int8 [1, 497], as actions.legal_mask
obs = game.observe([0], [game.to_act(0)])   # float32 [1, 1599], as observation.encode
game.step([0], [496])                       # end turn, as engine.apply(state, END_TURN)
game.to_act([0, 1]), game.over([0, 1]), game.winners([0, 1])  # int64 / bool arrays, one per game
game.to_state(0)                            # back to an engine GameState (hands sorted)
```
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import engine
from .. import observation as obs_mod
from ..engine import GameState
from ..game_info import GAME_INFO
from ..rules import DEAL_RULES, Rules
from . import kernel as K

DEFAULT_MAX_MOVES = GAME_INFO.default_max_moves

_REWARD_KINDS = {"win_loss": K.REWARD_WIN_LOSS, "score": K.REWARD_SCORE}


def rules_row(rules: Rules, max_moves: int = DEFAULT_MAX_MOVES, reward: str = "win_loss") -> np.ndarray:
    """The kernel's int64 rules row (``kernel.R_*`` columns) for ``rules``, the env's
    ``max_moves`` and reward kind: each rule a deal reads by its code (``rules.DEAL_RULES``)."""
    row = np.zeros(K.NUM_R, dtype=np.int64)
    for rule in DEAL_RULES:
        row[rule.column] = rule.code(getattr(rules, rule.field))
    row[K.R_MAX_MOVES] = max_moves
    row[K.R_REWARD] = _REWARD_KINDS[reward]
    table = rules.penalty_table()
    for i, key in enumerate(obs_mod.PENALTY_KEYS):
        row[K.R_PEN + i] = table[key]
    return row


_ROW = 25 + 8 * 13 + 1 + 54 + 4 + 3  # one loaded game, see _state_row


def _state_row(state: GameState) -> list[int]:
    """An engine state flattened for ``kernel``'s loader (``_load_rows``)."""
    n = state.num_players
    hands = [sum(1 << c for c in h) for h in state.hands] + [0] * (K.MAX_SEATS - n)
    piles: list[int] = []
    for p in state.piles:
        piles += p + [0] * (13 - len(p))
    jv = [state.joker_value.get(52, (0, 0)), state.joker_value.get(53, (0, 0))]
    return ([state.dealer, state.current_player, state.drawn, state.played, state.moved, state.idle_turns,
             state.is_over, -1 if state.winner is None else state.winner, state.blocked, state.move_count, n]
            + hands + [len(p) for p in state.piles] + piles + [len(state.stock)]
            + state.stock + [0] * (54 - len(state.stock)) + [jv[0][0], jv[1][0], jv[0][1], jv[1][1]]
            + [state.opened, state.cleared, state.first_turn])


def _load_rows(idx: np.ndarray, rows: np.ndarray, g: K.Games) -> None:
    """Write flattened states (``_state_row``) into the arrays (plain numpy, vectorised)."""
    piles, pinfo, hands, stock, S = g.piles, g.pinfo, g.hands, g.stock, g.S
    S[idx, :] = 0
    cols = [K.DEALER, K.CUR, K.DRAWN, K.PLAYED, K.MOVED, K.IDLE, K.OVER, K.WINNER, K.BLOCKED, K.MOVES, K.NP]
    S[idx[:, None], np.array(cols)] = rows[:, :11]
    hands[idx] = rows[:, 11:17]
    pinfo[idx, :, K.LEN] = rows[:, 17:25]
    piles[idx, :, :13] = rows[:, 25:129].reshape(-1, 8, 13)
    S[idx, K.SLEN] = rows[:, 129]
    stock[idx, :54] = rows[:, 130:184]
    S[idx[:, None], np.array([K.JR, K.JR + 1, K.JC, K.JC + 1])] = rows[:, 184:188]
    S[idx[:, None], np.array([K.OPENED, K.CLEARED, K.FIRST])] = rows[:, 188:191]


class DealResult(NamedTuple):
    """A finished deal, as much as scoring it reads (``engine.deal_penalties``, the env's infos):
    the ``GameState`` fields of the same names, without building a ``GameState``."""

    rules: Rules
    hands: list[list[int]]
    winner: int | None
    blocked: bool
    is_over: bool


class VecGame:
    """``size`` games in the kernel's arrays, every seat played from outside (see the module
    docstring). Indices are game numbers ``0..size-1``; batched calls take a list of them.

    ``state`` is the kernel's ``Games`` (``piles``, ``pinfo``, ``hands``, ``stock``, ``S``, ``R``,
    ``mt``: layout in ``kernel.py``), readable as attributes too (``game.hands`` is
    ``game.state.hands``); ``rules_vecs[b]`` is the rules section of game ``b``'s observations.
    Code outside the kernel reads the state through the methods below (``to_act``, ``over``,
    ``winners``...), not through the kernel's columns."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.state = K.alloc_games(size)
        self.rules_vecs = np.zeros((size, K.RULES_SIZE), dtype=np.float32)
        self.rules: list[Rules | None] = [None] * size
        self.seeds: list[int | None] = [None] * size

    piles = property(lambda self: self.state.piles, doc="``state.piles``: each pile's cards, bottom first")
    pinfo = property(lambda self: self.state.pinfo, doc="``state.pinfo``: each pile's length, top value, accepts")
    hands = property(lambda self: self.state.hands, doc="``state.hands``: each seat's hand, a bitmask of card ids")
    stock = property(lambda self: self.state.stock, doc="``state.stock``: the stock, its top last")
    S = property(lambda self: self.state.S, doc="``state.S``: the scalars of each game (``kernel.CUR``...)")
    R = property(lambda self: self.state.R, doc="``state.R``: the rules row of each game (``rules_row``)")
    mt = property(lambda self: self.state.mt, doc="``state.mt``: each deal's ``random.Random`` state")

    def set_rules(self, idx: Sequence[int], rules: Rules | str | None, max_moves: int = DEFAULT_MAX_MOVES,
                  reward: str = "win_loss") -> None:
        """Use ``rules`` (and the env's ``max_moves`` and reward kind) in games ``idx``."""
        rules = Rules.coerce(rules)
        idx = np.asarray(idx, dtype=np.int64)
        self.R[idx] = rules_row(rules, max_moves, reward)
        self.rules_vecs[idx] = obs_mod.rules_vector(rules)
        for b in idx.tolist():
            self.rules[b] = rules

    def deal(self, idx: Sequence[int], rules: Rules | str | None, num_players: int, seeds: Sequence[int],
             dealers: Sequence[int], max_moves: int = DEFAULT_MAX_MOVES, reward: str = "win_loss") -> None:
        """Deal games ``idx`` in the kernel: game ``idx[i]`` becomes
        ``engine.new_deal(rules, num_players, seed=seeds[i], dealer=dealers[i])``."""
        rules = Rules.coerce(rules)
        rules.check_players(num_players)
        seeds = [int(s) for s in seeds]
        if any(not 0 <= s < 2**63 for s in seeds):
            raise ValueError("the kernel deals seeds 0 <= seed < 2**63")
        if any(not 0 <= int(d) < num_players for d in dealers):
            raise ValueError(f"dealers must be seats 0..{num_players - 1}")
        self.set_rules(idx, rules, max_moves, reward)
        idx = np.asarray(idx, dtype=np.int64)
        K.deal_batch(idx, np.asarray(seeds, dtype=np.int64), np.asarray(dealers, dtype=np.int64),
                     np.full(len(idx), num_players, dtype=np.int64), self.state)
        for b, s in zip(idx.tolist(), seeds, strict=True):
            self.seeds[b] = s

    # -- loading deals ---------------------------------------------------------------------

    def load(self, b: int, state: GameState, max_moves: int = DEFAULT_MAX_MOVES, reward: str = "win_loss") -> None:
        """Copy the engine state ``state`` into game ``b`` (its random generator is copied too,
        so the engine state may go on independently)."""
        self.load_many([b], [state], max_moves, reward)

    def load_many(self, idx: Sequence[int], states: Sequence[GameState], max_moves: int = DEFAULT_MAX_MOVES,
                  reward: str = "win_loss") -> None:
        """``load`` for several games at once."""
        idx = np.asarray(idx, dtype=np.int64)
        rows = np.array([_state_row(s) for s in states], dtype=np.int64).reshape(-1, _ROW)
        _load_rows(idx, rows, self.state)
        for b, state in zip(idx.tolist(), states, strict=True):
            self.set_rules([b], state.rules, max_moves, reward)
            version, words, _ = state.rng.getstate()
            self.mt[b] = words
            self.seeds[b] = state.seed
        K.refresh_batch(idx, self.state)

    # -- reading ---------------------------------------------------------------------------
    # ``to_act`` ... ``stock_sizes`` take one game ``b`` (and give a Python int or bool) or a list
    # or array of games (and give an array, a copy), as numpy indexing does.

    def _scalars(self, idx: int | Sequence[int], col: int) -> np.ndarray:
        if isinstance(idx, (int, np.integer)):
            return self.state.S[idx, col]
        return self.state.S[np.asarray(idx, dtype=np.int64), col]

    def to_act(self, idx: int | Sequence[int]) -> int | np.ndarray:
        """The seat to act in each game (int64)."""
        return _out(self._scalars(idx, K.CUR))

    def over(self, idx: int | Sequence[int]) -> bool | np.ndarray:
        """Whether each game takes no more moves: its deal ended, or it was cut off after
        ``max_moves`` moves (``cut_off``)."""
        return _out((self._scalars(idx, K.OVER) != 0) | (self._scalars(idx, K.TRUNC) != 0))

    def cut_off(self, idx: int | Sequence[int]) -> bool | np.ndarray:
        """Whether each game was cut off after ``max_moves`` moves with its deal not over (until
        ``end_cut_off`` ends it)."""
        return _out((self._scalars(idx, K.TRUNC) != 0) & (self._scalars(idx, K.OVER) == 0))

    def winners(self, idx: int | Sequence[int]) -> int | np.ndarray:
        """The winner of each game's deal, -1 if nobody won or the deal is not over (int64)."""
        return _out(np.where(self._scalars(idx, K.OVER) != 0, self._scalars(idx, K.WINNER), -1))

    def turn_started(self, idx: int | Sequence[int]) -> bool | np.ndarray:
        """Whether the seat to act in each game is at the start of its turn: it has played no
        card and moved no pile yet (it may have drawn)."""
        return _out((self._scalars(idx, K.PLAYED) == 0) & (self._scalars(idx, K.MOVED) == 0))

    def num_players(self, idx: int | Sequence[int]) -> int | np.ndarray:
        """The number of players of each game (int64)."""
        return _out(self._scalars(idx, K.NP))

    def stock_sizes(self, idx: int | Sequence[int]) -> int | np.ndarray:
        """The number of cards in each game's stock (int64; its top is ``stock[b, size - 1]``)."""
        return _out(self._scalars(idx, K.SLEN))

    def is_over(self, b: int) -> bool:
        """Whether game ``b``'s deal ended (a win or a blocked deal; not when only cut off)."""
        return bool(self.S[b, K.OVER])

    def truncated(self, b: int) -> bool:
        """Whether game ``b`` was cut off after ``max_moves`` moves (the deal is not over)."""
        return bool(self.S[b, K.TRUNC])

    def winner(self, b: int) -> int | None:
        """The winner of game ``b``'s deal, None if nobody won or it is not over."""
        w = int(self.S[b, K.WINNER])
        return None if w < 0 or not self.S[b, K.OVER] else w

    def legal_masks(self, idx: Sequence[int]) -> np.ndarray:
        """int8 ``[len(idx), 497]``: the legal mask of the player to act in each game."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.zeros((len(idx), K.NUM_ACTIONS), dtype=np.int8)
        K.legal_batch(idx, self.state, out)
        return out

    def observe(self, idx: Sequence[int], seats: Sequence[int]) -> np.ndarray:
        """float32 ``[len(idx), 1599]``: the observation of ``seats[i]`` in game ``idx[i]``."""
        idx = np.asarray(idx, dtype=np.int64)
        out = np.empty((len(idx), K.OBS_SIZE), dtype=np.float32)
        K.encode_batch(idx, np.asarray(seats, dtype=np.int64), self.state, self.rules_vecs, out)
        return out

    def rewards(self, b: int) -> list[float]:
        """Per seat, the reward ``kings_corner_v0`` gives when this one-deal episode ends."""
        return [K.seat_reward(self.state, b, seat) for seat in range(int(self.S[b, K.NP]))]

    # -- playing ---------------------------------------------------------------------------

    def step(self, idx: Sequence[int], acts: Sequence[int]) -> None:
        """Play ``acts[i]`` for the player to act in game ``idx[i]``. The actions must be legal
        (check ``legal_masks``): the kernel does not check them."""
        idx = np.asarray(idx, dtype=np.int64)
        K.apply_batch(idx, np.asarray(acts, dtype=np.int64), self.state)

    def end_cut_off(self, idx: Sequence[int]) -> None:
        """End each deal of games ``idx`` that was cut off after ``max_moves`` as a blocked deal
        (RULES.md 4.8, as ``match.truncate`` ends one in the engine): no winner, or under
        ``blocked: fewest_cards`` the one seat with the fewest cards."""
        K.end_cut_off_batch(np.asarray(idx, dtype=np.int64), self.state)

    def copy_to(self, idx: Sequence[int], dst: VecGame, dst_idx: Sequence[int]) -> None:
        """Copy games ``idx`` into games ``dst_idx`` of ``dst`` (which may be this ``VecGame``):
        the whole deal, its random generator and rules included."""
        idx, dst_idx = np.asarray(idx, dtype=np.int64), np.asarray(dst_idx, dtype=np.int64)
        for src_array, dst_array in zip(self.state, dst.state, strict=True):
            dst_array[dst_idx] = src_array[idx]
        dst.rules_vecs[dst_idx] = self.rules_vecs[idx]
        for s, d in zip(idx.tolist(), dst_idx.tolist(), strict=True):
            dst.rules[d], dst.seeds[d] = self.rules[s], self.seeds[s]

    def play_random(self, idx: Sequence[int], seed: int, max_steps: int = DEFAULT_MAX_MOVES) -> int:
        """Every seat picks uniformly among its legal actions (a SplitMix64 stream per game from
        ``seed``) in games ``idx`` until each deal ends or is cut off; returns the moves played."""
        idx = np.asarray(idx, dtype=np.int64)
        rng = np.zeros(self.size, dtype=np.uint64)
        rng[idx] = np.uint64(seed % 2**64) + idx.astype(np.uint64)
        return int(K.play_random(idx, self.state, rng, max_steps))

    def deal_result(self, b: int) -> DealResult:
        """Game ``b``'s deal as scoring reads it (``DealResult``; hands sorted by card id)."""
        S = self.S[b]
        hands = [engine.cards_of(int(self.hands[b, s])) for s in range(int(S[K.NP]))]
        return DealResult(self.rules[b], hands, self.winner(b), bool(S[K.BLOCKED]), bool(S[K.OVER]))

    def to_state(self, b: int) -> GameState:
        """Game ``b`` as an engine ``GameState`` (hands sorted by card id; the engine keeps them in
        the order dealt and drawn, which no rule, observation or score depends on)."""
        S = self.S[b]
        n = int(S[K.NP])
        jv = {}
        piles = [self.piles[b, p, :self.pinfo[b, p, K.LEN]].tolist() for p in range(8)]
        for j in (0, 1):
            if any(52 + j in p for p in piles):
                jv[52 + j] = (int(S[K.JR + j]), int(S[K.JC + j]))
        rng = random.Random()
        rng.setstate((3, tuple(self.mt[b].tolist()), None))
        state = GameState(
            rules=self.rules[b], num_players=n, dealer=int(S[K.DEALER]), piles=piles,
            hands=[engine.cards_of(int(self.hands[b, s])) for s in range(n)],
            stock=self.stock[b, :S[K.SLEN]].tolist(), current_player=int(S[K.CUR]),
            drawn=bool(S[K.DRAWN]), played=bool(S[K.PLAYED]), moved=bool(S[K.MOVED]),
            opened=bool(S[K.OPENED]), cleared=int(S[K.CLEARED]), first_turn=bool(S[K.FIRST]),
            idle_turns=int(S[K.IDLE]), is_over=bool(S[K.OVER]), winner=self.winner(b),
            blocked=bool(S[K.BLOCKED]), move_count=int(S[K.MOVES]), turns_without_play=[0] * n,
            joker_value=jv, seed=self.seeds[b], rng=rng)
        engine._refresh_all(state)
        return state


def _out(values: np.ndarray) -> Any:
    """A Python scalar for one game, else the array."""
    return values.item() if values.ndim == 0 else values


__all__ = ["VecGame", "DealResult", "rules_row"]
