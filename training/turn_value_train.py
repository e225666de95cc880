"""``kc train CONFIG`` with ``trainer: turn_value``: learn the value of end-of-turn positions by
self-play (``training/turn_value.py``), evaluate it after every iteration, and leave the model
folder in the run (``RUN/model``, what ``kc export`` copies).

Each iteration plays ``turn_value.games`` fresh deals with the network of the iteration before
(the heuristic's choice before the first), half in self-play and half one learner against the
heuristic, ``epsilon`` of the turns on a random candidate; then fits the network on that
iteration's records, warm-started. After each iteration the network plays ``eval.deals``
duplicate deals (seats rotated) against each of ``eval.opponents`` on seeds apart from the
training seeds, and ``curve.json`` / ``learning_curve.png`` grow by one point.

The run folder holds only JSON and ``.npz`` arrays (no pickle): ``progress.json`` (the
iterations done and the curve), ``iteration_N/weights.npz`` (each iteration's network, written
atomically and fsynced by ``kc_env.files.write_atomic``, so a killed run leaves the last whole one), ``config.yaml``.
``--resume`` continues after the newest whole iteration.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kc_env.agents import turn_value as model
from kc_env.files import write_atomic

from . import config as config_mod
from . import turn_value as tv

EVAL_SEED_OFFSET = 900_000_000
"""Evaluation deals are drawn from ``seed * 10**9 + EVAL_SEED_OFFSET`` on, training deals below."""


@dataclass
class TurnValueResult:
    folder: Path
    curve: list[dict]


def _save_layers(path: Path, layers) -> None:
    import io

    buf = io.BytesIO()
    np.savez(buf, **{f"w{i}": w for i, (w, _) in enumerate(layers)}, **{f"b{i}": b for i, (_, b) in enumerate(layers)})
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, buf.getvalue())


def _load_layers(path: Path, n: int):
    with np.load(path, allow_pickle=False) as data:
        return [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]


def _evaluate(cfg, layers, iteration: int) -> dict:
    rules = cfg.rules_object()
    t = cfg.turn_value
    seeds = np.arange(cfg.eval.deals, dtype=np.int64) + cfg.seed * 10**9 + EVAL_SEED_OFFSET
    point = {"iteration": iteration, "games": iteration * t.games}
    for spec in cfg.eval.opponents:
        share, half = tv.duel(rules, cfg.num_players, seeds, layers, k=t.candidates, against=spec,
                              max_moves=cfg.max_moves)
        point[spec] = [round(share, 4), round(max(0.0, share - half), 4), round(min(1.0, share + half), 4)]
    return point


def _plot(curve: list[dict], opponents: list[str], path: Path, fair: float) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    x = [p["games"] for p in curve]
    for spec in opponents:
        ys = [p[spec][0] for p in curve]
        lo = [p[spec][1] for p in curve]
        hi = [p[spec][2] for p in curve]
        ax.plot(x, ys, marker="o", label=f"against {spec}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(fair, color="grey", lw=0.8, ls="--", label="fair share")
    ax.set_xlabel("deals played in training")
    ax.set_ylabel("win share (95% interval)")
    ax.set_title("turn-value agent")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train(cfg, folder: str | Path, resume: bool = False, progress: bool = True, argv=None, log=None) -> TurnValueResult:
    """Run (or resume) the turn-value training of ``cfg`` in ``folder``; ``log`` gets each line of
    progress (default: printed at once)."""
    log = log or functools.partial(print, flush=True)
    import torch

    folder = Path(folder)
    t = cfg.turn_value
    for spec in cfg.eval.opponents:
        if spec not in tv.OPPONENTS:
            raise config_mod.ConfigError(f"eval.opponents: the turn-value trainer evaluates against "
                                         f"{', '.join(tv.OPPONENTS)}, not {spec!r}")
    state_path = folder / "progress.json"
    if resume:
        if not state_path.is_file():
            raise FileNotFoundError(f"{folder}: nothing to resume (no progress.json)")
        state = json.loads(state_path.read_text())
    else:
        if (folder / "config.yaml").exists():
            raise FileExistsError(f"{folder} holds a run already: --resume it, or --overwrite it")
        folder.mkdir(parents=True, exist_ok=True)
        config_mod.mark_run(folder)
        config_mod.save(cfg, folder / "config.yaml")
        state = {"done": 0, "curve": []}
    torch.set_num_threads(max(1, cfg.update_threads))
    rules = cfg.rules_object()
    n = cfg.num_players
    depth = len(t.hidden) + 1
    layers = _load_layers(folder / f"iteration_{state['done']}" / "weights.npz", depth) if state["done"] else None
    if not state["curve"]:
        state["curve"].append(_evaluate(cfg, None, 0))
        log(f"iteration 0 (the heuristic's choices): {json.dumps(state['curve'][-1])}")
    for it in range(state["done"] + 1, t.iterations + 1):
        start = time.perf_counter()
        base = cfg.seed * 10**9 + (it - 1) * t.games
        seeds = np.arange(t.games, dtype=np.int64) + base
        rng = np.random.default_rng([cfg.seed, it])
        solo = rng.integers(0, n, size=t.games)
        learners = np.where(np.arange(t.games) % 2 == 0, (1 << n) - 1, 1 << solo)
        xs, ys = [], []
        for at in range(0, t.games, 4096):
            x, y, _, _ = tv.generate(rules, n, seeds[at:at + 4096], learners[at:at + 4096], k=t.candidates,
                                     epsilon=t.epsilon, layers=layers, max_moves=cfg.max_moves, explore_seed=base + at)
            xs.append(x)
            ys.append(y)
        x, y = np.concatenate(xs), np.concatenate(ys)
        log(f"iteration {it}: {len(x):,} turns from {t.games:,} deals in {time.perf_counter() - start:.0f} s")
        layers = tv.fit(x, y, hidden=tuple(t.hidden), epochs=t.epochs, lr=t.learning_rate, seed=cfg.seed + it,
                        start=layers, log=lambda msg, it=it: log(f"iteration {it}: {msg}"))
        del x, y, xs, ys
        _save_layers(folder / f"iteration_{it}" / "weights.npz", layers)
        state["curve"].append(_evaluate(cfg, layers, it))
        state["done"] = it
        write_atomic(state_path, json.dumps(state, indent=1) + "\n")
        log(f"iteration {it}: {json.dumps(state['curve'][-1])} ({time.perf_counter() - start:.0f} s)")
        _plot(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / n)
    write_atomic(folder / "curve.json", json.dumps(state["curve"], indent=1) + "\n")
    _plot(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / n)
    model.save(folder / "model", layers, {
        "candidates": t.candidates, "num_players": n, "rules": cfg.rules_object().to_dict(),
        "trained": {"trainer": "turn_value", "iterations": t.iterations, "games_per_iteration": t.games,
                    "epsilon": t.epsilon, "seed": cfg.seed, "curve": state["curve"]},
    })
    log(f"model: {folder / 'model'}   learning curve: {folder / 'learning_curve.png'}")
    return TurnValueResult(folder, state["curve"])
