"""The command line's guards of issue 20: ``kc export`` refuses to replace a folder unless told;
``kc eval`` checks its extras before it plays a deal (Ctrl-C in ``kc train``: test_train_interrupt)."""

from __future__ import annotations

import importlib.util

import pytest

from kc_env.cli import main


def test_kc_eval_checks_its_extras_before_playing(monkeypatch, capsys, tmp_path):
    from kc_env import tournament

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail("played before checking"))
    assert main(["eval", "random", "greedy", "--deals", "2", "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "eval extra" in err and "matplotlib" in err and len(err.strip().splitlines()) == 1
    assert err.startswith("kc eval: --plot needs the eval extra"), "one prefix, not 'kc eval: kc eval needs'"


def test_kc_eval_plays_without_openskill_and_leaves_the_ratings_out(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openskill" else real(name, *a))
    assert main(["eval", "random", "greedy", "--deals", "4", "--workers", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "no ratings" in captured.err and "openskill" in captured.err
    assert "win share" in captured.out and "ratings (openskill" not in captured.out


def test_kc_export_refuses_to_replace_a_folder_unless_told(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    target = tmp_path / "models" / "mine"
    target.mkdir(parents=True)
    (target / "model.json").write_text("{}")
    assert main(["export", str(tmp_path / "no-run"), str(target), "--deals", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "--overwrite" in err and len(err.strip().splitlines()) == 1
    assert (target / "model.json").read_text() == "{}"
    assert main(["export", str(tmp_path / "no-run"), str(target), "--overwrite", "--no-progress"]) == 2
    assert "already exists" not in capsys.readouterr().err  # past the guard: the run is what is missing
