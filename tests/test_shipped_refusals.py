"""The compiled duels (``kc_env.training.turn_value.shipped``) refuse a bad table, deal count or
model up front, in one line, before any deal is played: the compiled kernel never sees a table it
cannot hold (``--tables standard-40p`` crashed the process)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from kc_env.training.turn_value import shipped

from kc_env.agents import turn_value as tv
from kc_env.rules import MAX_PLAYERS, MIN_PLAYERS, Rules

BASE = Path(__file__).resolve().parents[1] / "models" / "turn-ppo-2p"


@pytest.fixture
def no_kernel(monkeypatch):
    """The compiled duel, replaced: a refusal must come before any deal is played."""
    def played(*_args, **_kw):
        raise AssertionError("a deal was played")

    monkeypatch.setattr(shipped, "play_duel", played)


def base_copy(tmp_path, **card_changes):
    """A copy of the shipped ``turn-ppo-2p`` with ``card_changes`` (None: the key removed)."""
    folder = tmp_path / "base"
    shutil.copytree(BASE, folder)
    card = json.loads((folder / tv.CARD_FILE).read_text()) | card_changes
    (folder / tv.CARD_FILE).write_text(json.dumps({k: v for k, v in card.items() if v is not None}))
    return folder


def refused(capsys, argv) -> str:
    """The one-line error ``shipped.main(argv)`` exits 2 with, nothing printed before it."""
    with pytest.raises(SystemExit) as stop:
        shipped.main(argv)
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("python -m kc_env.training.turn_value.shipped: error: ")
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("tables, message", [
    ("standard-40p", f"--tables 'standard-40p': {MIN_PLAYERS} to {MAX_PLAYERS} players, not 40"),
    ("standard-7p", f"--tables 'standard-7p': {MIN_PLAYERS} to {MAX_PLAYERS} players, not 7"),
    ("standard-1p", "--tables 'standard-1p': 2 to 6 players, not 1"),
    ("standard-0p", "--tables 'standard-0p': 2 to 6 players, not 0"),
    ("standard", "--tables 'standard': write PRESET-<players>p, as standard-2p"),
    ("standard-2p,", "--tables '': write PRESET-<players>p, as standard-2p"),
    ("standard-xp", "--tables 'standard-xp': write PRESET-<players>p, as standard-2p"),
    ("standard-2pp", "--tables 'standard-2pp': write PRESET-<players>p, as standard-2p"),
    ("nosuch-2p", "--tables 'nosuch-2p': unknown preset 'nosuch'; allowed: standard,"),
    ("standard-2p,pagat-9p", "--tables 'pagat-9p': 2 to 6 players, not 9"),
])
def test_a_bad_table_is_refused_before_any_deal(tmp_path, capsys, no_kernel, tables, message):
    err = refused(capsys, [str(base_copy(tmp_path)), "--tables", tables, "--deals", "5", "--seed", "1",
                           "--against", "heuristic"])
    assert message in err


@pytest.mark.parametrize("deals", ["0", "-3"])
def test_no_deals_is_refused(tmp_path, capsys, no_kernel, deals):
    err = refused(capsys, [str(base_copy(tmp_path)), "--tables", "standard-2p", "--deals", deals, "--seed", "1"])
    assert f"--deals {deals}: at least 1" in err


def test_an_unknown_model_folder_is_refused_before_any_deal(tmp_path, capsys, no_kernel):
    err = refused(capsys, [str(tmp_path / "nosuch"), "--tables", "standard-2p", "--deals", "5", "--seed", "1"])
    assert "nosuch" in err


@pytest.mark.parametrize("changes, message", [
    ({"careless_layers": None, "careless_play": None, "patience": {"2": "x"}}, "'patience' must be an integer"),
    ({"trained": ["x"]}, "'trained', what the model was trained on, must be a mapping"),
    ({"num_players": 2.0}, "num_players"),
])
def test_a_bad_card_is_refused_naming_it_before_any_deal(tmp_path, capsys, no_kernel, changes, message):
    err = refused(capsys, [str(base_copy(tmp_path, **changes)), "--tables", "standard-2p", "--deals", "5",
                           "--seed", "1", "--against", "random"])
    assert tv.CARD_FILE in err and message in err


def test_weights_that_could_overflow_are_refused_before_any_deal(tmp_path, capsys, no_kernel):
    folder = base_copy(tmp_path)
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        arrays = {k: data[k] for k in data.files}
    for name in ("w0", "careless_w0"):
        arrays[name][:] = 3e38
    np.savez(folder / tv.WEIGHTS_FILE, **arrays)
    err = refused(capsys, [str(folder), "--tables", "standard-2p", "--deals", "5", "--seed", "1"])
    assert tv.WEIGHTS_FILE in err and "array w0" in err


@pytest.mark.parametrize("num_players", [0, 1, MAX_PLAYERS + 1, 40, 2.0, True])
def test_the_duel_refuses_a_table_the_kernel_cannot_hold(no_kernel, num_players):
    with pytest.raises(ValueError, match=f"num_players must be {MIN_PLAYERS} to {MAX_PLAYERS}"):
        shipped.duel(BASE, Rules.preset("standard"), num_players, [1, 2])


@pytest.mark.parametrize("seeds", [[], np.zeros(0, np.int64), [[1, 2]]])
def test_the_duel_refuses_no_deals(no_kernel, seeds):
    with pytest.raises(ValueError, match="seeds must list at least one deal"):
        shipped.duel(None, Rules.preset("standard"), 2, seeds)


def test_good_tables_still_play(capsys, monkeypatch):
    """Checked tables reach the compiled duel as its arguments (the duel itself is compiled by the
    slow tests of tests/test_turn_ranking_all.py: a minute and a half on a cold cache)."""
    seats = []

    def played(seeds, _seats, num_players, *args):
        seats.append(num_players)
        args[-1][:] = 1.0 / num_players  # shares: every deal blocked

    monkeypatch.setattr(shipped, "play_duel", played)
    assert shipped.main([str(BASE), "--tables", "standard-2p,pagat-3p", "--deals", "2", "--seed", "1",
                         "--against", "heuristic"]) == 0
    rows = capsys.readouterr().out.strip().splitlines()
    assert [r.split(" | ")[0] for r in rows[2:]] == ["| standard-2p", "| pagat-3p"] and seats == [2, 3]
    assert rows[3] == "| pagat-3p | 0.333 ± 0.000 |"
