"""A turn-value model played as it ships, in compiled code: the duel of ``kc eval MODEL OPPONENT``
at any table, thousands of deals a minute instead of tens.

``TurnValueAgent`` (``kc_env.agents.turn_value``) re-plans at every decision: the heuristic's
``candidates`` best turns from where it stands, the first move of the best-valued one (a line that
goes out always; the heuristic's own move when there is no choice), by the network its gate
picks (``turn_value.gate``, the agent's own compiled gate: the heuristic's own move in its first
``patience`` turns, the first network from then on, the second for the rest of the deal once
another seat has been careless; the agent tells a new deal by ``turn_value.new_deal``, the duel
by starting one). ``duel`` plays exactly that on the vector kernel, one seat against ``num_players - 1``
of an opponent, every deal once from each seat (duplicate deals, as ``learn.duel`` plays them);
``learn.duel`` plays the first network's whole chosen line instead, without the gate.
tests/test_turn_ranking_all.py holds it to the agent's moves, decision by decision.
"""

from __future__ import annotations

import re

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
    value,
)
from kc_env.compiled import njit, njit_parallel
from kc_env.rules import MAX_PLAYERS, MIN_PLAYERS
from kc_env.vector import kernel as K

from .learn import rules_arrays

TABLE = re.compile(r"(.+)-(\d+)p")
"""A table as ``--tables`` names it: ``preset-<players>p``."""


@njit
def model_action(ob, mask, net, k, first_w, first_b, loose_w, loose_b, loose_k):
    """``TurnValueAgent.act`` by the network ``net`` (``HEURISTIC_NET``: the heuristic's own move;
    the second network chooses among the first ``loose_k`` candidates)."""
    lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(k, dtype=np.int64)
    feats = np.zeros((k, FEATURES), dtype=np.float32)
    valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    if net == HEURISTIC_NET or valid < 2:
        return own
    if net != FIRST_NET:
        valid = careless_shown(valid, wins, loose_k)
    vals = value(feats[:valid], first_w, first_b) if net == FIRST_NET else value(feats[:valid], loose_w, loose_b)
    if wins >= 0:
        vals[wins] = np.inf
    best = np.argmax(vals)
    return lines[best, 0] if lengths[best] else K.END_TURN_ACTION


@njit
def drawn_line(ob, mask, k, loose_w, loose_b, loose_k, rng, b, held):
    """``TurnValueAgent._draw``: a line drawn from the second network's softmax over the first
    ``loose_k`` candidates (the one that goes out, if any), with the kernel's generator ``rng[b]``,
    into ``held`` as its moves and the end of the turn; returns how many."""
    lines = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    lengths = np.zeros(k, dtype=np.int64)
    feats = np.zeros((k, FEATURES), dtype=np.float32)
    valid, own, wins = candidate_features(ob, mask, k, lines, lengths, feats)
    if valid == 0:
        held[0] = own
        return 1
    valid = careless_shown(valid, wins, loose_k)
    pick = wins if wins >= 0 or valid == 1 else 0
    if wins < 0 and valid > 1:
        z = scores(feats[:valid], loose_w, loose_b).astype(np.float64)
        p = np.exp(z - z.max())
        pick = index_at(p / p.sum(), uniform(rng, b))
    held[:lengths[pick]] = lines[pick, :lengths[pick]]
    held[lengths[pick]] = K.END_TURN_ACTION
    return lengths[pick] + 1


@njit_parallel
def play_duel(seeds, seats, num_players, others, rules_row, rules_vec, k, patience, gated, draws,
              first_w, first_b, loose_w, loose_b, loose_k, shares):
    """Deal ``seeds[i]`` (dealer ``seed % players``) with the model in seat ``seats[i]`` and
    ``OTHERS[others]`` in the rest; the model's share of each into ``shares[i]``. With ``draws``
    (``careless_play: sample``) the second network's line is drawn, with the deal's own generator."""
    for i in prange(seeds.shape[0]):
        shares[i] = _play(seeds[i], seats[i], num_players, others, rules_row, rules_vec, k, patience, gated, draws,
                          first_w, first_b, loose_w, loose_b, loose_k, np.uint64(i))


@njit
def _play(seed, learner, num_players, others, rules_row, rules_vec, k, patience, gated, draws,
          first_w, first_b, loose_w, loose_b, loose_k, stream):
    t = new_table(rules_row, seed, seed % num_players, num_players, seed, stream)
    memory = np.zeros(GATE_MEMORY, dtype=np.int64)  # one deal: nothing to tell apart
    held = np.zeros(turns.MAX_DEPTH + 1, dtype=np.int64)  # the drawn line's moves and the turn's end
    n_held, played = 0, 0
    seat = to_act(t, rules_vec)
    while seat >= 0:
        if seat == learner:
            net = gate(t.ob, t.mask, memory, patience, gated)
            if draws and net != FIRST_NET and net != HEURISTIC_NET:  # TurnValueAgent.drawn_move
                mid_turn = t.ob[view.OBS_PLAYED] > 0.5 or t.ob[view.OBS_MOVED] > 0.5
                if not (mid_turn and played < n_held and t.mask[held[played]]):
                    n_held, played = drawn_line(t.ob, t.mask, k, loose_w, loose_b, loose_k, t.rng, TABLE_ROW, held), 0
                move = held[played]
                played += 1
            else:
                move = model_action(t.ob, t.mask, net, k, first_w, first_b, loose_w, loose_b, loose_k)
            K.apply_action(t.g, TABLE_ROW, move, t.scratch)
        else:
            others_move(t, others)
        seat = to_act(t, rules_vec)
    return seat_share(t.g, TABLE_ROW, learner)


