"""A uniform draw among a turn policy's candidates, listed in another order than the heuristic's
(issue 35, item 3; research/experiments.md, "2026-12-07 (late night): a start below the ceiling, and where
the random leg's blocks come from"). With `research/candidate_order.patch` applied, ``KC_ORDER_W``
sets the weights the turn search ranks its candidates by before the first ``K`` are kept
(``zeros``: every line ties, so the first ``K`` found; ``zeros,card=1``: the cards left in hand
alone); without it, the heuristic's order. No gate; the draw in one seat, every deal from each seat:

    git apply research/candidate_order.patch
    NUMBA_CACHE_DIR=/tmp/nc-zeros KC_ORDER_W=zeros python research/order_probe.py 16 1000

(a numba cache of its own for each order: the weights are compiled in as a constant).
"""

from __future__ import annotations

import sys

import numpy as np
from kc_env.training.turn_ppo import rollouts as R
from kc_env.training.turn_ppo.train import ZEROS

from kc_env.rules import Rules


def main() -> None:
    k, deals = int(sys.argv[1]), int(sys.argv[2])
    seeds = np.arange(deals, dtype=np.int64) + 92000000
    for against in ("heuristic", "greedy", "random"):
        shares = R.episode_shares(Rules.preset("standard"), 2, seeds, (ZEROS, None), k=k, against=against,
                                  how=R.SAMPLE, seed=1).mean(axis=1)
        print(f"k={k} vs {against}: {shares.mean():.3f} ± {1.96 * shares.std() / np.sqrt(len(shares)):.3f}", flush=True)


if __name__ == "__main__":
    main()
