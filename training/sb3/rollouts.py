"""Rollout rewards: what each learner action is worth against the prior's own move, played out.

With ``rollout_reward`` (and a ``network.prior``), every learner action ``a`` in a position
where the prior agent would play ``h`` is rewarded, right away, by

    share(a, then every seat plays like the prior) - share(h, then the same)

where ``share`` is the learner's win share of the deal, ``match.win_share`` (1 for a win, 1/n for
a deal nobody won, 0 for a loss; a deal cut off after ``max_moves`` ends as blocked). Both
continuations are played to the end on copies of the real deal (the true hands and stock order:
the reward may know what the seat cannot, as a critic may); the rule-based prior is deterministic,
so the difference is exact for that deal, not a noisy sample of it. Where ``a == h`` the reward is
0. With ``ppo.gamma: 0`` PPO then maximises, move by move, how much better the learner's move is
than the prior's: one step of policy improvement over the prior (the rollout algorithm of
Bertsekas, and of Tesauro and Galperin's backgammon rollouts), learned from the seat's own
observation. In a game this much of luck, the deal's outcome says little about one move; the
difference of two play-outs of the same deal says exactly that.

``move_values`` is the one valuation of moves by play-outs: rollout rewards use it on the true
deal; ``improve.py`` (labels for ``pretrain.method: rollouts``) and
``research/rollout_search.py`` also on re-deals of the cards the seat cannot see
(``redeal_unseen``).

The opponents in the play-outs are the prior too, so a league of that agent is what the reward
assumes (the config check insists on it). A heuristic prior with tuned evaluation weights
(``network.heuristic_weights``, ``tune``) plays the learner's seat with them, and the other seats
with the shipped weights, as the league's ``heuristic`` opponents play.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from kc_env.agents.batch import rule_based, weighted_heuristic
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS, evaluation_weights
from kc_env.match import win_share
from kc_env.vector import KingsCornerVecEnv, VecGame
from kc_env.vector import kernel as K


def copy_games(src: VecGame, src_idx: np.ndarray, dst: VecGame, dst_idx: np.ndarray) -> None:
    """Copy games ``src_idx`` of ``src`` into games ``dst_idx`` of ``dst`` (random state and
    rules included): ``VecGame.copy_to``."""
    src.copy_to(src_idx, dst, dst_idx)


def play_out(game: VecGame, idx: np.ndarray, policy, seated: bool = False) -> np.ndarray:
    """Let ``policy(obs, masks)`` play every seat of games ``idx`` until each deal ends; returns
    each game's winner (-1: nobody). With ``seated``, the policy is asked
    ``policy(obs, masks, games, seats)``, so it can play each game's seats differently. A deal
    cut off after ``max_moves`` ends as a blocked deal (``VecGame.end_cut_off``), also one the
    move before the play-out ended or cut off: no seat moves in a deal that is over."""
    active = idx
    while True:
        game.end_cut_off(active)
        active = active[~game.over(active)]
        if not active.size:
            return game.winners(idx)
        seats = game.to_act(active)
        obs, masks = game.observe(active, seats), game.legal_masks(active)
        game.step(active, policy(obs, masks, active, seats) if seated else policy(obs, masks))


def shares(winners: np.ndarray, seats: np.ndarray, num_players) -> np.ndarray:
    """``match.win_share`` of ``seats[i]`` in the deal won by ``winners[i]`` (-1: nobody), among
    ``num_players`` (one count, or one per deal): the one definition, seat by seat (a Python loop
    is nothing beside the play-outs that made ``winners``)."""
    won, seat, players = (a.ravel().tolist() for a in np.broadcast_arrays(winners, seats, num_players))
    values = [win_share(s, () if w < 0 else (w,), n) for w, s, n in zip(won, seat, players, strict=True)]
    return np.array(values, dtype=np.float64).reshape(np.shape(winners))


@njit(cache=True)
def redeal_unseen(hands, stock, S, rows, keys):
    """In each game of ``rows``, deal the cards the seat to act cannot see (the other hands and
    the stock) again at random, every hand and the stock keeping its size: a deal that looks the
    same from that seat. ``keys[i]`` seeds row ``i`` (SplitMix64), so equal keys deal alike."""
    cards = np.zeros(64, dtype=np.int64)
    for i in range(len(rows)):
        b = rows[i]
        seat = S[b, K.CUR]
        n = 0
        for s in range(S[b, K.NP]):
            if s != seat:
                m = hands[b, s]
                for c in range(54):
                    if (m >> c) & 1:
                        cards[n] = c
                        n += 1
        for j in range(S[b, K.SLEN]):
            cards[n] = stock[b, j]
            n += 1
        x = np.uint64(keys[i])
        for j in range(n - 1, 0, -1):  # Fisher-Yates
            x += np.uint64(0x9E3779B97F4A7C15)
            z = x
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            k = np.int64(z % np.uint64(j + 1))
            cards[j], cards[k] = cards[k], cards[j]
        at = 0
        for s in range(S[b, K.NP]):
            if s != seat:
                size = K.popcount(hands[b, s])
                m = np.int64(0)
                for j in range(at, at + size):
                    m |= np.int64(1) << cards[j]
                hands[b, s] = m
                at += size
        for j in range(S[b, K.SLEN]):  # the stock takes the rest, in the shuffled order
            stock[b, j] = cards[at + j]


def move_values(game: VecGame, games: np.ndarray, moves: np.ndarray, prior: str, redeals: int = 0,
                keys: np.ndarray | None = None, scratch: VecGame | None = None, weights=None) -> np.ndarray:
    """The win share of the seat to act after each ``moves[i]`` in game ``games[i]``, every seat
    played by ``prior`` from then on, on copies (``game`` is untouched): on the true deal
    (``redeals`` 0), or the mean over ``redeals`` deals that look the same from that seat
    (``redeal_unseen``). Moves of one position share their re-deals (``keys[i]``: the position's
    key), so their differences are not noise of the re-deals. A heuristic ``prior`` plays the
    seat that moved with its evaluation ``weights`` when given; the other seats always play the
    shipped heuristic, as the league's ``heuristic`` opponents do."""
    k = max(redeals, 1)
    rows = np.arange(len(games) * k, dtype=np.int64)
    if scratch is None or scratch.size < rows.size:
        scratch = VecGame(max(rows.size, 1))
    copy_games(game, np.repeat(games, k), scratch, rows)
    seats = scratch.to_act(rows)
    if redeals:
        draw = (np.repeat(keys.astype(np.uint64) * np.uint64(1_000_003), k)
                + np.tile(np.arange(k, dtype=np.uint64), len(games)))
        redeal_unseen(scratch.hands, scratch.stock, scratch.S, rows, draw.astype(np.int64))
    scratch.step(rows, np.repeat(moves, k))
    if prior == "heuristic" and weights is not None:
        table = np.vstack([HEURISTIC_WEIGHTS, evaluation_weights(weights)])
        heuristic, mover = weighted_heuristic(table), np.full(scratch.size, -1, dtype=np.int64)
        mover[rows] = seats
        winners = play_out(scratch, rows, lambda obs, masks, at, who: heuristic(
            obs, masks, rows=(who == mover[at]).astype(np.int64)), seated=True)
    else:
        winners = play_out(scratch, rows, rule_based(prior, weights))
    return shares(winners, seats, scratch.num_players(rows)).reshape(-1, k).mean(axis=1)



