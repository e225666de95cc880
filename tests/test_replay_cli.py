"""``kc replay FILE``: a saved deal or match shown move by move."""

from __future__ import annotations

import json
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


def test_a_match_record_of_one_unfinished_deal_says_deal_not_deals(tmp_path, capsys):
    match = play_match("standard", 2, 5, _chooser(3), max_deals=1)
    path = tmp_path / "match.json"
    record.save(record.MatchRecord.from_match(match), path)
    assert main(["replay", str(path)]) == 0
    assert "=== the record ends after 1 deal; " in capsys.readouterr().out


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


def _saved_deal(tmp_path, **changes):
    state = engine.new_deal("standard", 2, seed=4)
    moves, cut = play_deal(state, _chooser(2))
    data = record.GameRecord.from_state(state, moves, cut).to_dict()
    data.update(changes)
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(data))
    return path, data


def test_replay_refuses_a_record_whose_result_was_tampered_with(tmp_path, capsys):
    """Issue 18 item 14: kc replay checks the result the record claims, as record.replay does."""
    path, data = _saved_deal(tmp_path)
    data["result"]["winner"] = 1 - data["result"]["winner"] if data["result"]["winner"] is not None else 0
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "the replay does not end as recorded" in err and len(err.strip().splitlines()) == 1


def test_replay_refuses_half_a_game_that_claims_to_be_over(tmp_path, capsys):
    path, data = _saved_deal(tmp_path)
    data["moves"] = data["moves"][:3]
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    assert "the replay does not end as recorded" in capsys.readouterr().err


def test_a_finished_deal_cannot_claim_it_was_cut_off(tmp_path, capsys):
    path, _ = _saved_deal(tmp_path, truncated=True)
    assert main(["replay", str(path)]) == 2
    assert "the record says the deal was cut off, but it ended on its own" in capsys.readouterr().err


def test_a_match_record_with_a_deal_after_the_end_is_a_record_error(tmp_path, capsys):
    match = play_match("standard", 2, 5, _chooser(3))
    data = record.MatchRecord.from_match(match).to_dict()
    data["deals"].append(data["deals"][-1])
    data.pop("result", None)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(data))
    assert main(["replay", str(path)]) == 2
    assert f"deal {len(data['deals'])}: the match was already over" in capsys.readouterr().err


def test_replay_into_a_closed_pipe_ends_quietly(tmp_path):
    """``kc replay game.json | head -1``: no BrokenPipeError traceback."""
    import subprocess
    import sys

    path, _ = _saved_deal(tmp_path)
    done = subprocess.run(f"{sys.executable} -m kc_env.cli replay {path} --full | head -1", shell=True,
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.startswith("kc replay") and done.stderr == ""
