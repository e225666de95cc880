"""kc-bench: Kings in the Corner as a benchmark (docs/benchmark.md).

A suite (``kc-bench-v1``) of versioned tasks (``tasks``), each with frozen opponents and a
published set of evaluation shuffles (``shuffles``) that training never deals
(``make_task_env``); ``evaluate(agent, tasks=...)`` scores any agent on them with intervals that
respect the duplicate deals (``intervals``) and returns a ``Scorecard``; ``kc benchmark`` is the
same from the command line.
"""

from __future__ import annotations

from .envs import make_task_env
from .evaluate import SCHEMA, Scorecard, TaskScore, evaluate, score_task
from .tasks import DEFAULT_SUITE, SUITES, TRACKS, Budget, Task, find, suite

__all__ = ["make_task_env", "SCHEMA", "Scorecard", "TaskScore", "evaluate", "score_task", "DEFAULT_SUITE", "SUITES", "TRACKS",
           "Budget", "Task", "find", "suite"]
