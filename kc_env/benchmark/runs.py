"""Training runs as benchmark entries: each run folder keeps its scores on the suite's tasks at its
checkpoints (``benchmark.json``), and ``aggregate(runs)`` reports them over seeds the rliable way.

A trainer calls ``record(run, step, scorecard)`` after each benchmark evaluation (``kc train``
does when the config names ``benchmark.tasks``). ``kc benchmark --runs RUN...`` reads the folders
of several seeds of one config: the final scores make a ``runs x tasks`` matrix of relative
shares, reported as its IQM and mean with stratified bootstrap intervals over runs, and, against
a baseline scorecard, the probability that a run beats the baseline on a task; the rows at every
step give the sample-efficiency curve (IQM over runs at each step, with its interval). Every run's
final scores cover the same tasks (a run without one another scored is refused).

A run may also be given as the scorecard of its final policy (``kc benchmark MODEL --json``): how
a run is scored on tasks at other tables than the one it trained at (the multi-player and
rule-generalisation tracks). Such a run has its final scores and no curve.

Each file is read strictly and checked whole before any figure is computed (``read_json``,
``check_run``, ``check_scorecard``): one that is not JSON, holds NaN or Infinity, is nested too
deeply, or lacks a key the report reads or holds one of the wrong kind (a figure that is not a
finite number), or whose task lines count other players, shuffles or deals than their tasks do,
or score other pool members than their tasks have (or figures not their members' mean), is refused with one line naming the file and the key (``RunError``).
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..files import finite_number, strict_json, write_atomic
from . import intervals, shuffles
from .evaluate import SCHEMA as SCORECARD_SCHEMA
from .evaluate import Scorecard, shuffle_count
from .tasks import Task, suite, task_groups

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
    ``None``), checked (``check_run``, ``check_scorecard``); one line naming the path when it is
    neither, or when it holds what a run or a scorecard cannot."""
    path = Path(run)
    if path.is_file():
        return from_scorecard(path)
    path = path / FILE
    if not path.exists():
        raise RunError(f"{run}: no {FILE} (train with benchmark.tasks set in the config), "
                       "and not a scorecard file")
    data = read_json(path)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or not data.get("rows"):
        raise RunError(f"{path}: not a {SCHEMA} file with rows")
    return check_run(path, data)


def from_scorecard(path: Path) -> dict[str, Any]:
    """A scorecard (``kc benchmark --json``) as a run whose one row is its final policy's scores."""
    card = read_scorecard(path, f"not a run folder nor a {SCORECARD_SCHEMA} scorecard with tasks")
    return {"schema": SCHEMA, "suite": card["suite"], "quick": card["quick"],
            "rows": [{"step": None, "tasks": {t["id"]: t for t in card["tasks"]}}]}


def read_scorecard(path: str | Path, refusal: str = f"not a {SCORECARD_SCHEMA} scorecard (kc benchmark --json)"
                   ) -> dict[str, Any]:
    """The scorecard JSON file ``path`` (``kc benchmark --json``), checked (``check_scorecard``);
    ``RunError`` naming the file, saying ``refusal`` when it is not a scorecard at all."""
    path = Path(path)
    card = read_json(path)
    if not isinstance(card, dict) or card.get("schema") != SCORECARD_SCHEMA:
        raise RunError(f"{path}: {refusal}")
    return check_scorecard(path, card)


