"""The tasks of the benchmark suites: frozen definitions, each with a version in its id.

A task fixes everything that a reported figure depends on (``docs/benchmark.md``): the rules, the
seats at the table, the seats the evaluated agent takes, the frozen opponents at the other seats,
the reward and the kind of episode, the evaluation shuffles and how many of them, and the training
budget under which training runs are reported. Its id names the rules, the seat count and the
opponents, and ends with its version: ``kc/standard-2p-vs-heuristic-v1``. A task never changes
under its id; a change is a new version (``tests/test_benchmark_frozen.py`` holds every task's
definition and every frozen opponent's moves, and names the ids to bump when one changes).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ..game_info import GAME_INFO
from ..match import DEFAULT_MAX_MOVES
from ..rules import Rules

TRACKS = ("head-to-head", "multi-player", "rule-generalisation")
"""The tracks of a suite, in the order the scorecard lists them."""



def task_groups(tasks: Sequence[tuple[Sequence[str], str]]) -> dict[str, list[int]]:
    """The groups a report aggregates over, by name (``all``, each track, and the rule-generalisation
    track's ``train`` and ``held-out`` tables apart), each the indices of its members in ``tasks``
    (each task given as its ``(tracks, split)``); a group with no member is left out."""
    groups = {"all": list(range(len(tasks)))}
    for track in TRACKS:
        groups[track] = [i for i, (tracks, _) in enumerate(tasks) if track in tracks]
    for split in ("train", "held-out"):
        groups[f"rule-generalisation/{split}"] = [
            i for i, (tracks, task_split) in enumerate(tasks) if "rule-generalisation" in tracks and task_split == split]
    return {name: members for name, members in groups.items() if members}


CHEAP_SEARCH = "search:redeals=4,candidates=2"
"""The search agent at a cheap setting, as the head-to-head pool's member."""


@dataclass(frozen=True)
class Budget:
    """The reference training budget of a task: training runs are reported under it."""

    env_steps: int = 1_000_000
    """Environment steps of the learner (its own actions), over all training envs."""
    wall_minutes: int = 30
    """Wall time on ``cores`` cores, everything included (cloning, evaluation during training)."""
    cores: int = 2


@dataclass(frozen=True)
class Task:
    """One benchmark task (see the module docstring). ``opponents`` holds one spec per other
    seat, or a pool: with ``pool=True`` the agent meets each spec of ``opponents`` in turn, at
    every other seat, and the task's figure is the mean over the pool (each member also scored
    on its own)."""

    name: str
    """The id without its version: ``kc/standard-2p-vs-heuristic``."""
    version: int
    tracks: tuple[str, ...]
    """The tracks the task counts in (a standard-rules task can count in two)."""
    rules: str
    """A preset name (``Rules.preset``)."""
    num_players: int
    opponents: tuple[str, ...]
    pool: bool = False
    agent_seats: str = "rotated"
    """Where the evaluated agent sits: ``rotated`` (every seat in turn, each shuffle played once
    from each seat: seat-rotated duplicate deals)."""
    episode: str = "deal"
    max_moves: int = DEFAULT_MAX_MOVES
    """Moves after which a deal is cut off and counts as blocked (``kc_env.match.truncate``)."""
    reward: str = "win_share"
    """What a deal is worth to a seat: 1 for its winner, 1/n to every seat of a deal nobody won."""
    shuffles: int = 1000
    """How many evaluation shuffles the full run plays (the first of the suite's list)."""
    quick_shuffles: int = 100
    """How many the ``--quick`` run plays (a development figure, never a reported one)."""
    split: str | None = None
    """In the rule-generalisation track: ``train`` for a table a submission may train on,
    ``held-out`` for one it may not (reported apart)."""
    budget: Budget = field(default_factory=Budget)
    env_id: str = "KingsCorner-v0"
    """The Gymnasium env a learner plays the task in (``make_task_env``); the PettingZoo env is
    ``kc_env.kings_corner_v0``."""

    @property
    def id(self) -> str:
        return f"{self.name}-v{self.version}"

    @property
    def fair_share(self) -> float:
        """The win share of an agent as good as the table: 1 / players."""
        return 1.0 / self.num_players

    @property
    def members(self) -> tuple[tuple[str, ...], ...]:
        """The line-ups of opponents the agent meets: one per pool member, else the one table."""
        if self.pool:
            return tuple((spec,) * (self.num_players - 1) for spec in self.opponents)
        return (self.opponents,)

    def to_dict(self) -> dict:
        """The task as plain data, its layouts included (what a scorecard and the freeze hold)."""
        data = asdict(self)
        data.update(id=self.id, opponents=list(self.opponents), rules_dict=self.table_rules.to_dict(),
                    observation_layout=GAME_INFO.observation_layout_version,
                    observation_size=GAME_INFO.observation_size,
                    action_layout=GAME_INFO.action_layout_version, num_actions=GAME_INFO.num_distinct_actions)
        return data

    @property
    def table_rules(self) -> Rules:
        """The task's ``Rules``."""
        return Rules.preset(self.rules)

    def fingerprint(self) -> str:
        """A hash of the definition: what must not change under this id."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()


def _vs(rules: str, players: int, opponent: str, tracks: tuple[str, ...], **kwargs) -> Task:
    name = f"kc/{rules}-{players}p-vs-{opponent}"
    return Task(name, 1, tracks, rules, players, (opponent,) * (players - 1), **kwargs)


GENERALISATION_TRAIN = ("standard", "wikihow", "online")
"""The tables a rule-generalisation submission may train on (any mix, any share of each)."""
GENERALISATION_HELD_OUT = ("pagat", "printable", "bicycle", "german")
"""The tables it is scored on apart and may never train on. Each brings rule values that no
training table has: ``pagat`` draws at the end of the turn and keeps dealt kings on their sides
(``draw=end``, ``cross_kings=stay``); ``printable`` adds ``cross_king_move=first_turn``;
``bicycle`` adds ``must_play=all`` to ``cross_kings=stay``; ``german`` a scoring system the
observation shows (its deals play as standard's: the seat must not be thrown by the rules it reads)."""

POOL = ("random", "greedy", "heuristic", CHEAP_SEARCH, "ppo-standard-2p", "turn-ranking-2p")
"""The head-to-head pool: the rule-based agents, the search at a cheap setting, and the
learned models shipped for standard rules at two seats."""


def _suite_v1() -> tuple[Task, ...]:
    head, multi, general = TRACKS
    return (
        _vs("standard", 2, "heuristic", (head, general), shuffles=5000, quick_shuffles=250, split="train"),
        Task("kc/standard-2p-vs-pool", 1, (head,), "standard", 2, POOL, pool=True, shuffles=500, quick_shuffles=50),
        _vs("standard", 3, "heuristic", (multi,), shuffles=1000, quick_shuffles=60),
        _vs("standard", 4, "heuristic", (multi, general), shuffles=1000, quick_shuffles=60, split="train"),
        _vs("standard", 6, "heuristic", (multi,), shuffles=1000, quick_shuffles=60),
        *(_vs(preset, n, "heuristic", (general,), shuffles=500 if n == 2 else 300, quick_shuffles=40,
              split="train" if preset in GENERALISATION_TRAIN else "held-out")
          for preset in GENERALISATION_TRAIN[1:] + GENERALISATION_HELD_OUT for n in (2, 4)),
    )


SUITES: dict[str, tuple[Task, ...]] = {"kc-bench-v1": _suite_v1()}
"""Every suite by name, its tasks in order."""
DEFAULT_SUITE = "kc-bench-v1"


def suite(name: str = DEFAULT_SUITE) -> tuple[Task, ...]:
    """The tasks of the suite ``name``; one line naming the suites when there is none."""
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; suites: {', '.join(SUITES)}")
    return SUITES[name]


def find(task_ids: str | Sequence[str], suite_name: str = DEFAULT_SUITE) -> tuple[Task, ...]:
    """The tasks named by ``task_ids`` (a list, or ids joined by commas), in suite order; one line
    naming an unknown id and the known ones, or an id named twice (each task is scored once);
    ``TypeError`` when ``task_ids`` is not ids."""
    wanted = _ids(task_ids)
    if not wanted:
        raise ValueError("no task ids given (leave them out for every task of the suite)")
    tasks = suite(suite_name)
    known = {t.id for t in tasks}
    for i, task_id in enumerate(wanted):
        if task_id not in known:
            raise ValueError(f"no task {task_id!r} in {suite_name}; tasks: {', '.join(t.id for t in tasks)}")
        if task_id in wanted[:i]:
            raise ValueError(f"task {task_id!r} is named twice: each task is scored once")
    return tuple(t for t in tasks if t.id in wanted)


def _ids(task_ids: str | Sequence[str]) -> list[str]:
    """The ids of ``task_ids`` (ids joined by commas, or a list of them); ``TypeError`` otherwise."""
    if isinstance(task_ids, str):
        ids = [t.strip() for t in task_ids.split(",")] if task_ids.strip() else []
        if "" in ids:
            raise ValueError(f"an empty task id in {task_ids!r}: give ids joined by single commas")
        return ids
    if not isinstance(task_ids, Sequence) or not all(isinstance(t, str) for t in task_ids):
        raise TypeError(f"task_ids must be a task id, ids joined by commas or a list of ids, not {task_ids!r}")
    return list(task_ids)
