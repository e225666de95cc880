"""Scoring an agent on a suite's tasks: ``evaluate(agent, tasks=...)`` -> ``Scorecard``.

Each task is a tournament (``kc_env.tournament``) of the agent against the task's opponents on
the task's evaluation shuffles, every shuffle played once from each of the agent's seats
(seat-rotated duplicate deals); against a pool, once against each member. A task's figure is the
agent's mean win share; its 95% interval is the paired bootstrap over shuffles
(``intervals.group_interval``). The scorecard's aggregates put the tasks on one scale, the
*relative share* (win share / fair share: 1 is as good as the table, 2 at two seats is winning
every deal), and report their IQM and mean with stratified bootstrap intervals, over all tasks,
per track, and for the rule-generalisation track's training and held-out tables apart.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import __version__
from ..agents import Agent
from ..match import win_share
from ..tournament import EpisodeResult, run_tournament
from . import intervals, shuffles, submission
from .submission import label
from .tasks import DEFAULT_SUITE, Task, find, suite, task_groups

SCHEMA = "kc-bench-scorecard/1"
"""The scorecard JSON's schema and its version (docs/benchmark.md, The scorecard)."""


def task_seed(task: Task) -> int:
    """The seed of a task's agents and of its bootstrap: fixed by the task's id."""
    return int.from_bytes(hashlib.sha256(task.id.encode()).digest()[:8], "big") >> 1


@dataclass
class Tally:
    """The agent's results in one task (or against one pool member), by shuffle."""

    shuffles: int
    share: np.ndarray = field(init=False)  # summed win share by shuffle
    seatings: np.ndarray = field(init=False)  # deals played by shuffle
    penalty: float = 0.0
    blocked: int = 0

    def __post_init__(self) -> None:
        self.share = np.zeros(self.shuffles)
        self.seatings = np.zeros(self.shuffles)

    def add(self, result: EpisodeResult, rounds: int, players: int) -> None:
        seat = result.lineup.index(0)
        shuffle = result.index // rounds
        self.share[shuffle] += win_share(seat, result.winners, players)
        self.seatings[shuffle] += 1
        self.penalty += result.scores[seat]
        self.blocked += result.blocked

    def merge(self, other: Tally) -> None:
        self.share += other.share
        self.seatings += other.seatings
        self.penalty += other.penalty
        self.blocked += other.blocked

    @property
    def group_means(self) -> np.ndarray:
        return self.share / self.seatings

    def summary(self, seed: int) -> dict[str, Any]:
        deals = int(self.seatings.sum())
        low, high = intervals.group_interval(self.group_means, seed=seed)
        return {"win_share": float(self.share.sum() / deals), "low": low, "high": high, "deals": deals,
                "mean_penalty": self.penalty / deals, "blocked_share": self.blocked / deals}


@dataclass
class TaskScore:
    """One task's line of the scorecard."""

    task: Task
    shuffles: int
    figures: dict[str, Any]
    per_opponent: dict[str, dict[str, Any]]
    group_means: np.ndarray = field(repr=False)

    @property
    def relative(self) -> np.ndarray:
        """The shuffles' relative shares (win share / fair share)."""
        return self.group_means / self.task.fair_share

    def to_dict(self) -> dict[str, Any]:
        t = self.task
        return {"id": t.id, "tracks": list(t.tracks), "split": t.split, "rules": t.rules,
                "players": t.num_players, "opponents": list(t.opponents), "pool": t.pool,
                "shuffles": self.shuffles, "fair_share": t.fair_share, **self.figures,
                "relative_share": self.figures["win_share"] / t.fair_share,
                **({"per_opponent": self.per_opponent} if t.pool else {})}


def score_task(agent: str | Agent, task: Task, suite_name: str = DEFAULT_SUITE, quick: bool = False,
               workers: int | None = None, progress: bool = False) -> TaskScore:
    """Play ``task`` for ``agent`` and score it (see the module docstring)."""
    count = task.quick_shuffles if quick else task.shuffles
    deals = shuffles.evaluation(suite_name, count)
    entry = submission.entry(agent)
    seed = task_seed(task)
    total, per_opponent = Tally(count), {}
    for lineup in task.members:
        result = run_tournament([entry, *lineup], task.table_rules, task.num_players, seed=seed, workers=workers,
                                max_moves=task.max_moves, progress=progress, shuffles=deals, ratings=False,
                                labels=["agent"] + [f"seat+{i}" for i in range(1, task.num_players)])
        tally = Tally(count)
        for episode in result.results:
            tally.add(episode, len(result.seatings), task.num_players)
        per_opponent[lineup[0]] = tally.summary(seed)
        total.merge(tally)
    return TaskScore(task, count, total.summary(seed), per_opponent, total.group_means)


@dataclass
class Scorecard:
    """An agent's scores on a suite's tasks, and their aggregates."""

    agent: str
    suite: str
    quick: bool
    scores: list[TaskScore]
    command: str | None = None

    def aggregates(self) -> dict[str, dict[str, dict[str, float]]]:
        """IQM and mean of the relative share, with intervals, over every group of tasks."""
        groups = task_groups([(s.task.tracks, s.task.split) for s in self.scores])
        return {name: {agg: intervals.aggregate_over_groups([self.scores[i].relative for i in members], agg,
                                                            seed=len(members))
                       for agg in intervals.AGGREGATES}
                | {"tasks": len(members)}
                for name, members in groups.items()}

    def to_dict(self) -> dict[str, Any]:
        """The scorecard JSON (its schema: docs/benchmark.md). Deterministic: no timings."""
        _, checksum = shuffles.load(self.suite)
        return {"schema": SCHEMA, "suite": self.suite, "agent": self.agent, "quick": self.quick,
                "evaluation_shuffles": {"file": shuffles.file_name(self.suite), "sha256": checksum},
                "kc_env_version": __version__, "command": self.command,
                "tasks": [s.to_dict() for s in self.scores], "aggregates": self.aggregates()}


def evaluate(agent: str | Agent, tasks: str | Sequence[str] | None = None, suite_name: str = DEFAULT_SUITE,
             quick: bool = False, workers: int | None = None, progress: bool = False,
             report: Callable[[str], None] | None = None) -> Scorecard:
    """Score ``agent`` (a spec, a model folder, ``module:Class``, ``file.py:Class`` or an
    ``Agent``) on ``tasks`` (ids; default: every task of the suite). ``report`` gets a line as
    each task ends (``kc benchmark`` prints them); ``progress`` shows a bar per task."""
    chosen = find(tasks, suite_name) if tasks else suite(suite_name)
    scores = []
    for i, task in enumerate(chosen, 1):
        started = time.perf_counter()
        score = score_task(agent, task, suite_name, quick, workers, progress)
        scores.append(score)
        if report:
            f = score.figures
            report(f"[{i}/{len(chosen)}] {task.id}: win share {f['win_share']:.3f} "
                   f"[{f['low']:.3f}, {f['high']:.3f}] over {f['deals']} deals "
                   f"({time.perf_counter() - started:.0f} s)")
    return Scorecard(label(agent), suite_name, quick, scores)
