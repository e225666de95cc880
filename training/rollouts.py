"""Rollout rewards: what each learner action is worth against the prior's own move, played out.

With ``rollout_reward`` (and a ``network.prior``), every learner action ``a`` in a position
where the prior agent would play ``h`` is rewarded, right away, by

    share(a, then every seat plays like the prior) - share(h, then the same)

where ``share`` is the learner's win share of the deal (1 for a win, 1/n for a deal nobody won,
0 for a loss). Both continuations are played to the end on copies of the real deal (the true
hands and stock order: the reward may know what the seat cannot, as a critic may); the
rule-based prior is deterministic, so the difference is exact for that deal, not a noisy sample
of it. Where ``a == h`` the reward is 0. With ``ppo.gamma: 0`` PPO then maximises, move by move,
how much better the learner's move is than the prior's: one step of policy improvement over the
prior (the rollout algorithm of Bertsekas, and of Tesauro and Galperin's backgammon rollouts),
learned from the seat's own observation. In a game this much of luck, the deal's outcome says
little about one move; the difference of two play-outs of the same deal says exactly that.

The opponents in the play-outs are the prior too, so a league of that agent is what the reward
assumes (the config check insists on it).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from kc_env.vector import KingsCornerVecEnv, VecGame
from kc_env.vector import kernel as K
from kc_env.vector.opponents import rule_based

GAME_ARRAYS = ("piles", "pinfo", "hands", "stock", "S", "R", "rules_vecs", "mt")
"""The arrays that make one game of a ``VecGame``: copying a row of each copies the deal."""


def copy_games(src: VecGame, src_idx: np.ndarray, dst: VecGame, dst_idx: np.ndarray) -> None:
    """Copy games ``src_idx`` of ``src`` into games ``dst_idx`` of ``dst`` (random state and
    rules included)."""
    for name in GAME_ARRAYS:
        getattr(dst, name)[dst_idx] = getattr(src, name)[src_idx]
    for s, d in zip(np.asarray(src_idx).tolist(), np.asarray(dst_idx).tolist(), strict=True):
        dst.rules[d], dst.seeds[d] = src.rules[s], src.seeds[s]


def play_out(game: VecGame, idx: np.ndarray, policy) -> np.ndarray:
    """Let ``policy(obs, masks)`` play every seat of games ``idx`` until each deal ends; returns
    each game's winner (-1: nobody). A deal cut off after ``max_moves`` ends as a blocked deal
    (RULES.md 4.8, as ``match.truncate`` ends one in the engine): no winner, or under
    ``blocked: fewest_cards`` the one seat with the fewest cards."""
    active = idx
    while active.size:
        seats = game.S[active, K.CUR]
        game.step(active, policy(game.observe(active, seats), game.legal_masks(active)))
        for b in active[(game.S[active, K.TRUNC] != 0) & (game.S[active, K.OVER] == 0)].tolist():
            K.finish_blocked(game.hands, game.S, game.R, b)
        active = active[game.S[active, K.OVER] == 0]
    return game.S[idx, K.WINNER].copy()


def shares(winners: np.ndarray, seats: np.ndarray, num_players: int) -> np.ndarray:
    """The win share of ``seats`` in deals won by ``winners`` (-1: nobody)."""
    return np.where(winners < 0, 1.0 / num_players, (winners == seats).astype(np.float64))


def action_values(env: KingsCornerVecEnv, games: np.ndarray, actions: np.ndarray, prior: str,
                  scratch: VecGame | None = None) -> np.ndarray:
    """The learner's win share in each of ``games`` after playing ``actions`` there and letting
    ``prior`` play every seat from then on (on copies; the env's games are untouched)."""
    k = len(games)
    scratch = scratch if scratch is not None and scratch.size >= k else VecGame(max(k, 1))
    rows = np.arange(k, dtype=np.int64)
    copy_games(env.game, games, scratch, rows)
    scratch.step(rows, actions)
    winners = play_out(scratch, rows, rule_based(prior))
    return shares(winners, env.game.S[games, K.LEARNER], env.num_players)


class RolloutReward(VecEnvWrapper):
    """Replaces the learner's reward by the rollout reward of the module docstring. Wraps the
    env whose observations carry the prior's action in column ``OBS_SIZE`` (``PriorAction``),
    so the prior's move is the one the policy saw."""

    def __init__(self, venv: VecEnv, prior: str) -> None:
        super().__init__(venv)
        self.prior = prior
        self.base: KingsCornerVecEnv = venv.unwrapped
        self.scratch = VecGame(2 * self.base.num_envs)
        self._prior_moves = np.zeros(self.num_envs, dtype=np.int64)
        self._rewards = np.zeros(self.num_envs, dtype=np.float32)
        self.moves = self.deviations = 0
        self.gain = 0.0  # sum of the rewards since ``take_stats``

    def _remember(self, obs: np.ndarray) -> np.ndarray:
        self._prior_moves = obs[:, K.OBS_SIZE].astype(np.int64)
        return obs

    def reset(self) -> np.ndarray:
        return self._remember(self.venv.reset())

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        games = np.flatnonzero(actions != self._prior_moves)
        self._rewards[:] = 0.0
        if games.size:
            both = np.concatenate([games, games])
            moves = np.concatenate([actions[games], self._prior_moves[games]])
            values = action_values(self.base, both, moves, self.prior, self.scratch)
            self._rewards[games] = values[:games.size] - values[games.size:]
        self.moves += self.num_envs
        self.deviations += int(games.size)
        self.gain += float(self._rewards.sum())
        self.venv.step_async(actions)

    def take_stats(self) -> dict[str, float]:
        """Since the last call: the share of the learner's moves that differed from the prior's,
        and the mean reward per move (how much win share its own moves gained or lost)."""
        stats = {"deviation_share": self.deviations / max(self.moves, 1), "mean_move_gain": self.gain / max(self.moves, 1)}
        self.moves = self.deviations = 0
        self.gain = 0.0
        return stats

    def step_wait(self):
        obs, _, dones, infos = self.venv.step_wait()
        return self._remember(obs), self._rewards.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()
