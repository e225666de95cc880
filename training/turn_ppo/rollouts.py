"""The deals of one PPO iteration, played in compiled code on every core.

In each deal the seats in ``learners`` choose a whole turn at a time: the heuristic's ``k`` best
end-of-turn positions (``candidate_features``) are scored by the policy network, and the seat
samples one from the softmax of the scores (or, as a model plays, takes the best: ``Policy.play``), then plays its line
and ends the turn (a line that goes out is always taken: no choice is recorded then, nor when
there is one candidate). A gated policy (``kc_env.agents.turn_value``'s gate) has a second network
for careless opponents: each learning seat keeps, for the deal, whether another seat has been
careless at the start of its turn and how many of its turns started clean; it plays the
heuristic's own turn for its first ``patience`` clean turns, the first network from then on, and
the second for the rest of the deal once a seat has been careless (``HEURISTIC_GATE``: the
heuristic's own turn instead, recording nothing). Every
choice is recorded with all its candidates' features, how many are valid, the pick and its
log-probability; when the deal ends, every seat's share of it (1 a win, 0 a loss, 1 / players a
deal nobody won). The other seats play the compiled heuristic, greedy or random move by move.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import prange

from kc_env.agents import turns, view
from kc_env.agents.playouts import OTHERS, TABLE_ROW, new_table, others_move, seat_share, to_act
from kc_env.agents.turn_value import (
    FEATURES,
    FIRST_NET,
    GATE_MEMORY,
    HEURISTIC_NET,
    candidate_features,
    careless_shown,
    gate,
    index_at,
    layer_arrays,
    scores,
    uniform,
)
from kc_env.compiled import njit, njit_parallel
from kc_env.vector import kernel as K

from ..turn_value.learn import Deals, rules_arrays

SAMPLE, BEST, BEST_THEN_SAMPLE = 0, 1, 2
"""How the learners pick (``Policy.play``): ``SAMPLE`` from the softmax of either network's scores,
recording each choice (training); ``BEST``, the best-scored candidate of either network (how a
model plays whose card says nothing of ``careless_play``); ``BEST_THEN_SAMPLE``, the first
network's best and a sample of the second's (a card with ``careless_play: sample``: ``gate:
uniform``). Only ``SAMPLE`` records."""

Policy = namedtuple("Policy", "k seed play gated patience layers_w layers_b loose_w loose_b loose_k hands")
Policy.__doc__ = """The learners' policy: the network (relu layers ``layers_w``, ``layers_b`` to one score)
over the heuristic's ``k`` best candidates, sampled with a generator per game from ``seed`` as
``play`` says (``SAMPLE``, ``BEST``, ``BEST_THEN_SAMPLE``); ``gated``: 0 none, 1 the second network ``loose_w``, ``loose_b`` once a seat
has been careless, ``HEURISTIC_GATE`` the heuristic then; the gate's ``patience`` (module
docstring); and ``loose_k``, how many of the candidates, the heuristic's best first, the second
network chooses among (a card's ``careless_candidates``); ``hands``: 1 to record each candidate's
``HAND_FEATURES`` beside its features (a critic that sees the hidden hands), 0 not to."""

HEURISTIC_GATE = 2
"""``Policy.gated`` for a gate that hands careless tables to the heuristic (``gate: heuristic``)."""

Choices = namedtuple("Choices", "feats hands valid picks logps seats nets counts shares")
Choices.__doc__ = """What ``play`` writes: game ``i``'s choices ``[i, :counts[i]]`` (each one's candidates'
features ``feats[i, n, :valid[i, n]]`` and, if the policy records them, their ``hands[i, n, :valid[i, n]]``,
the pick, its log-probability, the chooser's seat and which network chose, 0 or 1; at most
``feats.shape[1]`` a game) and every seat's share of the deal, ``shares[i]``."""

OTHER_SEATS = K.MAX_SEATS - 1
SEAT_FITS = OTHER_SEATS * (1 + 8)
HAND_FEATURES = SEAT_FITS + OTHER_SEATS * 54
"""What a critic that sees the hidden hands reads beside a candidate's features (PerfectDou's
privileged critic; never the policy, which plays from what its seat sees). For each other seat in
the order they play after the chooser (zeros past the table's seats): its hand's size (a
thirteenth) and, for each pile where the candidate's line ends, how many of its cards fit there (a
quarter), the first ``SEAT_FITS``; then each one's hand, a one for each card it holds."""


