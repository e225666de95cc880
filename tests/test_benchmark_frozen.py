"""A benchmark is a promise: a task's definition, its evaluation shuffles and its frozen
opponents' moves change only with a new task version (kc_env.benchmark.freeze)."""

from __future__ import annotations

from kc_env.benchmark import freeze
from kc_env.benchmark.tasks import SUITES


def test_every_suite_keeps_its_tasks_shuffles_and_opponents_as_locked():
    for name in SUITES:
        problems = freeze.changes(name)
        assert not problems, "\n".join(problems)


def test_a_changed_opponent_names_the_tasks_to_bump(monkeypatch):
    real = freeze.opponent_moves

    def heuristic_plays_otherwise(spec, rules, positions):
        moves = real(spec, rules, positions)
        return [m + 1 for m in moves] if spec == "heuristic" and rules == "pagat" else moves

    monkeypatch.setattr(freeze, "opponent_moves", heuristic_plays_otherwise)
    problems = freeze.changes("kc-bench-v1")
    assert problems == [
        "heuristic moves otherwise on the stored pagat/2 positions: bump kc/pagat-2p-vs-heuristic-v1",
        "heuristic moves otherwise on the stored pagat/4 positions: bump kc/pagat-4p-vs-heuristic-v1"]


def test_a_changed_definition_names_its_task(monkeypatch):
    from kc_env.benchmark import tasks

    changed = tuple(t if t.id != "kc/standard-6p-vs-heuristic-v1" else
                    tasks.Task(t.name, t.version, t.tracks, t.rules, t.num_players, t.opponents, shuffles=999)
                    for t in SUITES["kc-bench-v1"])
    monkeypatch.setitem(SUITES, "kc-bench-v1", changed)
    assert "kc/standard-6p-vs-heuristic-v1's definition changed: give it a new version" in freeze.changes("kc-bench-v1")
