"""The deals of one PPO iteration, played in compiled code on every core.

In each deal the seats in ``learners`` choose a whole turn at a time: the heuristic's ``k`` best
end-of-turn positions (``candidate_features``) are scored by the policy network, and the seat
samples one from the softmax of the scores, then plays its line and ends the turn (a line that
goes out is always taken: no choice is recorded then, nor when there is one candidate). Every
choice is recorded with all its candidates' features, how many are valid, the pick and its
log-probability; when the deal ends, every seat's share of it (1 a win, 0 a loss, 1 / players a
deal nobody won). The other seats play the compiled heuristic, greedy or random move by move.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from kc_env.agents import turns
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS
from kc_env.agents.playouts import other_action, seat_share
from kc_env.agents.turn_value import FEATURES, candidate_features
from kc_env.compiled import njit, njit_parallel
from kc_env.vector import kernel as K

from ..turn_value.learn import Deals, rules_arrays

Policy = namedtuple("Policy", "k seed layers_w layers_b")
Policy.__doc__ = """The learners' policy: the network (relu layers ``layers_w``, ``layers_b`` to one score)
over the heuristic's ``k`` best candidates, sampled with a generator per game from ``seed``."""

Choices = namedtuple("Choices", "feats valid picks logps seats counts shares")
Choices.__doc__ = """What ``play`` writes: game ``i``'s choices ``[i, :counts[i]]`` (each one's candidates'
features ``feats[i, n, :valid[i, n]]``, the pick, its log-probability and the chooser's seat; at
most ``feats.shape[1]`` a game) and every seat's share of the deal, ``shares[i]``."""


@njit
def scores(x, layers_w, layers_b):
    """The policy network's score of each row of ``x`` ([n, FEATURES]): relu layers, no squashing
    (the turn-value model's ``value`` is its sigmoid, so both rank the candidates alike)."""
    h = np.ascontiguousarray(x)
    last = len(layers_w) - 1
    for i in range(last + 1):
        h = np.ascontiguousarray(h @ layers_w[i].T) + layers_b[i]
        if i < last:
            h = h * (h > 0)
    return h[:, 0]


@njit_parallel
def play(deals, num_players, rules_row, rules_vec, policy, out):
    """Play every deal of ``deals`` (``turn_value.learn.Deals``) into ``out`` (``Choices``)."""
    seeds, dealers, learners, others = deals  # numba cannot hand a namedtuple to a prange body (numba#4846)
    k, seed, layers_w, layers_b = policy
    feats, valid, picks, logps, seats, counts, shares = out
    for i in prange(seeds.shape[0]):
        _play_deal(np.int64(i), Deals(seeds, dealers, learners, others), num_players, rules_row, rules_vec,
                   Policy(k, seed, layers_w, layers_b), Choices(feats, valid, picks, logps, seats, counts, shares))


@njit
def _play_deal(i, deals, num_players, rules_row, rules_vec, policy, out):
    """Deal ``i`` of ``play``, on a table of its own."""
    w = HEURISTIC_WEIGHTS.copy()
    b = np.int64(0)
    g = turns.alloc(1, True)
    g.R[0, :] = rules_row
    scratch = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    K.deal(g, b, deals.seeds[i], deals.dealers[i], num_players, scratch)
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = np.uint64(policy.seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(i)
    ob = np.zeros(K.OBS_SIZE, dtype=np.float32)
    mask = np.zeros(K.NUM_ACTIONS, dtype=np.int8)
    n = 0
    while not (g.S[b, K.OVER] or g.S[b, K.TRUNC]):
        seat = g.S[b, K.CUR]
        K.encode(g, b, seat, rules_vec, ob)
        K.write_mask(g, b, mask, scratch)
        if (deals.learners[i] >> seat) & 1:
            n += _choose_turn(g, b, ob, mask, policy, rng, out, i, n, scratch)
        else:
            K.apply_action(g, b, other_action(deals.others[i], ob, mask, w, g, b, rng, scratch), scratch)
    out.counts[i] = n
    for s in range(num_players):
        out.shares[i, s] = seat_share(g, b, s)


@njit
def _choose_turn(g, b, ob, mask, policy, rng, out, i, n, scratch):
    """A learner's whole turn: sample a candidate, record the choice (if there was one and there is
    room) and play it. Returns the number of choices recorded (0 or 1)."""
    k = policy.k
    lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(k, dtype=np.int64)
    feats = np.zeros((k, FEATURES), dtype=np.float32)
    valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    pick, wrote = 0, 0
    if wins >= 0:
        pick = wins
    elif valid > 1:
        z = scores(feats[:valid], policy.layers_w, policy.layers_b).astype(np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        u = K.randbelow(rng, b, 1 << 30) / (1 << 30)
        pick = valid - 1
        acc = 0.0
        for j in range(valid):
            acc += p[j]
            if u < acc:
                pick = j
                break
        if n < out.feats.shape[1]:
            out.feats[i, n, :valid] = feats[:valid]
            out.valid[i, n] = valid
            out.picks[i, n] = pick
            out.logps[i, n] = np.log(p[pick])
            out.seats[i, n] = g.S[b, K.CUR]
            wrote = 1
    for j in range(lengths[pick]):
        K.apply_action(g, b, lines[pick, j], scratch)
    if not (g.S[b, K.OVER] or g.S[b, K.TRUNC]):
        K.apply_action(g, b, K.END_TURN_ACTION, scratch)
    return wrote


def network_arrays(layers) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """(weights, biases) of numpy (weight, bias) pairs, contiguous float32 as the compiled code takes."""
    return (tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers),
            tuple(np.ascontiguousarray(b, np.float32) for _, b in layers))


def generate(rules, num_players: int, seeds: np.ndarray, learners: np.ndarray, others: np.ndarray, layers, *,
             k: int, seed: int, max_moves: int = 1000, max_records: int = 80) -> dict[str, np.ndarray]:
    """Play the deals ``seeds`` (dealer ``seed % players``; ``learners[i]``: bit ``s`` for each
    seat that learns; ``others[i]``: the code of what the other seats play) with the policy
    ``layers``; returns every recorded choice: ``feats [N, k, FEATURES]``, ``valid``, ``picks``,
    ``logps``, ``outcomes`` (the chooser's share of its deal) and ``games`` (its deal's index)."""
    seeds = np.asarray(seeds, dtype=np.int64)
    rrow, rvec = rules_arrays(rules, max_moves)
    n = len(seeds)
    out = Choices(np.zeros((n, max_records, k, FEATURES), np.float32), np.zeros((n, max_records), np.int64),
                  np.zeros((n, max_records), np.int64), np.zeros((n, max_records), np.float32),
                  np.zeros((n, max_records), np.int64), np.zeros(n, np.int64), np.zeros((n, num_players), np.float64))
    play(Deals(seeds, seeds % num_players, np.asarray(learners, np.int64), np.asarray(others, np.int64)),
         num_players, rrow, rvec, Policy(k, seed, *network_arrays(layers)), out)
    keep = np.arange(max_records)[None, :] < out.counts[:, None]
    games = np.broadcast_to(np.arange(n)[:, None], keep.shape)[keep]
    return {"feats": out.feats[keep], "valid": out.valid[keep], "picks": out.picks[keep], "logps": out.logps[keep],
            "outcomes": out.shares[games, out.seats[keep]].astype(np.float32), "games": games}