@njit
def hand_features(ob, g, b, lines, lengths, valid, out):
    """``HAND_FEATURES`` of the first ``valid`` candidate lines (``lines``, ``lengths``) of the seat
    to act at row ``b`` of the table ``g`` (the whole deal, every hand), whose observation is ``ob``,
    into ``out`` ([k, HAND_FEATURES]). The piles where a line ends are walked from the seat's view,
    as ``candidate_features`` walks them (the others' hands do not change in its turn)."""
    walk = turns.alloc(turns.MAX_DEPTH + 1, view.clears_piles(ob))
    turns.load(ob, walk, turns.MAX_DEPTH + 1)
    me, players = g.S[b, K.CUR], g.S[b, K.NP]
    out[:] = 0.0
    for i in range(valid):
        turns.replay(walk, lines[i], lengths[i])
        d = lengths[i]
        for j in range(1, players):
            hand = g.hands[b, (me + j) % players]
            f = (j - 1) * 9
            out[i, f] = K.popcount(hand) / 13.0
            for p in range(8):
                out[i, f + 1 + p] = K.popcount(hand & walk.pinfo[d, p, K.ACC]) / 4.0
            for c in range(54):
                out[i, SEAT_FITS + (j - 1) * 54 + c] = (hand >> c) & 1


HEURISTIC_TURN = -1
"""What ``gate`` gives for a turn the seat plays as the heuristic does."""


@njit
def network_of(ob, mask, memory, policy):
    """Which network the learner plays this turn (0, 1, or ``HEURISTIC_TURN``) by the agent's own
    gate (``turn_value.gate``), updating ``memory``, the seat's ``GATE_MEMORY`` for the deal."""
    net = gate(ob, mask, memory, policy.patience, np.int64(policy.gated))
    if net == HEURISTIC_NET or (net != FIRST_NET and policy.gated == HEURISTIC_GATE):
        return HEURISTIC_TURN
    return 0 if net == FIRST_NET else 1


@njit_parallel
def play(deals, num_players, rules_row, rules_vec, policy, out):
    """Play every deal of ``deals`` (``turn_value.learn.Deals``) into ``out`` (``Choices``)."""
    seeds, dealers, learners, others = deals  # numba cannot hand a namedtuple to a prange body (numba#4846)
    k, seed, how, gated, patience, layers_w, layers_b, loose_w, loose_b, loose_k, hands = policy
    feats, hand_feats, valid, picks, logps, seats, nets, counts, shares = out
    for i in prange(seeds.shape[0]):
        _play_deal(np.int64(i), Deals(seeds, dealers, learners, others), num_players, rules_row, rules_vec,
                   Policy(k, seed, how, gated, patience, layers_w, layers_b, loose_w, loose_b, loose_k, hands),
                   Choices(feats, hand_feats, valid, picks, logps, seats, nets, counts, shares))


@njit
def _play_deal(i, deals, num_players, rules_row, rules_vec, policy, out):
    """Deal ``i`` of ``play``, on a table of its own (``playouts.Table``)."""
    t = new_table(rules_row, deals.seeds[i], deals.dealers[i], num_players, policy.seed, i)
    memory = np.zeros((num_players, GATE_MEMORY), dtype=np.int64)  # each seat's gate, for this one deal
    n = 0
    seat = to_act(t, rules_vec)
    while seat >= 0:
        if (deals.learners[i] >> seat) & 1:
            net = network_of(t.ob, t.mask, memory[seat], policy)
            n += _choose_turn(t.g, TABLE_ROW, t.ob, t.mask, policy, net, t.rng, out, i, n, t.scratch)
        else:
            others_move(t, deals.others[i])
        seat = to_act(t, rules_vec)
    out.counts[i] = n
    for s in range(num_players):
        out.shares[i, s] = seat_share(t.g, TABLE_ROW, s)


@njit
def _choose_turn(g, b, ob, mask, policy, net, rng, out, i, n, scratch):
    """A learner's whole turn by network ``net`` (the heuristic's best for ``HEURISTIC_TURN``):
    sample a candidate (or take the best), record the choice (if there was one and there is room)
    and play it. Returns the number of choices recorded (0 or 1)."""
    k = policy.k
    lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(k, dtype=np.int64)
    feats = np.zeros((k, FEATURES), dtype=np.float32)
    valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    pick, wrote = 0, 0
    if wins >= 0:
        pick = wins
    elif valid > 1 and net != HEURISTIC_TURN:
        if net == 1:
            valid = careless_shown(valid, wins, policy.loose_k)
        if net == 0:
            z = scores(feats[:valid], policy.layers_w, policy.layers_b).astype(np.float64)
        else:
            z = scores(feats[:valid], policy.loose_w, policy.loose_b).astype(np.float64)
        p = np.exp(z - z.max())
        p /= p.sum()
        best = policy.play == BEST or (policy.play == BEST_THEN_SAMPLE and net == 0)
        pick = np.argmax(z) if best else index_at(p, uniform(rng, b))
        if n < out.feats.shape[1] and policy.play == SAMPLE:
            out.feats[i, n, :valid] = feats[:valid]
            if policy.hands:
                hand_features(ob, g, b, lines, lengths, valid, out.hands[i, n])
            out.valid[i, n] = valid
            out.picks[i, n] = pick
            out.logps[i, n] = np.log(p[pick])
            out.seats[i, n] = g.S[b, K.CUR]
            out.nets[i, n] = net
            wrote = 1
    for j in range(lengths[pick]):
        K.apply_action(g, b, lines[pick, j], scratch)
    if not (g.S[b, K.OVER] or g.S[b, K.TRUNC]):
        K.apply_action(g, b, K.END_TURN_ACTION, scratch)
    return wrote


