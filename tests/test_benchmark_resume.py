"""kc benchmark across sessions (issue 33): a run keeps its finished work units in FILE.partial,
and the same command run again after an interrupt plays only the rest and writes byte for byte the
scorecard of an uninterrupted run; another run's partial file, or a damaged one, is refused in one
line."""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest

from kc_env import benchmark, files
from kc_env.agents import Agent
from kc_env.benchmark import progress
from kc_env.cli import main
from kc_env.commands.benchmark import command
from kc_env.tournament import run_tournament

evaluate_module = importlib.import_module("kc_env.benchmark.evaluate")
PLAY_UNIT = evaluate_module.play_unit

TASKS = "kc/standard-3p-vs-heuristic-v1,kc/pagat-2p-vs-heuristic-v1"


@pytest.fixture(autouse=True)
def small_runs(monkeypatch):
    """Quick tasks of 8 shuffles in units of 8 deals: 4 units at 3 seats, 2 at 2 (6 in all)."""
    monkeypatch.setattr(evaluate_module, "UNIT_DEALS", 8)
    monkeypatch.setattr(evaluate_module, "shuffle_count", lambda task, quick: 8 if quick else task.shuffles)


def run(tmp_path, agent="random", *extra, tasks=TASKS):
    return main(["benchmark", agent, "--tasks", tasks, "--quick", "--workers", "1",
                 "--json", str(tmp_path / "card.json"), *extra])


def interrupt_after(monkeypatch, units: int) -> None:
    """Ctrl-C as the unit after the first ``units`` begins."""
    played = []
    def play_unit(*args, **kwargs):
        if len(played) == units:
            raise KeyboardInterrupt
        played.append(1)
        return PLAY_UNIT(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "play_unit", play_unit)


def partial_units(tmp_path) -> dict:
    return json.loads((tmp_path / "card.json.partial").read_text())["units"]


def test_a_tournament_played_in_rounds_plays_the_whole_ones_episodes():
    deals = benchmark.shuffles.evaluation("kc-bench-v1", 6)
    whole = run_tournament(["random", "greedy"], "standard", 2, seed=5, workers=1, shuffles=deals, ratings=False)
    pieces = [run_tournament(["random", "greedy"], "standard", 2, seed=5, workers=1, shuffles=deals, ratings=False,
                             rounds=rounds).results for rounds in (range(0, 2), range(2, 3), range(3, 6))]

    def key(r):
        return r.index, r.lineup, r.winners, r.scores, r.moves

    assert [key(r) for r in whole.results] == [key(r) for piece in pieces for r in piece]


def test_an_interrupted_run_resumed_writes_the_uninterrupted_runs_json(tmp_path, monkeypatch, capsys):
    assert run(tmp_path) == 0
    whole = (tmp_path / "card.json").read_bytes()
    assert not (tmp_path / "card.json.partial").exists()  # gone once the scorecard is written
    (tmp_path / "card.json").unlink()
    interrupt_after(monkeypatch, 3)
    assert run(tmp_path) == 130
    assert "kept in" in capsys.readouterr().err
    assert len(partial_units(tmp_path)) == 3 and not (tmp_path / "card.json").exists()
    interrupt_after(monkeypatch, 2)  # a second session, interrupted too
    assert run(tmp_path) == 130
    assert len(partial_units(tmp_path)) == 5
    monkeypatch.setattr(evaluate_module, "play_unit", PLAY_UNIT)
    assert run(tmp_path) == 0
    assert "resuming from" in capsys.readouterr().err
    assert (tmp_path / "card.json").read_bytes() == whole
    assert not (tmp_path / "card.json.partial").exists()


class Stop(Agent):
    """Plays its first legal action; raises Ctrl-C at the ``BUDGET[0]``-th decision from now."""

    label = "stop-agent"
    BUDGET = [None]

    def act(self, obs):
        if Stop.BUDGET[0] is not None:
            Stop.BUDGET[0] -= 1
            if Stop.BUDGET[0] < 0:
                raise KeyboardInterrupt
        return int(np.flatnonzero(obs["action_mask"])[0])


class LastLegal(Agent):
    label = "stop-agent"

    def act(self, obs):
        return int(np.flatnonzero(obs["action_mask"])[-1])