def final_scores(runs: Sequence[dict[str, Any]], names: Sequence[str | Path]) -> tuple[list[str], np.ndarray]:
    """The task ids the runs (named ``names``) scored at their last rows, and the ``runs x tasks``
    relative shares; ``RunError`` naming a run and a task it lacks that another run scored (an
    aggregate over the tasks they share would be a figure over fewer tasks than was asked)."""
    last = [r["rows"][-1]["tasks"] for r in runs]
    ids = list(dict.fromkeys(t for row in last for t in row))
    if not ids:
        raise RunError("the runs scored no task at their last rows")
    for name, row in zip(names, last, strict=True):
        if missing := [t for t in ids if t not in row]:
            other = next(n for n, r in zip(names, last, strict=True) if missing[0] in r)
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise RunError(f"{name} has no score on {missing[0]}{more}, which {other} has: "
                           "aggregate runs scored on the same tasks")
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
    seen: dict[str, str | Path] = {}
    for folder, data in zip(run_folders, runs, strict=True):  # a copy under another name is not another seed
        if (scores := json.dumps(data["rows"], sort_keys=True)) in seen:
            raise RunError(f"{folder} holds the same scores as {seen[scores]} (a copy?): each run counts once")
        seen[scores] = folder
    if len({(r["suite"], r["quick"]) for r in runs}) != 1:
        raise RunError("the runs were scored on different suites or deal counts")
    if len({r["rows"][-1]["step"] is None for r in runs}) != 1:
        raise RunError("give run folders or scorecards of final policies, not both")
    ids, scores = final_scores(runs, run_folders)
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


# -- checking what is read ------------------------------------------------------------------------
def read_json(path: Path) -> Any:
    """The JSON of ``path``, read strictly: NaN and Infinity are refused (JSON has no such
    numbers), as is a file not UTF-8 or nested too deeply to parse; ``RunError`` naming the file."""
    try:
        return strict_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # ValueError: not JSON, not UTF-8, NaN, a 5,000-digit number
        raise RunError(f"{path}: cannot read ({str(exc)[:200]})") from None
    except RecursionError:
        raise RunError(f"{path}: cannot read (nested too deeply)") from None


_Kind = tuple[Callable[[Any], bool], str]
"""What a value must be: its test, and its name for the message when it is not."""

_STRING: _Kind = (lambda v: isinstance(v, str), "a string")
_BOOL: _Kind = (lambda v: isinstance(v, bool), "true or false")
_NUMBER: _Kind = (finite_number, "a finite number")
_WHOLE: _Kind = (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number")
_STRINGS: _Kind = (lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v), "a list of strings")
_SPLIT: _Kind = (lambda v: v is None or isinstance(v, str), "a string or null")
_TASK: _Kind = (lambda v: isinstance(v, dict), "a task")
_TASK_LIST: _Kind = (lambda v: isinstance(v, list), "a list of tasks")
_TASK_DICT: _Kind = (lambda v: isinstance(v, dict), "a dict of tasks")
_ROW: _Kind = (lambda v: isinstance(v, dict), "a row")
_ROWS: _Kind = (lambda v: isinstance(v, list), "a list of rows")
_FIGURES: _Kind = (lambda v: isinstance(v, dict), "a dict of figures")
_INTERVAL = ("win_share", "low", "high")
"""The figures of a task (or a pool member) that a table of scorecards shows."""


def check_scorecard(path: Path, card: dict[str, Any]) -> dict[str, Any]:
    """``card``, the JSON of the scorecard ``path``, checked to hold what ``--runs``,
    ``--baseline`` and ``--table`` read of it: a known suite, its deal count and agent; one task
    or more of that suite, each with an id of its own and its line (``_check_task``); and its
    aggregates, those of its lines (``_check_aggregates``). ``RunError`` naming the file and the key otherwise."""
    for key, kind in (("suite", _STRING), ("quick", _BOOL), ("agent", _STRING)):
        _need(path, card, key, kind)
    known = _suite_tasks(path, card["suite"])
    _played_here(path, card)
    tasks = _need(path, card, "tasks", _TASK_LIST)
    if not tasks:
        raise RunError(f"{path}: tasks is an empty list (no task scored)")
    seen: dict[str, int] = {}
    for i, task in enumerate(tasks):
        _check(path, f"tasks[{i}]", task, _TASK)
        task_id = _need(path, task, "id", _STRING, f"tasks[{i}]")
        if task_id in seen:
            raise RunError(f"{path}: tasks[{i}].id {_shown(task_id)} is also tasks[{seen[task_id]}]'s")
        seen[task_id] = i
        _check_task(path, f"tasks[{i}]", task, known, task_id, card["quick"])
    _check_aggregates(path, card)
    return card


