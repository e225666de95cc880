"""kc-bench (docs/benchmark.md): the suite's tasks, ``kc benchmark``, a user's own agent, and the
promise that training never deals an evaluation shuffle."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from kc_env import benchmark
from kc_env.benchmark import freeze, shuffles
from kc_env.cli import main

HEAD = "kc/standard-2p-vs-heuristic-v1"


def test_every_task_id_names_its_table_and_opponents_and_ends_with_its_version():
    tasks = benchmark.suite()
    assert len({t.id for t in tasks}) == len(tasks)
    for t in tasks:
        opponents = "pool" if t.pool else t.opponents[0]
        assert t.id == f"kc/{t.rules}-{t.num_players}p-vs-{opponents}-v{t.version}"
        assert len(t.members[0]) == t.num_players - 1


def test_the_suite_has_every_track_and_every_preset_at_two_and_four_seats():
    from kc_env.rules import PRESETS

    tasks = benchmark.suite()
    general = {(t.rules, t.num_players) for t in tasks if "rule-generalisation" in t.tracks}
    assert general == {(p, n) for p in PRESETS for n in (2, 4)}
    assert {t.num_players for t in tasks if "multi-player" in t.tracks} == {3, 4, 6}
    splits = {t.rules: t.split for t in tasks if "rule-generalisation" in t.tracks}
    assert set(splits.values()) == {"train", "held-out"}


def test_kc_benchmark_list_prints_every_task_with_its_table_seats_opponents_and_deals(capsys):
    assert main(["benchmark", "--list"]) == 0
    out = capsys.readouterr().out
    for t in benchmark.suite():
        line = next(line for line in out.splitlines() if line.startswith(t.id + " "))
        assert t.rules in line and f" {t.num_players} " in line and t.opponents[0] in line
        assert str(t.shuffles * t.num_players * len(t.members)) in line


def test_kc_benchmark_list_says_its_quick_column_counts_deals(capsys):
    assert main(["benchmark", "--list"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header[-2:] == ["quick", "deals"] and header.count("deals") == 2


def test_the_evaluation_shuffles_match_their_published_checksum_and_how_they_were_made():
    seeds, checksum = shuffles.load("kc-bench-v1")
    assert len(seeds) == shuffles.SIZE == len(set(seeds))
    assert list(seeds) == shuffles.generate("kc-bench-v1")
    assert checksum == shuffles.checksum(list(seeds))


DAMAGES = {  # a change to the shuffles file's text, and what the refusal says
    "cut short": (lambda text: text[: len(text) // 2], "cannot be read"),
    "a seed changed": (lambda text: text.replace("7032971850920301997", "7032971850920301998", 1),
                       "do not match the checksum the file states (522d6b52dbf9dc68"),
    "a seed not a number": (lambda text: text.replace("7032971850920301997", '"x"', 1),
                            "do not hold a list of deal seeds and their sha256"),
    "no checksum": (lambda text: text.replace('"sha256"', '"sha"', 1), "do not hold a list of deal seeds"),
    "a list, not the file's dict": (lambda text: "[1, 2, 3]", "do not hold a list of deal seeds"),
    # a file that states its own checksum, but not the lock's (a probe: each was scored; the short one
    # refused as "a task of kc-bench-v1 plays 1 to 10 shuffles, not 250", naming no file)
    "cut to 10 seeds, with their checksum": (lambda text: _restated(text, lambda seeds: seeds[:10]),
                                             "(10 seeds, sha256 "),
    "other seeds, with their checksum": (lambda text: _restated(text, lambda seeds: shuffles.generate("other")),
                                         "are not those the suite's lock"),
}


def _restated(text: str, change) -> str:
    """The shuffles file's ``text`` with its seeds changed by ``change`` and the checksum restated."""
    data = json.loads(text)
    data["shuffles"] = change(data["shuffles"])
    data["count"], data["sha256"] = len(data["shuffles"]), shuffles.checksum(data["shuffles"])
    return json.dumps(data)


@pytest.fixture
def damaged(tmp_path, monkeypatch):
    """``damage(reader, change)``: ``shuffles.<reader>`` (``data_file``, the evaluation shuffles, or
    ``lock_file``, the suite's lock) pointed at a copy of that package file whose text ``change``
    damaged (the package's own file untouched); the copy's path."""
    def damage(reader, change):
        original = getattr(shuffles, reader)("kc-bench-v1")
        path = tmp_path / original.name
        path.write_text(change(original.read_text()))
        monkeypatch.setattr(shuffles, reader, lambda suite_name: path)
        shuffles.load.cache_clear()
        return path

    yield damage
    monkeypatch.undo()
    shuffles.load.cache_clear()


