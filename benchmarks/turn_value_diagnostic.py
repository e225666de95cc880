"""The turn-value experiments of docs/experiments.md (2026-12-01), as one script:

    python benchmarks/turn_value_diagnostic.py mc --games 40000 --epsilon 0.25 --epochs 6
    python benchmarks/turn_value_diagnostic.py ranking --seconds 900 --candidates 6 --redeals 12 [--save runs/ranking.npz]
    python benchmarks/turn_value_diagnostic.py fit --data runs/ranking.npz --duel-deals 1000

``mc``: self-play deals (every seat learns, the heuristic's candidates, a random one with
probability ``epsilon``; seeds 10,000,000+), an MLP 256-128 fitted to each deal's worth for the
seat (95% of the turns; the rest held out), then its win share in 1,000 duplicate deals against
the heuristic (seeds 50,000,000+) and ``ranking_check`` on turn starts of 150 heuristic deals
(seeds 60,000,000+, 32 play-outs per candidate).

``ranking``: for ``seconds``, turn starts of heuristic deals (seeds 70,000,000+), each of the
heuristic's ``candidates`` valued by ``redeals`` play-outs on the same re-deals; ``fit_ranking``
(linear, and an MLP of 64) on 80% of the decisions, and on the rest the play-out value of the
network's pick less the heuristic's pick (``--save``: the labelled decisions kept, and added to).

``fit``: the same fit on the decisions ``ranking --save`` kept, then the win share of each fitted
network's agent (``duel``: the best of the heuristic's ``candidates`` turns by the network) in
``duel_deals`` duplicate deals against the heuristic and against random (seeds 80,000,000+).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from kc_env.training import turn_value as tv

from kc_env.agents import turns
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS
from kc_env.agents.playouts import line_values
from kc_env.agents.turn_value import FEATURES, candidate_features
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


def load_rows(path: str | None) -> tuple[list, int]:
    """The labelled decisions kept in ``path`` (``--save``) and the next chunk of seeds."""
    if not path or not Path(path).is_file():
        return [], 0
    with np.load(path) as z:
        x, y, d, chunk = z["x"], z["y"], z["d"], int(z["chunk"])
    starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if len(d) else np.array([], dtype=np.int64)
    ends = np.r_[starts[1:], len(d)]
    return [(x[a:b], y[a:b]) for a, b in zip(starts, ends, strict=True)], chunk


def save_rows(path: str, rows: list, chunk: int) -> None:
    """Keep every labelled decision in ``path`` (numpy arrays, no pickle), whole or not at all."""
    tmp = Path(path).with_suffix(".partial.npz")
    np.savez(tmp, x=np.concatenate([r[0] for r in rows]), y=np.concatenate([r[1] for r in rows]),
             d=np.concatenate([np.full(len(r[1]), i) for i, r in enumerate(rows)]), chunk=chunk)
    tmp.replace(path)


def ranking(args) -> None:
    rules = Rules.preset("standard")
    k, base = args.candidates, 7 * 10**7
    rows, chunk = load_rows(args.save)
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        obs, masks = tv.turn_starts(rules, 2, np.arange(100) + base + chunk * 100, per_deal=4, seed=chunk)
        chunk += 1
        for ob, m in zip(obs, masks, strict=True):
            lines, lengths = np.zeros((k, turns.MAX_DEPTH), np.int64), np.zeros(k, np.int64)
            feats = np.zeros((k, FEATURES), np.float32)
            valid, _, wins = candidate_features(ob.astype(np.float32), m.astype(np.int8), k, lines, lengths, feats)
            if valid < 2 or wins >= 0:
                continue
            v = line_values(ob.astype(np.float32), lines[:valid], lengths[:valid], args.redeals,
                            HEURISTIC_WEIGHTS.copy(), base + len(rows), 1000)
            rows.append((feats[:valid], v.astype(np.float32)))
        if args.save and rows:
            save_rows(args.save, rows, chunk)
    report(rows, k, args.duel_deals)


def fit(args) -> None:
    rows, _ = load_rows(args.data)
    if not rows:
        raise SystemExit(f"{args.data}: no labelled decisions (make them with ranking --save)")
    report(rows, args.candidates, args.duel_deals)


def report(rows: list, k: int, duel_deals: int) -> None:
    """Fit ``fit_ranking`` (linear, and an MLP of 64) on 80% of the decisions; print the play-out
    value of its pick less the heuristic's on the rest, and with ``duel_deals`` its win share in
    duplicate deals against the heuristic and random (``k`` candidates, seeds 80,000,000+)."""
    from kc_env.agents.turn_value import value

    decisions = np.arange(len(rows))
    held = set(np.random.default_rng(0).choice(decisions, size=len(rows) // 5, replace=False).tolist())
    train = [i for i in decisions if i not in held]
    x = np.concatenate([rows[i][0] for i in train])
    y = np.concatenate([rows[i][1] for i in train])
    d = np.concatenate([np.full(len(rows[i][1]), i) for i in train])
    for hidden, steps, decay in (((), 3000, 1e-4), ((64,), 2000, 1e-3)):
        layers = tv.fit_ranking(x, y, d, hidden=hidden, steps=steps, weight_decay=decay)
        ws = tuple(np.ascontiguousarray(w, np.float32) for w, _ in layers)
        bs = tuple(np.ascontiguousarray(b, np.float32) for _, b in layers)
        gain = np.array([rows[i][1][int(np.argmax(value(rows[i][0], ws, bs)))] - rows[i][1][0] for i in sorted(held)])
        best = np.array([rows[i][1].max() - rows[i][1][0] for i in sorted(held)])
        out = {"decisions": len(rows), "hidden": list(hidden), "held_out": len(gain),
               "gain": round(float(gain.mean()), 4), "half_width": round(float(1.96 * gain.std() / np.sqrt(len(gain))), 4),
               "best_candidate_gain": round(float(best.mean()), 4)}
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
    p.add_argument("--save", help="keep the labelled decisions in this .npz and go on from it when it exists")
    p.add_argument("--duel-deals", type=int, default=0)
    p = sub.add_parser("fit")
    p.add_argument("--data", required=True, help="labelled decisions kept by ranking --save")
    p.add_argument("--candidates", type=int, default=6)
    p.add_argument("--duel-deals", type=int, default=1000)
    args = parser.parse_args(argv)
    {"mc": mc, "ranking": ranking, "fit": fit}[args.what](args)


if __name__ == "__main__":
    main()
