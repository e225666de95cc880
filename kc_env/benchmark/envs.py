"""A task as a training env: ``make_task_env(task, "train")`` (a ``Task`` or its id) is the
Gymnasium ``KingsCorner-v0`` at the task's table, against the task's opponents, that never deals
an evaluation shuffle.

What a submission may train on (docs/benchmark.md, What may not be trained on): any deal but the
suite's evaluation shuffles, and, in the rule-generalisation track, only the tables whose
``split`` is ``train``. ``TrainingDeals`` keeps the first promise: when a reset would deal one of
the suite's evaluation shuffles, it deals again (from the env's own generator, so the same seed
still gives the same episodes). Against a pool, each episode meets one member, drawn by the env.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

import gymnasium

from ..agents import load
from ..gym_env import KingsCornerEnv
from . import shuffles
from .tasks import DEFAULT_SUITE, Task, find

MAX_REDEALS = 100


class TrainingDeals(gymnasium.Wrapper):
    """Deals again whenever a reset deals a shuffle in ``forbidden`` (the evaluation shuffles);
    against a pool, seats one member, drawn at each reset, at every other seat."""

    def __init__(self, env: KingsCornerEnv, forbidden: Container[int], pool: tuple[str, ...] = ()) -> None:
        super().__init__(env)
        self.forbidden = forbidden
        self.pool = [[load(spec) for _ in range(env.unwrapped.aec.num_players - 1)] for spec in pool]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        table = self.env.unwrapped
        if self.pool:
            if seed is not None:
                gymnasium.Env.reset(table, seed=seed)  # seeds the env's generator, which draws the member
                seed = None
            table.opponents = self.pool[int(table.np_random.integers(len(self.pool)))]
        obs, info = self.env.reset(seed=seed, options=options)
        for _ in range(MAX_REDEALS):
            if table.aec.game.seed not in self.forbidden:
                return obs, info
            obs, info = self.env.reset(options=options)
        raise RuntimeError(f"{MAX_REDEALS} deals in a row were evaluation shuffles")  # pragma: no cover


def make_task_env(task: Task | str, split: str = "train", suite_name: str = DEFAULT_SUITE,
                  **kwargs: Any) -> gymnasium.Env:
    """The Gymnasium env to train for ``task`` (a ``Task``, or a task id of ``suite_name``) on:
    its rules, seats and opponents, the learner in a seat drawn at each reset, no evaluation
    shuffle ever dealt. ``kwargs`` go to ``KingsCornerEnv`` (``reward``, ``illegal_action``, ``render_mode``...); the task's own
    settings cannot be overridden. Raises ``ValueError`` for an unknown id, for another split,
    or for a held-out table of the rule-generalisation track, which a submission may not train on;
    ``TypeError`` for a ``task`` that is neither a ``Task`` nor an id."""
    if isinstance(task, str):
        task = find([task], suite_name)[0]
    if not isinstance(task, Task):
        raise TypeError(f"task must be a Task or a task id, not {task!r}")
    if split != "train":
        raise ValueError(f"split must be 'train', not {split!r}: the evaluation shuffles are played by "
                         "kc_env.benchmark.evaluate (or kc benchmark), never stepped by a learner")
    if task.split == "held-out":
        raise ValueError(f"{task.id} is a held-out table: a rule-generalisation submission may not train on it")
    fixed = {"rules", "num_players", "opponents", "max_moves", "episode"} & set(kwargs)
    if fixed:
        raise ValueError(f"{task.id} fixes {', '.join(sorted(fixed))}; a training env cannot change them")
    opponents = task.members[0]
    env = KingsCornerEnv(rules=task.table_rules, num_players=task.num_players, opponents=list(opponents),
                         max_moves=task.max_moves, episode=task.episode, **kwargs)
    forbidden = shuffles.evaluation_set(suite_name)
    return TrainingDeals(env, forbidden, task.opponents if task.pool else ())