@pytest.mark.parametrize("case", DAMAGES)
def test_a_damaged_shuffles_file_is_refused_in_one_line_naming_it(damaged, capsys, case):
    """A probe of the benchmark: a damaged file gave a JSONDecodeError's or a KeyError's traceback."""
    change, problem = DAMAGES[case]
    path = damaged("data_file", change)
    with pytest.raises(shuffles.DamagedInstall, match=re.escape(problem)) as refused:
        shuffles.evaluation("kc-bench-v1", 10)
    assert str(refused.value).startswith(f"{path}: ") and len(str(refused.value).splitlines()) == 1
    assert main(["benchmark", "heuristic", "--tasks", HEAD, "--quick"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kc benchmark: {path}: ") and problem in err and len(err.splitlines()) == 1, err


LOCK_DAMAGES = {  # a change to the suite lock's text, and what the refusal says
    "cut short": (lambda text: text[: len(text) // 2], "the suite's lock cannot be read"),
    "no stored positions": (lambda text: text.replace('"positions"', '"places"', 1), "does not hold its suite"),
    "no task locked": (lambda text: json.dumps(json.loads(text) | {"tasks": {}}),  # a probe: it was accepted
                       "does not lock kc/standard-2p-vs-heuristic-v1 (and 16 more), a task of kc-bench-v1"),
}


@pytest.mark.parametrize("case", LOCK_DAMAGES)
def test_a_damaged_suite_lock_is_refused_in_one_line_naming_it(damaged, tmp_path, capsys, case):
    """A run with --json keys its partial file by the lock: a damaged lock gave a JSONDecodeError's
    message without the file's name, or a KeyError's traceback (a probe of the benchmark)."""
    change, problem = LOCK_DAMAGES[case]
    path = damaged("lock_file", change)
    with pytest.raises(shuffles.DamagedInstall, match=re.escape(problem)) as refused:
        shuffles.load("kc-bench-v1")
    assert str(refused.value).startswith(f"{path}: ") and len(str(refused.value).splitlines()) == 1
    out = tmp_path / "card.json"
    assert main(["benchmark", "heuristic", "--tasks", HEAD, "--quick", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kc benchmark: {path}: ") and problem in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_shuffles_the_lock_does_not_lock_are_refused_naming_the_shuffles_file(damaged, capsys):
    """Which file is wrong the run cannot tell; it names the shuffles (what it would deal) and the lock."""
    lock = damaged("lock_file", lambda text: json.dumps(json.loads(text) | {"evaluation_sha256": "0" * 64}))
    problem = f"are not those the suite's lock {lock} locks (0000000000000000...)"
    with pytest.raises(shuffles.DamagedInstall, match=re.escape(problem)) as refused:
        shuffles.evaluation("kc-bench-v1", 10)
    assert str(refused.value).startswith(f"{shuffles.data_file('kc-bench-v1')}: ")
    assert main(["benchmark", "--table", str(Path(__file__).resolve().parents[1] / "docs/benchmark/heuristic.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kc benchmark: {shuffles.data_file('kc-bench-v1')}: ") and problem in err, err


def test_a_suite_without_a_lock_yet_can_be_frozen(tmp_path, monkeypatch):
    """``python -m kc_env.benchmark.freeze SUITE`` writes a new suite's lock from its shuffles,
    which no lock checks yet (``shuffles.published``); once written, the suite's runs load them."""
    from kc_env.benchmark import tasks

    new = "kc-bench-new"
    monkeypatch.setitem(tasks.SUITES, new, benchmark.find(HEAD))
    published = tmp_path / shuffles.file_name(new)
    shuffles.write(new, published)
    lock = tmp_path / shuffles.lock_name(new)
    monkeypatch.setattr(shuffles, "data_file", lambda suite_name: published)
    monkeypatch.setattr(shuffles, "lock_file", lambda suite_name: lock)
    shuffles.load.cache_clear()
    try:
        with pytest.raises(shuffles.DamagedInstall, match="the suite's lock cannot be read"):
            shuffles.load(new)
        freeze.write(new, lock)
        assert json.loads(lock.read_text())["evaluation_sha256"] == shuffles.checksum(shuffles.generate(new))
        assert shuffles.load(new) == shuffles.published(new)
        assert freeze.changes(new) == []
    finally:
        shuffles.load.cache_clear()


def run_json(tmp_path, name, *args):
    path = tmp_path / name
    assert main(["benchmark", *args, "--json", str(path)]) == 0
    return json.loads(path.read_text())


def test_the_heuristic_against_itself_holds_a_fair_share_and_two_runs_give_the_same_json(tmp_path):
    first = run_json(tmp_path, "a.json", "heuristic", "--tasks", HEAD, "--quick", "--workers", "2")
    second = run_json(tmp_path, "b.json", "heuristic", "--tasks", HEAD, "--quick", "--workers", "1")
    task = first["tasks"][0]
    assert task["low"] <= 0.5 <= task["high"]
    assert task["deals"] == 2 * benchmark.find(HEAD)[0].quick_shuffles
    first.pop("command"), second.pop("command")
    assert first == second
    assert first["schema"] == benchmark.SCHEMA and first["quick"] is True


AGENT_FILE = """
    import numpy as np
    from kc_env.agents import Agent

    class FirstLegal(Agent):
        spec = "first-legal"

        def act(self, obs):
            return int(np.flatnonzero(obs["action_mask"])[0])
"""


def test_an_agent_class_in_a_file_outside_the_package_is_scored(tmp_path, capsys):
    path = tmp_path / "outside" / "my_agent.py"
    path.parent.mkdir()
    path.write_text(textwrap.dedent(AGENT_FILE))
    card = run_json(tmp_path, "mine.json", f"{path}:FirstLegal", "--tasks", "kc/standard-3p-vs-heuristic-v1",
                    "--quick")
    task = card["tasks"][0]
    assert card["agent"] == f"{path}:FirstLegal"
    assert task["deals"] == 3 * benchmark.find("kc/standard-3p-vs-heuristic-v1")[0].quick_shuffles
    assert task["high"] < 1 / 3  # it never draws ahead of three heuristics


@pytest.mark.parametrize("spec, problem", [
    ("nowhere.py:Agent", "no agent file"),
    ("os:path", "not a class that subclasses kc_env.agents.Agent"),
    ("no_such_module_here:Agent", "cannot import module"),
])
def test_a_bad_agent_is_refused_in_one_line(spec, problem, capsys):
    assert main(["benchmark", spec, "--tasks", HEAD, "--quick"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert problem in err[-1]


def test_an_unknown_task_is_refused_naming_the_known_ones(capsys):
    assert main(["benchmark", "heuristic", "--tasks", "kc/standard-2p-vs-heuristic-v0"]) == 2
    err = capsys.readouterr().err
    assert "no task 'kc/standard-2p-vs-heuristic-v0'" in err and HEAD in err


# -- training never deals an evaluation shuffle ------------------------------------------------------

def test_a_training_env_deals_again_rather_than_deal_an_evaluation_shuffle():
    task = benchmark.find(HEAD)[0]
    bare = benchmark.make_task_env(task)
    bare.reset(seed=11)
    would_deal = bare.unwrapped.aec.game.seed
    env = benchmark.envs.TrainingDeals(bare.env, forbidden={would_deal})
    env.reset(seed=11)
    assert env.unwrapped.aec.game.seed != would_deal


def test_evaluation_shuffles_never_occur_in_training():
    task = benchmark.find("kc/standard-2p-vs-pool-v1")[0]
    env = benchmark.make_task_env(task)
    evaluation = shuffles.evaluation_set("kc-bench-v1")
    env.reset(seed=0)
    dealt = set()
    for _ in range(300):
        env.reset()
        dealt.add(env.unwrapped.aec.game.seed)
    assert len(dealt) == 300 and not dealt & evaluation


def test_a_held_out_table_and_the_evaluation_split_are_not_for_training():
    with pytest.raises(ValueError, match="held-out table"):
        benchmark.make_task_env(benchmark.find("kc/bicycle-2p-vs-heuristic-v1")[0])
    with pytest.raises(ValueError, match="split must be 'train'"):
        benchmark.make_task_env(benchmark.find(HEAD)[0], split="evaluation")
    with pytest.raises(ValueError, match="fixes num_players"):
        benchmark.make_task_env(benchmark.find(HEAD)[0], num_players=3)


def test_a_task_id_names_its_task_for_make_task_env():
    env = benchmark.make_task_env(HEAD)
    env.reset(seed=0)
    assert env.unwrapped.aec.num_players == benchmark.find(HEAD)[0].num_players
    with pytest.raises(ValueError, match="held-out table"):
        benchmark.make_task_env("kc/bicycle-2p-vs-heuristic-v1")
    with pytest.raises(ValueError, match="no task 'kc/nope-v1'"):
        benchmark.make_task_env("kc/nope-v1")


@pytest.mark.slow
def test_the_full_head_to_head_task_for_the_heuristic_holds_a_fair_share(tmp_path):
    card = run_json(tmp_path, "full.json", "heuristic", "--tasks", HEAD)
    task = card["tasks"][0]
    assert task["deals"] == 10_000 and task["low"] <= 0.5 <= task["high"]


def test_kc_eval_seats_an_agent_class_from_a_file(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(AGENT_FILE))
    assert main(["eval", f"{path}:FirstLegal", "random", "--deals", "20", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"{path}:FirstLegal" in out and "random" in out
