"""``kc replay FILE``: a saved deal or match shown move by move."""

from __future__ import annotations

import random

import pytest

from kc_env import engine, record
from kc_env.cli import main
from kc_env.match import play_deal, play_match


def _chooser(seed: int):
    rng = random.Random(seed)
    return lambda state, moves: moves[rng.randrange(len(moves))]


def test_replay_shows_a_deal_move_by_move(tmp_path, capsys):
    state = engine.new_deal("pagat", 3, seed=12)
    moves, cut = play_deal(state, _chooser(1))
    path = tmp_path / "deal.json"
    record.save(record.GameRecord.from_state(state, moves, cut), path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a deal of 3 players, seed 12, rules pagat" in out
    numbered = [line for line in out.splitlines() if line.strip()[:1].isdigit() and ". player_" in line]
    assert len(numbered) == len(moves)
    assert numbered[0].split(": ", 1)[1] == engine.move_name(moves[0])
    assert "--- the deal is" in out and out.count("Kings in the Corner ·") >= 2


def test_replay_full_draws_the_table_after_every_move(tmp_path, capsys):
    state = engine.new_deal("standard", 2, seed=3)
    moves, cut = play_deal(state, _chooser(2))
    path = tmp_path / "deal.json"
    record.save(record.GameRecord.from_state(state, moves, cut), path)
    assert main(["replay", str(path), "--full", "--viewer", "0"]) == 0
    out = capsys.readouterr().out
    assert out.count("Kings in the Corner ·") == len(moves) + 1
    assert "player_1        " in out and "(you)" in out


def test_replay_a_whole_match(tmp_path, capsys):
    match = play_match("german", 2, 5, _chooser(3))
    path = tmp_path / "match.json"
    record.save(record.MatchRecord.from_match(match), path)
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("=== deal ") == match.deal_number
    assert "=== the match is over:" in out


def test_replay_step_stops_on_q(tmp_path, capsys, monkeypatch):
    state = engine.new_deal("standard", 2, seed=4)
    moves, cut = play_deal(state, _chooser(4))
    path = tmp_path / "deal.json"
    record.save(record.GameRecord.from_state(state, moves, cut), path)
    answers = iter(["", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert main(["replay", str(path), "--step"]) == 0
    out = capsys.readouterr().out
    assert "--- the deal is" not in out


@pytest.mark.parametrize(("content", "message"), [
    ("{", "not valid JSON"),
    ('{"format": "kc_env.game", "version": 1}', "lacks"),
])
def test_replay_refuses_a_bad_file(tmp_path, capsys, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 2
    assert message in capsys.readouterr().err


def test_replay_refuses_a_missing_file(capsys):
    assert main(["replay", "/nonexistent/game.json"]) == 2
    assert "cannot read /nonexistent/game.json" in capsys.readouterr().err
