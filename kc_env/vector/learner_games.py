"""``LearnerGames``: ``num_envs`` single-agent games in one process, a plain class (no RL
library): what ``KingsCornerVecEnv`` (stable-baselines3's ``VecEnv``, ``vec_env.py``) and
``KingsCornerVectorEnv`` (Gymnasium's ``VectorEnv``, ``gym_vector.py``) adapt.

```python
from kc_env.vector import LearnerGames
from kc_env.vector.kernel import sample_masks
games = LearnerGames(256, rules="pagat", num_players=3, opponents=["random", "greedy"], seed=0)
obs = games.reset()                                       # float32 [256, 1599]
obs, rewards, dones, infos = games.step(actions)          # one action per game
masks = games.action_masks()                              # bool [256, 497]
```

Each of the ``num_envs`` games is what ``KingsCorner-v0`` (``kc_env.gym_env``) is: the learner
holds one seat, the opponents play their turns inside ``step``, and every observation, mask and
reward is the learner's. The same rules, action layout (``Discrete(497)``) and observation
(``Box(1599,)``, layout 2) as the reference engine; ``tests/test_vector_diff.py`` proves it.

- ``step(actions)`` returns ``obs`` float32 ``[num_envs, 1599]``, ``rewards`` float32, ``dones``
  bool and one info dict per game. A game whose episode ended is dealt again at once (the SB3
  convention, and Gymnasium's same-step autoreset): its info holds ``terminal_observation``,
  ``TimeLimit.truncated`` (cut off after ``max_moves`` moves), ``episode`` (``r`` the learner's
  reward, ``l`` its number of actions (an illegal one that ends the episode too; not counted
  until 2026-12-07), ``t`` seconds since the env was made, as SB3's ``Monitor``
  writes it) and ``deal`` (``seed``, ``dealer``, ``learner_seat``, ``winner`` (``match.NO_WINNER``,
  -1, when nobody won, as ``kings_corner_v0`` gives it; None until 2026-12-03), ``blocked``,
  ``truncated``; with ``record=True`` also ``actions``, every move of the deal in order, so that
  it can be replayed in the engine).
- ``action_masks()``: bool ``[num_envs, 497]``, the learner's legal actions.
- One episode is one deal; rewards are ``kings_corner_v0``'s ``win_loss`` or ``score`` for the
  learner. A deal that would end before the learner's first action is dealt again.
- ``opponents``: one spec per other seat (``opponents[j]`` sits ``j + 1`` seats to the learner's
  left), or one spec for all. ``"random"`` is played inside the compiled loop; ``"greedy"`` and
  ``"heuristic"`` are the compiled rule-based agents of ``kc_env.agents.batch``, batched over
  every game that waits for them; an object with ``act_batch(obs, masks) -> actions`` is called
  the same way, batched; any other ``kc_env.agents`` spec or ``Agent`` is asked row by row (slow,
  but any agent works). ``set_opponents(games, opponents)`` changes them per game.
- ``learner_seat`` and ``dealer``: a seat, or ``"random"`` (drawn per episode).
- Illegal learner actions: ``illegal_action="terminate"`` (default) ends that episode with reward
  -1 and ``info["illegal_action"] = True``, as ``KingsCorner-v0`` does; ``"raise"`` checks every
  game's action against its mask first and raises ``IllegalMove`` (naming the game, the seat and
  the action) before any game moves, so the env is as it was. An action that is not a whole
  number (a float, a string, a bool, NaN) is illegal, as in the other envs, never cast.
- Illegal opponent actions: every action an outside opponent returns is checked against that
  seat's mask before it is applied (in compiled code, ``kernel.legal_choices``, as the learner's). A bad one is never played: the step is finished for every
  other game, the offending game's episode ends (``info["opponent_illegal_action"]``) and is
  dealt again, and then ``IllegalMove`` names the game, the seat and the action; the step's
  results are on the exception as ``step_return`` and the env stays usable. An opponent that
  acts first and is always refused ends every deal before the learner's first action: after
  100 in a row ``reset`` or ``step`` raises ``IllegalMove`` saying so, with the first refusal.
- Seeds: ``seed`` (or ``reset(seed=s)``) seeds game ``i`` with ``s + i``; each game's deals,
  dealers, learner seats and random opponents follow from it.
- For tools (``kc_env.training``): ``game`` is the ``VecGame`` holding the games (read it with
  its methods, ``to_act``, ``over``, ``winners``, ``stock_sizes``...; copy a deal out with
  ``copy_to``), ``learner_seats()`` each game's learner, ``state(b)`` game ``b`` as an engine
  state, ``seated()`` who sits at each game, and ``state_arrays()`` / ``load_state_arrays()``
  every array of where the games stand (what a training checkpoint keeps to resume exactly).

It needs numba (a dependency) and nothing else beyond the base install: ``import kc_env`` does
not import this module, and nothing here imports an RL library.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import repeat
from typing import Any

import numpy as np
from gymnasium import spaces

from .. import actions as actions_mod
from .. import agents as agents_mod
from .. import engine, rewards
from .. import observation as obs_mod
from ..agents.base import COMPILED
from ..agents.policy_model import other_table
from ..engine import IllegalMove
from ..match import MOST_MOVES, NO_WINNER
from ..options import keywords_of, refuse_unknown_keywords, seat_option
from ..rules import Rules
from . import kernel as K
from . import rule_opponents
from .game import DEFAULT_MAX_MOVES, VecGame

MAX_REDEALS = 100
REWARDS = rewards.REWARDS
ILLEGAL_ACTIONS = ("terminate", "raise")
BatchPolicy = Callable[[np.ndarray, np.ndarray], np.ndarray]
Indices = int | Iterable[int] | None
"""Games to act on: one, several, or every game (``None``), as SB3's ``VecEnvIndices``."""
StepReturn = tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]
SEATING = ("_opp_kind", "_game_kinds")
"""The arrays of who sits where, by the env's own numbering of the opponents: not in
``state_arrays`` (``seated`` and ``set_opponents`` carry the seating across envs)."""


