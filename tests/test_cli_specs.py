"""Agent specs and options on the ``kc`` command line: every command seats a user's own class
(``path/to/file.py:Class``) as ``kc eval`` does, through the one loader
(``kc_env.benchmark.submission``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_env.cli import build_parser, main

MINE = "from kc_env.agents import GreedyAgent\n\nclass Mine(GreedyAgent):\n    spec = 'mine'\n"


@pytest.fixture
def mine(tmp_path, monkeypatch) -> str:
    """A user's agent class in a file of the working folder: its spec."""
    monkeypatch.chdir(tmp_path)
    Path("mine.py").write_text(MINE)
    return "mine.py:Mine"


@pytest.mark.parametrize("roles", [["{mine}", "greedy"], ["greedy", "{mine}"], ["greedy", "random", "--against", "{mine}"]])
def test_kc_compare_seats_a_users_class_in_every_role(mine, roles, capsys):
    """kc compare said "unknown agent spec 'mine.py:Mine'" where kc eval plays it."""
    argv = [role.format(mine=mine) for role in roles]
    assert main(["compare", *argv, "--deals", "2", "--examples", "0"]) == 0
    out = capsys.readouterr().out
    against = f" against {argv[3]}" if len(argv) > 2 else ""  # a probe: the other seats went unnamed
    assert out.startswith(f"kc compare: {argv[0]} vs {argv[1]}, 2 players, 2 deals{against}: ")


def test_kc_play_seats_a_users_class(mine, monkeypatch, capsys):
    """kc play said "unknown agent spec 'mine.py:Mine'" where kc eval plays it."""
    def no_more_input(*args):
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more_input)
    assert main(["play", mine, "--one-deal", "--seed", "1", "--no-color"]) == 1  # stopped: the input ended
    captured = capsys.readouterr()
    assert captured.err == "" and f"against {mine};" in captured.out and "stopped: the input ended" in captured.out


def test_a_users_class_that_is_missing_is_one_line_in_every_command(mine, capsys):
    for argv in (["play", "mine.py:Nope"], ["compare", "mine.py:Nope", "greedy"],
                 ["eval", "mine.py:Nope", "greedy"]):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"kc {argv[0]}: mine.py:Nope: mine.py has no Nope (its Agent classes: Mine)\n"


STUBBORN = MINE + "\n\nclass Stubborn(Mine):\n    def play_for(self, objective):\n        raise RuntimeError('no')\n"


@pytest.mark.parametrize("argv", [["play", "mine.py:Stubborn", "--one-deal"], ["eval", "mine.py:Stubborn", "greedy", "--deals", "2"],
                                  ["benchmark", "mine.py:Stubborn", "--tasks", "kc/standard-2p-vs-heuristic-v1", "--quick"]])
def test_a_users_class_whose_play_for_raises_is_one_line(mine, argv, capsys):
    """A probe of today's changes: play_for, which an Agent may override, raising gave a traceback
    (kc play, kc eval, kc benchmark), where act raising is one line naming the agent."""
    Path("mine.py").write_text(STUBBORN)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.splitlines()[-1].endswith("raised RuntimeError in play_for: no"), err


RAISER = "from kc_env.agents import Agent\n\nclass Raiser(Agent):\n    def act(self, obs):\n        raise RuntimeError('no')\n"


def test_a_users_class_without_a_spec_is_named_by_the_spec_it_was_loaded_by(tmp_path, monkeypatch, capsys):
    """A probe of today's changes: a failing agent was named Raiser(spec='agent'), Agent's default."""
    monkeypatch.chdir(tmp_path)
    Path("raiser.py").write_text(RAISER)
    assert main(["eval", "raiser.py:Raiser", "greedy", "--deals", "2"]) == 2
    assert "Raiser(spec='raiser.py:Raiser') at seat" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "option"), [
    (["compare", "greedy", "random", "--against", "random", "--against", "greedy"], "--against"),
    (["export", "search", "out", "--against", "random", "--against", "greedy"], "--against"),
    (["eval", "random", "greedy", "--deals", "2", "--deals", "4"], "--deals"),
    (["eval", "random", "greedy", "--plot", "a.png", "--plot", "b.png"], "--plot"),
    (["compare", "greedy", "random", "-n", "2", "--players", "3"], "-n/--players"),
    (["play", "--seat", "0", "--seat", "1"], "--seat"),
    (["benchmark", "--runs", "a", "--runs", "b"], "--runs"),
])
def test_an_option_that_takes_one_value_is_refused_when_given_twice(argv, option, capsys):
    """kc compare --against random --against greedy played against greedy alone, silently: every
    option that takes one value is refused in one line when given again, in every command (when
    the arguments are read: nothing is played)."""
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(argv)
    assert caught.value.code == 2
    many = "; list them all after one --runs" if option == "--runs" else ""  # a probe: said "give it once" of a list
    assert capsys.readouterr().err.splitlines()[-1] == f"kc {argv[0]}: error: argument {option}: given twice; give it once{many}"


def test_an_option_that_adds_up_or_switches_on_may_be_given_again():
    parser = build_parser()
    assert parser.parse_args(["eval", "random", "--no-progress", "--no-progress"]).no_progress
    assert parser.parse_args(["serve", "--model", "a", "--model", "b"]).model == ["a", "b"]
    again = parser.parse_args(["eval", "random", "--deals", "2"])  # the same parser parses again
    assert parser.parse_args(["eval", "random", "--deals", "3"]).deals == 3 and again.deals == 2
