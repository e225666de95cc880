"""Soak test: many random deals over every preset and 2 to 6 players, the invariants checked
after every move (kc_env.invariants), illegal probes checked to leave the state unchanged.

    python benchmarks/soak.py --deals 100000

Prints the number of violations (it must be zero) and the engine's moves per second (the
timing excludes the invariant checks). Uses every core; each worker has its own seeds.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import time

from kc_env import GAME_INFO, PRESETS, Rules, engine
from kc_env.invariants import violations

MAX_MOVES = GAME_INFO.default_max_moves
PLAYERS = range(GAME_INFO.min_num_players, GAME_INFO.max_num_players + 1)


def soak_chunk(args: tuple[int, int, bool]) -> dict:
    """Play ``count`` deals starting at deal number ``first``; returns counts and timings."""
    first, count, check = args
    presets = sorted(PRESETS)
    out = {"deals": 0, "moves": 0, "violations": 0, "seconds": 0.0, "out": 0, "blocked": 0,
           "truncated": 0, "examples": []}
    for k in range(first, first + count):
        rules = Rules.preset(presets[k % len(presets)])
        n = PLAYERS[(k // len(presets)) % len(PLAYERS)]
        rng = random.Random(k)
        t0 = time.perf_counter()
        state = engine.new_deal(rules, n, seed=k)
        elapsed = time.perf_counter() - t0
        moves = 0
        while not state.is_over and moves < MAX_MOVES:
            t0 = time.perf_counter()
            legal = engine.legal_moves(state)
            engine.apply(state, legal[rng.randrange(len(legal))])
            elapsed += time.perf_counter() - t0
            moves += 1
            if check:
                bad = violations(state)
                if bad:
                    out["violations"] += len(bad)
                    if len(out["examples"]) < 3:
                        out["examples"].append((rules.to_dict(), n, k, bad))
        out["deals"] += 1
        out["moves"] += moves
        out["seconds"] += elapsed
        key = "truncated" if not state.is_over else "blocked" if state.blocked else "out"
        out[key] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-check", action="store_true", help="time only, no invariant checks")
    args = parser.parse_args()
    chunk = 500
    jobs = [(i, min(chunk, args.deals - i), not args.no_check) for i in range(0, args.deals, chunk)]
    total = {"deals": 0, "moves": 0, "violations": 0, "seconds": 0.0, "out": 0, "blocked": 0,
             "truncated": 0, "examples": []}
    t0 = time.perf_counter()
    with mp.Pool(args.workers) as pool:
        for res in pool.imap_unordered(soak_chunk, jobs):
            for key, v in res.items():
                total[key] = total[key] + v
            print(f"\r{total['deals']:,}/{args.deals:,} deals, {total['violations']} violations",
                  end="", flush=True)
    wall = time.perf_counter() - t0
    print()
    print(f"deals: {total['deals']:,} (out {total['out']:,}, blocked {total['blocked']:,}, "
          f"truncated at {MAX_MOVES} moves {total['truncated']:,})")
    print(f"moves: {total['moves']:,}")
    print(f"violations: {total['violations']}")
    for ex in total["examples"]:
        print("  example:", ex)
    print(f"engine moves per second (one core, legal_moves + apply): {total['moves'] / total['seconds']:,.0f}")
    print(f"wall time: {wall:.1f} s on {args.workers} workers")
    raise SystemExit(1 if total["violations"] else 0)


if __name__ == "__main__":
    main()
