"""``kc play`` end to end: a person (typed input) against the heuristic, through a pseudo-terminal
(pexpect) and through piped standard input."""

from __future__ import annotations

import json
import subprocess
import sys

import pexpect
import pytest

KC = [sys.executable, "-m", "kc_env.cli"]


def test_a_full_deal_against_the_heuristic_in_a_terminal(tmp_path):
    """The layout, the hand and the numbered legal moves are shown; illegal input is refused with
    the reason and asked again; the heuristic's moves are shown; the deal is played out."""
    saved = tmp_path / "deal.json"
    child = pexpect.spawn(KC[0], KC[1:] + ["play", "heuristic", "--seed", "3", "--one-deal", "--no-color",
                                           "--save", str(saved)], encoding="utf-8", timeout=120,
                          dimensions=(60, 160))
    child.expect("your move: ")
    first = child.before
    assert "legal moves:" in first and "p1 heuristic" in first and "cards:" in first
    assert "N " in first and "NE " in first and "stock" in first  # the layout
    child.sendline("move N N")
    child.expect("refused: move N->N is not legal now: a pile cannot move onto itself")
    child.expect("your move: ")
    child.sendline("9Z N")
    child.expect("refused: not a card: '9Z'")
    child.expect("your move: ")
    child.sendline("99")
    child.expect("refused: there is no move 99")
    turns = 0
    while True:
        index = child.expect(["your move: ", "one deal played", pexpect.EOF])
        if index != 0:
            break
        turns += 1
        child.sendline("1")  # the first legal move: card plays first, so the deal always moves on
        assert turns < 400
    transcript = child.before
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert turns > 5
    record = json.loads(saved.read_text())
    assert record["format"] == "kc_env.game" and record["result"]["over"] is True
    assert len(record["moves"]) > turns
    assert "p1 heuristic" in transcript or record["result"]["winner"] in (0, 1)


def test_piped_input_plays_a_whole_match_to_its_target():
    """Typed moves by text ('end'), a refused move, the opponents' moves as they happen, and the
    match scored to its target."""
    lines = ["KS NW", "move W E", "end"] + ["1"] * 6000
    run = subprocess.run(KC + ["play", "heuristic", "greedy", "--seed", "8", "--rules", "standard,target=10",
                               "--no-color"], input="\n".join(lines) + "\n", capture_output=True, text=True,
                         timeout=300)
    out = run.stdout
    assert run.returncode == 0, run.stderr
    assert "refused:" in out
    assert "p1 heuristic: " in out and "p2 greedy: " in out
    assert "=== the match is over after" in out
    assert "totals:" in out and "points this deal:" in out


def test_input_that_ends_early_stops_the_game_cleanly():
    run = subprocess.run(KC + ["play", "--seed", "1", "--no-color"], input="end\n", capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 1
    assert "stopped: the input ended" in run.stdout


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "grandmaster"], "unknown agent spec 'grandmaster'"),
    (["play", "heuristic", "--seat", "5"], "--seat must be 0 to 1"),
    (["play", "heuristic", "--rules", "standard,draw=never"], "rule 'draw' cannot be 'never'"),
])
def test_kc_play_refuses_bad_arguments(argv, message, capsys):
    from kc_env.cli import main

    assert main(argv) == 2
    assert message in capsys.readouterr().err
