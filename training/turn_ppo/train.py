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

Under ``gate: careless`` the policy is two networks (``rollouts``' gate, the agent's): each
iteration's choices update the network that made them, each with its own critic, and the model
folder holds both (``careless_layers``) with the gate's ``patience``. Under ``gate: heuristic`` the
heuristic plays once a seat has been careless: only the first network learns, and the model's
second network is one of zeros (``ZEROS``), which plays the heuristic's own candidate; under ``gate:
uniform`` the same zeros network is sampled there (a uniform draw among the candidates), and the
model's card says so (``careless_play: sample``).
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
from ..export_folder import staged
from ..run import RunError, turn_progress, write_progress
from ..threads import update_threads
from ..turn_value import learn as tv
from ..turn_value.train import EVAL_SEED_OFFSET, TurnValueResult, plot_curve
from . import rollouts
from .settings import tables_of
from .update import ppo_update

CRITIC_FILE = "critic.npz"
ZEROS = [(np.zeros((1, FEATURES), np.float32), np.zeros(1, np.float32))]
"""A linear network of zeros: every candidate ties, so sampled it is uniform over them and its best
is the first, the heuristic's own pick (the start of a policy, and ``gate: heuristic``'s second)."""
MAX_CRITIC_BYTES = 16 * 2**20
FIXED_SECOND = ("heuristic", "uniform")
"""The gates whose second network is ``ZEROS`` and learns nothing."""


def careless_play(t) -> str:
    """How the model of the settings ``t`` plays its second network (the card's ``careless_play``)."""
    return "sample" if t.gate == "uniform" else t.careless_play


def play_of(t) -> int:
    """How the policy of the settings ``t`` plays as a model (``rollouts.Policy.play``)."""
    return rollouts.BEST_THEN_SAMPLE if careless_play(t) == "sample" else rollouts.BEST


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
    started = None if resume else _networks(cfg, folder, 0)  # turn_ppo.start read and checked before the folder is made
    state = turn_progress(cfg, folder, resume, t.iterations, "games")
    torch.set_num_threads(update_threads(cfg.update_threads, state.get("update_threads"), log))
    state["update_threads"] = torch.get_num_threads()
    nets, critics = started or _networks(cfg, folder, state["done"])
    if not state["curve"]:
        start = time.perf_counter()
        state["curve"].append(_evaluate(cfg, nets, {"iteration": 0, "games": 0}))
        state["seconds"] = state["curve"][-1]["seconds"] = round(time.perf_counter() - start)
        log(f"iteration 0 (the starting policy): {_shares(state['curve'][-1], cfg.eval.opponents)}")
    for it in range(state["done"] + 1, t.iterations + 1):
        start = time.perf_counter()
        data = iteration_choices(cfg, it, nets)
        log(f"iteration {it}: {len(data['picks']):,} choices from {t.games:,} deals in {time.perf_counter() - start:.0f} s")
        nets, critics, stats = _update(cfg, it, nets, critics, data, log)
        agent = _save(cfg, folder / f"iteration_{it}", nets, critics, state["curve"])
        point = {"iteration": it, "games": it * t.games, **{k: round(v, 4) for k, v in stats.items()}}
        state["curve"].append(_evaluate(cfg, nets, point))
        if cfg.benchmark.tasks:
            bench.score(str(agent), cfg, folder, it * t.games, log)
        state["seconds"] = state["curve"][-1]["seconds"] = state.get("seconds", 0) + round(time.perf_counter() - start)
        state["done"] = it
        write_progress(folder, state)
        log(f"iteration {it}: {_shares(state['curve'][-1], cfg.eval.opponents)} ({time.perf_counter() - start:.0f} s)")
        plot_curve(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / cfg.num_players)
    write_atomic(folder / "curve.json", json.dumps(state["curve"], indent=1, allow_nan=False) + "\n")
    plot_curve(state["curve"], cfg.eval.opponents, folder / "learning_curve.png", 1.0 / cfg.num_players)
    _save_model(cfg, folder / "model", nets, state["curve"])
    first, last = state["curve"][0], state["curve"][-1]
    log(f"the curve, iteration 0 -> {last['iteration']}: " + ", ".join(
        f"{spec} {first[spec][0]:.3f} -> {last[spec][0]:.3f} [{last[spec][1]:.3f}, {last[spec][2]:.3f}]"
        for spec in cfg.eval.opponents) + f" ({state['seconds']} s)")
    log(f"model: {folder / 'model'}   learning curve: {folder / 'learning_curve.png'}")
    return TurnValueResult(folder, state["curve"])


def _shares(point: dict, opponents) -> str:
    """A curve point's win shares as one line (the whole point is in ``progress.json``)."""
    return "win share against " + ", ".join(f"{spec} {point[spec][0]:.3f} [{point[spec][1]:.3f}, {point[spec][2]:.3f}]"
                                            for spec in opponents)