MAX_GAMES = 100_000
"""The most games one vector env holds (``num_envs``): far above any batch that pays on a CPU
(kc bench: 256 to 4,096), under what a machine's memory holds."""


class LearnerGames:
    """``num_envs`` games of Kings in the Corner for one learner each (see the module docstring)."""

    def __init__(self, num_envs: int = 256, rules: Rules | str | dict | None = None, num_players: int = 2,
                 opponents: str | Sequence[Any] | None = None, learner_seat: int | str = "random",
                 reward: str = "win_loss", max_moves: int = DEFAULT_MAX_MOVES, dealer: int | str = "random",
                 seed: int | None = None, illegal_action: str = "terminate", record: bool = False) -> None:
        num_envs = actions_mod.whole_in("num_envs", num_envs, 1, MAX_GAMES)
        self.rules = Rules.coerce(rules)
        num_players = actions_mod.whole_or_given(num_players)
        self.rules.check_players(num_players)
        n = self.num_players = num_players
        learner_seat, dealer = seat_option("learner_seat", learner_seat, n), seat_option("dealer", dealer, n)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        max_moves = actions_mod.whole_in("max_moves", max_moves, 1, MOST_MOVES)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, not {illegal_action!r}")
        self.reward_kind, self.max_moves, self.illegal_action, self.record = reward, max_moves, illegal_action, record
        self._fixed_seat = -1 if learner_seat == "random" else learner_seat
        self._fixed_dealer = -1 if dealer == "random" else dealer
        self._policies: list[BatchPolicy | None] = []  # opponent kind k > 0 is self._policies[k - 1]
        self._policy_specs: list[Any] = []  # what each kind was made from (keeps objects alive)
        self._policy_index: dict[Any, int] = {}
        self._forms: list[tuple[str, np.ndarray | None] | None] = []  # agents.batch.compiled_form per kind
        self._plays = None  # rule_opponents.Plays while some kind is played compiled (_forms_changed)
        self.rule_based_decisions = 0
        """How many decisions the compiled opponents (greedy, the heuristic) have made (``kc bench``)."""
        first = [self._kind_of(spec) for spec in agents_mod.opponent_specs(opponents, n)]
        self.render_mode = None
        self.num_envs = B = num_envs
        self.observation_space = spaces.Box(obs_mod.LOW, obs_mod.HIGH, dtype=np.float32)
        """One game's observation space (``Box(1599,)``); each array holds a row per game."""
        self.action_space = spaces.Discrete(actions_mod.NUM_ACTIONS)
        """One game's action space (``Discrete(497)``); ``step`` takes one action per game."""

        self.game = VecGame(B)
        self.game.set_rules(range(B), self.rules, max_moves, reward)
        self._rng = np.zeros(B, dtype=np.uint64)
        self._seed_all(seed)
        self.game.S[:, K.NP] = n
        self._opp_kind = np.zeros((B, K.MAX_SEATS), dtype=np.int64)  # per seat, this deal
        self._game_kinds = np.tile(np.array(first or [0], dtype=np.int64), (B, 1))  # per game and position
        self._log = np.zeros((B, max_moves + 1), dtype=np.int16)
        self._obs = np.zeros((B, K.OBS_SIZE), dtype=np.float32)
        self._masks = np.zeros((B, K.NUM_ACTIONS), dtype=bool)
        self._rewards = np.zeros(B, dtype=np.float64)
        self._status = np.zeros(B, dtype=np.int64)
        self._opp_obs = np.zeros((B, K.OBS_SIZE), dtype=np.float32)
        self._opp_mask = np.zeros((B, K.NUM_ACTIONS), dtype=np.int8)
        self._deal_seed = np.zeros(B, dtype=np.int64)
        self._opp_refused = np.zeros(B, dtype=bool)
        self._bufs = K.EnvBuffers(  # the kernel's view of the buffers above (the same arrays)
            rng=self._rng, opp_kind=self._opp_kind, kinds=self._game_kinds, log=self._log,
            rules_vecs=self.game.rules_vecs, obs=self._obs, masks=self._masks, rewards=self._rewards,
            status=self._status, opp_obs=self._opp_obs, opp_mask=self._opp_mask, deal_seeds=self._deal_seed)
        self._all = np.arange(B, dtype=np.int64)
        self._act_modes = np.full(B, K.MODE_ACT, dtype=np.int64)
        self._ends = K.alloc_endings(B, max_moves + 1 if record else 0)  # the episodes ended in a step
        self._one_call = True  # no opponent is asked from Python: a step is one compiled call (_seating_changed)
        self._seating_changed()
        self._obs_pool = [(self._obs, self._bufs)]  # buffers the kernel may write, with their EnvBuffers
        self._refused: list[str] = []  # outside opponents' illegal actions, this step
        self._started = False
        self._t0 = time.perf_counter()

    # -- seeding ---------------------------------------------------------------------------

    def _seed_all(self, seed: int | None) -> None:
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**63)
        self._rng[:] = [(seed + i) % 2**64 for i in range(len(self._rng))]

    # -- playing ---------------------------------------------------------------------------

    def reset(self, seed: int | Sequence[int | None] | None = None) -> np.ndarray:
        """Deal a new episode in every game; returns the learners' observations. ``seed``: game
        ``i`` gets ``seed + i``; or one seed per game (``None``: that game's generator goes on)."""
        if isinstance(seed, (int, np.integer)):
            self._seed_all(int(seed))
        elif seed is not None:
            if len(seed) != self.num_envs:
                raise ValueError(f"expected one seed per game ({self.num_envs}), got {len(seed)}")
            for b, s in enumerate(seed):
                if s is not None:
                    self._rng[b] = s % 2**64
        self._refused = []
        self._obs[...] = self._writable_obs()  # every row is dealt again; the old values until then
        self._new_episodes(self._all)
        self._started = True
        self._raise_refused(self._obs)
        return self._obs

    def step(self, actions: Any) -> StepReturn:
        """Play one action per game (see the module docstring); returns ``obs, rewards, dones, infos``."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        B = self.num_envs
        acts = whole_actions(actions, B)
        if self.illegal_action == "raise":
            self._check_learner_actions(acts, actions)
        self._refused = []
        old = self._writable_obs()
        rewards, dones = np.empty(B, dtype=np.float32), np.zeros(B, dtype=bool)
        if self._one_call and self._plays is None:
            K.learner_step(acts, self.game.state, self._bufs, self._ends, old, self._fixed_seat, self._fixed_dealer,
                           MAX_REDEALS, rewards, dones)
            ended = int(np.count_nonzero(dones))
        elif self._one_call:
            seating = np.array([self._fixed_seat, self._fixed_dealer, MAX_REDEALS], dtype=np.int64)
            ended, made = rule_opponents.learner_step(acts, self.game.state, self._bufs, self._ends, old, seating,
                                                      rewards, dones, self._plays)
            self.rule_based_decisions += made
        else:
            ended = self._play_with_outside_opponents(acts, old, rewards, dones)
        infos: list[dict[str, Any]] = list(map(dict.copy, repeat(_NO_INFO, B)))  # one empty dict per game
        if ended:
            games = np.flatnonzero(dones)
            for b, info in zip(games.tolist(), self._end_infos(games), strict=True):
                infos[b] = info
            if not self._one_call:
                self._new_episodes(games)
            elif self._ends.waiting[0]:  # dealt again in learner_step, but a deal ended at once 100 times
                self._new_episodes(games[self._status[games] == K.DONE], MAX_REDEALS - 1)
        result = self._obs, rewards, dones, infos  # not a copy: see _writable_obs
        self._raise_refused(result)
        return result

    def _play_with_outside_opponents(self, acts: np.ndarray, old: np.ndarray, rewards: np.ndarray,
                                     dones: np.ndarray) -> int:
        """``step``'s moves when some opponent is asked outside the kernel: every game plays its
        learner's action and its opponents (asked batched while some wait); the rewards and
        dones go to ``rewards`` and ``dones``, and the episodes that ended are kept in
        ``self._ends`` (not yet dealt again). Returns how many ended."""
        self._rewards[:] = 0.0
        self._advance(self._all, self._act_modes, acts)
        status = self._status
        illegal = status == K.ILLEGAL
        if self._refused or illegal.any():  # games whose state, so whose view, is unchanged
            unwritten = illegal | self._opp_refused
            self._obs[unwritten] = old[unwritten]
        rewards[:] = self._rewards
        dones[:] = (status == K.DONE) | illegal
        ended = np.flatnonzero(dones)
        if ended.size:
            if self.illegal_action == "raise" and illegal.any():
                b = int(np.flatnonzero(illegal)[0])
                self._raise_illegal(b, int(acts[b]))
            K.keep_endings(ended, self.game.state, self._bufs, self._ends)
        return ended.size

    def _writable_obs(self) -> np.ndarray:
        """Switch the kernel to an observation buffer that nobody outside holds and return the
        previous one. ``step`` and ``reset`` return the buffer itself, not a copy (copying 6.4 kB
        a game cost as much as encoding it): the next step writes into the same buffer again if
        the caller has let go of it (its only references are the env's: ``sys.getrefcount`` sees
        every array, view or tensor still made from it; a game whose view does not change keeps
        its row as it is), else into the other buffer of the pool if that one is let go of, else
        into a new one."""
        old = self._obs
        if sys.getrefcount(old) <= _FREE_REFS + 1:  # and ``old`` itself
            return old
        for buf, bufs in self._obs_pool:  # noqa: B007 - the pair found is used below
            if buf is not old and sys.getrefcount(buf) <= _FREE_REFS:
                break
        else:
            buf = np.empty_like(old)
            bufs = self._bufs._replace(obs=buf)
            self._obs_pool = [(old, self._bufs), (buf, bufs)]
        self._obs, self._bufs = buf, bufs
        return old

    def _check_learner_actions(self, acts: np.ndarray, given: Any) -> None:
        """``illegal_action="raise"``: refuse the first illegal action before any game moves."""
        legal = np.zeros(len(acts), dtype=np.bool_)
        K.legal_choices(self._masks, self._all, acts, legal)
        if not legal.all():
            b = int(np.flatnonzero(~legal)[0])
            raw = np.asarray(given, dtype=object).reshape(-1)
            self._raise_illegal(b, int(acts[b]), raw[b] if raw.size == self.num_envs else acts[b])

    def _raise_refused(self, step_return: Any) -> None:
        if self._refused:
            refused, self._refused = self._refused, []
            more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
            error = IllegalMove(refused[0] + more)
            error.step_return = step_return
            raise error

    def action_masks(self) -> np.ndarray:
        """bool ``[num_envs, 497]``: each learner's legal actions (what ``MaskablePPO`` needs)."""
        return self._masks.copy()

    def close(self) -> None:
        pass

    def _indices(self, indices: Indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)

    # -- episodes --------------------------------------------------------------------------

    def _new_episodes(self, idx: np.ndarray, rounds: int = MAX_REDEALS) -> None:
        """Deal the next episode of games ``idx`` and play until each learner is to act; a deal
        that ends before the learner's first action is dealt again (``KingsCorner-v0``'s rule),
        ``MAX_REDEALS`` times in each of ``rounds`` rounds."""
        pending = idx
        for _ in range(rounds):
            self._opp_refused[pending] = False
            if K.new_episodes(pending, self.game.state, self._bufs, self._fixed_seat, self._fixed_dealer, MAX_REDEALS):
                self._settle(pending)
            pending = pending[self._status[pending] == K.DONE]
            if not pending.size:
                return
        if self._refused:
            refused, self._refused = self._refused, []
            raise IllegalMove(f"{MAX_REDEALS} deals in a row ended before the learner's first action; outside "
                              f"opponents' actions were refused {len(refused)} times, the first: {refused[0]}")
        raise RuntimeError(f"{MAX_REDEALS} deals in a row ended before the learner's first action")

    def _advance(self, idx: np.ndarray, modes: np.ndarray, acts: np.ndarray) -> None:
        """Run the kernel on games ``idx`` until each is READY, DONE or ILLEGAL."""
        if K.env_advance(idx, modes, acts, self.game.state, self._bufs):
            self._settle(idx)

    def _settle(self, idx: np.ndarray) -> None:
        """While some games wait for an outside opponent: ask the opponents, batched, check each
        action against the seat's mask, and go on. A game whose opponent chose an illegal action
        is not advanced: its episode ends (status DONE) and the refusal is kept for the step."""
        while True:
            waiting = idx[self._status[idx] == K.NEED_OPP]
            if waiting.size and self._plays is not None:
                self._play_rule_based(waiting)
                waiting = waiting[self._status[waiting] == K.NEED_OPP]
            if not waiting.size:
                return
            acts, raw = self._opponent_actions(waiting)
            legal = np.zeros(len(acts), dtype=np.bool_)
            K.legal_choices(self._opp_mask, waiting, acts, legal)
            if not legal.all():
                for i in np.flatnonzero(~legal).tolist():
                    self._refuse_opponent(int(waiting[i]), raw[i])
                waiting, acts = waiting[legal], acts[legal]
            K.env_advance(waiting, np.full(len(waiting), K.MODE_OPP, dtype=np.int64), acts, self.game.state, self._bufs)

    def _play_rule_based(self, waiting: np.ndarray) -> int:
        """The compiled opponents (greedy, the heuristic) of the games ``waiting`` play on
        (``rule_opponents.play_rule_based``); returns their decisions."""
        made = rule_opponents.play_rule_based(waiting, self.game.state, self._bufs, self._plays)
        self.rule_based_decisions += made
        return made

    def _refuse_opponent(self, b: int, action: Any) -> None:
        seat = int(self.game.to_act(np.array([b]))[0])
        spec = self._policy_specs[self._opp_kind[b, seat] - 1]
        label = spec if isinstance(spec, str) else type(spec).__name__
        self._refused.append(f"game {b}: the opponent at seat {seat} ({label}) chose {_describe(action)}, "
                             f"which is {_why_refused(self.game.to_state(b), action)}; not played, the episode ends")
        self._status[b] = K.DONE
        self._rewards[b] = 0.0
        self._masks[b, :] = False
        self._opp_refused[b] = True

    def _opponent_actions(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The actions of the outside opponents to act in games ``idx``, batched per policy: as
        whole numbers (-1 for anything else), and as returned."""
        kinds = self._opp_kind[idx, self.game.to_act(idx)]
        out = np.zeros(len(idx), dtype=np.int64)
        raw = np.empty(len(idx), dtype=object)
        for k in np.unique(kinds).tolist():
            rows = kinds == k
            games = idx[rows]
            got = self._policies[k - 1](self._opp_obs[games], self._opp_mask[games])
            out[rows] = whole_actions(got, len(games))
            raw[rows] = list(np.asarray(got, dtype=object).reshape(-1)) if np.size(got) == len(games) else None
        return out, raw

    def _end_infos(self, games: np.ndarray) -> list[dict[str, Any]]:
        """The infos of the episodes of ``games`` that ended, kept in ``self._ends`` (read in a few
        numpy calls, the scalars as Python ints)."""
        ends = self._ends
        rows, seeds = ends.S[games].tolist(), ends.deal_seeds[games].tolist()
        rewards = ends.rewards[games].tolist()
        illegal = (ends.status[games] == K.ILLEGAL).tolist()
        refused = self._opp_refused[games].tolist()
        self._opp_refused[games] = False
        elapsed = round(time.perf_counter() - self._t0, 6)
        infos = []
        for i, S in enumerate(rows):
            truncated = bool(S[K.TRUNC]) and not S[K.OVER]
            winner = int(S[K.WINNER]) if S[K.OVER] and S[K.WINNER] >= 0 else NO_WINNER
            deal = {"seed": seeds[i], "dealer": S[K.DEALER], "learner_seat": S[K.LEARNER],
                    "winner": winner, "blocked": bool(S[K.BLOCKED]), "truncated": truncated}
            if self.record:
                deal["actions"] = ends.logs[games[i], :S[K.LOGLEN]].tolist()
            info = {"terminal_observation": ends.obs[games[i]].copy(), "TimeLimit.truncated": truncated,
                    "episode": {"r": rewards[i], "l": S[K.LSTEPS], "t": elapsed}, "deal": deal}
            if illegal[i]:
                info["illegal_action"] = True
            if refused[i]:
                info["opponent_illegal_action"] = True
            infos.append(info)
        return infos

    def _raise_illegal(self, b: int, a: int, raw: Any = None) -> None:
        seat = int(self.game.S[b, K.LEARNER])
        if not 0 <= a < actions_mod.NUM_ACTIONS:
            raise IllegalMove(f"game {b}: the learner (seat {seat}) chose {_describe(a if raw is None else raw)}, "
                              f"which is not an action 0..{actions_mod.NUM_ACTIONS - 1}")
        reason = engine.why_illegal(self.game.to_state(b), actions_mod.decode(a))
        raise IllegalMove(f"game {b}: the learner (seat {seat}) chose action {a} ({actions_mod.name(a)}), "
                          f"which is illegal: {reason}")

    # -- for tests and tools ---------------------------------------------------------------

    def state(self, b: int) -> engine.GameState:
        """Game ``b`` as an engine ``GameState`` (for rendering, debugging and bug reports)."""
        return self.game.to_state(b)

    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each game's current episode."""
        return self.game.S[:, K.LEARNER].copy()

    def state_arrays(self) -> dict[str, dict[str, np.ndarray]]:
        """Where every game stands, as the arrays themselves (not copies) by name: ``games``, the
        games' (``kernel.Games`` as ``state.<field>``, and the ``VecGame``'s own), and ``env``,
        every array of this env with a row per game (generators, move logs, the observation and
        mask the learner sees...: each one, so a buffer the env gains later is kept too). Who sits
        where is not among them (its numbering is this env's own): ``seated()`` says it, and
        ``set_opponents`` seats it in another env. What a training checkpoint keeps."""
        state = self.game.state
        games = {**{f"state.{name}": getattr(state, name) for name in state._fields},
                 **{name: a for name, a in vars(self.game).items() if isinstance(a, np.ndarray)}}
        env = {name: a for name, a in vars(self).items()
               if isinstance(a, np.ndarray) and a.shape[:1] == (self.num_envs,) and name not in SEATING}
        return {"games": games, "env": env}

    def load_state_arrays(self, saved: Mapping[str, Mapping[str, np.ndarray]]) -> None:
        """Put arrays from another env's ``state_arrays()`` (same size, same rules) into this one;
        its games then go on from there (no ``reset`` needed). Seat their opponents with
        ``set_opponents`` after, game by game, from the other env's ``seated()``: each seat's
        opponent in the deals in play follows from the learner's seat. ``ValueError`` when an
        array is missing or has another shape (another size, or another version of this env);
        arrays saved beyond this env's are ignored."""
        arrays = self.state_arrays()
        for kind, targets in arrays.items():
            missing = sorted(set(targets) - set(saved.get(kind, {})))
            if missing:
                raise ValueError(f"the saved {kind} lack {', '.join(missing)}: another version of the vector env")
            for name, target in targets.items():
                values = np.asarray(saved[kind][name])
                if values.shape != target.shape:
                    raise ValueError(f"{name} has shape {values.shape}, the env {target.shape}")
        for kind, targets in arrays.items():
            for name, target in targets.items():
                target[...] = saved[kind][name]
        self._started = True

    def seated(self) -> list[list[Any]]:
        """Who sits at each game, by position left of the learner (``opponents[j]`` of
        ``set_opponents``): the spec string or object each was made from (``"random"`` too)."""
        specs = ["random", *self._policy_specs]
        return [[specs[kind] for kind in row] for row in self._game_kinds.tolist()]

    # -- opponents -------------------------------------------------------------------------

    def set_opponents(self, indices: Indices, opponents: str | Sequence[Any]) -> None:
        """Give games ``indices`` new opponents (one spec per other seat, ``opponents[j]`` sitting
        ``j + 1`` seats to the learner's left, or one for all; specs as in the constructor).

        They play from their next move on: called before ``reset``, or right after a game's
        episode ended (``dones[i]``), they play its new deal from the learner's first turn (any
        moves the new deal's opponents made before it were the old opponents')."""
        n = self.num_players
        kinds = np.array([self._kind_of(spec) for spec in agents_mod.opponent_specs(opponents, n)], dtype=np.int64)
        rows = np.array(self._indices(indices), dtype=np.int64)
        self._game_kinds[rows] = kinds
        learners = self.game.S[rows, K.LEARNER]
        offsets = (np.arange(n)[None, :] - learners[:, None]) % n  # 0: the learner
        self._opp_kind[rows[:, None], np.arange(n)[None, :]] = np.concatenate([[0], kinds])[offsets]
        self._seating_changed()
        if len(self._policy_index) > 32 and len(self._policy_index) > 2 * len(np.unique(self._game_kinds)):
            self._forget_unused_policies()

    def _seating_changed(self) -> None:
        """Whether every opponent, in the deals in play and the next, is random (kind 0) or
        compiled (greedy, the heuristic), so that ``step`` is one compiled call
        (``kernel.learner_step``, or ``rule_opponents.learner_step`` when some are compiled)."""
        kinds = np.union1d(self._game_kinds, self._opp_kind)
        self._one_call = all(k == 0 or self._forms[k - 1] is not None for k in kinds.tolist())

    def _kind_of(self, spec: Any) -> int:
        """The opponent kind of ``spec``: 0 for ``"random"`` (played in the kernel), else the
        1-based index of its batched policy (made once per spec string or object)."""
        if isinstance(spec, str) and spec == "random":
            return 0
        key = spec if isinstance(spec, str) else id(spec)
        kind = self._policy_index.get(key)
        if kind is None:
            from ..agents.batch import compiled_form

            policy = _batch_policy(spec, self.rules, self.num_players)
            free = [k for k, p in enumerate(self._policies) if p is None]
            if free:
                self._policies[free[0]], self._policy_specs[free[0]] = policy, spec
                self._forms[free[0]] = compiled_form(spec)
                kind = free[0] + 1
            else:
                self._policies.append(policy)
                self._policy_specs.append(spec)
                self._forms.append(compiled_form(spec))
                kind = len(self._policies)
            self._policy_index[key] = kind
            self._forms_changed()
        return kind

    def _forms_changed(self) -> None:
        """Which kinds ``step`` plays in compiled code (``rule_opponents``), as its ``Plays``."""
        if not any(self._forms):
            self._plays = None
            return
        how = np.zeros(len(self._forms) + 1, dtype=np.int64)  # kind 0, random, never waits
        rows = np.zeros_like(how)
        weights = []
        for kind, form in enumerate(self._forms, start=1):
            if form is not None:
                how[kind] = rule_opponents.HOW[form[0]]
                if form[1] is not None:
                    rows[kind] = len(weights)
                    weights.append(form[1])
        table = np.array(weights or [np.zeros(1)], dtype=np.float64)
        if self._plays is None:
            self._plays = rule_opponents.new_plays(how, rows, table)
        else:  # the cores' desks stay
            self._plays = self._plays._replace(how=how, rows=rows, weights=table)

    def _forget_unused_policies(self) -> None:
        """Drop the batched policies no game uses any more (a league replaces its snapshots)."""
        used = set(np.unique(self._game_kinds).tolist()) | set(np.unique(self._opp_kind).tolist())
        for key, kind in list(self._policy_index.items()):
            if kind not in used:
                del self._policy_index[key]
                self._policies[kind - 1] = self._policy_specs[kind - 1] = self._forms[kind - 1] = None
        self._forms_changed()


OPTIONS = keywords_of(LearnerGames.__init__)
"""``LearnerGames``' keywords, ``num_envs`` first: the options of the vector envs."""


def vector_keywords(called: str, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """``kwargs`` given to the vector env ``called`` (as the user called it), for ``LearnerGames``:
    ``KingsCorner-v0``'s options that a vector env cannot take refused in one line saying why
    (``episode``, ``render_mode``, ``observation``; their defaults, and ``max_deals``, a match's
    option, are dropped), and any other unknown keyword refused naming ``called`` and its options."""
    kwargs = dict(kwargs)
    _refuse_gym_only(kwargs.pop("episode", "deal"), kwargs.pop("render_mode", None), kwargs.pop("observation", "vector"))
    kwargs.pop("max_deals", None)  # a match option: meaningless for one deal
    refuse_unknown_keywords(called, kwargs, OPTIONS)
    return kwargs


def refuse_reset_options(options: Any) -> None:
    """The vector envs take no reset options: ``None``, ``{}`` (or a list of ``{}``, one per game,
    as SB3's ``set_options`` takes them); anything else is a one-line ``ValueError``."""
    for one in options if isinstance(options, (list, tuple)) else [options]:
        if not (one is None or (isinstance(one, dict) and not one)):
            raise ValueError(f"the vector env takes no reset options (None, {{}}, or a list of them), got {one!r}"[:300])


def _refuse_gym_only(episode: Any, render_mode: Any, observation: Any) -> None:
    """``KingsCorner-v0``'s options that a vector env takes only at their defaults, refused with why."""
    if observation != "vector":
        raise ValueError(f"the vector env gives the observation vector and the masks in info['action_mask']: "
                         f"observation must be 'vector', not {observation!r} (KingsCorner-v0 takes 'dict')")
    if episode != "deal":
        raise ValueError(f"the vector env plays one deal per episode: episode must be 'deal', not {episode!r}")
    if render_mode is not None:
        raise ValueError(f"the vector env does not render: render_mode must be None, not {render_mode!r} "
                         "(make KingsCorner-v0 with render_mode='rgb_array' to watch a game)")


def _batch_policy(spec: Any, rules: Rules, num_players: int) -> BatchPolicy:
    """A function ``(obs [k, 1599] float32, masks [k, 497] int8) -> actions [k]`` for ``spec``
    (with a warning when it is an exported model trained for another table)."""
    if isinstance(spec, str) and spec in COMPILED:
        from ..agents.batch import rule_based

        return rule_based(spec)
    agent = spec if hasattr(spec, "act_batch") else agents_mod.load(spec)
    note = other_table(agent, rules, num_players)
    if note:
        warnings.warn(note, UserWarning, stacklevel=2)
    if hasattr(agent, "act_batch"):  # e.g. an exported model: one forward pass for the batch
        return agent.act_batch

    def per_row(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:  # as returned: whole_actions judges them
        out = np.empty(len(obs), dtype=object)
        out[:] = [agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)]
        return out

    return per_row


def whole_actions(actions: Any, n: int) -> np.ndarray:
    """``n`` actions as int64, each a whole number as given, or -1 (never an action) for anything
    else: floats (``496.9`` is not end turn), strings, bools, None, NaN, numbers beyond int64.
    Raises ``ValueError`` when there are not ``n`` of them."""
    arr = np.asarray(actions) if not isinstance(actions, np.ndarray) else actions
    if arr.size != n:
        raise ValueError(f"expected {n} actions, one per game, got {arr.size}")
    arr = arr.reshape(n)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64, copy=False)
    out = np.full(n, -1, dtype=np.int64)
    if arr.dtype.kind == "u":
        small = arr < K.NUM_ACTIONS
        out[small] = arr[small]
    if arr.dtype.kind == "O":
        for i, a in enumerate(arr.tolist()):
            if isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) and 0 <= a < K.NUM_ACTIONS:
                out[i] = int(a)
    return out


_NO_INFO: dict[str, Any] = {}
"""What ``step`` copies into the info of each game whose episode goes on (never changed itself)."""

_FREE_REFS = 4
"""``sys.getrefcount`` of a pooled buffer inside ``_writable_obs``'s loop when nothing outside holds
it: the pool's (buffer, EnvBuffers) pair, the EnvBuffers, the loop variable and the call's argument."""


def _describe(action: Any) -> str:
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)) \
            and 0 <= action < actions_mod.NUM_ACTIONS:
        return f"action {int(action)} ({actions_mod.name(int(action))})"
    return f"{action!r}"[:60]


def _why_refused(state: engine.GameState, action: Any) -> str:
    if not (isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))):
        return f"not an action (a whole number 0..{actions_mod.NUM_ACTIONS - 1})"
    if not 0 <= action < actions_mod.NUM_ACTIONS:
        return f"outside 0..{actions_mod.NUM_ACTIONS - 1}"
    return f"illegal: {engine.why_illegal(state, actions_mod.decode(int(action)))}"


__all__ = ["LearnerGames", "whole_actions"]
