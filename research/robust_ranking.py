"""A ranking of turns fitted to what a turn gains against the heuristic *and* against random
(research/experiments.md, 2026-12-02 (later), "a ranking fitted to the smaller of its two gains"):

    python research/robust_ranking.py label --against heuristic --seconds 2400 --save runs/robust/labels-heuristic.npz
    python research/robust_ranking.py label --against random --seconds 2400 --save runs/robust/labels-random.npz
    python research/robust_ranking.py fit --data runs/robust/labels-heuristic.npz runs/robust/labels-random.npz --out runs/robust/model

``label``: turn starts of deals against ``--against`` (``label_chunk``), each decision's
candidate turns played out on the same re-deals twice, once with the heuristic in the other seat
and once with random (``others``): two values a candidate. Chunks are added to ``--save`` until
``--seconds`` have passed; run it again to add more.

``fit``: within each decision, a candidate's target is the smaller of its two gains over the
heuristic's own turn (the first candidate), one against each opponent, so the ranking prefers a
turn only where it gains against both; ``fit_ranking_sets`` (linear) on every decision of every
``--data`` file, 20% held out. Prints the held-out gain of its pick (and of the rankings of the
model in ``--careless-from``) against each opponent, then writes a gated turn-value model: this
ranking for the turns in which the other seat has shown nothing careless, and ``--careless-from``'s
ranking against random once it has, with its patience (``turn_value.careless``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kc_env.training.turn_value import learn as tv

from kc_env.agents.turn_value import load, load_careless, save

OTHERS = ("heuristic", "random")
"""The play-outs' opponents, a column of values each."""


def label(args) -> None:
    from kc_env.rules import Rules

    rows, chunks = tv.load_labels(args.save)
    Path(args.save).parent.mkdir(parents=True, exist_ok=True)
    end = time.perf_counter() + args.seconds
    while time.perf_counter() < end:
        rows += tv.label_chunk(Rules.preset("standard"), 2, chunks, args.against, k=6, redeals=args.redeals,
                               first=len(rows), seed=args.seed, others=OTHERS)
        chunks += 1
        tv.save_labels(args.save, rows, chunks)
        print(json.dumps({"against": args.against, "chunks": chunks, "decisions": len(rows)}), flush=True)


def robust(rows):
    """Each decision's candidates valued by the smallest of their gains over the first, one gain
    for each opponent's column."""
    return [(x, (y - y[0]).min(axis=1)) for x, y in rows]


def fit(args) -> None:
    sets = [tv.load_labels(path)[0] for path in args.data]
    layers, _ = tv.fit_ranking_sets([robust(rows) for rows in sets], hidden=(), steps=3000, weight_decay=1e-4,
                                    log=lambda _: None)
    card, against_heuristic = load(args.careless_from)
    against_random = load_careless(args.careless_from, card)
    rankings = {"robust": layers, "shipped against heuristic": against_heuristic, "shipped against random": against_random}
    for path, rows in zip(args.data, sets, strict=True):
        held = tv.held_out(len(rows))
        for name, net in rankings.items():
            out = {"ranking": name, "decisions_of": path, "held_out": len(held)}
            for column, other in enumerate(OTHERS):
                gain = tv.pick_gains(net, [(x, y[:, column]) for x, y in rows], held)
                out[f"gain_against_{other}"] = [gain["gain"], gain["half_width"]]
            print(json.dumps(out), flush=True)
    save(args.out, layers, {
        "candidates": card["candidates"], "num_players": 2, "rules": card["rules"],
        "trained": {"method": "ranking", "target": "the smaller gain against heuristic and random",
                    "decisions": [len(rows) for rows in sets], "careless_from": str(args.careless_from),
                    "command": "python research/robust_ranking.py fit --data " + " ".join(args.data)
                    + f" --careless-from {args.careless_from} --out {args.out}"}},
        careless_layers=against_random, patience=card["patience"])
    print(json.dumps({"model": str(args.out), "decisions": sum(map(len, sets))}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p = sub.add_parser("label")
    p.add_argument("--against", choices=OTHERS, required=True)
    p.add_argument("--seconds", type=float, default=2400)
    p.add_argument("--redeals", type=int, default=12)
    p.add_argument("--seed", type=int, default=3, help="the label seeds' block (training's default is 0)")
    p.add_argument("--save", required=True)
    p = sub.add_parser("fit")
    p.add_argument("--data", nargs="+", required=True)
    p.add_argument("--careless-from", default="models/turn-ranking-2p")
    p.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    {"label": label, "fit": fit}[args.what](args)


if __name__ == "__main__":
    main()
