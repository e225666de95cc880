"""The heuristic against the heuristic of an earlier revision, on the same deals: does a change
to it (e.g. its search moving onto the vector kernel) play otherwise, and is it weaker?

    python benchmarks/heuristic_duel.py --old-rev c276f43 --deals 10000

Each deal is played twice, the new heuristic in each seat in turn (2 players, seat-rotated for
more), on the rules given (``--rules``, a preset with overrides). At every decision both
heuristics are asked; the one in the seat plays. Prints, as JSON: the new heuristic's win share
with a 95% interval (0.5 is "equally strong"), the decisions, and how many of them the two
answered differently (with a few of those positions as text, ``--show``).

The old heuristic is read from git (``git show REV:kc_env/agents/policies.py``, where the
heuristic lived before it searched on the kernel) into a temporary folder and compiled there.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit, prange

from kc_env import engine
from kc_env.agents.batch import rule_based
from kc_env.commands.common import parse_rules
from kc_env.vector import VecGame

ROOT = Path(__file__).resolve().parent.parent


def old_heuristic(rev: str):
    """The batched heuristic of revision ``rev``."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:kc_env/agents/policies.py"],
                            capture_output=True, text=True, check=True).stdout
    source = source.replace("from ..observation import", "from kc_env.observation import")
    folder = Path(tempfile.mkdtemp(prefix="kc-old-heuristic-"))
    path = folder / f"old_policies_{rev}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    act = module.heuristic_action

    @njit(parallel=True)
    def loop(obs, masks, out):
        for i in prange(obs.shape[0]):
            out[i] = act(obs[i], masks[i])

    def batch(obs, masks):
        out = np.zeros(len(obs), dtype=np.int64)
        loop(np.ascontiguousarray(obs, dtype=np.float32), np.ascontiguousarray(masks, dtype=np.int8), out)
        return out

    return batch


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-rev", default="c276f43")
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--show", type=int, default=3, help="positions played otherwise to print")
    args = parser.parse_args(argv)
    rules = parse_rules(args.rules)
    old, new = old_heuristic(args.old_rev), rule_based("heuristic")
    n = args.players
    games = [(d, seat) for d in range(args.deals) for seat in range(n)]  # seat: where the new one sits
    shares, decisions, differ, shown = [], 0, 0, []
    start = time.perf_counter()
    for at in range(0, len(games), args.batch):
        chunk = games[at:at + args.batch]
        g = VecGame(len(chunk))
        idx = np.arange(len(chunk))
        g.deal(idx, rules, n, seeds=[args.seed + d for d, _ in chunk], dealers=[d % n for d, _ in chunk],
               max_moves=1000)
        live = idx
        while live.size:
            seats = g.to_act(live)
            obs, masks = g.observe(live, seats), g.legal_masks(live)
            a_old, a_new = old(obs, masks), new(obs, masks)
            choice = masks.sum(axis=1) > 1
            decisions += int(choice.sum())
            other = np.flatnonzero(a_old != a_new)
            differ += other.size
            for i in other[:max(0, args.show - len(shown))].tolist():
                shown.append({"position": engine.to_text(g.to_state(int(live[i]))), "old": int(a_old[i]),
                              "new": int(a_new[i])})
            mine = np.array([chunk[b][1] for b in live]) == seats
            g.step(live, np.where(mine, a_new, a_old))
            over = g.over(live)
            for b in live[over].tolist():
                winner = g.winners(b)
                shares.append(1.0 / n if winner < 0 else float(winner == chunk[b][1]))
            live = live[~over]
    s = np.array(shares)
    half = 1.96 * s.std() / np.sqrt(len(s))
    result = {"rules": args.rules, "old_rev": args.old_rev, "games": len(s), "new_win_share": round(float(s.mean()), 4),
              "interval": [round(float(s.mean() - half), 4), round(float(s.mean() + half), 4)],
              "decisions": decisions, "played_otherwise": differ, "seconds": round(time.perf_counter() - start)}
    print(json.dumps(result))
    for item in shown:
        print(f"old {item['old']} new {item['new']}\n{item['position']}")
    return result


if __name__ == "__main__":
    main()
