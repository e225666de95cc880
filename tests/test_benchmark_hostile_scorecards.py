"""Hostile scorecards and run files given to ``kc benchmark --runs``, ``--baseline`` and ``--table``:
each is refused with one line naming the file and what is wrong in it (the key, or why it cannot
be read), never a traceback, a silent NaN or a report half written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kc_env.cli import main

REFERENCES = Path(__file__).resolve().parents[1] / "docs" / "benchmark" / "reference"
CARDS = [REFERENCES / "turn-ppo-5" / f"seed-{k}" / "scorecard.json" for k in range(3)]
RUN_FOLDERS = [REFERENCES / "ppo-5" / f"seed-{k}" for k in range(2)]


def _set(*keys_and_value):
    """An edit that sets the key path ``keys`` of the JSON to ``value``."""
    *keys, last, value = keys_and_value

    def edit(data):
        for key in keys:
            data = data[key]
        data[last] = value
    return edit


def _delete(*keys):
    """An edit that deletes the key path ``keys`` of the JSON."""
    *keys, last = keys

    def edit(data):
        for key in keys:
            data = data[key]
        del data[last]
    return edit


def _compose(*edits):
    """One edit that makes ``edits`` in turn."""
    def edit(data):
        for one in edits:
            one(data)
    return edit


def _second_id_as_first(card):
    card["tasks"][1]["id"] = card["tasks"][0]["id"]


def _first_task_scored_at_its_low_end(card):
    """Tasks[0]'s win share moved to its interval's low end, its relative share with it: a line
    consistent in itself that its aggregates no longer are."""
    task = card["tasks"][0]
    task["win_share"] = task["low"]
    task["relative_share"] = task["low"] / task["fair_share"]


def _pool_member_renamed(card):
    members = card["tasks"][1]["per_opponent"]
    members["made-up"] = members.pop("random")


def _pool_member_added(card):
    card["tasks"][1]["per_opponent"]["made-up"] = dict(card["tasks"][1]["per_opponent"]["random"])


def _pool_figures_on_a_task_without_a_pool(card):
    card["tasks"][0]["per_opponent"] = {"heuristic": {k: card["tasks"][0][k] for k in (
        "win_share", "low", "high", "deals", "mean_penalty", "blocked_share")}}


CARD_EDITS = {  # an edit of a good scorecard, and what the refusal must say
    "no suite": (_delete("suite"), "no suite"),
    "no quick": (_delete("quick"), "no quick"),
    "tasks of strings and numbers": (_set("tasks", ["x", 1]), "tasks[0] is 'x', not a task"),
    "tasks a dict": (_set("tasks", {"a": 1}), "tasks is a dict, not a list of tasks"),
    "no tasks": (_set("tasks", []), "tasks is an empty list"),
    "no relative share": (_delete("tasks", 0, "relative_share"), "no tasks[0].relative_share"),
    "no id": (_delete("tasks", 0, "id"), "no tasks[0].id"),
    "no tracks": (_delete("tasks", 0, "tracks"), "no tasks[0].tracks"),
    "relative share a string": (_set("tasks", 0, "relative_share", "high"),
                                "tasks[0].relative_share is 'high', not a finite number"),
    "relative share a boolean": (_set("tasks", 0, "relative_share", True),
                                 "tasks[0].relative_share is True, not a finite number"),
    "relative share a 400-digit integer": (_set("tasks", 2, "relative_share", 10**400),
                                           "tasks[2].relative_share is 1000"),
    "id a list": (_set("tasks", 0, "id", ["x"]), "tasks[0].id is a list, not a string"),
    "id twice": (_second_id_as_first, "tasks[1].id 'kc/standard-2p-vs-heuristic-v1' is also tasks[0]'s"),
    "quick a list": (_set("quick", [1]), "quick is a list, not true or false"),
    "suite a dict": (_set("suite", {}), "suite is an empty dict, not a string"),
    "tracks a number": (_set("tasks", 0, "tracks", 5), "tasks[0].tracks is 5, not a list of strings"),
    "split a number": (_set("tasks", 0, "split", 5), "tasks[0].split is 5, not a string or null"),
    "agent a number": (_set("agent", 5), "agent is 5, not a string"),
    "win share a string": (_set("tasks", 3, "win_share", "x"), "tasks[3].win_share is 'x', not a finite number"),
    "per-opponent figures a number": (_set("tasks", 1, "per_opponent", 5),
                                      "tasks[1].per_opponent is 5, not a dict of figures"),
    "a pool member's interval missing": (_delete("tasks", 1, "per_opponent", "random", "low"),
                                         "no tasks[1].per_opponent.random.low"),
    "win share above 1": (_set("tasks", 0, "win_share", 1.7),
                          "tasks[0]: win_share 1.7 with interval"),
    "interval the wrong way round": (_compose(_set("tasks", 0, "low", 0.9), _set("tasks", 0, "high", 0.1)),
                                     "is not 0 <= low <= win_share <= high <= 1"),
    "a pool member outside its interval": (_set("tasks", 1, "per_opponent", "random", "win_share", 0.2),
                                           "tasks[1].per_opponent.random: win_share 0.2"),
    "relative share not the win share over the fair share": (
        _set("tasks", 0, "relative_share", 5.0), "tasks[0].relative_share 5.0 is not its win_share over the fair share 0.5"),
    "a task of no suite": (_set("tasks", 0, "id", "kc/foo-9p-vs-bar-v9"), "no task 'kc/foo-9p-vs-bar-v9' in the suite"),
    # the counts of a task's line, by its definition (a probe of the benchmark: a hand-edited line was taken)
    "no deals": (_delete("tasks", 0, "deals"), "no tasks[0].deals"),
    "deals a float": (_set("tasks", 0, "deals", 10000.0), "tasks[0].deals is 10000.0, not a whole number"),
    "deals not shuffles x seats": (_set("tasks", 0, "deals", 7),
                                   "tasks[0].deals 7 is not kc/standard-2p-vs-heuristic-v1's 5000 shuffles x 2 seats "
                                   "x 1 lineup(s) (10000)"),
    "a pool's deals not shuffles x seats x members": (
        _set("tasks", 1, "deals", 1000),
        "tasks[1].deals 1000 is not kc/standard-2p-vs-pool-v1's 500 shuffles x 2 seats x 6 lineup(s) (6000)"),
    "a pool member's deals": (_set("tasks", 1, "per_opponent", "random", "deals", 999),
                              "tasks[1].per_opponent.random.deals 999 is not kc/standard-2p-vs-pool-v1's 500 shuffles "
                              "x 2 seats x 1 lineup(s) (1000)"),
    "shuffles not the task's": (_compose(_set("tasks", 0, "shuffles", 50), _set("tasks", 0, "deals", 100)),
                                "tasks[0].shuffles 50 is not kc/standard-2p-vs-heuristic-v1's 5000"),
    "players not the task's": (_set("tasks", 0, "players", 3), "tasks[0].players 3 is not kc/standard-2p-vs-heuristic-v1's 2"),
    "fair share not one over the players": (_set("tasks", 0, "fair_share", 0.9),
                                            "tasks[0].fair_share 0.9 is not 1/2 (kc/standard-2p-vs-heuristic-v1's"),
    "a negative penalty": (_set("tasks", 0, "mean_penalty", -5.0), "tasks[0].mean_penalty -5.0 is below 0"),
    "blocked share above 1": (_set("tasks", 0, "blocked_share", 3), "tasks[0].blocked_share 3 is not from 0 to 1"),
    "a pool member's blocked share below 0": (_set("tasks", 1, "per_opponent", "greedy", "blocked_share", -0.1),
                                              "tasks[1].per_opponent.greedy.blocked_share -0.1 is not from 0 to 1"),
    # a pool task's members are its pool's, and its figures their mean (a probe: a renamed, dropped or edited
    # member was taken)
    "a pool member renamed": (_pool_member_renamed,
                              "tasks[1].per_opponent.made-up is not a member of kc/standard-2p-vs-pool-v1's pool"),
    "a pool member dropped": (_delete("tasks", 1, "per_opponent", "greedy"),
                              "no tasks[1].per_opponent.greedy (a member of kc/standard-2p-vs-pool-v1's pool)"),
    "a pool member added": (_pool_member_added,
                            "tasks[1].per_opponent.made-up is not a member of kc/standard-2p-vs-pool-v1's pool"),
    "a pool task without its members": (_delete("tasks", 1, "per_opponent"), "no tasks[1].per_opponent"),
    "pool members on a task without a pool": (
        _pool_figures_on_a_task_without_a_pool,
        "tasks[0].per_opponent: kc/standard-2p-vs-heuristic-v1 has no pool of opponents to score apart"),
    "a pool member's win share not in the task's mean": (
        _compose(_set("tasks", 1, "per_opponent", "random", "win_share", 0.2),
                 _set("tasks", 1, "per_opponent", "random", "low", 0.1),
                 _set("tasks", 1, "per_opponent", "random", "high", 0.3)),
        "tasks[1].win_share 0.6604166666666667 is not the mean of its pool members' (0.5"),
    "a pool member's penalty not in the task's mean": (
        _set("tasks", 1, "per_opponent", "heuristic", "mean_penalty", 99.0),
        "tasks[1].mean_penalty"),
    "a pool task's blocked share not its members' mean": (
        _set("tasks", 1, "blocked_share", 0.5), "tasks[1].blocked_share 0.5 is not the mean of its pool members'"),
    "made-up tracks": (_set("tasks", 0, "tracks", ["multi-player"]),
                       "tasks[0].tracks ['multi-player'] is not kc/standard-2p-vs-heuristic-v1's ['head-to-head', 'rule-generalisation']"),
    "other rules than the task's": (_set("tasks", 0, "rules", "pagat"),
                                    "tasks[0].rules 'pagat' is not kc/standard-2p-vs-heuristic-v1's 'standard'"),
    "other opponents than the task's": (_set("tasks", 0, "opponents", ["random"]),
                                        "tasks[0].opponents ['random'] is not kc/standard-2p-vs-heuristic-v1's ['heuristic']"),
    "a pool that is not the task's": (_set("tasks", 0, "pool", True),
                                      "tasks[0].pool True is not kc/standard-2p-vs-heuristic-v1's False"),
    "no rules": (_delete("tasks", 0, "rules"), "no tasks[0].rules"),
    "a suite kc_env has not": (_set("suite", "kc-bench-v2"), "unknown suite 'kc-bench-v2'"),
    "played on other deals": (_set("evaluation_shuffles", "sha256", "0" * 64),
                              "evaluation_shuffles.sha256 000000000000… is not kc-bench-v1's evaluation shuffles"),
    "no evaluation shuffles": (_delete("evaluation_shuffles"), "no evaluation_shuffles"),
    "no aggregates": (_delete("aggregates"), "no aggregates"),
    "an aggregate's IQM a string": (_set("aggregates", "all", "iqm", "x"),
                                    "aggregates.all.iqm is 'x', not a dict of figures"),
    # the aggregates are those of the task lines (a probe: an IQM set to 5.0 was read and tabled)
    "an IQM not its tasks'": (_set("aggregates", "all", "iqm", "value", 5.0),
                              "aggregates.all.iqm.value 5.0 is not the iqm of its 17 task(s)' relative shares (1.0598"),
    "a mean not its tasks'": (_set("aggregates", "head-to-head", "mean", "value", 1.2),
                              "aggregates.head-to-head.mean.value 1.2 is not the mean of its 2 task(s)'"),
    "a task line its aggregates were not made of": (_first_task_scored_at_its_low_end,
                                                    "aggregates.all.mean.value 1.0795970588235293 is not the mean"),
    "an aggregate's interval above its value": (_set("aggregates", "multi-player", "iqm", "low", 1.5),
                                                "aggregates.multi-player.iqm: value 1.0"),
    "an aggregate's interval below its value": (_set("aggregates", "all", "mean", "high", 1.0),
                                                "with interval [1.0736411029411765, 1.0] is not 0 <= low <= value <= high"),
    "a negative interval": (_set("aggregates", "all", "mean", "low", -1.0), "aggregates.all.mean: value"),
    "an aggregate missing": (_delete("aggregates", "rule-generalisation/held-out"),
                             "no aggregates.rule-generalisation/held-out (a group of 8 of the scorecard's tasks)"),
    "an aggregate of no group": (_set("aggregates", "made-up", {}),
                                 "aggregates.made-up is not a group of the scorecard's tasks (all, head-to-head,"),
    "an aggregate's task count": (_set("aggregates", "all", "tasks", 3), "aggregates.all.tasks 3 is not the group's 17"),
    "an aggregate without its task count": (_delete("aggregates", "all", "tasks"), "no aggregates.all.tasks"),
}

TEXTS = {  # the whole file's text, and what the refusal must say
    "NaN": (lambda text: text.replace('"relative_share": 1.1674', '"relative_share": NaN'),
            "NaN is not a JSON number"),
    "Infinity": (lambda text: text.replace('"relative_share": 1.1674', '"relative_share": Infinity'),
                 "Infinity is not a JSON number"),
    "-Infinity": (lambda text: text.replace('"win_share": 0.5837', '"win_share": -Infinity'),
                  "-Infinity is not a JSON number"),
    "a number too large for a float": (
        lambda text: text.replace('"relative_share": 1.1674', '"relative_share": 1e400'),
        "tasks[0].relative_share is inf, not a finite number"),
    "nested 100,000 deep": (lambda text: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "not JSON": (lambda text: text[:-10], "cannot read"),
}


def _refused(capsys, argv, path, problem):
    """``kc benchmark argv`` exits 2 with one line naming ``path`` and ``problem``, and prints or
    writes nothing else."""
    assert main(["benchmark", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1, captured.err
    assert captured.err.startswith("kc benchmark: ") and "Traceback" not in captured.err
    assert str(path) in captured.err, captured.err
    assert problem in captured.err, captured.err


def _ways(path: Path, report: Path) -> dict[str, list[str]]:
    """The three options that read a scorecard, each given the hostile ``path``."""
    return {"--runs": ["--runs", str(path), str(CARDS[1]), "--json", str(report)],
            "--baseline": ["--runs", str(CARDS[1]), str(CARDS[2]), "--baseline", str(path), "--json", str(report)],
            "--table": ["--table", str(path), str(CARDS[1])]}


def _edited(tmp_path, edit) -> Path:
    card = json.loads(CARDS[0].read_text())
    edit(card)
    path = tmp_path / "scorecard.json"
    path.write_text(json.dumps(card, indent=1))
    return path


@pytest.mark.parametrize("option", ["--runs", "--baseline", "--table"])
@pytest.mark.parametrize("case", CARD_EDITS)
def test_a_scorecard_of_the_wrong_shape_is_refused_naming_the_file_and_the_key(tmp_path, capsys, case, option):
    edit, problem = CARD_EDITS[case]
    path = _edited(tmp_path, edit)
    report = tmp_path / "report.json"
    _refused(capsys, _ways(path, report)[option], path, problem)
    assert not report.exists()


@pytest.mark.parametrize("option", ["--runs", "--baseline", "--table"])
@pytest.mark.parametrize("case", TEXTS)
def test_a_scorecard_that_is_not_strict_json_is_refused_naming_the_file(tmp_path, capsys, case, option):
    change, problem = TEXTS[case]
    path = tmp_path / "scorecard.json"
    path.write_text(change(json.dumps(json.loads(CARDS[0].read_text()), indent=1)))
    report = tmp_path / "report.json"
    _refused(capsys, _ways(path, report)[option], path, problem)
    assert not report.exists()


def test_a_scorecard_that_is_not_utf8_is_refused_naming_the_file(tmp_path, capsys):
    path = tmp_path / "scorecard.json"
    path.write_bytes(b'{"schema": "\xff"}')
    _refused(capsys, ["--table", str(path), str(CARDS[1])], path, "cannot read")


RUN_EDITS = {  # an edit of a good run's benchmark.json, and what the refusal must say
    "rows of numbers": (_set("rows", [5]), "rows[0] is 5, not a row"),
    "rows a dict": (_set("rows", {"a": 1}), "rows is a dict, not a list of rows"),
    "no suite": (_delete("suite"), "no suite"),
    "quick a list": (_set("quick", [1]), "quick is a list, not true or false"),
    "step a string": (_set("rows", 0, "step", "x"), "rows[0].step is 'x', not a whole number"),
    "step a boolean": (_set("rows", 0, "step", True), "rows[0].step is True, not a whole number"),
    "no step": (_delete("rows", 1, "step"), "no rows[1].step"),
    "tasks a number": (_set("rows", -1, "tasks", 5), "rows[4].tasks is 5, not a dict of tasks"),
    "a task a list": (_set("rows", 0, "tasks", "kc/standard-2p-vs-heuristic-v1", [1]),
                      "rows[0].tasks.kc/standard-2p-vs-heuristic-v1 is a list, not a task"),
    "relative share a string": (_set("rows", -1, "tasks", "kc/standard-2p-vs-heuristic-v1", "relative_share", "high"),
                                "rows[4].tasks.kc/standard-2p-vs-heuristic-v1.relative_share is 'high', "
                                "not a finite number"),
    "no tracks": (_delete("rows", -1, "tasks", "kc/standard-2p-vs-heuristic-v1", "tracks"),
                  "no rows[4].tasks.kc/standard-2p-vs-heuristic-v1.tracks"),
    "deals not shuffles x seats": (_set("rows", -1, "tasks", "kc/standard-2p-vs-heuristic-v1", "deals", 7),
                                   "rows[4].tasks.kc/standard-2p-vs-heuristic-v1.deals 7 is not"),
    "pool members on a task without a pool": (
        _set("rows", -1, "tasks", "kc/standard-2p-vs-heuristic-v1", "per_opponent", {}),
        "rows[4].tasks.kc/standard-2p-vs-heuristic-v1.per_opponent: kc/standard-2p-vs-heuristic-v1 has no pool"),
}


def _run_pair(tmp_path) -> tuple[Path, Path]:
    """Copies of two reference runs' folders (their ``benchmark.json``)."""
    folders = []
    for k, source in enumerate(RUN_FOLDERS):
        folder = tmp_path / f"seed-{k}"
        folder.mkdir()
        shutil.copy(source / "benchmark.json", folder / "benchmark.json")
        folders.append(folder)
    return folders[0], folders[1]


