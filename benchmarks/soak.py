"""Soak test: many random deals over every preset and 2 to 6 players, the invariants checked
after every move (kc_env.invariants), illegal probes checked to leave the state unchanged.

    python benchmarks/soak.py --deals 100000
    python benchmarks/soak.py --deals 0 --vector-steps 20000     # the vector env, adversarial opponents

Prints the number of violations (it must be zero) and the engine's moves per second (the
timing excludes the invariant checks). Uses every core; each worker has its own seeds.

``--vector-steps`` also plays ``KingsCornerVecEnv`` against adversarial opponents: each picks a
legal action, or now and then an illegal one, -1, a float, a string, a bool or NaN; the learner
does the same. Every game's invariants are checked after every step: no break, no crash, and
every bad opponent action is refused with ``IllegalMove``.
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


class Adversary:
    """An outside opponent that mostly plays a legal action and sometimes anything at all."""

    BAD = (0, -1, 497, 10**20, 2.5, float("nan"), "496", True, None)

    def __init__(self, seed: int, bad_share: float = 0.1) -> None:
        self.rng, self.bad_share = random.Random(seed), bad_share

    def act_batch(self, obs, masks):
        import numpy as np

        out = np.empty(len(masks), dtype=object)
        for i, row in enumerate(masks):
            legal = np.flatnonzero(row)
            out[i] = self.rng.choice(self.BAD) if self.rng.random() < self.bad_share else int(self.rng.choice(legal))
        return out


def vector_soak(steps: int, seed: int = 0, games: int = 16) -> dict:
    """Play ``steps`` steps of the vector env (3 players: an adversary and random) with an
    adversarial learner; the invariants of every game checked after every step."""
    import numpy as np

    from kc_env.vector import KingsCornerVecEnv

    rng = random.Random(seed)
    out = {"steps": 0, "violations": 0, "refused": 0, "crashes": 0, "examples": []}
    env = KingsCornerVecEnv(games, num_players=3, opponents=[Adversary(seed), "random"], seed=seed)
    try:
        env.reset()
    except engine.IllegalMove:
        out["refused"] += 1
    for _ in range(steps):
        acts = [int(rng.choice(np.flatnonzero(m))) if rng.random() > 0.05 else rng.choice(Adversary.BAD)
                for m in env.action_masks()]
        try:
            env.step(np.array(acts, dtype=object))
        except engine.IllegalMove:
            out["refused"] += 1
        except Exception as exc:  # noqa: BLE001 - a crash is what the soak counts
            out["crashes"] += 1
            out["examples"].append(f"crash: {type(exc).__name__}: {exc}")
        out["steps"] += 1
        for b in range(games):
            broken = violations(env.state(b))
            if broken:
                out["violations"] += 1
                if len(out["examples"]) < 5:
                    out["examples"].append(f"step {out['steps']}, game {b}: {broken[0]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-check", action="store_true", help="time only, no invariant checks")
    parser.add_argument("--vector-steps", type=int, default=0, help="also soak the vector env this many steps")
    args = parser.parse_args()
    if args.vector_steps:
        res = vector_soak(args.vector_steps)
        print(f"vector env: {res['steps']:,} steps, {res['refused']:,} refusals, {res['violations']} violations, "
              f"{res['crashes']} crashes")
        for ex in res["examples"]:
            print("  example:", ex)
        if res["violations"] or res["crashes"]:
            raise SystemExit(1)
        if not args.deals:
            return
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
