"""A turn policy behind the heuristic gate, over the gate's patience (research/experiments.md,
2026-12-04 (evening), "turn-PPO behind the heuristic gate"):

    python research/gate_diagnostic.py --model runs/tppo-7/model --deals 2000 --seed 7000000000 --patience 0,8,10,12

Plays the model's first network in the compiled duel (``training/turn_ppo/rollouts.duel``'s deals:
each deal once from each seat, the policy's best candidate) with the heuristic's own turn for its
first ``patience`` clean turns and for the rest of a deal once the other seat has been careless
(``gate: heuristic``), against the heuristic and against random, and prints each share with its
gain over the heuristic on the same episodes (paired) and the share of episodes that differ. The
duel commits to each chosen line, as the trainer's curve does; ``kc eval`` (and
``training/turn_value/shipped.duel``, its compiled twin) re-plans at every move.

    python research/gate_diagnostic.py --model runs/tppo-k32/model --as-card --patience 5,8,12

plays the model as its card says instead (2026-12-05 (evening)): its first network's best line, and
once the other seat has been careless its second network (or the card's uniform draw) as the card
plays it (``careless_play``: a line drawn at the turn's start, seeded), over its own candidates
(``--careless-candidates M``: among the heuristic's first M instead of the card's). ``--rules
PRESET --players N`` plays at another table.

    python research/gate_diagnostic.py --tells --deals 400 --seed 90000000

instead plays the heuristic against the heuristic and against random (engine, one seat each way
round) and prints, at the heuristic's clean turn starts before the other seat has been careless,
how many deals are still unflagged and the other seat's hand size there, and how often the other
seat's hand grew over its turn (it played no card).

    python research/gate_diagnostic.py --turn-tells --deals 4000 --seed 91000000

asks whether anything in the other seat's turns tells random from a careful player before it has
been careless (2026-12-07 (afternoon)): the heuristic against the heuristic, greedy and random
(engine), the other seat's moves in each of its clean turns as events (``turn_events``: a card's
rank and whether it went on a corner or a side, pile moves, the turn's shape), and a naive-Bayes
test of random over the first K clean turns (``turn_tells``).

    python research/gate_diagnostic.py --where --model models/turn-ppo-2p --deals 2000 --seed 8900000000

says where a run's curve moves between its start and the model (2026-12-07 (day)): both play as
the card does (the first network's best line, sharpened into the sampling policy so that the
compiled deal loop records which network chose each turn; the card's second network or uniform
draw at careless tables), the start being the untrained network the trainer begins from
(``--start-hidden``, ``--start-seed``: a config's ``turn_ppo.hidden`` and ``seed``; ``--uniform``: a
uniform draw among the card's careless candidates instead of its second network), at the
``--rules`` preset with 2 players. Each episode
is split by whether the first network chose a turn in it; against each opponent it prints both
shares there and elsewhere, and the blocked share.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from kc_env.training.turn_ppo import rollouts as R
from kc_env.training.turn_ppo.rollouts import BEST, BEST_THEN_SAMPLE, episode_shares
from kc_env.training.turn_ppo.train import ZEROS
from kc_env.training.turn_value.learn import numpy_layers, torch_network

from kc_env.agents import turn_value as tv
from kc_env.rules import Rules


def shares(first, against: str, patience: int, seeds: np.ndarray, gated: bool, table=("standard", 2)) -> np.ndarray:
    """The learner's share of each episode (every deal from each seat) against ``against`` at
    ``table`` (a preset and the players)."""
    return episode_shares(Rules.preset(table[0]), table[1], seeds, (first, ZEROS if gated else None), k=6,
                          against=against, patience=patience, careless_heuristic=gated).ravel()


def card_shares(folder: str, against: str, patience: int, seeds: np.ndarray, few: int | None = None,
                table=("standard", 2)) -> np.ndarray:
    """The model's share of each episode played as its card says (module docstring), its second
    network choosing among the first ``few`` candidates if given."""
    card, first = tv.load(folder)
    second = tv.load_careless(folder, card) if card.get("careless_layers") else None
    how = BEST_THEN_SAMPLE if card.get("careless_play") == "sample" else BEST
    return episode_shares(Rules.preset(table[0]), table[1], seeds, (first, second), k=card["candidates"],
                          against=against, patience=patience, how=how, seed=3,
                          careless_k=few or card.get("careless_candidates")).ravel()


def _heuristic_deals(opponent: str, deals: int, seed: int):
    """Every decision of ``deals`` deals of the heuristic (seat ``d % 2`` of deal ``d``) against
    ``opponent`` (engine, standard, 2 players): (deal, the heuristic's seat, the state, the
    observation, whether the heuristic decides, the action), the action applied after each."""
    from kc_env import actions, agents, engine, observation

    for d in range(deals):
        me, other = agents.load("heuristic"), agents.load(opponent, seed=d)
        state = engine.new_deal("standard", 2, seed=seed + d, dealer=0)
        seat = d % 2
        while not state.is_over and state.move_count < 1000:
            obs = {"observation": observation.encode(state, state.current_player),
                   "action_mask": actions.legal_mask(state)}
            mine = state.current_player == seat
            action = me.act(obs) if mine else other.act(obs)
            yield d, seat, state, obs, mine, action
            engine.apply(state, actions.decode(action))


def _turn_start(state, obs, mine: bool) -> bool | None:
    """At the heuristic's clean turn start (not its first turn, nothing played or moved yet): whether
    the other seat has just been careless; None elsewhere."""
    if mine and not state.first_turn and not state.played and not state.moved:
        return bool(tv.careless(obs["observation"], obs["action_mask"]))
    return None


def tells(deals: int, seed: int) -> None:
    """What the other seat shows before it has been careless (module docstring)."""
    for opponent in ("heuristic", "random"):
        hands: dict[int, list[int]] = {}
        grew = []
        deal = -1
        for d, seat, state, obs, mine, _ in _heuristic_deals(opponent, deals, seed):
            if d != deal:
                deal, clean, seen, last = d, 0, False, None
            careless = _turn_start(state, obs, mine)
            if careless is not None:
                held = len(state.hands[1 - seat])
                if last is not None:
                    grew.append(held > last)
                seen = seen or careless
                if not seen:
                    clean += 1
                    hands.setdefault(clean, []).append(held)
            if mine:
                last = len(state.hands[1 - seat])
        for turn in (4, 10, 15):
            held = np.array(hands.get(turn, [0]))
            print(json.dumps({"against": opponent, "clean_turn": turn, "deals_unflagged": len(hands.get(turn, [])),
                              "deals": deals, "other_hand_mean": round(float(held.mean()), 1),
                              "other_hand_p10_p90": np.percentile(held, [10, 90]).tolist()}), flush=True)
        print(json.dumps({"against": opponent, "other_seat_played_no_card": round(float(np.mean(grew)), 3)}), flush=True)


def turn_events(action: int) -> list[str]:
    """What the table sees of one move of the other seat: a card's rank and whether it went on a
    corner or a side, a pile move onto a corner or a side, the end of the turn."""
    from kc_env import actions
    from kc_env.cards import RANK

    if actions.is_play(action):
        pile = "corner" if actions.play_pile_of(action) >= 4 else "side"
        return [f"play {RANK[actions.play_card_of(action)]} on a {pile}"]
    if actions.is_pile_move(action):
        return [f"move onto a {'corner' if actions.move_dst(action) >= 4 else 'side'}"]
    return ["end"]


def clean_turns(opponent: str, deals: int, seed: int) -> list[list[list[str]]]:
    """Each deal's turns of the other seat (as ``turn_events``, with the turn's shape: its moves'
    kinds, cut at four) up to the first after which the heuristic found it careless."""
    out: list[list[list[str]]] = []
    for d, _, state, obs, mine, action in _heuristic_deals(opponent, deals, seed):
        if d == len(out):
            out.append([])
            turn, flagged = [], False
        careless = _turn_start(state, obs, mine)
        if careless is not None and turn and not flagged:
            flagged = careless
            if not careless:
                shape = "".join(e[0] for e in turn)
                out[-1].append([*turn, "shape " + (shape if len(shape) < 5 else shape[:4] + "+")])
            turn = []
        if not mine:
            turn += turn_events(action)
    return out


def turn_tells(deals: int, seed: int) -> None:
    """Whether the other seat's clean turns tell random from a careful player (module docstring): the
    log-likelihood ratio of each move's events, random's against the mean of the heuristic's and
    greedy's, from the first half of the deals; on the second half, the share of random's deals still
    clean at its K-th turn that the sum over its first K turns flags, at the threshold that flags
    half a percent of the careful players' deals."""
    from collections import Counter

    turns_of = {o: clean_turns(o, deals, seed) for o in ("heuristic", "greedy", "random")}
    counts = {o: Counter(e for deal in t[:deals // 2] for turn in deal for e in turn) for o, t in turns_of.items()}
    vocab = set().union(*counts.values())
    p = {o: {e: (c[e] + 1) / (sum(c.values()) + len(vocab)) for e in vocab} for o, c in counts.items()}
    llr = {e: np.log(p["random"][e] / ((p["heuristic"][e] + p["greedy"][e]) / 2)) for e in vocab}
    for k in (2, 4, 6, 8):
        sums = {o: np.array([sum(llr.get(e, 0.0) for turn in deal[:k] for e in turn)
                             for deal in t[deals // 2:] if len(deal) >= k]) for o, t in turns_of.items()}
        threshold = max(np.quantile(sums["heuristic"], 0.995), np.quantile(sums["greedy"], 0.995))
        print(json.dumps({"clean_turns": k, "deals_still_clean": {o: len(s) for o, s in sums.items()},
                          "random_flagged": round(float(np.mean(sums["random"] > threshold)), 3)}), flush=True)
    print(json.dumps({"most_random_events": sorted(llr, key=llr.get, reverse=True)[:6]}), flush=True)
    for o, t in turns_of.items():
        shapes = Counter(turn[-1] for deal in t for turn in deal)
        total = sum(shapes.values())
        print(json.dumps({"other_seat": o, "clean_turns": total,
                          "shapes": {k: round(v / total, 3) for k, v in shapes.most_common(4)}}), flush=True)


def _played(first, second, few: int, against: str, patience: int, seeds: np.ndarray, k: int, rules: Rules):
    """Every episode's share (each deal from each seat, ``rules``, 2 players) and whether the
    first network chose a turn in it."""
    n = 2 * len(seeds)
    learner = np.tile(np.arange(2), len(seeds))
    sharp = [(np.array(w), np.array(b)) for w, b in first]  # writable copies: numba types a network's layers alike
    sharp[-1] = (sharp[-1][0] * 1000.0, sharp[-1][1] * 1000.0)  # the softmax of these scores: the best
    out = R.generate(rules, 2, np.repeat(seeds, 2), 1 << learner, np.full(n, R.OTHERS.index(against)),
                     (sharp, second), k=k, seed=5, how=R.SAMPLE, patience=patience, careless_k=few)
    used = np.zeros(n, bool)
    used[out["deals"][out["nets"] == 0]] = True
    return out["shares"][np.arange(n), learner], used


def where(folder: str, hidden: list[int], seed: int, deals: int, first_seed: int, uniform: bool,
          rules: str = "standard") -> None:
    """Where the run's curve moves between its start and the model (module docstring); with
    ``uniform``, a uniform draw at careless tables instead of the card's second network."""
    card, trained = tv.load(folder)
    second = tv.load_careless(folder, card) if card.get("careless_layers") and not uniform else ZEROS
    start = numpy_layers(torch_network(tv.FEATURES, hidden, seed, None)[1])
    seeds = np.arange(first_seed, first_seed + deals, dtype=np.int64)
    few, patience = int(card.get("careless_candidates", card["candidates"])), tv.patience_at(card.get("patience", 0), 2)
    table = Rules.preset(rules)
    for against in ("heuristic", "greedy", "random"):
        for name, first in (("start", start), ("model", trained)):
            share, used = _played(first, second, few, against, patience, seeds, card["candidates"], table)
            print(json.dumps({"against": against, "policy": name, "share": round(float(share.mean()), 4),
                              "episodes_first_network_chose": round(float(used.mean()), 3),
                              "share_there": round(float(share[used].mean()), 4),
                              "share_elsewhere": round(float(share[~used].mean()), 4),
                              "blocked": round(float(np.mean(np.abs(share - 0.5) < 1e-9)), 4)}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a turn-value model folder (its first network plays)")
    parser.add_argument("--as-card", action="store_true", help="play the model as its card says (module docstring)")
    parser.add_argument("--careless-candidates", type=int, help="with --as-card: the second network's "
                        "candidates, instead of the card's")
    parser.add_argument("--rules", default="standard", help="the preset to play at 2 players (not --tells)")
    parser.add_argument("--players", type=int, default=2, help="the seats at the table (not --tells)")
    parser.add_argument("--tells", action="store_true", help="what the other seat shows (module docstring)")
    parser.add_argument("--turn-tells", action="store_true", help="whether its clean turns tell random (module docstring)")
    parser.add_argument("--where", action="store_true", help="where the run's curve moves (module docstring)")
    parser.add_argument("--start-hidden", default="64", help="with --where: the start's hidden layers (comma-separated)")
    parser.add_argument("--uniform", action="store_true", help="with --where: a uniform draw at careless tables")
    parser.add_argument("--start-seed", type=int, default=0, help="with --where: the run's seed")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7_000_000_000)
    parser.add_argument("--patience", default="0,6,10,12", help="comma-separated patiences")
    args = parser.parse_args(argv)
    if args.tells:
        return tells(args.deals, args.seed)
    if args.turn_tells:
        return turn_tells(args.deals, args.seed)
    if not args.model:
        parser.error("--model is required (or --tells)")
    if args.where:
        return where(args.model, [int(h) for h in args.start_hidden.split(",")], args.start_seed, args.deals, args.seed,
                     args.uniform, args.rules)
    _, first = tv.load(args.model)
    table = (args.rules, args.players)
    seeds = np.arange(args.seed, args.seed + args.deals, dtype=np.int64)
    for against in ("heuristic", "random"):
        base = shares(ZEROS, against, 0, seeds, False, table)  # a network of zeros: the heuristic's own pick
        for patience in (int(p) for p in args.patience.split(",")):
            s = card_shares(args.model, against, patience, seeds, args.careless_candidates, table) if args.as_card \
                else shares(first, against, patience, seeds, True, table)
            d = s - base
            print(json.dumps({"against": against, "patience": patience, "share": round(float(s.mean()), 4),
                              "heuristic": round(float(base.mean()), 4),
                              "paired_gain": [round(float(d.mean()), 4), round(float(1.96 * d.std() / np.sqrt(len(d))), 4)],
                              "episodes_that_differ": round(float(np.mean(d != 0)), 4)}), flush=True)


if __name__ == "__main__":
    main()
