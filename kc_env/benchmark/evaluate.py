"""Scoring an agent on a suite's tasks: ``evaluate(agent, tasks=...)`` -> ``Scorecard``.

Each task is a tournament (``kc_env.tournament``) of the agent against the task's opponents on
the task's evaluation shuffles, every shuffle played once from each of the agent's seats
(seat-rotated duplicate deals); against a pool, once against each member. A task's figure is the
agent's mean win share; its 95% interval is the paired bootstrap over shuffles
(``intervals.group_interval``). The scorecard's aggregates put the tasks on one scale, the
*relative share* (win share / fair share: 1 is as good as the table, 2 at two seats is winning
every deal), and report their IQM and mean with stratified bootstrap intervals, over all tasks,
per track, and for the rule-generalisation track's training and held-out tables apart.

A task is played in work units (``Unit``: a run of its shuffles against one lineup, about
``UNIT_DEALS`` deals), each episode with the index and seeds it has in the whole task, so the units
add up to the same tally however they are played; with ``partial`` each unit is kept in a partial
file as it ends (``progress``) and a later run with the same arguments plays only the rest.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..actions import whole_in
from ..agents import Agent
from ..match import win_share
from ..tournament import EpisodeResult, run_tournament
from . import intervals, shuffles, submission
from .progress import Partial, PartialError, run_header
from .submission import label
from .tasks import DEFAULT_SUITE, Task, find, suite, task_groups

SCHEMA = "kc-bench-scorecard/1"
"""The scorecard JSON's schema and its version (docs/benchmark.md, The scorecard)."""

UNIT_DEALS = 240
"""The deals of a work unit (whole shuffles, each from every seat: 120 shuffles at 2 seats, 40 at
6): a few minutes of the search agent on one core, the most an interrupt loses."""
MAX_WORKERS = 1024
"""The most worker processes a run may be given."""


def _check_workers(workers: int | None) -> None:
    """Before any deal: ``ValueError`` for ``workers`` that is not a whole number from 1 to
    ``MAX_WORKERS`` (or None: every core)."""
    if workers is not None:
        whole_in("workers", workers, 1, MAX_WORKERS)


def task_seed(task: Task) -> int:
    """The seed of a task's agents and of its bootstrap: fixed by the task's id."""
    return int.from_bytes(hashlib.sha256(task.id.encode()).digest()[:8], "big") >> 1


@dataclass
class Tally:
    """The agent's results in one task (or against one pool member, or in one unit), by shuffle:
    ``shuffles`` of them from shuffle ``first`` on."""

    shuffles: int
    first: int = 0
    share: np.ndarray = field(init=False)  # summed win share by shuffle
    seatings: np.ndarray = field(init=False)  # deals played by shuffle
    penalty: float = 0.0
    blocked: int = 0

    def __post_init__(self) -> None:
        self.share = np.zeros(self.shuffles)
        self.seatings = np.zeros(self.shuffles)

    def add(self, result: EpisodeResult, rounds: int, players: int) -> None:
        seat = result.lineup.index(0)
        shuffle = result.index // rounds - self.first
        self.share[shuffle] += win_share(seat, result.winners, players)
        self.seatings[shuffle] += 1
        self.penalty += result.scores[seat]
        self.blocked += result.blocked

    def merge(self, other: Tally) -> None:
        """Add ``other``, whose shuffles are some (or all) of these."""
        where = slice(other.first - self.first, other.first - self.first + other.shuffles)
        self.share[where] += other.share
        self.seatings[where] += other.seatings
        self.penalty += other.penalty
        self.blocked += other.blocked

    def to_dict(self) -> dict[str, Any]:
        """The tally as a partial file keeps it (floats written exactly, as ``repr`` writes them)."""
        return {"first": self.first, "share": self.share.tolist(), "seatings": self.seatings.tolist(),
                "penalty": float(self.penalty), "blocked": int(self.blocked)}

    @classmethod
    def from_dict(cls, data: dict[str, Any], shuffles: int, first: int) -> Tally:
        """A kept tally of ``shuffles`` shuffles from ``first``; ``ValueError`` when it is not one."""
        tally = cls(shuffles, first)
        share, seatings = np.asarray(data["share"], dtype=float), np.asarray(data["seatings"], dtype=float)
        if data["first"] != first or share.shape != (shuffles,) or seatings.shape != (shuffles,):
            raise ValueError(f"holds shuffles {data['first']} + {share.shape}, not {first} + ({shuffles},)")
        tally.share, tally.seatings = share, seatings
        tally.penalty, tally.blocked = float(data["penalty"]), int(data["blocked"])
        return tally

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


