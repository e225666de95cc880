"""``kc bench``: throughput of every layer, each the median of several timed runs (min and max).

Every benchmark but ``heuristic``, ``batched_*`` and ``search`` plays uniformly random legal actions and builds
the observation and mask at every step where the layer does (the engine rows build none):

| name | what is timed | unit |
|---|---|---|
| ``engine`` | reference engine: ``legal_moves`` + ``apply`` (which validates), new deals as needed | moves/s |
| ``compiled`` | the vector env's compiled kernel, every seat random, 256 games, no observations | moves/s |
| ``aec`` | ``kings_corner_v0.env()`` with ``last()`` every step (observation + mask) | steps/s |
| ``single`` | ``KingsCorner-v0`` (random opponents inside ``step``) | learner steps/s |
| ``vector_B`` | ``KingsCornerVecEnv(B)``, random opponents, observations + masks | learner steps/s |
| ``heuristic`` | the ``heuristic`` agent's ``act`` at every decision, itself in every seat (engine, observation, mask untimed) | decisions/s |
| ``batched_heuristic`` | the compiled heuristic as the vector env's opponent: ``LearnerGames(256)``, the heuristic in every other seat, random learner actions; counts the opponent decisions over whole ``step`` calls (the learner's moves, the opponents' turns and the next deals, one compiled call on all cores) | decisions/s |
| ``batched_greedy`` | the same with greedy as the opponent | decisions/s |
| ``search`` | the ``search`` agent's ``act`` at its decisions (seat 0, the heuristic in the other seats; plans followed and single-candidate decisions included) | ms/decision |
| ``ppo_single`` | sb3-contrib ``MaskablePPO.collect_rollouts`` on ``KingsCorner-v0`` in a ``DummyVecEnv`` | frames/s |
| ``ppo_vector`` | the same policy network (same weights) collecting on ``KingsCornerVecEnv`` | frames/s |

Figures depend on the machine and on whatever else runs on it: compare rows of one run.
``--profile NAME`` runs one benchmark under cProfile and prints where its time goes.
``--json`` prints the same results as JSON. The vector rows need numba, the PPO rows
stable-baselines3 and sb3-contrib; a row whose dependency is missing is skipped with a note.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from .common import UserError, add_rules_argument

HELP = ("throughput of the engine, the envs, the vector env at batch 1..1024, the heuristic (alone and batched "
        "as the vector env's opponent), the search agent and PPO rollouts")
NAMES = ("engine", "compiled", "aec", "single", "vector", "heuristic", "batched", "search", "ppo")
UNITS = {"engine": "moves/s", "compiled": "moves/s", "aec": "steps/s", "single": "steps/s", "vector": "steps/s",
         "heuristic": "decisions/s", "batched": "decisions/s", "search": "ms/decision", "ppo": "frames/s"}
BATCHED = ("heuristic", "greedy")
"""The rule-based agents with a batched compiled form that the ``batched_*`` rows time."""
BATCHED_GAMES = 256


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules_argument(parser)
    parser.add_argument("-n", "--players", type=int, default=2, help="2 to 6 (default 2)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per benchmark (default 5)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each timed run (default 1)")
    parser.add_argument("--batches", default="1,4,16,64,256,1024", help="vector env batch sizes")
    parser.add_argument("--only", default=",".join(NAMES), help=f"comma-separated subset of {', '.join(NAMES)}")
    parser.add_argument("--ppo-envs", type=int, default=256, help="vector env size for the PPO rollouts")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch threads for the PPO rows (default 1: on a small shared machine more "
                             "threads than free cores make torch's small ops many times slower)")
    parser.add_argument("--quick", action="store_true", help="3 runs of 0.3 s (a smoke test, noisy)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the deals played (default 0)")
    parser.add_argument("--search", default="search", metavar="SPEC",
                        help="the search agent the search benchmark times (default search; e.g. "
                             "search:blueprint=turn-ranking-2p,margin=0.05)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--profile", choices=["engine", "aec", "single", "vector"],
                        help="run one benchmark under cProfile for --seconds and print the top functions")


# -- the random-legal loops (also used by benchmarks/peers.py) --------------------------------

def pick(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal action of a 0/1 mask."""
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(len(legal))])


def aec_loop(env: Any, seconds: float, seed: int = 0) -> int:
    """PettingZoo's documented loop for ``seconds``: ``last()`` every step, a random legal
    action from the observation's ``action_mask``; returns the number of ``step`` calls."""
    rng = random.Random(seed)
    steps, episode = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else pick(obs["action_mask"], rng))
            steps += 1
    return steps