def generate(rules, num_players: int, seeds: np.ndarray, learners: np.ndarray, others: np.ndarray, nets, *,
             k: int, seed: int = 0, how: int = SAMPLE, patience: int = 0, max_moves: int = 1000,
             max_records: int = 80, careless_heuristic: bool = False,
             careless_k: int | None = None, hands: bool = False) -> dict[str, np.ndarray]:
    """Play the deals ``seeds`` (dealer ``seed % players``; ``learners[i]``: bit ``s`` for each
    seat that learns; ``others[i]``: the code of what the other seats play) with the policy
    ``nets``: (first network, second network or None for no gate), each numpy (weight, bias)
    pairs; with ``careless_heuristic``, the heuristic plays instead of the second network, which
    otherwise chooses among the first ``careless_k`` candidates (all ``k`` by default); ``how``
    as ``Policy.play`` (only ``SAMPLE`` records choices). Returns
    every recorded choice: ``feats [N, k, FEATURES]``, with ``hands`` their ``hands [N, k,
    HAND_FEATURES]`` (for a critic that sees the hidden hands), ``valid``, ``picks``, ``logps``, ``nets``
    (which network chose), ``outcomes`` (the chooser's share of its deal), ``deals`` (the index in
    ``seeds`` of each choice's deal), and ``shares`` (every seat's share of every deal)."""
    seeds = np.ascontiguousarray(seeds, dtype=np.int64)  # one compiled version for every caller's seeds
    rrow, rvec = rules_arrays(rules, max_moves)
    n, (first, loose) = len(seeds), nets
    rows = max_records if how == SAMPLE else 1  # a policy playing as a model records nothing
    out = Choices(np.zeros((n, rows, k, FEATURES), np.float32),
                  np.zeros((n, rows, k, HAND_FEATURES) if hands else (1, 1, k, HAND_FEATURES), np.float32),
                  np.zeros((n, rows), np.int64),
                  np.zeros((n, rows), np.int64), np.zeros((n, rows), np.float32), np.zeros((n, rows), np.int64),
                  np.zeros((n, rows), np.int64), np.zeros(n, np.int64), np.zeros((n, num_players), np.float64))
    gated = HEURISTIC_GATE if careless_heuristic else int(loose is not None)
    policy = Policy(k, seed, int(how), gated, int(patience), *layer_arrays(first),
                    *layer_arrays(loose if loose is not None else first), int(careless_k or k), int(hands))
    play(Deals(seeds, seeds % num_players, np.asarray(learners, np.int64), np.asarray(others, np.int64)),
         num_players, rrow, rvec, policy, out)
    keep = np.arange(rows)[None, :] < out.counts[:, None]
    games = np.broadcast_to(np.arange(n)[:, None], keep.shape)[keep]
    recorded = {"hands": out.hands[keep]} if hands else {}
    return {"feats": out.feats[keep], **recorded, "valid": out.valid[keep], "picks": out.picks[keep], "logps": out.logps[keep],
            "nets": out.nets[keep], "outcomes": out.shares[games, out.seats[keep]].astype(np.float32),
            "deals": games, "shares": out.shares}


def episode_shares(rules, num_players: int, seeds: np.ndarray, nets, *, k: int, against: str, patience: int = 0,
                   max_moves: int = 1000, careless_heuristic: bool = False, how: int = BEST,
                   seed: int = 0, careless_k: int | None = None) -> np.ndarray:
    """The policy's share of each episode (gated, and playing as ``how`` says: by default its best
    candidate) in one seat against ``against`` in the others, every deal once from each seat:
    ``[deal, seat]``; ``seed`` seeds the samples (the policy's and ``random``'s)."""
    seeds = np.asarray(seeds, np.int64)
    all_seeds = np.repeat(seeds, num_players)
    learner = np.tile(np.arange(num_players), len(seeds))
    shares = generate(rules, num_players, all_seeds, 1 << learner, np.full(len(all_seeds), OTHERS.index(against)),
                      nets, k=k, seed=seed, how=how, patience=patience, max_moves=max_moves,
                      careless_heuristic=careless_heuristic, careless_k=careless_k)["shares"]
    return shares[np.arange(len(all_seeds)), learner].reshape(len(seeds), num_players)


def duel(rules, num_players: int, seeds: np.ndarray, nets, **kw) -> tuple[float, float]:
    """The policy's win share over ``episode_shares`` (duplicate deals) and its 95% half-width."""
    won = episode_shares(rules, num_players, seeds, nets, **kw).mean(axis=1)
    return float(won.mean()), float(1.96 * won.std() / np.sqrt(len(won)))