class RolloutReward(VecEnvWrapper):
    """Replaces the learner's reward by the rollout reward of the module docstring. Wraps the
    env whose observations carry the prior's action in column ``OBS_SIZE`` (``PriorAction``),
    so the prior's move is the one the policy saw."""

    def __init__(self, venv: VecEnv, prior: str, weights=None) -> None:
        super().__init__(venv)
        self.prior, self.weights = prior, weights
        self.base: KingsCornerVecEnv = venv.unwrapped
        self.scratch = VecGame(2 * self.base.num_envs)
        self._prior_moves = np.zeros(self.num_envs, dtype=np.int64)
        self._rewards = np.zeros(self.num_envs, dtype=np.float32)
        self.moves = self.deviations = 0
        self.gain = 0.0  # sum of the rewards since ``take_stats``

    def remember(self, obs: np.ndarray) -> np.ndarray:
        """Take the prior's moves from the observations ``obs`` (each step's, or a resumed run's last)."""
        self._prior_moves = obs[:, K.OBS_SIZE].astype(np.int64)
        return obs

    def reset(self) -> np.ndarray:
        return self.remember(self.venv.reset())

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        games = np.flatnonzero(actions != self._prior_moves)
        self._rewards[:] = 0.0
        if games.size:
            both = np.concatenate([games, games])
            moves = np.concatenate([actions[games], self._prior_moves[games]])
            values = move_values(self.base.game, both, moves, self.prior, scratch=self.scratch, weights=self.weights)
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
        return self.remember(obs), self._rewards.copy(), dones, infos

    def action_masks(self) -> np.ndarray:
        return self.venv.action_masks()