def _networks(cfg, folder: Path, done: int):
    """The policy ((first, second or None) networks) and critics to go on from: iteration
    ``done``'s, or the start (``turn_ppo.start``'s networks, or linear networks of zeros: uniform
    over the candidates; no critics yet)."""
    t = cfg.turn_ppo
    gated, learns_second = t.gate != "none", t.gate == "careless"
    if done:
        where = folder / f"iteration_{done}"
        card, first = model.load(where / "model")
        loose = model.load_careless(where / "model", card) if gated else None
        return (first, loose), _load_critics(where / CRITIC_FILE, t.critic_hidden, learns_second, critic_width(t))
    if t.start:
        start = start_folder(t.start)
        card, first = model.load(start)
        loose = model.load_careless(start, card) if card.get("careless_layers") else None
        if loose is not None and not gated:
            raise config_mod.ConfigError(f"turn_ppo.start: {t.start} holds two networks (a gate): set turn_ppo.gate "
                                         "careless to train both")
        return (first, _second(t.gate, loose or first)), (None, None)
    if not t.hidden:
        first = ZEROS
    else:
        first = tv.numpy_layers(tv.torch_network(FEATURES, list(t.hidden), cfg.seed, None)[1])
    return (first, _second(t.gate, first)), (None, None)


def start_folder(spec: str) -> Path:
    """The model folder ``turn_ppo.start`` names, as kc reads a model argument
    (``model_folder.model_folder``: a path, else a shipped model's name such as ``turn-ppo-2p``),
    a turn trainer's run folder standing for its model (``RUN/model``, what ``kc export`` copies);
    ``ConfigError`` in one line when it names none."""
    folder = folders.model_folder(spec)
    if folder is None:
        raise config_mod.ConfigError(f"turn_ppo.start: {spec} is no model folder, turn trainer's run folder or shipped "
                                     f"model ({', '.join(folders.shipped_models())})")
    if folders.card_format(folder) is None and folders.format_of(folder / "model") is not None:
        return folder / "model"
    return folder


def _second(gate: str, learned):
    """The second network a policy starts with under ``gate``: none, ``learned``, or the heuristic's pick."""
    return {"none": None, "careless": learned, "heuristic": ZEROS, "uniform": ZEROS}[gate]


def _update(cfg, it: int, nets, critics, data, log):
    """One PPO update of each network on the choices it made; returns the networks, the critics and
    the diagnostics (of the second network with the prefix ``careless_``)."""
    t, stats, new_nets, new_critics = cfg.turn_ppo, {}, [], []
    for which, (net, critic) in enumerate(zip(nets, critics, strict=True)):
        if net is None or (which and t.gate in FIXED_SECOND):  # no network, or a fixed second: nothing learns
            new_nets.append(net)
            new_critics.append(None)
            continue
        mine = data["nets"] == which
        if not mine.any():  # this network chose nothing this iteration (no seat was careless)
            new_nets.append(net)
            new_critics.append(critic or tv.numpy_layers(tv.torch_network(critic_width(t), list(t.critic_hidden), it, None)[1]))
            continue
        part = {key: value[mine] for key, value in data.items() if key != "shares"}
        prefix = "careless_" if which else ""
        net, critic, s = ppo_update(net, critic, part, t, seed=cfg.seed * 1000 + it * 2 + which,
                                    log=lambda msg, p=prefix: log(f"iteration {it}: {p}{msg}"))
        if not all(np.isfinite(a).all() for layer in (*net, *critic) for a in layer):
            raise RunError(f"iteration {it}: the update left {'the second' if which else 'the'} network's weights not "
                           f"finite; nothing of the iteration is kept (--resume repeats it)")
        new_nets.append(net)
        new_critics.append(critic)
        stats |= {f"{prefix}{key}": value for key, value in s.items()}
    return tuple(new_nets), tuple(new_critics), stats