def engine_loop(rules, n: int, seconds: float, seed: int = 0) -> int:
    """Reference engine moves: ``legal_moves`` then ``apply`` of a random one, deal after deal."""
    from .. import engine

    rng = random.Random(seed)
    moves, deal = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        state = engine.new_deal(rules, n, seed=seed + deal, dealer=deal % n)
        deal += 1
        while not state.is_over and state.move_count < 1000:
            legal = engine.legal_moves(state)
            engine.apply(state, legal[rng.randrange(len(legal))])
            moves += 1
    return moves


def compiled_loop(rules, n: int, seconds: float, seed: int = 0, batch: int = 256) -> int:
    """The kernel alone: 256 deals at a time, every seat random, no observations."""
    from ..vector import VecGame

    game = VecGame(batch)
    idx = list(range(batch))
    moves, round_ = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        seeds = [seed + round_ * batch + i for i in idx]
        game.deal(idx, rules, n, seeds, [s % n for s in seeds])
        moves += game.play_random(idx, seed + round_)
        round_ += 1
    return moves


def single_loop(rules, n: int, seconds: float, seed: int = 0) -> int:
    """``KingsCorner-v0`` with random opponents: a random legal learner action per step."""
    from ..gym_env import KingsCornerEnv

    env = KingsCornerEnv(rules=rules, num_players=n)
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    steps, episode = 0, 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        _, _, terminated, truncated, info = env.step(pick(info["action_mask"], rng))
        steps += 1
        if terminated or truncated:
            episode += 1
            _, info = env.reset(seed=seed + episode)
    return steps


def vector_loop(rules, n: int, seconds: float, seed: int = 0, batch: int = 256) -> int:
    """``KingsCornerVecEnv(batch)`` with random opponents; learner actions sampled from the masks
    in compiled code (``kernel.sample_masks``); returns learner steps (batch per ``step``)."""
    from ..vector import KingsCornerVecEnv
    from ..vector.kernel import sample_masks

    env = KingsCornerVecEnv(batch, rules=rules, num_players=n, seed=seed)
    env.reset()
    streams = np.arange(batch, dtype=np.uint64) + np.uint64(seed)
    acts = np.zeros(batch, dtype=np.int64)
    steps = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sample_masks(env.action_masks(), streams, acts)
        env.step(acts)
        steps += batch
    return steps


def heuristic_loop(rules, n: int, seconds: float, seed: int = 0) -> tuple[int, float]:
    """The ``heuristic`` agent choosing every move of deals it plays in every seat
    (``play.play_deal`` on the reference engine), deal after deal until its ``act`` calls have
    taken ``seconds``. Only those calls are timed: returns the decisions and their seconds."""
    from .. import agents, engine
    from ..play import play_deal

    timed = _Timed(agents.load("heuristic"))
    decisions, spent, deal = 0, 0.0, 0
    while spent < seconds:
        play_deal(engine.new_deal(rules, n, seed=seed + deal, dealer=deal % n), [timed] * n)
        deal += 1
        decisions, spent = decisions + len(timed.times), spent + sum(timed.times)
        timed.times.clear()
    return decisions, spent


def batched_loop(rules, n: int, seconds: float, seed: int = 0, name: str = "heuristic",
                 batch: int = BATCHED_GAMES) -> tuple[int, float]:
    """The compiled ``name`` (greedy or the heuristic) as the opponent in every other seat of
    ``LearnerGames(batch)``, the learner's actions sampled from its masks in compiled code: each
    ``step`` is one compiled call on all cores (``vector.rule_opponents``) that plays the learner's
    moves, the opponents' turns and the next deals. Steps until the ``step`` calls have taken
    ``seconds``; only they are timed. Returns the opponent decisions and their seconds."""
    from ..vector import LearnerGames
    from ..vector.kernel import sample_masks

    games = LearnerGames(batch, rules=rules, num_players=n, opponents=name, seed=seed)
    games.reset()
    streams = np.arange(batch, dtype=np.uint64) + np.uint64(seed)
    acts = np.zeros(batch, dtype=np.int64)
    first, spent = games.rule_based_decisions, 0.0  # the first deals' opponent turns are not steps
    while spent < seconds:
        sample_masks(games.action_masks(), streams, acts)
        start = time.perf_counter()
        games.step(acts)
        spent += time.perf_counter() - start
    return games.rule_based_decisions - first, spent


