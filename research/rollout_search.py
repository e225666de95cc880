"""How much one step of rollout search gains over the heuristic: the bound on what
``pretrain.method: rollouts`` (training/improve.py) can teach a network.

    python research/rollout_search.py --deals 200 --redeals 16 --margin 0.05

The searcher plays one seat against ``heuristic`` in the others, each deal twice (once in each
seat, 2 players; seat-rotated for more), on the standard rules. At every decision with a
choice it values each legal move as ``rollouts.move_values`` does for the labels: the move, then
every seat played by the heuristic to the end, averaged over ``--redeals`` re-deals of the cards
the seat cannot see (the same re-deals for every move). It plays the best move where that
beats the heuristic's own move by more than ``--margin`` of a deal, else the heuristic's move.
With ``--redeals 0`` it plays out the true deal instead (it then sees every card: an upper bound,
not a fair player). Prints the win share with a 95% interval (normal approximation), the share
of decisions where it played otherwise than the heuristic, and the time taken.

It is slow by design (every decision plays out redeals x legal moves deals): about 25 minutes
for 200 deals with 16 re-deals on 2 cores. It is a measurement, not an agent spec.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from kc_env.training.sb3.rollouts import move_values

from kc_env.agents.batch import rule_based
from kc_env.vector import VecGame


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--redeals", type=int, default=16)
    parser.add_argument("--margin", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=64, help="games played at once")
    parser.add_argument("--seed", type=int, default=10_000)
    args = parser.parse_args(argv)
    heuristic = rule_based("heuristic")
    n = args.players
    todo = [(d, seat) for d in range(args.deals) for seat in range(n)]
    games, scratch = VecGame(args.batch), VecGame(args.batch * 8 * max(args.redeals, 1))
    slot: list[tuple[int, int] | None] = [None] * args.batch
    shares: list[float] = []
    decisions = deviations = 0
    start = time.perf_counter()

    def deal(b: int) -> None:
        slot[b] = todo.pop(0) if todo else None
        if slot[b] is not None:
            d, _ = slot[b]
            games.deal([b], "standard", n, seeds=[args.seed + d], dealers=[d % n])

    for b in range(args.batch):
        deal(b)
    while any(s is not None for s in slot):
        live = np.array([b for b in range(args.batch) if slot[b] is not None], dtype=np.int64)
        masks = games.legal_masks(live)
        seats = games.to_act(live)
        moves = heuristic(games.observe(live, seats), masks)
        mine = (np.array([slot[b][1] for b in live]) == seats) & (masks.sum(axis=1) > 1)
        at = np.flatnonzero(mine)
        if at.size:
            rows, acts = np.nonzero(masks[at])
            values = np.full((at.size, masks.shape[1]), -np.inf)
            keys = (decisions + rows).astype(np.int64)
            values[rows, acts] = move_values(games, live[at[rows]], acts, "heuristic", args.redeals, keys, scratch)
            best = values.argmax(axis=1)
            own = values[np.arange(at.size), moves[at]]
            better = values[np.arange(at.size), best] > own + args.margin
            moves[at[better]] = best[better]
            decisions += at.size
            deviations += int(better.sum())
        games.step(live, moves)
        games.end_cut_off(live)
        for b in live.tolist():
            if games.over(b):
                winner = games.winners(b)
                shares.append(1.0 / n if winner < 0 else float(winner == slot[b][1]))
                deal(b)
    s = np.array(shares)
    half = 1.96 * s.std() / np.sqrt(len(s))
    result = {"games": len(s), "redeals": args.redeals, "margin": args.margin, "win_share": round(float(s.mean()), 4),
              "interval": [round(float(s.mean() - half), 4), round(float(s.mean() + half), 4)],
              "deviation_share": round(deviations / max(decisions, 1), 4), "decisions": decisions,
              "seconds": round(time.perf_counter() - start)}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
