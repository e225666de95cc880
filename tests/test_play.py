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


@pytest.mark.parametrize(("argv", "line"), [
    (["--one-deal", "--rules", "standard,scoring=single"], "=== the match is over after 1 deal: "),
    (["--max-deals", "1"], "stopped after 1 deal (--max-deals)"),
])
def test_a_match_of_one_deal_says_deal_not_deals(argv, line):
    run = subprocess.run(KC + ["play", "heuristic", "--seed", "3", "--no-color", *argv], input="1\n" * 400,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert line in run.stdout


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


@pytest.mark.parametrize("answer", ["²", "9" * 5000, "x" * 1_000_000])
def test_odd_input_is_refused_in_one_short_line_and_the_game_is_kept(tmp_path, answer):
    """Issue 18 item 11: '²' (isdigit() but not int()), 5,000 digits and a 1 MB line are refused
    like any bad move; the input then ends, and the deal played so far is saved."""
    saved = tmp_path / "g.json"
    done = subprocess.run(KC + ["play", "random", "--seed", "1", "--one-deal", "--no-color", "--save", str(saved)],
                          input=answer + "\n", capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    refusals = [line for line in done.stdout.splitlines() if "refused:" in line]
    assert len(refusals) == 1 and len(refusals[0]) < 400
    assert "stopped: the input ended" in done.stdout and json.loads(saved.read_text())["format"]


def test_a_save_path_in_a_missing_folder_is_refused_before_the_game(tmp_path):
    done = subprocess.run(KC + ["play", "random", "--seed", "1", "--one-deal", "--save", str(tmp_path / "no" / "g.json")],
                          input="", capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "your move" not in done.stdout
    assert done.stderr.strip() == f"kc play: --save {tmp_path / 'no' / 'g.json'}: the folder {tmp_path / 'no'} does not exist"


@pytest.mark.parametrize("command", [["play", "random"], ["eval", "random", "greedy"]])
def test_max_moves_zero_is_refused(command, capsys):
    from kc_env.cli import main

    with pytest.raises(SystemExit) as caught:
        main([*command, "--max-moves", "0"])
    assert caught.value.code == 2 and "--max-moves: must be positive, got 0" in capsys.readouterr().err


def test_eval_json_in_a_missing_folder_is_refused_before_the_tournament(tmp_path, capsys):
    from kc_env.cli import main

    assert main(["eval", "random", "greedy", "--deals", "100000", "--json", str(tmp_path / "no" / "e.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
