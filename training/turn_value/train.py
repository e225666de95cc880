"""``kc train CONFIG`` with ``trainer: turn_value``: learn the value of end-of-turn positions
(``training/turn_value/learn.py``), evaluate it after every iteration, and leave the model folder in the
run (``RUN/model``, what ``kc export`` copies).

``turn_value.method: monte_carlo``: each iteration plays ``turn_value.games`` fresh deals with the
network of the iteration before (the heuristic's choice before the first), half in self-play and
half one learner against the heuristic, ``epsilon`` of the turns on a random candidate; then fits
the network on that iteration's records, warm-started.

``turn_value.method: ranking``: each iteration labels ``label_chunks`` more chunks of 100 deals
against each of ``label_against`` (``turn_value.label_chunk``: the heuristic's candidate turns
at its turn starts, valued by play-outs against that opponent), keeping every label in
``labels_<opponent>.npz`` as it goes (chunk by chunk), then fits which candidate is better within
each decision on all the labels so far (``fit_ranking_sets``), and records the held-out gain of
its picks over the heuristic's. Under ``gate: careless`` it fits one ranking on each opponent's
labels, and the model plays the one fitted against random once another seat has been careless
(``kc_env.agents.turn_value``): what makes ``models/turn-ranking-2p``.

After each iteration the model plays ``eval.deals`` duplicate deals (seats rotated) against each
of ``eval.opponents`` on seeds apart from the training seeds (under ``ranking`` as it is
shipped, re-planning at every decision in a ``run_tournament``; under ``monte_carlo`` by the
compiled ``duel`` of whole chosen lines), and ``curve.json`` / ``learning_curve.png`` grow by
one point; each point holds the run's wall time so far (``seconds``, summed over resumes). With
``benchmark.tasks`` set, the iteration's model is scored on those kc-bench tasks too, each row of
``benchmark.json`` at the curve's x (games, or labelled decisions; ``training/bench.py``).

The run folder holds only JSON and ``.npz`` arrays (no pickle): ``progress.json`` (the
iterations done and the curve, written after the iteration's model), ``iteration_N/model`` (each
iteration's model folder, whose networks ``--resume`` starts from; its files written atomically
and fsynced by ``kc_env.files.write_atomic``, so a killed run leaves the last whole one),
``config.yaml``.
``--resume`` continues after the newest whole iteration (under ``ranking``, from the last
labelled chunk).
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

from .. import bench, run_lock
from .. import config as config_mod
from ..export_folder import staged
from ..run import plot_learning_curve, turn_progress, write_progress
from ..threads import update_threads
from . import learn as tv
from .settings import TABLE_CHUNKS, Table, tables_of

EVAL_SEED_OFFSET = 900_000_000
"""Evaluation deals are drawn from ``seed * 10**9 + EVAL_SEED_OFFSET`` on, training deals below."""


@dataclass
class TurnValueResult:
    folder: Path
    curve: list[dict]


def _load_networks(folder: Path):
    """The networks of an iteration's model folder: (the first, the second or None)."""
    card, layers = model.load(folder)
    return layers, (model.load_careless(folder, card) if card.get("careless_layers") else None)


def _evaluate(cfg, layers, point: dict, agent_folder: Path | None = None) -> dict:
    """Win shares of the network against each of ``eval.opponents``: under ``monte_carlo`` the
    compiled duel of whole chosen lines, under ``ranking`` the model in ``agent_folder`` as it is
    shipped (re-planning at every decision, gated; the heuristic itself when None) in one seat
    against ``num_players - 1`` of the opponent, in a seat-rotated tournament of duplicate deals.
    With several ``turn_value.tables``, at each of them the compiled duel of the first network
    (``point["tables"]``), and at the config's own table the same at the point's top."""
    rules = cfg.rules_object()
    t = cfg.turn_value
    first = cfg.seed * 10**9 + EVAL_SEED_OFFSET
    tables = tables_of(cfg) if t.method == "ranking" else []
    if len(tables) > 1:
        own = next((tb for tb in tables if tb.rules == rules and tb.num_players == cfg.num_players), tables[0])
        for table in tables:
            shares = point.setdefault("tables", {}).setdefault(table.name, {})
            for spec in cfg.eval.opponents:
                shares[spec] = _duel(cfg, table.rules, table.num_players, layers, spec, first)
                if table is own:  # the curve's plot: the config's own table (else the first)
                    point[spec] = shares[spec]
        return point
    for spec in cfg.eval.opponents:
        if t.method == "ranking":
            from kc_env.tournament import one_against_the_table

            a = one_against_the_table(str(agent_folder) if agent_folder else "heuristic", spec, rules, cfg.num_players,
                                      deals=cfg.eval.deals * cfg.num_players, seed=first, max_moves=cfg.max_moves)
            point[spec] = [round(a.win_share, 4), round(a.share_low, 4), round(a.share_high, 4)]
            continue
        point[spec] = _duel(cfg, rules, cfg.num_players, layers, spec, first)
    return point


