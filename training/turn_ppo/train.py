"""``kc train CONFIG`` with ``trainer: turn_ppo``: PPO over whole turns (``training/turn_ppo``).

Each iteration plays ``turn_ppo.games`` fresh deals with the current policy (``self_play`` of them
with every seat learning, the rest one learner against ``against``, cycled), takes one PPO update
(``update.ppo_update``), then plays ``eval.deals`` duplicate deals (seats rotated) against each of
``eval.opponents`` on seeds apart from the training seeds, by the policy's best candidate, and
adds a point to ``curve.json`` / ``learning_curve.png`` (with the update's diagnostics and the
wall time so far). Iteration 0 is the starting policy, evaluated before any update. With
``benchmark.tasks`` set, each iteration's model is scored on those tasks too (``benchmark.json``).

The run folder holds only JSON and ``.npz`` arrays: ``iteration_N/model`` (the policy as a
turn-value model folder) and ``iteration_N/critic.npz``, ``progress.json``, ``config.yaml``, and at
the end ``model`` (what ``kc export`` copies). ``--resume`` continues after the newest whole
iteration; a resumed run plays the same deals and samples as an uninterrupted one.
"""

from __future__ import annotations

import functools
import io
import json
import time
from pathlib import Path

import numpy as np

from kc_env.agents import model_folder as folders
from kc_env.agents import turn_value as model
from kc_env.agents.playouts import OTHERS
from kc_env.agents.turn_value import FEATURES
from kc_env.benchmark.shuffles import evaluation_set
from kc_env.files import write_atomic

from .. import bench, run_lock
from .. import config as config_mod
from ..run import mark_run
from ..threads import update_threads
from ..turn_value import learn as tv
from ..turn_value.train import EVAL_SEED_OFFSET, TurnValueResult, _plot
from . import rollouts
from .update import ppo_update

CRITIC_FILE = "critic.npz"
MAX_CRITIC_BYTES = 16 * 2**20


def train(cfg, folder: str | Path, resume: bool = False, progress: bool = True, argv=None, log=None) -> TurnValueResult:
    """Run (or resume) the turn-PPO training of ``cfg`` in ``folder``, holding its lock."""
    with run_lock.hold(folder):
        return _train(cfg, Path(folder), resume, log or functools.partial(print, flush=True))


def _train(cfg, folder: Path, resume: bool, log) -> TurnValueResult:
    import torch

    t = cfg.turn_ppo
    for spec in cfg.eval.opponents:
        if spec not in OTHERS:
            raise config_mod.ConfigError(f"eval.opponents: the turn-PPO trainer evaluates against "
                                         f"{', '.join(OTHERS)}, not {spec!r}")
    state = _start(cfg, folder, resume)
    torch.set_num_threads(update_threads(cfg.update_threads, state.get("update_threads"), log))
    state["update_threads"] = torch.get_num_threads()
    actor, critic = _networks(cfg, folder, state["done"])
    if not state["curve"]:
        start = time.perf_counter()
        state["curve"].append(_evaluate(cfg, actor, {"iteration": 0, "games": 0}))
        state["seconds"] = state["curve"][-1]["seconds"] = round(time.perf_counter() - start)
        log(f"iteration 0 (the starting policy): {json.dumps(state['curve'][-1])}")
    for it in range(state["done"] + 1, t.iterations + 1):
        start = time.perf_counter()
        data = _play(cfg, it, actor)
        log(f"iteration {it}: {len(data['picks']):,} choices from {t.games:,} deals in {time.perf_counter() - start:.0f} s")
        actor, critic, stats = ppo_update(actor, critic, data, t, seed=cfg.seed * 1000 + it,
                                          log=lambda msg, it=it: log(f"iteration {it}: {msg}"))
        agent = _save(cfg, folder / f"iteration_{it}", actor, critic, state["curve"])
        point = {"iteration": it, "games": it * t.games, **{k: round(v, 4) for k, v in stats.items()}}
        state["curve"].append(_evaluate(cfg, actor, point))
        if cfg.benchmark.tasks:
            bench.score(str(agent), cfg, folder, it * t.games, log)
        state["seconds"] = state["curve"][-1]["seconds"] = state.get("seconds", 0) + round(time.perf_counter() - start)
        state["done"] = it
        write_atomic(folder / "progress.json", json.dumps(state, indent=1) + "\n")
        log(f"iteration {it}: {json.dumps(state['curve'][-1])} ({time.perf_counter() - start:.0f} s)")
        _plot(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / cfg.num_players)
    write_atomic(folder / "curve.json", json.dumps(state["curve"], indent=1) + "\n")
    _plot(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / cfg.num_players)
    _save_model(cfg, folder / "model", actor, state["curve"])
    log(f"model: {folder / 'model'}   learning curve: {folder / 'learning_curve.png'}")
    return TurnValueResult(folder, state["curve"])