def test_ctrl_c_in_the_middle_of_a_unit_loses_only_that_unit(tmp_path):
    tasks = TASKS.split(",")
    whole = benchmark.evaluate(Stop(), tasks, quick=True, workers=1).to_dict()
    path = tmp_path / "card.json.partial"
    Stop.BUDGET[0] = 16 + 200  # the agent's moves on the stored positions, then about two units
    try:
        with pytest.raises(KeyboardInterrupt):
            benchmark.evaluate(Stop(), tasks, quick=True, workers=1, partial=path)
    finally:
        Stop.BUDGET[0] = None
    done = len(json.loads(path.read_text())["units"])
    assert 0 < done < 6
    assert benchmark.evaluate(Stop(), tasks, quick=True, workers=1, partial=path).to_dict() == whole


def test_an_agent_whose_moves_changed_does_not_resume_the_old_agents_units(tmp_path):
    path = tmp_path / "card.json.partial"
    tasks = TASKS.split(",")[:1]
    evaluate_module.evaluate(Stop(), tasks, quick=True, workers=1, partial=path)
    with pytest.raises(progress.PartialError, match="moves otherwise on the stored standard/3 positions"):
        evaluate_module.evaluate(LastLegal(), tasks, quick=True, workers=1, partial=path)


@pytest.mark.parametrize("agent, tasks, problem", [
    ("greedy", TASKS, "begun by another run (agent 'random', now 'greedy')"),
    ("random", "kc/standard-3p-vs-heuristic-v1", "begun for other tasks or deal counts (2 task(s), 1 now)"),
])
def test_another_runs_partial_file_is_refused_in_one_line(tmp_path, monkeypatch, capsys, agent, tasks, problem):
    interrupt_after(monkeypatch, 1)
    assert run(tmp_path) == 130
    capsys.readouterr()
    assert run(tmp_path, agent, tasks=tasks) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and problem in err[-1] and "card.json.partial" in err[-1]  # after the run's header line
    assert len(partial_units(tmp_path)) == 1  # left as it was


def test_a_full_run_does_not_resume_a_quick_runs_units(tmp_path, monkeypatch, capsys):
    interrupt_after(monkeypatch, 1)
    assert run(tmp_path) == 130
    capsys.readouterr()
    assert main(["benchmark", "random", "--tasks", TASKS, "--json", str(tmp_path / "card.json")]) == 2
    assert "begun by another run (quick True, now False)" in capsys.readouterr().err


@pytest.mark.parametrize("text, problem", [
    ("{\"schema\": \"kc-bench-partial/1\", \"units\": {", "not a readable partial file"),
    ("[1, 2]", "not a kc-bench-partial/1 file"),
    ("", "not a readable partial file"),
])
def test_a_damaged_partial_file_is_refused_in_one_line(tmp_path, capsys, text, problem):
    (tmp_path / "card.json.partial").write_text(text)
    assert run(tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert problem in err[-1] and "delete it to start again" in err[-1]


def test_a_kept_unit_that_is_not_a_tally_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    interrupt_after(monkeypatch, 1)
    assert run(tmp_path) == 130
    path = tmp_path / "card.json.partial"
    data = json.loads(path.read_text())
    key = next(iter(data["units"]))
    data["units"][key]["share"] = data["units"][key]["share"][:-1]
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert run(tmp_path) == 2
    assert f"unit {key!r} is not a tally" in capsys.readouterr().err


def test_an_interrupt_while_writing_leaves_the_last_whole_file(tmp_path, monkeypatch):
    kept = progress.Partial(tmp_path / "p.partial", {"agent": "x"})
    kept.put("first", {"share": [1.0]})
    before = (tmp_path / "p.partial").read_text()

    def stop(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", stop)
    with pytest.raises(KeyboardInterrupt):
        kept.put("second", {"share": [0.5]})
    assert (tmp_path / "p.partial").read_text() == before
    assert progress.Partial(tmp_path / "p.partial", {"agent": "x"}).units == {"first": {"share": [1.0]}}


def test_the_recorded_command_leaves_out_the_workers_which_change_no_figure():
    assert command(["search", "--workers", "1", "--json", "s.json"]) == "kc benchmark search --json s.json"
    assert command(["search", "--workers=2", "--json", "s.json"]) == "kc benchmark search --json s.json"
