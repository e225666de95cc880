"""Tuning the heuristic prior's evaluation weights against the league (``tune:`` in a config).

The heuristic searches the rest of its turn and scores every position where it may end the turn
with ``kc_env.agents.heuristic.evaluation.evaluate``: a weighted sum of what the seat holds and what the position offers
the others (``WEIGHT_NAMES``). Its shipped weights were tuned by hand against
``greedy``. Before the network trains, this stage fits those weights for the table the learner
will meet, the league's rule-based agents, by an evolution strategy (Salimans et al. 2017):

    each generation, draw ``pairs`` directions e in the space of log weights; play the weights
    theta + sigma * e and theta - sigma * e, each in one seat, against opponents drawn from the
    league, on the same ``deals`` (every deal played once from every seat: common random
    numbers, so two candidates differ by their play, not by their cards); rank the 2 * pairs win
    shares, centre the ranks in [-0.5, 0.5]; step theta by ``step`` times the mean of
    (rank(+e) - rank(-e)) * e.

Ranks make the step independent of how noisy the shares are; a direction that wins more from
both sides of theta moves it. After the last generation the tuned weights play ``holdout_deals``
fresh deals against the league: that share, with its 95% interval, is the stage's result.

The network's prior is then the heuristic with the tuned weights: in training (the prior's
action in the observations, the rollout rewards' play-outs) and in the exported model
(``network.heuristic_weights`` in ``model.json``). ``tune.json`` in the run folder keeps every
generation, written after each one, so a killed run resumes at the next generation.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kc_env.agents.base import RULE_BASED
from kc_env.agents.batch import rule_based, weighted_heuristic
from kc_env.agents.heuristic import weights as heuristic_weights
from kc_env.game_info import GAME_INFO
from kc_env.vector import VecGame
from kc_env.vector import kernel as K

from ..config import TrainConfig
from .rollouts import play_out, shares

TUNE_FILE = "tune.json"
GREEDY, RANDOM = -1, -2
"""The rows of seats that ``greedy`` and ``random`` play, in the agent table of ``seat_shares``."""
OBJECTIVES = {"share": "win share", "wins": "win rate"}
AGENT_ROWS = {"heuristic": 0, "greedy": GREEDY, "random": RANDOM}
"""The league agents the tuning plays against, by their rows (0: the heuristic's own weights)."""
if set(AGENT_ROWS) != set(RULE_BASED):  # pragma: no cover - a new rule-based agent needs its row here
    raise ImportError(f"{__name__} plays {sorted(AGENT_ROWS)}, kc_env.agents.RULE_BASED is {RULE_BASED}")


def seat_shares(weights: np.ndarray, rules: Any, num_players: int, seeds: np.ndarray, opponents: np.ndarray,
                max_moves: int = GAME_INFO.default_max_moves, objective: str = "share", seed: int = 0) -> np.ndarray:
    """The win share ``[C, deals, seats]`` of the heuristic with each row of ``weights``
    (``[C, len(WEIGHT_NAMES)]``) in one seat against ``opponents``, on each of the deals
    ``seeds`` from each seat (``objective`` ``wins``: 1 for a deal won, 0 for any other, a
    blocked deal included; ``share``: a blocked deal without a winner counts 1/num_players).
    ``opponents[d, s, j]`` is who plays seat ``j`` of deal ``d`` when the candidate sits in
    seat ``s`` (``AGENT_ROWS``: ``0`` for the heuristic with ``HEURISTIC_WEIGHTS``), the same for
    every candidate; a ``random`` seat draws from a SplitMix64 stream seeded by ``seed`` and its
    deal and seat, so every candidate meets the same random opponent's stream."""
    weights = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    table = np.vstack([heuristic_weights.HEURISTIC_WEIGHTS[None, :], weights])
    n_cand, n_deals = len(weights), len(seeds)
    cand, deal, seat = (a.ravel() for a in np.meshgrid(np.arange(n_cand), np.arange(n_deals), np.arange(num_players),
                                                         indexing="ij"))
    agent = opponents[deal, seat].copy()  # [games, num_players]: the table row (or GREEDY) of every seat
    agent[np.arange(len(cand)), seat] = cand + 1
    game = VecGame(len(cand))
    idx = np.arange(len(cand), dtype=np.int64)
    game.deal(idx, rules, num_players, seeds[deal].tolist(), np.zeros(len(cand), dtype=np.int64), max_moves=max_moves)
    heuristic, greedy = weighted_heuristic(table), rule_based("greedy")
    streams = (np.uint64(seed % 2**64) + (deal * num_players + seat).astype(np.uint64)).astype(np.uint64)

    def play(obs: np.ndarray, masks: np.ndarray, games: np.ndarray, to_act: np.ndarray) -> np.ndarray:
        who = agent[games, to_act]
        acts = np.zeros(games.size, dtype=np.int64)
        searching, shedding, drawing = who >= 0, who == GREEDY, who == RANDOM
        if searching.any():
            acts[searching] = heuristic(obs[searching], masks[searching], rows=who[searching])
        if shedding.any():
            acts[shedding] = greedy(obs[shedding], masks[shedding])
        if drawing.any():  # a uniformly random legal action, as the vector env's random opponents
            rows = games[drawing]
            state, drawn = streams[rows], np.zeros(rows.size, dtype=np.int64)
            K.sample_masks(np.ascontiguousarray(masks[drawing], dtype=np.int8), state, drawn)
            streams[rows], acts[drawing] = state, drawn
        return acts

    winners = play_out(game, idx, play, seated=True)
    won = shares(winners, seat, num_players) if objective == "share" else (winners == seat).astype(np.float64)
    return won.reshape(n_cand, n_deals, num_players)


def draw_opponents(league: dict[str, float], num_players: int, deals: int, rng: np.random.Generator) -> np.ndarray:
    """Who plays each other seat: ``[deals, num_players (the candidate's seat), num_players]``,
    drawn from the league's agents by weight (``heuristic``, ``greedy`` and ``random``)."""
    names = sorted(league)
    p = np.array([league[n] for n in names], dtype=np.float64)
    p = p / p.sum() if p.sum() > 0 else np.full(len(names), 1.0 / len(names))
    rows = np.array([AGENT_ROWS[n] for n in names], dtype=np.int64)
    return rows[rng.choice(len(names), size=(deals, num_players, num_players), p=p)]


def centred_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks of ``x`` scaled to [-0.5, 0.5] (ties share their mean rank)."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(len(x), dtype=np.float64)
    for value in np.unique(x):  # ties: the mean of their ranks
        same = x == value
        ranks[same] = ranks[same].mean()
    return ranks / max(len(x) - 1, 1) - 0.5


def interval(values: np.ndarray) -> tuple[float, float]:
    """A 95% normal interval of the mean of ``values``."""
    half = 1.959964 * values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
    return float(values.mean() - half), float(values.mean() + half)


def start_weights(cfg: TrainConfig) -> dict[str, float]:
    """The prior's evaluation weights before any tuning: the shipped ones, with those the config
    names in ``network.heuristic_weights``."""
    return heuristic_weights.weights_by_name(heuristic_weights.evaluation_weights(cfg.network.heuristic_weights))


def tune(cfg: TrainConfig, folder: Path, log: Callable[[str], None] = print) -> dict[str, float]:
    """Run (or go on with) the tuning stage of ``cfg.tune`` in ``folder``; returns the tuned
    weights by name. Everything is kept in ``folder / tune.json``."""
    t = cfg.tune
    path = folder / TUNE_FILE
    state: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {
        "start": start_weights(cfg), "generations": []}
    start = heuristic_weights.evaluation_weights(state["start"])
    names = list(t.weights) or [n for n, v in zip(heuristic_weights.WEIGHT_NAMES, start, strict=True) if v > 0]
    tuned = np.array([heuristic_weights.WEIGHT_NAMES.index(n) for n in names], dtype=np.int64)
    rules = cfg.rules_object()
    last = state["generations"][-1]["weights"] if state["generations"] else state["start"]
    weights = heuristic_weights.evaluation_weights(last)
    theta = np.log(weights[tuned])  # the search is in the log of the tuned weights; the rest stay
    for g in range(len(state["generations"]), t.generations):
        rng = np.random.default_rng([cfg.seed, 20261130, g])
        eps = rng.standard_normal((t.pairs, len(tuned)))
        cand = np.repeat(weights[None, :], 2 * t.pairs, axis=0)
        cand[:, tuned] = np.exp(theta + t.sigma * np.concatenate([eps, -eps]))
        seeds = rng.integers(0, 2**62, size=t.deals)
        opponents = draw_opponents(cfg.league.agents, cfg.num_players, t.deals, rng)
        won = seat_shares(cand, rules, cfg.num_players, seeds, opponents, cfg.max_moves, t.objective,
                          seed=g).mean(axis=(1, 2))
        r = centred_ranks(won)
        theta += t.step * ((r[:t.pairs] - r[t.pairs:]) @ eps) / t.pairs
        weights[tuned] = np.exp(theta)
        state["generations"].append({"generation": g, "mean_share": float(won.mean()), "best_share": float(won.max()),
                                     "weights": heuristic_weights.weights_by_name(weights)})
        _write(path, state)
        log(f"tune: generation {g + 1}/{t.generations}: candidates' mean {OBJECTIVES[t.objective]} {won.mean():.3f} "
            f"(best {won.max():.3f}); " + ", ".join(f"{n} {weights[i]:.3g}" for n, i in zip(names, tuned, strict=True)))
    final = heuristic_weights.weights_by_name(weights)
    if t.holdout_deals and state.get("holdout", {}).get("weights") != final:
        rng = np.random.default_rng([cfg.seed, 20261130, -1 % 2**32])
        seeds = rng.integers(0, 2**62, size=t.holdout_deals)
        opponents = draw_opponents(cfg.league.agents, cfg.num_players, t.holdout_deals, rng)
        per_deal = seat_shares(weights, rules, cfg.num_players, seeds, opponents, cfg.max_moves, t.objective,
                               seed=-1 % 2**32)[0].mean(axis=1)
        low, high = interval(per_deal)
        state["holdout"] = {"weights": final, "deals": int(t.holdout_deals), "objective": t.objective,
                            "share": float(per_deal.mean()),
                            "interval": [low, high]}
        _write(path, state)
        log(f"tune: tuned weights on {t.holdout_deals} fresh deals against the league: {OBJECTIVES[t.objective]} "
            f"{per_deal.mean():.3f} [{low:.3f}, {high:.3f}]")
    return final


def _write(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state, indent=1) + "\n")
    tmp.replace(path)