def _check_aggregates(path: Path, card: dict[str, Any]) -> None:
    """The scorecard's aggregates are those ``evaluate`` makes of its task lines: one per group of
    its tasks (``task_groups``) and no other, each counting the group's tasks, with an IQM and a
    mean whose value is that of the group's relative shares and lies inside its own interval (the
    interval, a bootstrap over shuffles the file does not hold, is not recomputed); ``RunError``
    naming the file and the aggregate otherwise."""
    tasks = card["tasks"]
    groups = task_groups([(t["tracks"], t["split"]) for t in tasks])
    aggregates = _need(path, card, "aggregates", _FIGURES)
    for name in aggregates:
        if name not in groups:
            raise RunError(f"{path}: aggregates.{name} is not a group of the scorecard's tasks "
                           f"({', '.join(groups)})")
    for name, members in groups.items():
        where = f"aggregates.{name}"
        if name not in aggregates:
            raise RunError(f"{path}: no {where} (a group of {len(members)} of the scorecard's tasks)")
        agg = _check(path, where, aggregates[name], _FIGURES)
        if (count := _need(path, agg, "tasks", _WHOLE, where)) != len(members):
            raise RunError(f"{path}: {where}.tasks {count} is not the group's {len(members)} task(s)")
        shares = [tasks[i]["relative_share"] for i in members]
        for kind, statistic in intervals.AGGREGATES.items():
            figures = _need(path, agg, kind, _FIGURES, where)
            _figures(path, f"{where}.{kind}", figures, ("value", "low", "high"))
            value = figures["value"]
            if not math.isclose(value, own := statistic(shares), rel_tol=1e-9, abs_tol=_ROUNDING):
                raise RunError(f"{path}: {where}.{kind}.value {value} is not the {kind} of its {len(members)} "
                               f"task(s)' relative shares ({own})")
            _in_interval(path, f"{where}.{kind}", figures, "value", math.inf)


def _played_here(path: Path, card: dict[str, Any]) -> None:
    """``RunError`` unless the scorecard names the checksum of its suite's evaluation shuffles as
    this kc_env holds them: two scorecards that name the same checksum played the same deals, and
    one that names another was played on other deals (or edited), so it is never mixed in."""
    played = _need(path, card, "evaluation_shuffles", _FIGURES)
    stated = _need(path, played, "sha256", _STRING, "evaluation_shuffles")
    _, checksum = shuffles.load(card["suite"])
    if stated != checksum:
        raise RunError(f"{path}: evaluation_shuffles.sha256 {stated[:12]}… is not {card['suite']}'s "
                       f"evaluation shuffles ({checksum[:12]}…): it was played on other deals")