def duel(folder, rules, num_players: int, seeds, against: str = "heuristic", max_moves: int = 1000):
    """The model of ``folder`` (a turn-value model folder; None: the heuristic itself) as it ships,
    in one seat against ``against`` (one of ``playouts.OTHERS``) in the others, each of ``seeds``
    dealt once with the model in each seat: its win share, the 95% half-width (over deals) and each
    deal's mean share. A card with ``careless_play: sample`` draws its second network's lines as
    the agent does (``TurnValueAgent.drawn_move``), from each deal's own generator, so its figures
    are the card's; the draws differ from a seeded agent's, not their law. ``ValueError`` for a
    table the kernel cannot hold, no seeds or an unknown opponent, before anything is played
    (``turn_value.ModelError`` for a model that cannot be read)."""
    from kc_env.agents import turn_value as model

    rules.check_players(num_players)  # RULES.md 2.2, before the kernel is given a table it cannot hold
    seeds = np.asarray(seeds, np.int64)
    if seeds.ndim != 1 or not len(seeds):
        raise ValueError(f"seeds must list at least one deal, not an array of shape {seeds.shape}")
    if against not in OTHERS:
        raise ValueError(f"against must be one of {', '.join(OTHERS)}, not {against!r}")
    card, layers, loose, gated = networks(folder)
    first_w, first_b = layer_arrays(layers)
    loose_w, loose_b = layer_arrays(loose or layers)
    all_seeds = np.repeat(seeds, num_players)
    seats = np.tile(np.arange(num_players, dtype=np.int64), len(seeds))
    rrow, rvec = rules_arrays(rules, max_moves)
    shares = np.zeros(len(all_seeds), np.float64)
    draws = model.samples_at(card.get("careless_play", "best"), num_players)
    play_duel(all_seeds, seats, num_players, OTHERS.index(against), rrow, rvec, int(card["candidates"]),
              model.patience_at(card.get("patience", 0), num_players), gated, draws, first_w, first_b, loose_w, loose_b,
              int(card.get("careless_candidates", card["candidates"])), shares)
    per_deal = shares.reshape(len(seeds), num_players).mean(axis=1)
    return float(per_deal.mean()), float(1.96 * per_deal.std() / np.sqrt(len(per_deal))), per_deal


def networks(folder):
    """The checked card, first network, second network (or None) and the gate's setting
    (``gate``'s ``gated``) of the turn-value model in ``folder``; None: the heuristic itself."""
    from kc_env.agents import turn_value as model

    if folder is None:
        return {"candidates": 2}, [(np.zeros((1, FEATURES), np.float32), np.zeros(1, np.float32))], None, -1
    card, layers = model.load(folder)
    loose = model.load_careless(folder, card) if card.get("careless_layers") else None
    return card, layers, loose, int(loose is not None)


def parse_table(name: str):
    """``preset-<players>p`` (``--tables``) as its ``Rules`` and player count; ``ValueError``
    (a ``RulesError`` for an unknown preset) saying what is wrong with it."""
    from kc_env.rules import Rules

    match = TABLE.fullmatch(name)
    if not match:
        raise ValueError(f"{name!r}: write PRESET-<players>p, as standard-2p")
    players = int(match[2])
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"{name!r}: {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    try:
        return Rules.preset(match[1]), players
    except ValueError as err:
        raise ValueError(f"{name!r}: {err}") from None


def main(argv=None) -> int:
    """``python -m kc_env.training.turn_value.shipped MODEL --tables pagat-2p,standard-4p --deals
    2000 --seed S``: at each table the model against the heuristic and against random (``--against``),
    and the heuristic against random on the same deals when random is one of them (``duel``), as a
    markdown table. Every table, the deals and the model are checked before the first is played."""
    import argparse

    from kc_env.agents.turn_value import ModelError

    parser = argparse.ArgumentParser(prog="python -m kc_env.training.turn_value.shipped", description=main.__doc__)
    parser.add_argument("model")
    parser.add_argument("--tables", required=True, help="preset-<players>p, comma separated")
    parser.add_argument("--deals", type=int, default=2000, help="deals a table and opponent, each from every seat")
    parser.add_argument("--seed", type=int, required=True, help="the deals are seed * 10**6 on")
    parser.add_argument("--against", default="heuristic,random", help="opponents, comma separated (of "
                        f"{', '.join(OTHERS)})")
    args = parser.parse_args(argv)
    against = args.against.split(",")
    if unknown := [a for a in against if a not in OTHERS]:
        parser.error(f"--against {unknown[0]!r}: not one of {', '.join(OTHERS)}")
    if args.deals < 1:
        parser.error(f"--deals {args.deals}: at least 1")
    try:
        tables = [(name, *parse_table(name)) for name in args.tables.split(",")]
    except ValueError as err:
        parser.error(f"--tables {err}")
    try:
        networks(args.model)
    except ModelError as err:
        parser.error(str(err))
    duels = [(args.model, a) for a in against] + ([(None, "random")] if "random" in against else [])
    seeds = np.arange(args.deals, dtype=np.int64) + args.seed * 10**6
    heads = [f"model vs {a}" for a in against] + (["heuristic vs random"] if "random" in against else [])
    print(f"| table | {' | '.join(heads)} |\n|---|{'---|' * len(heads)}", flush=True)
    for name, rules, n in tables:
        cells = []
        for folder, opponent in duels:
            share, half, _ = duel(folder, rules, n, seeds, against=opponent)
            cells.append(f"{share:.3f} ± {half:.3f}")
        print(f"| {name} | {' | '.join(cells)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