@dataclass(frozen=True)
class Unit:
    """A work unit: shuffles ``first`` to ``stop`` (not included) of ``task`` against its
    ``member``-th lineup, each from every seat of the agent."""

    task: Task
    member: int
    first: int
    stop: int

    @property
    def key(self) -> str:
        """How the partial file names the unit."""
        return f"{self.task.id} vs {self.task.members[self.member][0]} {self.first}-{self.stop}"

    @property
    def deals(self) -> int:
        return (self.stop - self.first) * self.task.num_players


def shuffle_count(task: Task, quick: bool) -> int:
    """The evaluation shuffles ``task`` plays (``quick``: its development count)."""
    return task.quick_shuffles if quick else task.shuffles


def units(task: Task, count: int) -> list[Unit]:
    """``task``'s work units when it plays ``count`` shuffles: per lineup, runs of about
    ``UNIT_DEALS`` deals."""
    size = max(1, UNIT_DEALS // task.num_players)
    return [Unit(task, member, first, min(count, first + size))
            for member in range(len(task.members)) for first in range(0, count, size)]


def play_unit(entry: str | Agent, unit: Unit, deals: Sequence[int], workers: int | None = None) -> Tally:
    """Play ``unit`` of the task whose evaluation shuffles are ``deals``: the agent's tally."""
    task = unit.task
    result = run_tournament([entry, *task.members[unit.member]], task.table_rules, task.num_players,
                            seed=task_seed(task), workers=workers, max_moves=task.max_moves, shuffles=deals,
                            ratings=False, rounds=range(unit.first, unit.stop),
                            labels=["agent"] + [f"seat+{i}" for i in range(1, task.num_players)])
    tally = Tally(unit.stop - unit.first, unit.first)
    for episode in result.results:
        tally.add(episode, len(result.seatings), task.num_players)
    return tally


def score_task(agent: str | Agent, task: Task, suite_name: str = DEFAULT_SUITE, quick: bool = False,
               workers: int | None = None, progress: bool = False, kept: Partial | None = None,
               report: Callable[[str], None] | None = None) -> TaskScore:
    """Play ``task`` for ``agent`` and score it (see the module docstring): its units in order,
    those ``kept`` holds taken from it and the others played and put in it. ``progress`` shows a
    bar of the task's deals; ``report`` gets a line on the units at most once a minute."""
    _check_workers(workers)  # the agent is checked by submission.entry
    count = shuffle_count(task, quick)
    deals = shuffles.evaluation(suite_name, count)
    entry = submission.entry(agent)
    seed = task_seed(task)
    plan = units(task, count)
    tallies = _unit_tallies(entry, plan, deals, workers, kept, _Meter(task, plan, kept, progress, report))
    total, per_opponent = Tally(count), {}
    for member, lineup in enumerate(task.members):
        tally = Tally(count)
        for unit, part in zip(plan, tallies, strict=True):
            if unit.member == member:
                tally.merge(part)
        per_opponent[lineup[0]] = tally.summary(seed)
        total.merge(tally)
    return TaskScore(task, count, total.summary(seed), per_opponent, total.group_means)


def _unit_tallies(entry: str | Agent, plan: list[Unit], deals: Sequence[int], workers: int | None,
                  kept: Partial | None, meter: _Meter) -> list[Tally]:
    """Each unit's tally: the kept one, else played (and kept)."""
    out = []
    try:
        for unit in plan:
            held = kept.get(unit.key) if kept else None
            if held is not None:
                out.append(_kept_tally(kept, unit, held))
                continue
            out.append(play_unit(entry, unit, deals, workers))
            if kept:
                kept.put(unit.key, out[-1].to_dict())
            meter.played(unit)
    finally:
        meter.close()
    return out


def _kept_tally(kept: Partial, unit: Unit, held: dict[str, Any]) -> Tally:
    try:
        return Tally.from_dict(held, unit.stop - unit.first, unit.first)
    except (KeyError, TypeError, ValueError) as exc:
        raise PartialError(f"{kept.path}: unit {unit.key!r} is not a tally ({exc}); "
                                    "delete the file to start again") from None


class _Meter:
    """A task's progress: a bar of its deals (``progress``) and, at most once a minute, a line
    saying how many are done (``report``)."""

    def __init__(self, task: Task, plan: list[Unit], kept: Partial | None, show: bool,
                 report: Callable[[str], None] | None) -> None:
        self.task, self.report, self.last = task, report, time.perf_counter()
        self.total = sum(u.deals for u in plan)
        self.done = sum(u.deals for u in plan if kept and kept.get(u.key) is not None)
        self.bar = None
        if show:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=self.done, unit="deal", desc=task.id, smoothing=0.1)

    def played(self, unit: Unit) -> None:
        self.done += unit.deals
        if self.bar is not None:
            self.bar.update(unit.deals)
        if self.report and time.perf_counter() - self.last >= 60:
            self.last = time.perf_counter()
            self.report(f"  {self.task.id}: {self.done} of {self.total} deals played (unit {unit.key} done)")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


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
             report: Callable[[str], None] | None = None, partial: str | Path | None = None) -> Scorecard:
    """Score ``agent`` (a spec, a model folder, ``module:Class``, ``file.py:Class`` or an
    ``Agent``) on ``tasks`` (ids; default: every task of the suite). ``report`` gets a line as
    each task ends (``kc benchmark`` prints them); ``progress`` shows a bar per task.

    ``partial``: a file that keeps each work unit as it ends; a later call with the same agent,
    suite, tasks and ``quick`` plays only the units it lacks, and gives the same scorecard
    (``PartialError`` for another run's file or a damaged one). The caller deletes the
    file once the scorecard is saved (``kc benchmark --json FILE`` keeps ``FILE.partial``).
    ``TypeError`` or ``ValueError`` in one line for an argument that cannot be (``submission.check_agent``, ``_check_workers``, ``find``)."""
    submission.check_agent(agent)  # before _partial names it
    _check_workers(workers)
    chosen = find(tasks, suite_name) if tasks is not None else suite(suite_name)
    kept = _partial(agent, chosen, suite_name, quick, partial, report) if partial is not None else None
    scores = []
    for i, task in enumerate(chosen, 1):
        started = time.perf_counter()
        score = score_task(agent, task, suite_name, quick, workers, progress, kept, report)
        scores.append(score)
        if report:
            f = score.figures
            report(f"[{i}/{len(chosen)}] {task.id}: win share {f['win_share']:.3f} "
                   f"[{f['low']:.3f}, {f['high']:.3f}] over {f['deals']} deals "
                   f"({time.perf_counter() - started:.0f} s)")
    return Scorecard(label(agent), suite_name, quick, scores)


def _partial(agent: str | Agent, chosen: Sequence[Task], suite_name: str, quick: bool, path: str | Path,
             report: Callable[[str], None] | None) -> Partial:
    """The run's partial file, read when it exists (and checked to be this run's)."""
    plan = [u for t in chosen for u in units(t, shuffle_count(t, quick))]
    deals = {t.id: sum(u.deals for u in plan if u.task is t) for t in chosen}
    head = run_header(label(agent), submission.entry(agent), suite_name, quick, chosen, deals, UNIT_DEALS)
    kept = Partial(path, head)
    if report and kept.units:
        done = [u for u in plan if kept.get(u.key) is not None]
        report(f"resuming from {path}: {len(done)} of {len(plan)} units "
               f"({sum(u.deals for u in done)} of {sum(u.deals for u in plan)} deals) already played")
    return kept
