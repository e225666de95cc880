"""The evaluation shuffles of a suite: a published, fixed list of deal seeds, never trained on.

A shuffle is a deal seed (``engine.new_deal(rules, players, seed=...)`` shuffles the task's deck
with it). The list lives in the package (``data/<suite>-evaluation.json``) with its SHA-256, which
every run checks against the file's seeds and against the suite's lock (``data/<suite>-lock.json``,
written by ``freeze``) and prints, so two reports that name the same checksum played the same deals
(a damaged file, or a lock that does not lock it, is refused in one line naming the file:
``DamagedInstall``).
A task plays the first ``task.shuffles`` of the list (``task.quick_shuffles`` under ``--quick``),
each from every seat of the evaluated agent. Training never deals one: ``make_task_env(task,
"train")`` deals again whenever its seed is an evaluation shuffle (``evaluation_set``).
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import resources
from typing import TYPE_CHECKING

from ..files import strict_json
from .tasks import suite

if TYPE_CHECKING:  # importlib.resources.abc is Python 3.11's
    from importlib.resources.abc import Traversable

SIZE = 5000
"""Shuffles in a suite's list: the most any task plays."""


def generate(suite_name: str, size: int = SIZE) -> list[int]:
    """How the list was made (once, when the suite was frozen): seed ``i`` is the first 63 bits of
    ``sha256("<suite>/evaluation/<i>")``. The published file, not this function, is the list."""
    return [int.from_bytes(hashlib.sha256(f"{suite_name}/evaluation/{i}".encode()).digest()[:8], "big") >> 1
            for i in range(size)]


def checksum(seeds: list[int]) -> str:
    """The SHA-256 of a list of shuffles, as published: the seeds in order, one per line."""
    return hashlib.sha256("".join(f"{s}\n" for s in seeds).encode()).hexdigest()


def file_name(suite_name: str) -> str:
    return f"{suite_name}-evaluation.json"


class DamagedInstall(ValueError):
    """A file of the package's benchmark data (the evaluation shuffles, a suite's lock) that is not
    what it states: a damaged install."""


def data_file(suite_name: str) -> Traversable:
    """The suite's evaluation-shuffles file, in the package."""
    return resources.files(__package__).joinpath("data").joinpath(file_name(suite_name))


@functools.cache
def load(suite_name: str) -> tuple[tuple[int, ...], str]:
    """The suite's evaluation shuffles and their checksum, read from the package (``read``) and
    checked against the suite's lock (``lock``): ``DamagedInstall`` in one line naming the shuffles
    file when the lock locks another checksum (a rewritten or cut file that states its own checksum),
    or naming the lock when it lacks a task of the suite. ``published`` reads a suite not yet locked."""
    path = data_file(suite_name)
    seeds, stated = read(path)
    locked = lock(suite_name)
    if stated != locked["evaluation_sha256"]:
        raise damaged(path, "evaluation shuffles", f"({len(seeds)} seeds, sha256 {stated[:16]}...) are not those "
                      f"the suite's lock {lock_file(suite_name)} locks ({locked['evaluation_sha256'][:16]}...)")
    if missing := [t.id for t in suite(suite_name) if t.id not in locked["tasks"]]:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise damaged(lock_file(suite_name), "suite's lock",
                      f"does not lock {missing[0]}{more}, a task of {suite_name}")
    return seeds, stated


def published(suite_name: str) -> tuple[tuple[int, ...], str]:
    """The suite's evaluation shuffles and the checksum their file states, checked against that
    checksum alone (``read``), not against a lock: what ``freeze`` writes a new suite's lock from."""
    return read(data_file(suite_name))


def read(path: Traversable) -> tuple[tuple[int, ...], str]:
    """The shuffles of the file ``path`` and the checksum it states; ``DamagedInstall`` in one line
    naming the file when it cannot be read as JSON, holds no list of seeds with a checksum, or its
    seeds do not match that checksum."""
    try:
        data = strict_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise damaged(path, "evaluation shuffles", f"cannot be read ({exc})") from None
    seeds, stated = (data.get("shuffles"), data.get("sha256")) if isinstance(data, dict) else (None, None)
    if not (isinstance(seeds, list) and all(_is_seed(s) for s in seeds) and isinstance(stated, str)):
        raise damaged(path, "evaluation shuffles", "do not hold a list of deal seeds and their sha256")
    if checksum(seeds) != stated:
        raise damaged(path, "evaluation shuffles", f"do not match the checksum the file states ({stated[:16]}...)")
    return tuple(seeds), stated


def _is_seed(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def damaged(path: Traversable, what: str, problem: str) -> DamagedInstall:
    """The one-line refusal of the package's file ``path``, which holds ``what``."""
    return DamagedInstall(f"{path}: the {what} {problem}: the file is damaged (reinstall kc_env)")


LOCK_KEYS = ("suite", "evaluation_sha256", "tasks", "opponent_moves", "positions")
"""The parts of a suite's lock (``freeze``): the first two strings, the others dicts."""


def lock_name(suite_name: str) -> str:
    return f"{suite_name}-lock.json"


def lock_file(suite_name: str) -> Traversable:
    """The suite's lock (``freeze``), in the package."""
    return resources.files(__package__).joinpath("data").joinpath(lock_name(suite_name))


def lock(suite_name: str) -> dict:
    """The lock the package holds for the suite; ``DamagedInstall`` in one line naming the file
    when it cannot be read as JSON or lacks one of its parts (``LOCK_KEYS``)."""
    path = lock_file(suite_name)
    try:
        data = strict_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise damaged(path, "suite's lock", f"cannot be read ({exc})") from None
    if not (isinstance(data, dict) and all(isinstance(data.get(k), str if k in LOCK_KEYS[:2] else dict)
                                           for k in LOCK_KEYS)):
        raise damaged(path, "suite's lock", f"does not hold its {', '.join(LOCK_KEYS)}")
    return data


def evaluation(suite_name: str, count: int) -> tuple[int, ...]:
    """The first ``count`` evaluation shuffles of the suite."""
    seeds, _ = load(suite_name)
    if not 1 <= count <= len(seeds):
        raise ValueError(f"a task of {suite_name} plays 1 to {len(seeds)} shuffles, not {count}")
    return seeds[:count]


@functools.cache
def evaluation_set(suite_name: str) -> frozenset[int]:
    """Every evaluation shuffle of the suite, as a set."""
    return frozenset(load(suite_name)[0])


def write(suite_name: str, path) -> None:
    """Write the suite's list (``generate``) as the package publishes it."""
    seeds = generate(suite_name)
    data = {"suite": suite_name, "count": len(seeds), "sha256": checksum(seeds),
            "how": f"seed i = first 63 bits of sha256('{suite_name}/evaluation/i'); checksum: the seeds, one per line",
            "shuffles": seeds}
    path.write_text(json.dumps(data, indent=0) + "\n")