def _duel(cfg, rules, num_players: int, layers, spec: str, first: int) -> list[float]:
    """``learn.duel``'s share of ``eval.deals`` deals from ``first`` on, with its 95% interval."""
    share, half = tv.duel(rules, num_players, np.arange(cfg.eval.deals, dtype=np.int64) + first, layers,
                          k=cfg.turn_value.candidates, against=spec, max_moves=cfg.max_moves)
    return [round(share, 4), round(max(0.0, share - half), 4), round(min(1.0, share + half), 4)]


def plot_curve(curve: list[dict], opponents: list[str], path: Path, fair: float) -> None:
    """The learning curve (``run.plot_learning_curve``, every trainer's plot) over the curve's x:
    labelled decisions under ``ranking``, deals played under ``monte_carlo``."""
    key = "decisions" if "decisions" in curve[-1] else "games"
    players = round(1 / fair)
    rows = [{"step": p[key], **{spec: {"win_share": p[spec][0], "share_interval": p[spec][1:3], "num_players": players}
                                 for spec in opponents}} for p in curve]
    plot_learning_curve(rows, path, "decisions labelled by play-outs" if key == "decisions" else "deals played in training")


def train(cfg, folder: str | Path, resume: bool = False, progress: bool = True, argv=None, log=None) -> TurnValueResult:
    """Run (or resume) the turn-value training of ``cfg`` in ``folder``, holding its lock
    (``run_lock``); ``log`` gets each line of progress (default: printed at once)."""
    with run_lock.hold(folder):
        return _train(cfg, Path(folder), resume, argv, log or functools.partial(print, flush=True))


def _train(cfg, folder: Path, resume: bool, argv, log) -> TurnValueResult:
    import torch

    t = cfg.turn_value
    for spec in cfg.eval.opponents:
        if spec not in tv.OPPONENTS:
            raise config_mod.ConfigError(f"eval.opponents: the turn-value trainer evaluates against "
                                         f"{', '.join(tv.OPPONENTS)}, not {spec!r}")
    state = turn_progress(cfg, folder, resume, t.iterations, _x_key(t))
    torch.set_num_threads(update_threads(cfg.update_threads, state.get("update_threads"), log))
    state["update_threads"] = torch.get_num_threads()  # a resume keeps the run's choice
    n = cfg.num_players
    layers, loose = _load_networks(folder / f"iteration_{state['done']}" / "model") if state["done"] else (None, None)
    if not state["curve"]:
        start = time.perf_counter()
        state["curve"].append(_evaluate(cfg, None, {"iteration": 0, _x_key(t): 0}))
        state["seconds"] = round(time.perf_counter() - start)
        log(f"iteration 0 (the heuristic's choices): {json.dumps(state['curve'][-1])}")
    for it in range(state["done"] + 1, t.iterations + 1):
        start = time.perf_counter()
        step = _ranking_iteration if t.method == "ranking" else _monte_carlo_iteration
        layers, loose, point = step(cfg, folder, it, (layers, loose), log)
        agent = _save_model(cfg, folder / f"iteration_{it}" / "model", layers, loose, state["curve"])
        state["curve"].append(_evaluate(cfg, layers, {"iteration": it, **point}, agent))
        if cfg.benchmark.tasks:  # kc-bench scores in benchmark.json, by the curve's x (training/bench.py)
            bench.score(str(agent), cfg, folder, point[_x_key(t)], log)
        state["seconds"] = state["curve"][-1]["seconds"] = state.get("seconds", 0) + round(time.perf_counter() - start)
        state["done"] = it
        write_progress(folder, state)
        log(f"iteration {it}: {json.dumps(state['curve'][-1])} ({time.perf_counter() - start:.0f} s)")
        plot_curve(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / n)
    write_atomic(folder / "curve.json", json.dumps(state["curve"], indent=1, allow_nan=False) + "\n")
    plot_curve(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / n)
    _save_model(cfg, folder / "model", layers, loose, state["curve"])
    log(f"model: {folder / 'model'}   learning curve: {folder / 'learning_curve.png'}")
    return TurnValueResult(folder, state["curve"])


def _save_model(cfg, where: Path, layers, loose, curve: list[dict]) -> Path:
    """The turn-value model folder of these networks (``kc_env.agents.turn_value.save``): its card
    names the config's table, or with several ``turn_value.tables`` lists them all (``tables``)."""
    t, n = cfg.turn_value, cfg.num_players
    tables = tables_of(cfg) if t.method == "ranking" else []
    table = ({"tables": [{"name": tb.name, "num_players": tb.num_players, "rules": tb.rules.to_dict()} for tb in tables]}
             if len(tables) > 1 else {"num_players": n, "rules": cfg.rules_object().to_dict()})
    card = {"candidates": t.candidates, **table,
            "trained": {"trainer": "turn_value", "method": t.method, "iterations": t.iterations, **_method_card(t),
                        "seed": cfg.seed, "curve": curve}}
    with staged(where) as stage:  # the folder whole or not at all
        model.save(stage, layers, card, careless_layers=loose, patience=t.patience)
    return where