class _Timed:
    """An agent whose ``act`` calls are timed: their seconds are appended to ``times``."""

    def __init__(self, agent) -> None:
        self.agent = agent
        self.times: deque[float] = deque()

    def act(self, obs):
        start = time.perf_counter()
        action = self.agent.act(obs)
        self.times.append(time.perf_counter() - start)
        return action


def search_loop(rules, n: int, seed: int = 0, spec: str = "search") -> Callable[[float], tuple[float, int]]:
    """The ``search`` agent in seat 0 of deals against the heuristic (``play.play_deal`` on the
    reference engine), one deal after another across runs. Only its ``act`` calls are timed; a
    run stops at the first of its decisions after ``seconds``. Returns (milliseconds, decisions),
    so that ``measure``'s rate is milliseconds per decision (one search costs about a deal's
    play-out per candidate and re-deal, so a few decisions are a run)."""
    from .. import agents, engine
    from ..play import play_deal

    search, heuristic = agents.load(spec, seed=seed), agents.load("heuristic")
    timed = _Timed(search)
    timings = timed.times  # the search's decisions of deals played, not yet counted
    seats = [timed] + [heuristic] * (n - 1)
    deals = [0]

    def loop(seconds: float) -> tuple[float, int]:
        spent, count = 0.0, 0
        while spent < seconds:
            while not timings:
                deal = deals[0]
                search.reset(seed=seed + deal)
                play_deal(engine.new_deal(rules, n, seed=seed + deal, dealer=deal % n), seats)
                deals[0] += 1
            spent += timings.popleft()
            count += 1
        return spent * 1000.0, count

    return loop


# -- timing ----------------------------------------------------------------------------------

def measure(loop: Callable[[float], int | tuple[int, float]], runs: int, seconds: float) -> dict[str, Any]:
    """Rates of ``runs`` timed runs of ``loop(seconds)`` (after a short warm-up run). A loop
    returns its count, or its count and the seconds that count (when it times only part of its
    work itself)."""
    loop(min(0.2, seconds))
    rates = []
    for _ in range(runs):
        t0 = time.perf_counter()
        count = loop(seconds)
        spent = time.perf_counter() - t0
        if isinstance(count, tuple):
            count, spent = count
        rates.append(count / spent)
    return {"median": statistics.median(rates), "min": min(rates), "max": max(rates), "runs": rates}