def check_run(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """``data``, the JSON of the run file ``path``, checked to hold what ``aggregate`` reads of it:
    its suite and deal count, and each row's step and tasks (each as ``_check_task``, by its id).
    ``RunError`` naming the file and the key otherwise."""
    known = _suite_tasks(path, _need(path, data, "suite", _STRING))
    quick = _need(path, data, "quick", _BOOL)
    for i, row in enumerate(_need(path, data, "rows", _ROWS)):
        _check(path, f"rows[{i}]", row, _ROW)
        _need(path, row, "step", _WHOLE, f"rows[{i}]")
        for task_id, task in _need(path, row, "tasks", _TASK_DICT, f"rows[{i}]").items():
            _check_task(path, f"rows[{i}].tasks.{task_id}", task, known, task_id, quick)
    return data


def _suite_tasks(path: Path, name: str) -> dict[str, Task]:
    """The tasks of the suite a file names, by id; ``RunError`` for a suite this kc_env has not."""
    try:
        return {task.id: task for task in suite(name)}
    except ValueError as exc:
        raise RunError(f"{path}: {exc}") from None


def _check_task(path: Path, where: str, task: Any, known: dict[str, Task], task_id: str, quick: bool) -> None:
    """A task's line (of a scorecard, or of a run's row): a task of the suite, with that task's
    tracks and split; its win share inside its interval, inside [0, 1]; its relative share the win
    share over the task's fair share; its counts those of the task (``_check_counts``); and its pool
    members' figures, for a pool task only (``_check_pool``)."""
    _check(path, where, task, _TASK)
    if task_id not in known:
        raise RunError(f"{path}: {where}: no task {_shown(task_id)} in the suite")
    defined = known[task_id]
    _check_definition(path, where, task, defined)
    _figures(path, where, task, ("relative_share", *_INTERVAL))
    _in_interval(path, where, task)
    if not math.isclose(task["relative_share"], task["win_share"] / defined.fair_share, rel_tol=1e-9, abs_tol=1e-12):
        raise RunError(f"{path}: {where}.relative_share {task['relative_share']} is not its win_share over the "
                       f"fair share {defined.fair_share:g} ({task['win_share'] / defined.fair_share})")
    _check_counts(path, where, task, defined, quick)
    _check_pool(path, where, task, defined, quick)


_POOLED = ("win_share", "mean_penalty", "blocked_share")
"""A pool task's figures that are the mean of its members' (each member plays the same deals)."""


def _check_pool(path: Path, where: str, task: dict[str, Any], defined: Task, quick: bool) -> None:
    """A pool task's line has ``per_opponent``, one entry per member of ``defined``'s pool, each
    with its figures and counts, and its own win share, mean penalty and blocked share are the mean
    of its members' (as ``evaluate`` merges them); a task without a pool has no ``per_opponent``.
    ``RunError`` naming the file, the line and the key otherwise."""
    if not defined.pool:
        if "per_opponent" in task:
            raise RunError(f"{path}: {where}.per_opponent: {defined.id} has no pool of opponents to score apart")
        return
    members = _need(path, task, "per_opponent", _FIGURES, where)
    for member in members:
        if member not in defined.opponents:
            raise RunError(f"{path}: {where}.per_opponent.{member} is not a member of {defined.id}'s pool "
                           f"({', '.join(defined.opponents)})")
    for member in defined.opponents:
        name = f"{where}.per_opponent.{member}"
        if member not in members:
            raise RunError(f"{path}: no {name} (a member of {defined.id}'s pool)")
        _figures(path, name, members[member], _INTERVAL)
        _in_interval(path, name, members[member])
        _check_deals(path, name, members[member], defined, quick, lineups=1)
    for key in _POOLED:
        mean = math.fsum(members[m][key] for m in defined.opponents) / len(defined.opponents)
        if not math.isclose(task[key], mean, rel_tol=1e-9, abs_tol=_ROUNDING):
            raise RunError(f"{path}: {where}.{key} {task[key]} is not the mean of its pool members' ({mean})")


def _check_definition(path: Path, where: str, task: dict[str, Any], defined: Task) -> None:
    """A task's line states ``defined``'s tracks, split, rules, opponents and pool; ``RunError``
    naming the file, the line and the first that differs otherwise."""
    stated = {"tracks": _need(path, task, "tracks", _STRINGS, where), "split": _need(path, task, "split", _SPLIT, where),
              "rules": _need(path, task, "rules", _STRING, where), "opponents": _need(path, task, "opponents", _STRINGS, where),
              "pool": _need(path, task, "pool", _BOOL, where)}
    own = {"tracks": list(defined.tracks), "split": defined.split, "rules": defined.rules,
           "opponents": list(defined.opponents), "pool": defined.pool}
    for key, value in stated.items():
        if value != own[key]:
            raise RunError(f"{path}: {where}.{key} {reprlib.repr(value)} is not {defined.id}'s {reprlib.repr(own[key])}")


def _check_counts(path: Path, where: str, task: dict[str, Any], defined: Task, quick: bool) -> None:
    """A task's line counts what ``defined`` does: its players, the fair share 1/players, the
    shuffles it plays (``quick``: its quick count) and the deals they make (``_check_deals``);
    ``RunError`` naming the file, the line and the count otherwise."""
    for key, value in (("players", defined.num_players), ("shuffles", shuffle_count(defined, quick))):
        if (stated := _need(path, task, key, _WHOLE, where)) != value:
            raise RunError(f"{path}: {where}.{key} {stated} is not {defined.id}'s {value}")
    fair = _need(path, task, "fair_share", _NUMBER, where)
    if not math.isclose(fair, defined.fair_share, rel_tol=1e-9):
        raise RunError(f"{path}: {where}.fair_share {fair} is not 1/{defined.num_players} "
                       f"({defined.id}'s {defined.num_players} players)")
    _check_deals(path, where, task, defined, quick, len(defined.members))


def _check_deals(path: Path, where: str, figures: dict[str, Any], defined: Task, quick: bool, lineups: int) -> None:
    """``figures`` (a task's, or a pool member's: ``lineups`` 1) count the deals of ``defined``'s
    shuffles from every seat against ``lineups`` lineups, a mean penalty of 0 or more and a blocked
    share from 0 to 1; ``RunError`` naming the file, the figures and the count otherwise."""
    count = shuffle_count(defined, quick)
    expected = count * defined.num_players * lineups
    if (deals := _need(path, figures, "deals", _WHOLE, where)) != expected:
        raise RunError(f"{path}: {where}.deals {deals} is not {defined.id}'s {count} shuffles x "
                       f"{defined.num_players} seats x {lineups} lineup(s) ({expected})")
    if (penalty := _need(path, figures, "mean_penalty", _NUMBER, where)) < 0:
        raise RunError(f"{path}: {where}.mean_penalty {penalty} is below 0 (penalty points a deal)")
    if not 0 <= (blocked := _need(path, figures, "blocked_share", _NUMBER, where)) <= 1:
        raise RunError(f"{path}: {where}.blocked_share {blocked} is not from 0 to 1")


_ROUNDING = 1e-12
"""How far float rounding may put a figure outside its own interval."""


def _in_interval(path: Path, where: str, figures: dict[str, Any], key: str = "win_share", top: float = 1.0) -> None:
    """0 <= low <= ``key`` <= high <= ``top`` (to float rounding: a zero-width interval's ends are
    the mean summed otherwise), else ``RunError`` naming the figures."""
    low, share, high = figures["low"], figures[key], figures["high"]
    if not (0 <= low <= share + _ROUNDING and share <= high + _ROUNDING and high <= top):
        bound = "" if top == math.inf else f" <= {top:g}"
        raise RunError(f"{path}: {where}: {key} {share} with interval [{low}, {high}] is not "
                       f"0 <= low <= {key} <= high{bound}")


def _figures(path: Path, where: str, data: Any, keys: Sequence[str]) -> None:
    """``data`` a dict whose ``keys`` are finite numbers."""
    _check(path, where, data, _FIGURES)
    for key in keys:
        _need(path, data, key, _NUMBER, where)


def _need(path: Path, data: dict[str, Any], key: str, kind: _Kind, where: str = "") -> Any:
    """``data[key]``, checked to be of ``kind``; ``RunError`` naming the file and the key (after
    ``where``, the key of ``data`` itself) when it is missing or not of that kind."""
    name = f"{where}.{key}" if where else key
    if key not in data:
        raise RunError(f"{path}: no {name}")
    return _check(path, name, data[key], kind)


def _check(path: Path, name: str, value: Any, kind: _Kind) -> Any:
    """``value`` (the key ``name`` of the file ``path``) when it is of ``kind``, else ``RunError``."""
    test, what = kind
    if not test(value):
        raise RunError(f"{path}: {name} is {_shown(value)}, not {what}")
    return value


def _shown(value: Any) -> str:
    """``value`` for a message: a list or a dict by its kind, anything else by its (short) repr."""
    if isinstance(value, (list, dict)):
        kind = "list" if isinstance(value, list) else "dict"
        return f"an empty {kind}" if not value else f"a {kind}"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
