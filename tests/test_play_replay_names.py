"""``kc play --save`` names who sat at each seat (the record's optional ``players``: ``you`` or
the agent spec) and ``kc replay`` shows those names (issue 36: a saved game dropped "you" and the
agent, the replay said player_0/player_1)."""

from __future__ import annotations

import json

import pytest

from kc_env import engine, record
from kc_env.cli import main
from kc_env.match import play_deal


def _always_first_move(monkeypatch, answers: int | None = None) -> None:
    """The person types 1 (the first legal move) at every prompt; after ``answers`` of them the
    input ends (EOFError), which stops the game and saves what was played."""
    count = iter(range(answers if answers is not None else 10**6))

    def read(prompt: str = "") -> str:
        _next_or_eof(count)
        return "1"

    monkeypatch.setattr("builtins.input", read)


def _next_or_eof(count) -> None:
    try:
        next(count)
    except StopIteration:
        raise EOFError from None


@pytest.mark.parametrize(("argv", "players", "fmt"), [
    (["random", "--one-deal"], ["you", "random"], "kc_env.game"),
    (["random", "greedy", "--seat", "1", "--max-deals", "2", "--rules", "pagat"],
     ["random", "you", "greedy"], "kc_env.match"),
])
def test_play_save_names_the_seats(tmp_path, monkeypatch, capsys, argv, players, fmt):
    _always_first_move(monkeypatch)
    saved = tmp_path / "g.json"
    assert main(["play", *argv, "--seed", "5", "--no-color", "--save", str(saved)]) == 0
    data = json.loads(saved.read_text())
    assert data["format"] == fmt and data["players"] == players
    assert record.load(saved).players == tuple(players)


def test_a_stopped_game_is_saved_with_its_names(tmp_path, monkeypatch, capsys):
    _always_first_move(monkeypatch, answers=3)
    saved = tmp_path / "g.json"
    assert main(["play", "greedy", "--seed", "2", "--no-color", "--save", str(saved)]) == 1
    assert json.loads(saved.read_text())["players"] == ["you", "greedy"]


def test_replay_names_the_seats_the_record_names(tmp_path, capsys):
    state = engine.new_deal("standard", 2, seed=3)
    moves, cut = play_deal(state, lambda state, moves: moves[0])
    path = tmp_path / "g.json"
    record.save(record.GameRecord.from_state(state, moves, cut, players=["you", "heuristic"]), path)
    assert main(["replay", str(path), "--no-color"]) == 0
    out = capsys.readouterr().out
    numbered = [line for line in out.splitlines() if line.strip()[:1].isdigit() and ": " in line]
    assert numbered and all(" p0 (you): " in line or " p1 heuristic: " in line for line in numbered)
    assert "player_" not in out
    assert main(["replay", str(path), "--no-color", "--viewer", "0"]) == 0
    viewed = capsys.readouterr().out
    assert "(you) (you)" not in viewed and "p0 (you)" in viewed


def test_replay_from_another_seat_calls_only_the_viewer_you(tmp_path, capsys):
    state = engine.new_deal("standard", 2, seed=3)
    moves, cut = play_deal(state, lambda state, moves: moves[0])
    path = tmp_path / "g.json"
    record.save(record.GameRecord.from_state(state, moves, cut, players=["you", "heuristic"]), path)
    assert main(["replay", str(path), "--no-color", "--viewer", "1"]) == 0
    seats = [line for line in capsys.readouterr().out.splitlines() if " card" in line and line.startswith("p")]
    assert seats and all("(you)" not in line for line in seats if line.startswith("p0"))
    assert all("(you)" in line for line in seats if line.startswith("p1"))


def test_replay_without_names_keeps_player_numbers(tmp_path, capsys):
    state = engine.new_deal("standard", 2, seed=4)
    moves, cut = play_deal(state, lambda state, moves: moves[0])
    path = tmp_path / "g.json"
    record.save(record.GameRecord.from_state(state, moves, cut), path)
    assert main(["replay", str(path), "--no-color"]) == 0
    assert "1. player_" in capsys.readouterr().out


def test_a_deal_quit_unfinished_is_saved_and_replayed_as_stopped_not_finished(tmp_path, monkeypatch, capsys):
    """``q`` in the middle of a --one-deal game: play says the deal was stopped (not that the
    finished deals were saved), and replay ends on the stopped deal, not 'the deal is over'."""
    answers = iter(["1", "1", "q"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    saved = tmp_path / "g1.json"
    assert main(["play", "heuristic", "--one-deal", "--seed", "3", "--no-color", "--save", str(saved)]) == 1
    data = json.loads(saved.read_text())
    assert data["result"]["over"] is False
    moves = len(data["moves"])
    assert capsys.readouterr().out.splitlines()[-1] == (f"saved the deal, stopped after {moves} moves "
                                                        f"(not finished), to {saved}")
    assert main(["replay", str(saved), "--no-color"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"--- the deal was stopped after {moves} moves (not finished) ---"
    assert "the deal is over" not in out