def _start(cfg, folder: Path, resume: bool) -> dict:
    """The run's progress: read on ``--resume``, else a new run folder."""
    state_path = folder / "progress.json"
    if resume:
        if not state_path.is_file():
            raise FileNotFoundError(f"{folder}: nothing to resume (no progress.json)")
        return json.loads(state_path.read_text())
    if (folder / "config.yaml").exists():
        raise FileExistsError(f"{folder} holds a run already: --resume it, or --overwrite it")
    folder.mkdir(parents=True, exist_ok=True)
    mark_run(folder)
    config_mod.save(cfg, folder / "config.yaml")
    return {"done": 0, "curve": []}


def _networks(cfg, folder: Path, done: int):
    """The policy and critic to go on from: iteration ``done``'s, or the start (``turn_ppo.start``'s
    network, or a linear policy of zeros: uniform over the candidates; no critic yet)."""
    t = cfg.turn_ppo
    if done:
        where = folder / f"iteration_{done}"
        _, actor = model.load(where / "model")
        return actor, _load_critic(where / CRITIC_FILE, t.critic_hidden)
    if t.start:
        card, actor = model.load(t.start)
        if card.get("careless_layers"):
            raise config_mod.ConfigError(f"turn_ppo.start: {t.start} holds two networks (a gate); start from one")
        return actor, None
    if not t.hidden:
        return [(np.zeros((1, FEATURES), np.float32), np.zeros(1, np.float32))], None
    _, linears = tv._network(FEATURES, list(t.hidden), cfg.seed, None)
    return tv._numpy_layers(linears), None


def _play(cfg, it: int, actor) -> dict[str, np.ndarray]:
    """Iteration ``it``'s deals, on training seeds (never an evaluation shuffle of the benchmark)."""
    t, n = cfg.turn_ppo, cfg.num_players
    seeds = np.arange(t.games, dtype=np.int64) + cfg.seed * 10**9 + (it - 1) * t.games
    banned = evaluation_set("kc-bench-v1")
    seeds = np.array([s for s in seeds if int(s) not in banned], dtype=np.int64)
    rng = np.random.default_rng([cfg.seed, it])
    solo = rng.random(len(seeds)) >= t.self_play
    learners = np.where(solo, 1 << rng.integers(0, n, size=len(seeds)), (1 << n) - 1)
    others = np.array([OTHERS.index(t.against[j % len(t.against)]) for j in range(len(seeds))]) if t.against else \
        np.zeros(len(seeds), np.int64)
    parts = [rollouts.generate(cfg.rules_object(), n, seeds[at:at + 512], learners[at:at + 512], others[at:at + 512],
                               actor, k=t.candidates, seed=cfg.seed * 10**6 + it * 10**3 + at // 512,
                               max_moves=cfg.max_moves) for at in range(0, len(seeds), 512)]
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "games"}


def _evaluate(cfg, actor, point: dict) -> dict:
    """The policy's best candidate in one seat against each of ``eval.opponents`` in the others,
    every deal from each seat (the compiled duel of whole chosen lines)."""
    first = cfg.seed * 10**9 + EVAL_SEED_OFFSET
    for spec in cfg.eval.opponents:
        share, half = tv.duel(cfg.rules_object(), cfg.num_players, np.arange(cfg.eval.deals, dtype=np.int64) + first,
                              actor, k=cfg.turn_ppo.candidates, against=spec, max_moves=cfg.max_moves)
        point[spec] = [round(share, 4), round(max(0.0, share - half), 4), round(min(1.0, share + half), 4)]
    return point


def _save(cfg, where: Path, actor, critic, curve: list[dict]) -> Path:
    """Iteration folder: the policy as a model folder and the critic's arrays (both written whole)."""
    agent = _save_model(cfg, where / "model", actor, curve)
    buf = io.BytesIO()
    np.savez(buf, **model.network_arrays(critic))
    write_atomic(where / CRITIC_FILE, buf.getvalue())
    return agent


def _load_critic(path: Path, hidden: list[int]):
    sizes, shapes, fan_in = [*hidden, 1], {}, FEATURES
    for i, size in enumerate(sizes):
        shapes[f"w{i}"], shapes[f"b{i}"] = (size, fan_in), (size,)
        fan_in = size
    arrays = folders.read_arrays(path, shapes, MAX_CRITIC_BYTES, dtypes=("float32",))
    return [(arrays[f"w{i}"], arrays[f"b{i}"]) for i in range(len(sizes))]


def _save_model(cfg, where: Path, actor, curve: list[dict]) -> Path:
    t = cfg.turn_ppo
    return model.save(where, actor, {
        "candidates": t.candidates, "num_players": cfg.num_players, "rules": cfg.rules_object().to_dict(),
        "trained": {"trainer": "turn_ppo", "iterations": t.iterations, "games_per_iteration": t.games,
                    "self_play": t.self_play, "against": list(t.against), "advantage": t.advantage,
                    "start": t.start, "seed": cfg.seed, "curve": curve}})
