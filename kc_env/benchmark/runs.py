"""Training runs as benchmark entries: each run folder keeps its scores on the suite's tasks at its
checkpoints (``benchmark.json``), and ``aggregate(runs)`` reports them over seeds the rliable way.

A trainer calls ``record(run, step, scorecard)`` after each benchmark evaluation (``kc train``
does when the config names ``benchmark.tasks``). ``kc benchmark --runs RUN...`` reads the folders
of several seeds of one config: the final scores make a ``runs x tasks`` matrix of relative
shares, reported as its IQM and mean with stratified bootstrap intervals over runs, and, against
a baseline scorecard, the probability that a run beats the baseline on a task; the rows at every
step give the sample-efficiency curve (IQM over runs at each step, with its interval).

A run may also be given as the scorecard of its final policy (``kc benchmark MODEL --json``): how
a run is scored on tasks at other tables than the one it trained at (the multi-player and
rule-generalisation tracks). Such a run has its final scores and no curve.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..files import write_atomic
from . import intervals
from .evaluate import SCHEMA as SCORECARD_SCHEMA
from .evaluate import Scorecard
from .tasks import task_groups

FILE = "benchmark.json"
SCHEMA = "kc-bench-run/1"


class RunError(ValueError):
    """A run folder without benchmark scores, or runs that cannot be compared."""


def record(run: str | Path, step: int, card: Scorecard) -> None:
    """Add the scores of ``card`` at ``step`` to ``run``'s ``benchmark.json`` (written atomically;
    a row at the same step replaces the old one, so a resumed run does not count a step twice)."""
    path = Path(run) / FILE
    data = read(run) if path.exists() else {"schema": SCHEMA, "suite": card.suite, "quick": card.quick, "rows": []}
    if data["suite"] != card.suite or data["quick"] != card.quick:
        raise RunError(f"{path}: scores of {data['suite']} (quick={data['quick']}) cannot take a row of "
                       f"{card.suite} (quick={card.quick})")
    row = {"step": int(step), "tasks": {s.task.id: s.to_dict() for s in card.scores}}
    data["rows"] = sorted([r for r in data["rows"] if r["step"] != row["step"]] + [row], key=lambda r: r["step"])
    write_atomic(path, json.dumps(data, indent=1) + "\n")


def read(run: str | Path) -> dict[str, Any]:
    """A run's ``benchmark.json``, or a scorecard JSON file made into a run of one final row (step
    ``None``); one line naming the path when it is neither."""
    path = Path(run)
    if path.is_file():
        return from_scorecard(path)
    path = path / FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise RunError(f"{run}: no {FILE} (train with benchmark.tasks set in the config), "
                       "and not a scorecard file") from None
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read ({exc})") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not data.get("rows"):
        raise RunError(f"{path}: not a {SCHEMA} file with rows")
    return data


def from_scorecard(path: Path) -> dict[str, Any]:
    """A scorecard (``kc benchmark --json``) as a run whose one row is its final policy's scores."""
    try:
        card = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: cannot read ({exc})") from None
    if not isinstance(card, dict) or card.get("schema") != SCORECARD_SCHEMA or not card.get("tasks"):
        raise RunError(f"{path}: not a run folder nor a {SCORECARD_SCHEMA} scorecard with tasks")
    return {"schema": SCHEMA, "suite": card["suite"], "quick": card["quick"],
            "rows": [{"step": None, "tasks": {t["id"]: t for t in card["tasks"]}}]}


def final_scores(runs: Sequence[dict[str, Any]]) -> tuple[list[str], np.ndarray]:
    """The task ids every run scored at its last row, and the ``runs x tasks`` relative shares."""
    last = [r["rows"][-1]["tasks"] for r in runs]
    ids = [t for t in last[0] if all(t in row for row in last)]
    if not ids:
        raise RunError("the runs share no task at their last rows")
    return ids, np.array([[row[t]["relative_share"] for t in ids] for row in last])


