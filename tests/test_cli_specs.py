"""Agent specs and options on the ``kc`` command line: every command seats a user's own class
(``path/to/file.py:Class``) as ``kc eval`` does, through the one loader
(``kc_env.benchmark.submission``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kc_env.cli import main

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
    assert out.startswith(f"kc compare: {argv[0]} vs {argv[1]}, 2 players, 2 deals")


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
