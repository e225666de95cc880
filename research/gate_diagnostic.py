"""A turn policy behind the heuristic gate, over the gate's patience (research/experiments.md,
2026-12-04 (evening), "turn-PPO behind the heuristic gate"):

    python research/gate_diagnostic.py --model runs/tppo-7/model --deals 2000 --seed 7000000000 --patience 0,8,10,12

Plays the model's first network in the compiled duel (``training/turn_ppo/rollouts.duel``'s deals:
each deal once from each seat, the policy's best candidate) with the heuristic's own turn for its
first ``patience`` clean turns and for the rest of a deal once the other seat has been careless
(``gate: heuristic``), against the heuristic and against random, and prints each share with its
gain over the heuristic on the same episodes (paired) and the share of episodes that differ.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from kc_env.agents import turn_value as tv
from kc_env.agents.playouts import OTHERS
from kc_env.rules import Rules
from kc_env.training.turn_ppo.rollouts import generate
from kc_env.training.turn_ppo.train import HEURISTIC_PICK


def shares(first, against: str, patience: int, seeds: np.ndarray, gated: bool) -> np.ndarray:
    """The learner's share of each episode (every deal from each seat) against ``against``."""
    episodes, learner = np.repeat(seeds, 2), np.tile(np.arange(2), len(seeds))
    out = generate(Rules.preset("standard"), 2, episodes, 1 << learner, np.full(len(episodes), OTHERS.index(against)),
                   (first, HEURISTIC_PICK if gated else None), k=6, greedy=True, patience=patience,
                   careless_heuristic=gated)["shares"]
    return out[np.arange(len(episodes)), learner]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a turn-value model folder (its first network plays)")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7_000_000_000)
    parser.add_argument("--patience", default="0,6,10,12", help="comma-separated patiences")
    args = parser.parse_args(argv)
    _, first = tv.load(args.model)
    seeds = np.arange(args.seed, args.seed + args.deals, dtype=np.int64)
    for against in ("heuristic", "random"):
        base = shares(HEURISTIC_PICK, against, 0, seeds, False)  # a network of zeros: the heuristic's own pick
        for patience in (int(p) for p in args.patience.split(",")):
            s = shares(first, against, patience, seeds, True)
            d = s - base
            print(json.dumps({"against": against, "patience": patience, "share": round(float(s.mean()), 4),
                              "heuristic": round(float(base.mean()), 4),
                              "paired_gain": [round(float(d.mean()), 4), round(float(1.96 * d.std() / np.sqrt(len(d))), 4)],
                              "episodes_that_differ": round(float(np.mean(d != 0)), 4)}), flush=True)


if __name__ == "__main__":
    main()
