"""A turn-value model at every 2-player preset (research/experiments.md, 2026-12-06; issue 35's first bar, its other-preset part): the
compiled duel of the model as its card plays (``gate_diagnostic.card_shares``: the draw at careless
tables sampled), every deal from both seats, against the heuristic and against random, beside the
heuristic against random on the same deals (± the 95% half-width over deals):

    python research/presets_duel.py models/turn-ppo-ensemble-2p --deals 2000 --seed 8300000000
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from gate_diagnostic import card_shares
from kc_env.training.turn_value.shipped import duel

from kc_env.agents.turn_value import load as load_model
from kc_env.rules import Rules

PRESETS = ("standard", "bicycle", "pagat", "printable", "wikihow", "online", "german")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--presets", default=",".join(PRESETS[1:]))
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args(argv)
    patience = load_model(args.model)[0].get("patience", 0)
    seeds = np.arange(args.deals, dtype=np.int64) + args.seed
    for preset in args.presets.split(","):
        started = time.time()
        row = {"preset": preset, "players": args.players}
        for against in ("heuristic", "random"):
            shares = card_shares(args.model, against, patience, seeds, table=(preset, args.players))
            row[f"vs_{against}"] = [round(float(shares.mean()), 4), round(1.96 * float(shares.std()) / len(shares) ** 0.5, 4)]
        share, half, _ = duel(None, Rules.preset(preset), args.players, seeds, against="random")
        row["heuristic_vs_random"] = [round(share, 4), round(half, 4)]
        row["seconds"] = round(time.time() - started)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