@pytest.mark.parametrize("case", RUN_EDITS)
def test_a_run_file_of_the_wrong_shape_is_refused_naming_the_file_and_the_key(tmp_path, capsys, case):
    edit, problem = RUN_EDITS[case]
    hostile, good = _run_pair(tmp_path)
    path = hostile / "benchmark.json"
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    report = tmp_path / "report.json"
    _refused(capsys, ["--runs", str(hostile), str(good), "--json", str(report)], path, problem)
    assert not report.exists()


@pytest.mark.parametrize("case", ["NaN", "nested 100,000 deep"])
def test_a_run_file_that_is_not_strict_json_is_refused_naming_the_file(tmp_path, capsys, case):
    hostile, good = _run_pair(tmp_path)
    path = hostile / "benchmark.json"
    path.write_text("[" * 100_000 + "]" * 100_000 if case != "NaN" else
                    path.read_text().replace('"relative_share": 0.7309', '"relative_share": NaN', 1))
    _refused(capsys, ["--runs", str(hostile), str(good)], path, "NaN" if case == "NaN" else "nested too deeply")


def test_the_reference_scorecards_and_run_files_still_aggregate(capsys):
    """What the checks let through: every committed scorecard and run file."""
    assert main(["benchmark", "--runs", *map(str, CARDS), "--baseline", str(CARDS[0])]) == 0
    assert main(["benchmark", "--runs", *map(str, RUN_FOLDERS)]) == 0
    assert main(["benchmark", "--table", *map(str, CARDS)]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_a_copy_of_a_run_under_another_name_is_refused(tmp_path, capsys):
    """A probe of the benchmark: the same scorecard copied under a second name counted as two seeds
    (an interval of width 0); path checks alone did not see it."""
    copy = tmp_path / "copy.json"
    shutil.copy(CARDS[0], copy)
    _refused(capsys, ["--runs", str(CARDS[0]), str(copy)], copy, "holds the same scores as")
