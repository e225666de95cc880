"""What a suite promises not to change under its task ids, written down and checked.

``data/<suite>-lock.json`` holds, for the suite: the checksum of its evaluation shuffles; each
task's definition (``Task.fingerprint``); and each frozen opponent's moves on a stored set of
positions from the tables it sits at (``POSITIONS_PER_TABLE`` per table, drawn once by random
play and kept as position text). ``tests/test_benchmark_frozen.py`` compares the lock with what
the code does now (``changes``) and names the task ids to bump when they differ: a change to the
heuristic's weights that alters one move on one stored position is a new task version.
``python -m kc_env.benchmark.freeze SUITE`` writes the lock: run it for a new suite or version,
never to make the test pass. The package reads the lock with ``shuffles.lock``, and every run checks
the evaluation shuffles against it (``shuffles.load``); writing a lock reads the shuffles unchecked
(``shuffles.published``), so a suite that has none yet can be frozen.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

from .. import engine, play
from ..agents import load
from ..rules import Rules
from . import shuffles
from .tasks import Task, suite

POSITIONS_PER_TABLE = 16
DEALS_PER_TABLE = 8


def tables(tasks: tuple[Task, ...]) -> list[tuple[str, int]]:
    """The suite's tables (rules, players), in first-use order."""
    return list(dict.fromkeys((t.rules, t.num_players) for t in tasks))


def draw_positions(rules: str, players: int) -> list[str]:
    """Positions of a table, as text: random play from ``DEALS_PER_TABLE`` fixed deals, two
    positions of each at moves drawn from a fixed generator."""
    rng = random.Random(f"kc-bench positions {rules} {players}")
    out = []
    for _ in range(DEALS_PER_TABLE):
        state = engine.new_deal(Rules.preset(rules), players, seed=rng.randrange(2**63))
        stops = sorted(rng.sample(range(1, 60), POSITIONS_PER_TABLE // DEALS_PER_TABLE))
        while stops and not state.is_over:
            if state.move_count == stops[0]:
                out.append(engine.to_text(state))
                stops.pop(0)
            engine.apply(state, rng.choice(engine.legal_moves(state)))
    return out


def opponent_moves(spec: str, rules: str, positions: list[str]) -> list[int]:
    """The actions ``spec`` chooses on ``positions`` (its agent reseeded by position), each from
    the seat to act's observation (``play.observe``, as every table shows it)."""
    agent = load(spec, seed=0)
    chosen = []
    for i, text in enumerate(positions):
        state = engine.from_text(text, Rules.preset(rules))
        agent.reset(seed=i)
        obs = play.observe(state)  # asked and checked as every seat of a deal is: one line naming a failing agent
        mask = obs["action_mask"].copy()  # the agent may write on what it is shown
        chosen.append(play.check_action(play.ask(agent, obs, state.current_player), mask, state, agent))
    return chosen


def _digest(values) -> str:
    return hashlib.sha256(json.dumps(values).encode()).hexdigest()


def opponents_by_table(tasks: tuple[Task, ...]) -> dict[tuple[str, int], list[str]]:
    """Each table's frozen opponents."""
    out: dict[tuple[str, int], list[str]] = {}
    for t in tasks:
        out.setdefault((t.rules, t.num_players), [])
        out[(t.rules, t.num_players)] += [s for s in dict.fromkeys(t.opponents) if s not in out[(t.rules, t.num_players)]]
    return out


def current(suite_name: str, positions: dict[str, list[str]] | None = None) -> dict:
    """The lock as the code makes it now; ``positions`` (by table key) reuses stored positions."""
    tasks = suite(suite_name)
    stored = positions or {}
    table_positions = {f"{r}/{n}": stored.get(f"{r}/{n}") or draw_positions(r, n) for r, n in tables(tasks)}
    moves = {f"{r}/{n}": {spec: _digest(opponent_moves(spec, r, table_positions[f'{r}/{n}'])) for spec in specs}
             for (r, n), specs in opponents_by_table(tasks).items()}
    return {"suite": suite_name, "evaluation_sha256": shuffles.published(suite_name)[1],  # no lock to check yet
            "tasks": {t.id: t.fingerprint() for t in tasks}, "opponent_moves": moves, "positions": table_positions}


def changes(suite_name: str) -> list[str]:
    """One line per promise the code no longer keeps, naming the task ids to bump."""
    lock = shuffles.lock(suite_name)
    now = current(suite_name, lock["positions"])
    tasks = suite(suite_name)
    out = []
    if now["evaluation_sha256"] != lock["evaluation_sha256"]:
        out.append(f"the evaluation shuffles changed: bump every task of {suite_name} (a new suite)")
    for task_id, fingerprint in now["tasks"].items():
        if task_id in lock["tasks"] and lock["tasks"][task_id] != fingerprint:
            out.append(f"{task_id}'s definition changed: give it a new version")
    for table, specs in lock["opponent_moves"].items():
        for spec, digest in specs.items():
            if now["opponent_moves"].get(table, {}).get(spec) != digest:
                ids = [t.id for t in tasks if f"{t.rules}/{t.num_players}" == table and spec in t.opponents]
                out.append(f"{spec} moves otherwise on the stored {table} positions: bump {', '.join(ids)}")
    missing = set(now["tasks"]) - set(lock["tasks"])
    if missing:
        out.append(f"tasks not in the lock: {', '.join(sorted(missing))} (write the lock for a new task)")
    return out


def write(suite_name: str, path: Path) -> None:
    path.write_text(json.dumps(current(suite_name), indent=1) + "\n")


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "kc-bench-v1"
    target = Path(__file__).resolve().parent / "data" / shuffles.lock_name(name)
    write(name, target)
    print(f"wrote {target}")
