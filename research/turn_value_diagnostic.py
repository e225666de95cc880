"""The turn-value experiments of research/experiments.md (2026-12-01), as one script:

    python research/turn_value_diagnostic.py mc --games 40000 --epsilon 0.25 --epochs 6
    python research/turn_value_diagnostic.py ranking --seconds 900 --candidates 6 --redeals 12 [--against random] [--save runs/ranking.npz]
    python research/turn_value_diagnostic.py fit --data runs/ranking.npz [runs/ranking-random.npz] --duel-deals 1000

``mc``: self-play deals (every seat learns, the heuristic's candidates, a random one with
probability ``epsilon``; seeds 10,000,000+), an MLP 256-128 fitted to each deal's worth for the
seat (95% of the turns; the rest held out), then its win share in 1,000 duplicate deals against
the heuristic (seeds 50,000,000+) and ``ranking_check`` on turn starts of 150 heuristic deals
(seeds 60,000,000+, 32 play-outs per candidate).

``ranking``: for ``seconds``, turn starts of heuristic deals (seeds 70,000,000+), each of the
heuristic's ``candidates`` valued by ``redeals`` play-outs on the same re-deals; ``fit_ranking``
(linear, and an MLP of 64) on 80% of the decisions, and on the rest the play-out value of the
network's pick less the heuristic's pick (``--save``: the labelled decisions kept, and added to).
With ``--against random`` the decisions are the heuristic's turn starts in deals against random
(seeds 71,000,000+), and the play-outs seat random in the other seats too: the labels are the
turns' values against the opponent the position came from.

``fit``: the same fit on the decisions ``ranking --save`` kept (several files: one fit on all,
the gain reported for each), then the win share of each fitted network's agent (``duel``: the
best of the heuristic's ``candidates`` turns by the network) in ``duel_deals`` duplicate deals
against the heuristic and against random (seeds 80,000,000+).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from kc_env.training.turn_value import learn as tv

from kc_env.rules import Rules


def mc(args) -> None:
    rules = Rules.preset("standard")
    xs, ys = [], []
    for at in range(0, args.games, 4096):
        seeds = np.arange(at, min(args.games, at + 4096)) + 10**7
        x, y, _, _ = tv.generate(rules, 2, seeds, np.full(len(seeds), 3), k=8, epsilon=args.epsilon, explore_seed=at)
        xs.append(x)
        ys.append(y)
    x, y = np.concatenate(xs), np.concatenate(ys)
    cut = int(len(x) * 0.95)
    layers = tv.fit(x[:cut], y[:cut], hidden=(256, 128), epochs=args.epochs)
    base = float(-(y[cut:] * np.log(y[:cut].mean()) + (1 - y[cut:]) * np.log(1 - y[:cut].mean())).mean())
    print(json.dumps({"turns": len(x), "held_out_bce": round(tv.bce(layers, x[cut:], y[cut:]), 4),
                      "constant_bce": round(base, 4)}))
    share, half = tv.duel(rules, 2, np.arange(args.duel_deals) + 5 * 10**7, layers)
    print(json.dumps({"against_heuristic": round(share, 4), "half_width": round(half, 4)}))
    obs, masks = tv.turn_starts(rules, 2, np.arange(args.check_deals) + 6 * 10**7, per_deal=2)
    print(json.dumps(tv.ranking_check(layers, obs, masks, redeals=32)))


def ranking(args) -> None:
    rules = Rules.preset("standard")
    rows, chunk = tv.load_labels(args.save)
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        rows += tv.label_chunk(rules, 2, chunk, args.against, k=args.candidates, redeals=args.redeals, first=len(rows))
        chunk += 1
        if args.save and rows:
            tv.save_labels(args.save, rows, chunk)
    report([rows], args.candidates, args.duel_deals)


def fit(args) -> None:
    sets = []
    for path in args.data:
        rows, _ = tv.load_labels(path)
        if not rows:
            raise SystemExit(f"{path}: no labelled decisions (make them with ranking --save)")
        sets.append(rows)
    report(sets, args.candidates, args.duel_deals)


def report(sets: list, k: int, duel_deals: int) -> None:
    """Fit ``fit_ranking_sets`` (linear, and an MLP of 64); print the play-out value of its pick
    less the heuristic's on each set's held-out decisions, and with ``duel_deals`` its win share
    in duplicate deals against the heuristic and random (``k`` candidates, seeds 80,000,000+)."""
    for hidden, steps, decay in (((), 3000, 1e-4), ((64,), 2000, 1e-3)):
        layers, gains = tv.fit_ranking_sets(sets, hidden=hidden, steps=steps, weight_decay=decay)
        out = {"decisions": sum(map(len, sets)), "hidden": list(hidden)}
        out.update({f"set_{n}": g for n, g in enumerate(gains)})
        for against in ("heuristic", "random") if duel_deals else ():
            share, half = tv.duel(Rules.preset("standard"), 2, np.arange(duel_deals) + 8 * 10**7, layers, k=k,
                                  against=against)
            out[f"against_{against}"] = [round(share, 4), round(half, 4)]
        print(json.dumps(out))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("mc")
    p.add_argument("--games", type=int, default=40_000)
    p.add_argument("--epsilon", type=float, default=0.25)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--duel-deals", type=int, default=1000)
    p.add_argument("--check-deals", type=int, default=150)
    p = sub.add_parser("ranking")
    p.add_argument("--seconds", type=float, default=900)
    p.add_argument("--candidates", type=int, default=6)
    p.add_argument("--redeals", type=int, default=12)
    p.add_argument("--against", choices=("heuristic", "random"), default="heuristic",
                   help="the opponent of the deals the decisions come from, and of their play-outs")
    p.add_argument("--save", help="keep the labelled decisions in this .npz and go on from it when it exists")
    p.add_argument("--duel-deals", type=int, default=0)
    p = sub.add_parser("fit")
    p.add_argument("--data", required=True, nargs="+", help="labelled decisions kept by ranking --save")
    p.add_argument("--candidates", type=int, default=6)
    p.add_argument("--duel-deals", type=int, default=1000)
    args = parser.parse_args(argv)
    {"mc": mc, "ranking": ranking, "fit": fit}[args.what](args)


if __name__ == "__main__":
    main()
