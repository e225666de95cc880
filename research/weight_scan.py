"""What changing the heuristic's evaluation weights does against the heuristic and against random.

    python research/weight_scan.py --deals 3000 --seed 31 fit=1.5 fit=1.5,card=0.9

Each argument after the options is a candidate: weights scaled by a factor, ``name=factor``, or
set to a value, ``name:=value``, joined by commas (names of ``WEIGHT_NAMES``; a weight
left out keeps its shipped value). The shipped weights are always the first row. Every
candidate plays the same ``--deals`` deals from each seat (2 players, standard rules unless
``--rules``) against each opponent of ``--against`` (``heuristic``: the shipped weights;
``random``; ``greedy``), with the same random opponent's moves for every candidate
(``kc_env.training.tune.seat_shares``). Prints each candidate's win share (a blocked deal counts
1/players) and its difference from the shipped weights on the same games, with a 95% interval
(normal approximation over the games).

This is how ``network.heuristic_weights`` of ``configs/ppo-standard-2p.yaml`` was chosen
(docs/agents.md, "Keeping a safe place while the opponent is close to going out").
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from kc_env.training.sb3.tune import AGENT_ROWS, interval, seat_shares

from kc_env.agents.heuristic import weights as heuristic_weights


def candidate(spec: str) -> np.ndarray:
    """``name=factor,name:=value``: the shipped weights with those scaled (``=``) or set (``:=``,
    e.g. for ``fit_close``, which the shipped weights leave at 0)."""
    weights = heuristic_weights.HEURISTIC_WEIGHTS.copy()
    for part in spec.split(","):
        name, _, number = part.partition("=")
        setting = name.endswith(":")
        name = name.removesuffix(":")
        if name not in heuristic_weights.WEIGHT_NAMES:
            raise SystemExit(f"weight_scan: unknown weight {name!r} in {spec!r} "
                             f"(known: {', '.join(heuristic_weights.WEIGHT_NAMES)})")
        try:
            value = float(number)
        except ValueError:
            raise SystemExit(f"weight_scan: {part!r} in {spec!r} is not name=factor or name:=value") from None
        i = heuristic_weights.WEIGHT_NAMES.index(name)
        weights[i] = value if setting else weights[i] * value
    return weights


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0, help="draws the deals (and random's moves)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--against", default="heuristic,random", help="comma-separated: heuristic, greedy, random")
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("candidates", nargs="*", help="name=factor[,name=factor...]")
    args = parser.parse_args(argv)
    against = args.against.split(",")
    unknown = [a for a in against if a not in AGENT_ROWS]
    if unknown:
        raise SystemExit(f"weight_scan: unknown opponent {unknown[0]!r} (known: {', '.join(AGENT_ROWS)})")
    names = ["shipped", *args.candidates]
    table = np.array([heuristic_weights.HEURISTIC_WEIGHTS, *(candidate(c) for c in args.candidates)])
    seeds = np.random.default_rng(args.seed).integers(0, 2**62, size=args.deals)
    results: dict = {"deals": args.deals, "seed": args.seed, "players": args.players, "rules": args.rules, "rows": {}}
    start = time.time()
    for opponent in against:
        who = np.full((args.deals, args.players, args.players), AGENT_ROWS[opponent], dtype=np.int64)
        shares = seat_shares(table, args.rules, args.players, seeds, who, seed=args.seed).reshape(len(table), -1)
        for name, row in zip(names, shares, strict=True):
            diff = row - shares[0]
            results["rows"].setdefault(name, {})[opponent] = {
                "win_share": float(row.mean()), "difference": float(diff.mean()),
                "difference_interval": list(interval(diff))}
    results["seconds"] = round(time.time() - start, 1)
    width = max(len(n) for n in names)
    print(f"{'weights':{width}}  " + "  ".join(f"{'vs ' + o:>10} {'difference':>10} {'95% interval':>19}" for o in against))
    for name in names:
        cells = []
        for o in against:
            r = results["rows"][name][o]
            lo, hi = r["difference_interval"]
            cells.append(f"{r['win_share']:10.4f} {r['difference']:+10.4f} [{lo:+.4f}, {hi:+.4f}]")
        print(f"{name:{width}}  " + "  ".join(cells))
    print(f"{args.deals} deals from each of {args.players} seats, {results['seconds']} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == "__main__":
    main()
