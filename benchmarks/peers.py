"""kc_env beside peer game environments: the same uniformly-random-legal loop, in one run.

    python benchmarks/peers.py            # every peer that is installed
    python benchmarks/peers.py --json

Rows (each the median of ``--runs`` timed runs of ``--seconds``, with min and max). The runs are
interleaved: round ``r`` times every row once, so that on a shared machine each row meets the
same background load and the ratios stay steady while the absolute figures move with the load:

- kc_env: the reference ``engine`` (moves/s), the ``compiled`` kernel (moves/s, no observations),
  the PettingZoo ``aec`` env (``kings_corner_v0.env()``) with ``last()`` every step, the
  Gymnasium env ``single`` (``KingsCorner-v0``, random opponents inside ``step``), and the
  vector env at batch 256 (``vector_256``, observations and masks included); the loops of
  ``kc bench``.
- PettingZoo classic (``pip install pettingzoo[classic] pygame rlcard shimmy open_spiel``):
  connect_four_v3, leduc_holdem_v4, texas_holdem_v4, texas_holdem_no_limit_v6, hanabi_v5, in
  exactly ``kc bench``'s ``aec_loop`` (``env()``, ``last()``, a random legal action of the mask).
- RLCard (``pip install rlcard``): no-limit-holdem, leduc-holdem, uno, gin-rummy through
  ``rlcard.make``; ``env.step`` builds the state (observation and legal actions) every step.
- OpenSpiel (``pip install open_spiel``): C++ games driven from Python through ``pyspiel``;
  a random legal action per decision (chance outcomes sampled, not counted), once without
  observations and once with ``observation_tensor`` of the player to act every step.

Each peer prints its ratio to kc_env's AEC env and to kc_env's vector env. None of these
packages is a dependency of kc_env; a missing one is skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import warnings
from collections.abc import Callable

from kc_env import Rules
from kc_env.commands.bench import aec_loop, compiled_loop, engine_loop, measure, single_loop, vector_loop

PETTINGZOO = ("connect_four_v3", "leduc_holdem_v4", "texas_holdem_v4", "texas_holdem_no_limit_v6", "hanabi_v5")
RLCARD = ("no-limit-holdem", "leduc-holdem", "uno", "gin-rummy")
OPENSPIEL = ("crazy_eights", "gin_rummy", "hearts", "hanabi", "leduc_poker")


def pettingzoo_loop(name: str) -> Callable[[float], int]:
    import importlib

    env = importlib.import_module(f"pettingzoo.classic.{name}").env()
    return lambda seconds: aec_loop(env, seconds)


def rlcard_loop(name: str) -> Callable[[float], int]:
    import rlcard

    env = rlcard.make(name, config={"seed": 0})
    rng = random.Random(0)

    def loop(seconds: float) -> int:
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[rng.randrange(len(legal))])
                steps += 1
        return steps

    return loop


def openspiel_loop(name: str, observe: bool) -> Callable[[float], int]:
    import pyspiel

    game = pyspiel.load_game(name)
    rng = random.Random(0)

    def loop(seconds: float) -> int:
        steps = 0
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probs)[0])
                    continue
                if observe:
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps

    return loop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", help="kc_env rules preset (default standard)")
    parser.add_argument("-n", "--players", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    rules, n = Rules.preset(args.rules), args.players

    rows: list[tuple[str, str, Callable[[], Callable[[float], int]]]] = [
        ("kc_env engine", "moves/s", lambda: lambda s: engine_loop(rules, n, s)),
        ("kc_env compiled", "moves/s", lambda: lambda s: compiled_loop(rules, n, s)),
        ("kc_env aec", "steps/s", lambda: lambda s: aec_loop(_kc_aec(rules, n), s)),
        ("kc_env single", "steps/s", lambda: lambda s: single_loop(rules, n, s)),
        ("kc_env vector_256", "steps/s", lambda: lambda s: vector_loop(rules, n, s, 0, 256)),
    ]
    rows += [(f"pettingzoo {m}", "steps/s", lambda m=m: pettingzoo_loop(m)) for m in PETTINGZOO]
    rows += [(f"rlcard {m}", "steps/s", lambda m=m: rlcard_loop(m)) for m in RLCARD]
    for m in OPENSPIEL:
        rows.append((f"open_spiel {m}", "steps/s", lambda m=m: openspiel_loop(m, observe=False)))
        rows.append((f"open_spiel {m} +obs", "steps/s", lambda m=m: openspiel_loop(m, observe=True)))

    loops, notes = {}, []
    for name, unit, make in rows:
        try:
            loop = make()
            measure(loop, 1, min(0.2, args.seconds))  # it runs (and warms up) before the rounds
            loops[name] = (unit, loop)
        except Exception as exc:  # an optional peer that is missing or broken is a note, not a failure
            notes.append(f"{name}: skipped ({type(exc).__name__}: {str(exc).splitlines()[0][:100]})")
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for round_ in range(args.runs):
        for name, (_, loop) in loops.items():
            rates[name].append(_rate(loop, args.seconds))
        print(f"round {round_ + 1} of {args.runs} measured", file=sys.stderr, flush=True)
    results = {name: {"unit": unit, "median": statistics.median(rates[name]), "min": min(rates[name]),
                      "max": max(rates[name]), "runs": rates[name]} for name, (unit, _) in loops.items()}
    aec = results.get("kc_env aec", {}).get("median")
    vec = results.get("kc_env vector_256", {}).get("median")
    for r in results.values():
        r["kc_aec_ratio"] = aec / r["median"] if aec else None
        r["kc_vector_ratio"] = vec / r["median"] if vec else None
    if args.json:
        print(json.dumps({"rules": args.rules, "players": n, "runs": args.runs, "seconds": args.seconds,
                          "results": results, "notes": notes}, indent=2))
        return 0
    print(f"kc_env ({args.rules}, {n} players) beside peers: random legal actions, median of "
          f"{args.runs} runs of {args.seconds:g} s")
    print(f"  {'environment':<34} {'median':>11} {'min':>11} {'max':>11}  {'unit':<8} {'kc aec/it':>9} {'kc vec/it':>9}")
    for name, r in results.items():
        ra = f"{r['kc_aec_ratio']:.2f}" if r["kc_aec_ratio"] else "-"
        rv = f"{r['kc_vector_ratio']:.1f}" if r["kc_vector_ratio"] else "-"
        print(f"  {name:<34} {r['median']:>11,.0f} {r['min']:>11,.0f} {r['max']:>11,.0f}  {r['unit']:<8} {ra:>9} {rv:>9}")
    for note in notes:
        print(f"  note: {note}")
    return 0


def _rate(loop: Callable[[float], int], seconds: float) -> float:
    """One timed run of ``loop`` (``kc bench``'s ``measure`` without its warm-up)."""
    start = time.perf_counter()
    count = loop(seconds)
    return count / (time.perf_counter() - start)


def _kc_aec(rules, n):
    from kc_env import kings_corner_v0

    return kings_corner_v0.env(rules=rules, num_players=n)


if __name__ == "__main__":
    sys.exit(main())
