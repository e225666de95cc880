"""``kc export`` dispatches on the model-folder registry (issue 32 item 3): a model folder of any
format given in place of a run is checked, copied and evaluated; and it draws progress bars only
on a terminal, as ``kc eval`` does (issue 36 item 9: its tqdm bars filled logs with ``\\r`` lines)."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from kc_env import agents
from kc_env.agents import model_folder, search_folder
from kc_env.cli import main
from kc_env.rules import Rules

pytest.importorskip("torch")  # kc export needs the train extra

QUICK = "search:redeals=2,candidates=3"


def _export(args, capsys):
    code = main(["export", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("tty", [False, True])
def test_kc_export_draws_bars_only_on_a_terminal(tmp_path, capsys, monkeypatch, tty):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: tty)
    code, _, err = _export([QUICK, str(tmp_path / "m"), "--deals", "2", "--against", "random", "--seed", "1"], capsys)
    assert code == 0
    assert ("kc eval" in err and "\r" in err) == tty, err  # the tournament's tqdm bar, on stderr
    if not tty:
        assert err == ""
    code, _, err = _export([QUICK, str(tmp_path / "n"), "--deals", "2", "--against", "random", "--no-progress"], capsys)
    assert code == 0 and err == ""


def _quick_search_folder(tmp_path):
    return search_folder.save(tmp_path / "quick", QUICK, 2, Rules.preset("standard").to_dict())


@pytest.mark.parametrize("source", ["ppo-standard-2p", "turn-ranking-2p", "quick search"])
def test_kc_export_of_a_model_folder_copies_and_evaluates_it_at_its_table(tmp_path, capsys, source):
    folder = _quick_search_folder(tmp_path) if source == "quick search" else model_folder.shipped_models()[source]
    fmt = model_folder.identify(folder)
    out = tmp_path / "out"
    code, printed, err = _export([str(folder), str(out), "--deals", "2", "--against", "random", "--seed", "3"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(fmt.files) and model_folder.identify(out) is fmt
    card, old = (json.loads((f / "model.json").read_text()) for f in (out, folder))
    assert {k: v for k, v in card.items() if k != "evaluation"} == {k: v for k, v in old.items() if k != "evaluation"}
    assert card["evaluation"]["command"] == f"kc export {folder} {out} --deals 2 --against random --seed 3"
    assert [(r["player"], r["opponent"], r["deals"]) for r in card["evaluation"]["results"]] == [
        ("model", "random", 2), ("heuristic", "random", 2)]
    assert f"exported to {out}" in printed and agents.load(str(out)).card == card
    if fmt.files != (model_folder.CARD_FILE,):
        assert (out / "weights.npz").read_bytes() == (folder / "weights.npz").read_bytes()


def test_kc_export_refuses_a_broken_model_folder_in_one_line(tmp_path, capsys):
    folder = shutil.copytree(model_folder.shipped_models()["turn-ranking-2p"], tmp_path / "tv")
    (folder / "weights.npz").write_bytes(b"PK\x03\x04 not a zip")
    code, _, err = _export([str(folder), str(tmp_path / "out"), "--deals", "2"], capsys)
    assert code == 2 and err == f"kc export: {folder / 'weights.npz'}: corrupt weights file (not an .npz archive of arrays)\n"
    assert not (tmp_path / "out").exists()


def test_kc_export_of_a_folder_that_is_not_there_says_so(tmp_path, capsys):
    """The newcomer report: 'kc export nosuchrun out' answered with the shipped configs' names."""
    code, _, err = _export(["nosuchrun", str(tmp_path / "out")], capsys)
    assert code == 2 and err.startswith("kc export: nosuchrun: no such folder; give a kc train run folder")
    assert "shipped configs" not in err and not (tmp_path / "out").exists()


def test_kc_export_of_a_model_trained_at_several_tables_evaluates_it_at_the_first(tmp_path, capsys, monkeypatch):
    """A card that lists its ``tables`` and names no single one (models/turn-ranking-all; a fold
    by seat count) was refused with 'the card names no table'; its figures are at its first."""
    from kc_env.training import publish

    seen = []
    real = publish.evaluate_model
    monkeypatch.setattr(publish, "evaluate_model", lambda folder, rules, n, *rest: seen.append((rules, n)) or
                        real(folder, rules, n, *rest))
    folder = model_folder.shipped_models()["turn-ranking-all"]
    card = json.loads((folder / "model.json").read_text())
    assert card.get("num_players") is None and card["tables"][0]["name"] == "standard-2p"
    code, printed, err = _export([str(folder), str(tmp_path / "out"), "--deals", "2", "--against", "random"], capsys)
    assert code == 0, err
    assert seen == [(Rules.preset("standard"), 2)] and "exported to" in printed