def ppo_rollouts(rules, n: int, runs: int, seconds: float, seed: int, envs: int,
                 threads: int = 1) -> dict[str, dict[str, Any]]:
    """MaskablePPO ``collect_rollouts`` frames/s on ``KingsCorner-v0`` (DummyVecEnv of one) and on
    ``KingsCornerVecEnv(envs)``, the same policy network with the same weights, in this process."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ..gym_env import KingsCornerEnv
    from ..vector import KingsCornerVecEnv

    torch.set_num_threads(threads)
    single = DummyVecEnv([lambda: KingsCornerEnv(rules=rules, num_players=n)])
    single.seed(seed)
    vector = KingsCornerVecEnv(envs, rules=rules, num_players=n, seed=seed)
    out = {}
    reference = None
    for name, env, n_steps in (("ppo_single", single, 1024), ("ppo_vector", vector, 64)):
        model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=n_steps * env.num_envs, seed=seed)
        model.set_logger(Logger(None, []))  # a logger of its own: SB3's default makes a folder in the temp dir
        if reference is None:
            reference = model.policy.state_dict()
        else:
            model.policy.load_state_dict(reference)
        _, callback = model._setup_learn(total_timesteps=10**12, callback=None)

        def loop(secs: float, model=model, env=env, n_steps=n_steps, callback=callback) -> int:
            frames = 0
            end = time.perf_counter() + secs
            while frames == 0 or time.perf_counter() < end:
                model.collect_rollouts(env, callback, model.rollout_buffer, n_rollout_steps=n_steps)
                frames += n_steps * env.num_envs
            return frames

        out[name] = measure(loop, runs, seconds)
    return out


# -- the command -----------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmarks and print a table (or JSON)."""
    rules, n = args.rules, args.players
    rules.check_players(n)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in only if s not in NAMES]
    if unknown:
        raise UserError(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(NAMES)}")
    try:
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError:
        raise UserError(f"--batches must be whole numbers separated by commas, not {args.batches!r}") from None
    runs, seconds = (3, 0.3) if args.quick else (args.runs, args.seconds)
    if runs < 1 or seconds <= 0:
        raise UserError("--runs must be at least 1 and --seconds above 0")
    if "search" in only:
        from .. import agents
        from ..agents.search_agent import PREFIX, SEARCH

        if not (args.search == SEARCH or args.search.startswith(PREFIX)):
            raise UserError(f"--search must be a search agent's spec (search or search:name=value,...), not {args.search!r}")
        try:
            agents.load(args.search)  # a bad option is refused before anything is timed
        except ValueError as exc:
            raise UserError(f"--search: {exc}") from None
    if args.profile:
        return _profile(args.profile, rules, n, seconds, args.seed)

    results: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    loops: list[tuple[str, Callable[[float], int]]] = []
    if "engine" in only:
        loops.append(("engine", lambda s: engine_loop(rules, n, s, args.seed)))
    if "compiled" in only:
        loops.append(("compiled", lambda s: compiled_loop(rules, n, s, args.seed)))
    if "aec" in only:
        loops.append(("aec", lambda s: aec_loop(_aec(rules, n), s, args.seed)))
    if "single" in only:
        loops.append(("single", lambda s: single_loop(rules, n, s, args.seed)))
    if "vector" in only:
        for b in batches:
            loops.append((f"vector_{b}", lambda s, b=b: vector_loop(rules, n, s, args.seed, b)))
    if "heuristic" in only:
        loops.append(("heuristic", lambda s: heuristic_loop(rules, n, s, args.seed)))
    if "batched" in only:
        for agent in BATCHED:
            loops.append((f"batched_{agent}", lambda s, agent=agent: batched_loop(rules, n, s, args.seed, agent)))
    if "search" in only:
        loops.append(("search", search_loop(rules, n, args.seed, args.search)))
    for name, loop in loops:
        try:
            results[name] = measure(loop, runs, seconds)
        except ImportError as exc:
            notes.append(f"{name}: skipped ({exc})")
        print(f"measured {name}", file=sys.stderr, flush=True)
    if "ppo" in only:
        try:
            results.update(ppo_rollouts(rules, n, runs, seconds, args.seed, args.ppo_envs, args.torch_threads))
        except ImportError as exc:
            notes.append(f"ppo: skipped ({exc})")
    ratios = {}
    if "ppo_single" in results and "ppo_vector" in results:
        ratios["ppo_vector / ppo_single"] = results["ppo_vector"]["median"] / results["ppo_single"]["median"]
    if "engine" in results and "compiled" in results:
        ratios["compiled / engine"] = results["compiled"]["median"] / results["engine"]["median"]
    report = {"rules": args.rules_name, "players": n, "runs": runs, "seconds": seconds,
              "machine": _machine(), "results": results, "ratios": ratios, "notes": notes,
              "ppo_envs": args.ppo_envs, "torch_threads": args.torch_threads}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        _print_table(report)
    return 0


def _aec(rules, n: int):
    from .. import kings_corner_v0

    return kings_corner_v0.env(rules=rules, num_players=n)


def _unit(name: str) -> str:
    return UNITS.get(name) or UNITS[name.split("_")[0]]


def _print_table(report: dict[str, Any]) -> None:
    print(f"kc bench: rules {report['rules']}, {report['players']} players, "
          f"median of {report['runs']} runs of {report['seconds']:g} s ({report['machine']})")
    width = max([14] + [len(name) for name in report["results"]])
    print(f"  {'benchmark':<{width}} {'median':>12} {'min':>12} {'max':>12}  unit")
    for name, r in report["results"].items():
        print(f"  {name:<{width}} {r['median']:>12,.0f} {r['min']:>12,.0f} {r['max']:>12,.0f}  {_unit(name)}")
    if "ppo_vector" in report["results"]:
        print(f"  (ppo rows: MaskablePPO MlpPolicy, vector env of {report['ppo_envs']} games, "
              f"{report['torch_threads']} torch thread(s))")
    for name, value in report["ratios"].items():
        print(f"  ratio {name}: {value:,.1f}x")
    for note in report["notes"]:
        print(f"  note: {note}")


def _machine() -> str:
    import os

    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def _profile(name: str, rules, n: int, seconds: float, seed: int) -> int:
    import cProfile
    import pstats

    loops = {"engine": lambda: engine_loop(rules, n, seconds, seed),
             "aec": lambda: aec_loop(_aec(rules, n), seconds, seed),
             "single": lambda: single_loop(rules, n, seconds, seed),
             "vector": lambda: vector_loop(rules, n, seconds, seed)}
    loops[name]()  # warm up (numba loads its cache) outside the profile
    profiler = cProfile.Profile()
    profiler.enable()
    count = loops[name]()
    profiler.disable()
    print(f"{name}: {count:,} in {seconds:g} s under cProfile (slower than unprofiled); top functions by own time:")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    return 0