def _x_key(t) -> str:
    return "decisions" if t.method == "ranking" else "games"


def _method_card(t) -> dict:
    if t.method == "ranking":
        return {"label_chunks_per_iteration": {a: t.chunks_against(a) for a in t.label_against}, "label_against": list(t.label_against),
                "redeals": t.redeals, "gate": t.gate}
    return {"games_per_iteration": t.games, "epsilon": t.epsilon}


def _monte_carlo_iteration(cfg, folder: Path, it: int, nets, log):
    """One round of self-play deals, then a fit to their outcomes (module docstring)."""
    t, n, rules = cfg.turn_value, cfg.num_players, cfg.rules_object()
    layers = nets[0]
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
                    start=layers, log=lambda msg: log(f"iteration {it}: {msg}"))
    return layers, None, {"games": it * t.games}


def _ranking_iteration(cfg, folder: Path, it: int, nets, log):
    """Label ``label_chunks`` more chunks against each opponent at each table, then fit on every
    label so far (module docstring): one ranking on all, or under ``gate: careless`` one per
    opponent, each on every table's labels."""
    t = cfg.turn_value
    tables = tables_of(cfg)
    sets = {against: [_label_table(cfg, folder, it, table, i if len(tables) > 1 else None, against, log)
                      for i, table in enumerate(tables)] for against in t.label_against}
    fit = functools.partial(tv.fit_ranking_sets, hidden=tuple(t.hidden), steps=t.fit_steps,
                            weight_decay=t.weight_decay, seed=cfg.seed + it, log=lambda msg: log(f"iteration {it}: {msg}"))
    if t.gate == "careless":  # the first network against the heuristic, the second against random
        (layers, gain_h), (loose, gain_r) = (fit(sets[a], start=net) for a, net in zip(t.label_against, nets, strict=True))
        gains = {"heuristic": gain_h, "random": gain_r}
    else:
        layers, every = fit([rows for a in t.label_against for rows in sets[a]], start=nets[0])
        gains = {a: every[j * len(tables):(j + 1) * len(tables)] for j, a in enumerate(t.label_against)}
        loose = None
    point = {"decisions": sum(len(rows) for a in t.label_against for rows in sets[a])}
    for against in t.label_against:
        point[f"held_out_gain_{against}"] = _pooled_gain(gains[against])
        if len(tables) > 1:
            for table, gain in zip(tables, gains[against], strict=True):  # None: too few labels to hold any out
                point.setdefault("tables", {}).setdefault(table.name, {})[f"held_out_gain_{against}"] = \
                    [gain["gain"], gain["half_width"]] if gain["held_out"] else None
    return layers, loose, point


def _label_table(cfg, folder: Path, it: int, table: Table, index: int | None, against: str, log) -> list:
    """Every labelled decision so far of ``table`` against ``against``, labelling its chunks up to
    this iteration's, each kept as it is made (``labels_<opponent>.npz`` for a config's one table,
    ``labels_<table>_<opponent>.npz`` and its own deals, ``index`` tables on, for one of several)."""
    t = cfg.turn_value
    path = folder / (f"labels_{against}.npz" if index is None else f"labels_{table.name}_{against}.npz")
    rows, chunks = tv.load_labels(path)
    target = it * table.chunks[against]
    offset = 0 if index is None else index * TABLE_CHUNKS
    while chunks < target:
        start = time.perf_counter()
        rows += tv.label_chunk(table.rules, table.num_players, offset + chunks, against, k=t.candidates,
                               redeals=t.redeals, first=len(rows), seed=cfg.seed)
        chunks += 1
        tv.save_labels(path, rows, chunks)
        where = "" if index is None else f" at {table.name}"
        log(f"iteration {it}: labelled chunk {chunks}/{target} against {against}{where}, {len(rows):,} decisions "
            f"({time.perf_counter() - start:.0f} s)")
    return rows


def _pooled_gain(gains: list[dict]) -> list[float]:
    """One set's held-out gain and half-width, or several sets' pooled, each weighted by its held-out
    decisions (a set too small to hold any out left out)."""
    gains = [g for g in gains if g["held_out"]] or gains[:1]  # a set with none held out has no mean
    if len(gains) == 1:
        return [gains[0]["gain"], gains[0]["half_width"]]
    held = np.array([g["held_out"] for g in gains], float)
    w = held / max(1.0, held.sum())
    mean = float(np.dot(w, [g["gain"] for g in gains]))
    half = float(np.sqrt(np.dot(w ** 2, np.square([g["half_width"] for g in gains]))))
    return [round(mean, 4), round(half, 4)]
