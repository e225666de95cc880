"""``kc benchmark``'s options: one left unread by the mode it is given with is refused in one line,
as are an empty task list, a task or a run named twice, and (from Python) an argument of the wrong
kind; a table of quick scorecards says it is quick."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kc_env.benchmark import evaluate, find, make_task_env, suite
from kc_env.cli import main

BENCHMARK = Path(__file__).resolve().parents[1] / "docs" / "benchmark"
CARD = BENCHMARK / "greedy.json"
RUN = BENCHMARK / "reference" / "ppo-5" / "seed-0"
TASK = "kc/standard-3p-vs-heuristic-v1"


@pytest.mark.parametrize("argv, said", [
    (["heuristic", "--tasks", ""], "no task ids given"),
    (["--list", "heuristic"], "an agent does not go with --list"),
    (["heuristic", "--baseline", str(CARD)], "--baseline does not go with scoring an agent (--baseline goes with --runs)"),
    (["--table", str(CARD), "--md", "out.md"], "--md does not go with --table"),
    (["--table", str(CARD), "--json", "out.json"], "--json does not go with --table"),
    (["--runs", str(RUN), str(RUN) + "/", "--md", "out.md"], "--runs names"),
    (["--runs", str(RUN), str(BENCHMARK / "reference" / "ppo-5" / "seed-1"), "--tasks", "kc/wikihow-2p-vs-heuristic-v1"],
     "--tasks does not go with --runs"),
    (["--runs", str(RUN), "--table", str(CARD)], "give one of --runs, --table"),
    (["heuristic", "--tasks", f"{TASK},{TASK}", "--quick"], f"task {TASK!r} is named twice"),
    (["heuristic", "--tasks", f"{TASK},", "--quick"], f"an empty task id in '{TASK},'"),  # a probe: "no task ''"
])
def test_an_option_the_mode_leaves_unread_is_refused(tmp_path, monkeypatch, capsys, argv, said):
    monkeypatch.chdir(tmp_path)
    assert main(["benchmark", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1 and said in captured.err, captured.err
    assert not list(tmp_path.iterdir())


def test_evaluate_refuses_an_empty_list_of_tasks():
    with pytest.raises(ValueError, match="no task ids given"):
        evaluate("random", tasks=[])


@pytest.mark.parametrize("call, error, said", [
    (lambda: make_task_env(None), TypeError, "task must be a Task or a task id, not None"),
    (lambda: evaluate(5, tasks=TASK, quick=True), TypeError,
     "agent must be an agent spec (a string) or a kc_env.agents.Agent, not 5"),
    (lambda: evaluate("random", tasks=TASK, quick=True, workers=0), ValueError,
     "workers must be a whole number from 1"),
    (lambda: evaluate("random", tasks=TASK, quick=True, workers=-2), ValueError,
     "workers must be a whole number from 1"),
    (lambda: evaluate("random", tasks=f"{TASK},{TASK}", quick=True), ValueError, f"task {TASK!r} is named twice"),
    (lambda: evaluate("random", tasks=[TASK, TASK], quick=True), ValueError, f"task {TASK!r} is named twice"),
    (lambda: find(5), TypeError, "task_ids must be a task id, ids joined by commas or a list of ids, not 5"),
    (lambda: find([TASK, 5]), TypeError, "task_ids must be a task id"),
])
def test_an_argument_of_the_wrong_kind_is_refused_in_one_line_naming_it(tmp_path, call, error, said):
    """A probe of the benchmark: these gave an AttributeError deep inside, played with every core
    (``workers=0``) or one (``workers=-2``), or scored a task named twice once, saying nothing."""
    with pytest.raises(error, match=re.escape(said)) as refused:
        call()
    assert len(str(refused.value).splitlines()) == 1


def _as_quick(card: dict) -> dict:
    """``card``, a full run's scorecard, relabelled quick, with a quick run's counts."""
    card["quick"] = True
    for line, task in zip(card["tasks"], suite(card["suite"]), strict=True):
        line["shuffles"] = task.quick_shuffles
        line["deals"] = task.quick_shuffles * task.num_players * len(task.members)
        for figures in line.get("per_opponent", {}).values():
            figures["deals"] = task.quick_shuffles * task.num_players
    return card


def test_a_table_of_quick_scorecards_says_so(tmp_path, capsys):
    card = _as_quick(json.loads(CARD.read_text()))
    path = tmp_path / "quick.json"
    path.write_text(json.dumps(card))
    assert main(["benchmark", "--table", str(path)]) == 0
    assert "QUICK scorecards (--quick): development figures, not for reporting" in capsys.readouterr().out
    assert main(["benchmark", "--table", str(CARD)]) == 0
    assert "QUICK" not in capsys.readouterr().out