def iteration_choices(cfg, it: int, nets) -> dict[str, np.ndarray]:
    """The choices of iteration ``it``'s deals (``rollouts.generate``'s), played by ``nets`` on
    training seeds (never an evaluation shuffle of the benchmark), dealt round the tables
    (``settings.tables_of``) in turn; what the update learns from, and what a diagnostic fits to."""
    t = cfg.turn_ppo
    seeds = np.arange(t.games, dtype=np.int64) + cfg.seed * 10**9 + (it - 1) * t.games
    banned = evaluation_set("kc-bench-v1")
    seeds = np.array([s for s in seeds if int(s) not in banned], dtype=np.int64)
    tables = tables_of(cfg)
    parts = []
    for i, (_, rules, n) in enumerate(tables):
        mine = seeds[i::len(tables)]
        rng = np.random.default_rng([cfg.seed, it] if len(tables) == 1 else [cfg.seed, it, i])
        solo = rng.random(len(mine)) >= t.self_play
        learners = np.where(solo, 1 << rng.integers(0, n, size=len(mine)), (1 << n) - 1)
        others = np.array([OTHERS.index(t.against[j % len(t.against)]) for j in range(len(mine))]) if t.against \
            else np.zeros(len(mine), np.int64)
        first = cfg.seed * 10**6 + it * 10**3 + i * ((len(seeds) + 511) // 512)
        parts += [rollouts.generate(rules, n, mine[at:at + 512], learners[at:at + 512], others[at:at + 512],
                                    nets, k=t.candidates, seed=first + at // 512,
                                    patience=t.patience, max_moves=cfg.max_moves, careless_heuristic=t.gate == "heuristic",
                                    careless_k=t.careless_candidates, hands=t.privileged_critic)
                  for at in range(0, len(mine), 512)]
    data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "shares"}
    if t.returns == "win":  # a blocked deal's 1 / players is worth a loss
        data["outcomes"] = (data["outcomes"] == 1.0).astype(np.float32)
    return data


def _evaluate(cfg, nets, point: dict) -> dict:
    """The policy, taking its best candidate and gated as it ships, in one seat against each of
    ``eval.opponents`` in the others, every deal from each seat (``rollouts.duel``)."""
    first = cfg.seed * 10**9 + EVAL_SEED_OFFSET
    for spec in cfg.eval.opponents:
        share, half = rollouts.duel(cfg.rules_object(), cfg.num_players, np.arange(cfg.eval.deals, dtype=np.int64) + first,
                                    nets, k=cfg.turn_ppo.candidates, against=spec, patience=cfg.turn_ppo.patience,
                                    max_moves=cfg.max_moves, careless_heuristic=cfg.turn_ppo.gate == "heuristic",
                                    careless_k=cfg.turn_ppo.careless_candidates,
                                    how=play_of(cfg.turn_ppo))
        point[spec] = [round(share, 4), round(max(0.0, share - half), 4), round(min(1.0, share + half), 4)]
    return point


def _save(cfg, where: Path, nets, critics, curve: list[dict]) -> Path:
    """Iteration folder: the policy as a model folder and the critics' arrays (both written whole)."""
    agent = _save_model(cfg, where / "model", nets, curve)
    buf = io.BytesIO()
    np.savez(buf, **model.network_arrays(*critics))
    write_atomic(where / CRITIC_FILE, buf.getvalue())
    return agent


def critic_width(t) -> int:
    """How many numbers the critic of the settings ``t`` reads of a candidate (``privileged_critic``)."""
    return FEATURES + (rollouts.HAND_FEATURES if t.privileged_critic else 0)


def _load_critics(path: Path, hidden: list[int], gated: bool, width: int):
    """The critics an iteration saved (the second only under a gate whose second network learns),
    each reading ``width`` numbers of a candidate."""
    prefixes = ["", model.CARELESS] if gated else [""]
    shapes, sizes = {}, [*hidden, 1]
    for prefix in prefixes:
        fan_in = width
        for i, size in enumerate(sizes):
            shapes[f"{prefix}w{i}"], shapes[f"{prefix}b{i}"] = (size, fan_in), (size,)
            fan_in = size
    arrays = folders.read_arrays(path, shapes, MAX_CRITIC_BYTES, dtypes=("float32",))
    critics = [[(arrays[f"{p}w{i}"], arrays[f"{p}b{i}"]) for i in range(len(sizes))] for p in prefixes]
    return (critics[0], critics[1] if gated else None)


def _save_model(cfg, where: Path, nets, curve: list[dict]) -> Path:
    t, tables = cfg.turn_ppo, tables_of(cfg)
    table = ({"tables": [{"name": name, "num_players": n, "rules": rules.to_dict()} for name, rules, n in tables]}
             if len(tables) > 1 else {"num_players": tables[0][2], "rules": tables[0][1].to_dict()})
    card = {"candidates": t.candidates, **table,
            "trained": {"trainer": "turn_ppo", "iterations": t.iterations, "games_per_iteration": t.games,
                        "self_play": t.self_play, "against": list(t.against), "advantage": t.advantage,
                        "gate": t.gate, "start": t.start, "seed": cfg.seed,
                        **({"privileged_critic": True} if t.privileged_critic else {}), "curve": curve}}
    with staged(where) as stage:  # the folder whole or not at all
        model.save(stage, nets[0], card, careless_layers=nets[1], patience=t.patience, careless_play=careless_play(t),
                   careless_candidates=t.careless_candidates)
    return where