def curve(runs: Sequence[dict[str, Any]], task_ids: list[str]) -> list[dict[str, float]]:
    """IQM of the relative share over runs and tasks at each step every run reached (none for
    runs given as scorecards)."""
    if any(row["step"] is None for r in runs for row in r["rows"]):
        return []
    steps = sorted(set.intersection(*({row["step"] for row in r["rows"]} for r in runs)))
    out = []
    for step in steps:
        rows = [next(row for row in r["rows"] if row["step"] == step)["tasks"] for r in runs]
        if all(t in row for row in rows for t in task_ids):
            scores = np.array([[row[t]["relative_share"] for t in task_ids] for row in rows])
            out.append({"step": step, **intervals.aggregate_over_runs(scores, "iqm")})
    return out


def aggregate(run_folders: Sequence[str | Path], baseline: dict[str, Any] | None = None) -> dict[str, Any]:
    """The runs' report: final IQM and mean with intervals, per-task means, the curve, and the
    probability of improvement over ``baseline`` (a scorecard's dict) on the tasks both have."""
    if len(run_folders) < 2:
        raise RunError("aggregate at least two runs (seeds) of one config")
    runs = [read(r) for r in run_folders]
    if len({(r["suite"], r["quick"]) for r in runs}) != 1:
        raise RunError("the runs were scored on different suites or deal counts")
    if len({r["rows"][-1]["step"] is None for r in runs}) != 1:
        raise RunError("give run folders or scorecards of final policies, not both")
    ids, scores = final_scores(runs)
    out: dict[str, Any] = {
        "schema": "kc-bench-runs/1", "suite": runs[0]["suite"], "quick": runs[0]["quick"],
        "runs": [str(r) for r in run_folders], "tasks": ids,
        "final_steps": [r["rows"][-1]["step"] for r in runs],
        "per_task_mean": dict(zip(ids, scores.mean(axis=0).tolist(), strict=True)),
        **{name: intervals.aggregate_over_runs(scores, name) for name in intervals.AGGREGATES},
        "groups": by_group(runs[0]["rows"][-1]["tasks"], ids, scores),
        "curve": curve(runs, ids)}
    if baseline is not None:
        if (baseline.get("suite"), baseline.get("quick")) != (out["suite"], out["quick"]):
            raise RunError(f"the baseline {baseline.get('agent')!r} was scored on {baseline.get('suite')} "
                           f"(quick={baseline.get('quick')}), the runs on {out['suite']} (quick={out['quick']}): "
                           "score it on the same deals")
        out["improvement"] = improvement_over(ids, scores, baseline)
    return out


def by_group(tasks: dict[str, Any], ids: list[str], scores: np.ndarray) -> dict[str, Any]:
    """IQM and mean over runs of each group of tasks (each track; the rule-generalisation track's
    train and held-out tables apart), as a scorecard's aggregates group them."""
    groups = task_groups([(tasks[t]["tracks"], tasks[t]["split"]) for t in ids])
    return {name: {"tasks": [ids[i] for i in members]}
            | {agg: intervals.aggregate_over_runs(scores[:, members], agg) for agg in intervals.AGGREGATES}
            for name, members in groups.items() if name != "all"}


def improvement_over(ids: list[str], scores: np.ndarray, baseline: dict[str, Any]) -> dict[str, Any]:
    """P(a run beats the baseline's score on a task), averaged over the tasks both scored."""
    theirs = {t["id"]: t["relative_share"] for t in baseline["tasks"]}
    shared = [i for i, t in enumerate(ids) if t in theirs]
    if not shared:
        raise RunError(f"the baseline {baseline.get('agent')!r} scored none of the runs' tasks")
    y = np.array([[theirs[ids[i]] for i in shared]])
    return {"baseline": baseline.get("agent"), "tasks": [ids[i] for i in shared],
            **intervals.improvement_interval(scores[:, shared], y)}
