"""A benchmark run's partial file: the finished work units of a long run, kept as they end.

``kc benchmark AGENT --json FILE`` keeps ``FILE.partial`` beside the scorecard while it plays:
each work unit (``evaluate.Unit``: a piece of a task, a few hundred deals) is written to it as it
ends, the whole file at once (``files.write_atomic``: a temporary file renamed over it), so an
interrupt (Ctrl-C, a kill, the end of a session) leaves it whole. Run again, the same command
reads it, skips the units it holds and plays the rest; the units are the same episodes with the
same seeds whichever session plays them, so the scorecard is byte for byte the one an
uninterrupted run writes. ``kc benchmark`` deletes the file once the scorecard is written.

The file names what its units depend on (``run_header``): the agent, the suite, the tasks with their
deal counts, the unit size, the checksums of the evaluation shuffles and of the suite's lock, the
``kc_env`` version, and the digest of the agent's moves on the lock's stored positions (the agent's
code changed when they differ). A run that does not match them is refused in one line, as is a
file that is not a partial file.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__
from ..agents import Agent
from ..files import write_atomic
from . import freeze, shuffles
from .tasks import Task

SCHEMA = "kc-bench-partial/1"
"""The partial file's schema and its version."""

SUFFIX = ".partial"
"""The partial file of ``--json FILE`` is ``FILE.partial``."""


class PartialError(ValueError):
    """A partial file that cannot be resumed: another run's, or not a partial file at all."""


def partial_path(scorecard: str | Path) -> Path:
    """Where the run that writes ``scorecard`` keeps its finished units."""
    return Path(f"{scorecard}{SUFFIX}")


def lock_checksum(suite_name: str) -> str:
    """The SHA-256 of the suite's lock file (``freeze``) as the package holds it (a damaged one is
    refused by ``shuffles.load``, which every run reads first)."""
    return hashlib.sha256(shuffles.lock_file(suite_name).read_bytes()).hexdigest()


def agent_moves(entry: str | Agent, task: Task, suite_name: str) -> dict[str, str]:
    """The digest of the agent's moves on the lock's stored positions of ``task``'s table: a
    change to the agent's code that alters one of them changes the digest."""
    table = f"{task.rules}/{task.num_players}"
    positions = shuffles.lock(suite_name)["positions"][table]
    agent = copy.deepcopy(entry) if isinstance(entry, Agent) else entry
    moves = freeze.opponent_moves(agent, task.rules, positions)
    return {"table": table, "sha256": hashlib.sha256(json.dumps(moves).encode()).hexdigest()}


def run_header(agent: str, entry: str | Agent, suite_name: str, quick: bool, tasks: Sequence[Task],
           deals: dict[str, int], unit_deals: int) -> dict[str, Any]:
    """What a run's units depend on: a partial file whose header differs is another run's."""
    return {"schema": SCHEMA, "agent": agent, "suite": suite_name, "quick": quick,
            "tasks": [[t.id, deals[t.id]] for t in tasks], "unit_deals": unit_deals,
            "evaluation_sha256": shuffles.load(suite_name)[1], "lock_sha256": lock_checksum(suite_name),
            "kc_env_version": __version__, "agent_moves": agent_moves(entry, tasks[0], suite_name)}


def _difference(path: Path, kept: dict[str, Any], now: dict[str, Any]) -> str | None:
    """One line naming the first way the partial file's run differs from this one, or None."""
    for key, value in now.items():
        if kept.get(key) == value:
            continue
        if key == "tasks":
            return (f"{path}: begun for other tasks or deal counts ({len(kept.get(key) or [])} task(s), "
                    f"{len(value)} now); run its own command to finish it, or delete it to start again")
        if key == "agent_moves":
            return (f"{path}: the agent moves otherwise on the stored {value['table']} positions than when the "
                    "file was begun (its code changed); its units are not this agent's: delete it to start again")
        return (f"{path}: begun by another run ({key} {kept.get(key)!r}, now {value!r}); "
                "run its own command to finish it, or delete it to start again")
    return None


class Partial:
    """The finished units of one run, read from and written to its partial file."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.header = header
        self.units: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self.units = self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError) as exc:
            raise PartialError(f"{self.path}: not a readable partial file ({_first_line(exc)}); "
                               "delete it to start again") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("units"), dict):
            raise PartialError(f"{self.path}: not a {SCHEMA} file (kc benchmark --json keeps one); "
                               "delete it to start again")
        problem = _difference(self.path, data.get("header", {}), self.header)
        if problem:
            raise PartialError(problem)
        return data["units"]

    def get(self, key: str) -> dict[str, Any] | None:
        """The kept tally of unit ``key`` (``evaluate.Tally.to_dict``), if it finished."""
        return self.units.get(key)

    def put(self, key: str, tally: dict[str, Any]) -> None:
        """Keep unit ``key``'s tally: the whole file is written again, atomically."""
        self.units[key] = tally
        self._write()

    def _write(self) -> None:
        units = ",\n".join(f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in self.units.items())
        text = (f'{{"schema": {json.dumps(SCHEMA)},\n "header": {json.dumps(self.header)},\n'
                f' "units": {{\n{units}\n }}\n}}\n')
        write_atomic(self.path, text)

    def remove(self) -> None:
        """Delete the file: its run's scorecard is written."""
        self.path.unlink(missing_ok=True)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]
