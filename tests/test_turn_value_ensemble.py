"""Several turn-value models folded into one (``kc_env.training.turn_value.ensemble``): the folded
network scores every candidate by the mean of the models' scores, keeps their gate, and refuses
models that do not play alike."""

from __future__ import annotations

import numpy as np
import pytest
from kc_env.training.turn_value import ensemble

from kc_env.agents import turn_value as tv


def gated_model(folder, hidden: int, seed: int, candidates: int = 6, patience: int = 8):
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.1, (hidden, tv.FEATURES)).astype(np.float32), rng.normal(0, 0.1, hidden).astype(np.float32)),
              (rng.normal(0, 0.5, (1, hidden)).astype(np.float32), rng.normal(0, 0.5, 1).astype(np.float32))]
    zeros = [(np.zeros((1, tv.FEATURES), np.float32), np.zeros(1, np.float32))]
    return tv.save(folder, layers, {"candidates": candidates, "num_players": 2, "trained": {"seed": seed, "curve": [1]}},
                   careless_layers=zeros, patience=patience, careless_play="sample", careless_candidates=4)


def scores_of(folder, x):
    _, layers = tv.load(folder)
    return tv.scores(x, *tv.layer_arrays(layers))


def test_the_folded_network_scores_by_the_mean_of_the_models(tmp_path):
    folders = [gated_model(tmp_path / f"m{i}", hidden, seed=i) for i, hidden in enumerate((5, 9, 7))]
    out = ensemble.write(tmp_path / "mean", folders)
    x = np.random.default_rng(7).normal(0, 1, (20, tv.FEATURES)).astype(np.float32)
    mean = np.mean([scores_of(f, x) for f in folders], axis=0)
    np.testing.assert_allclose(scores_of(out, x), mean, rtol=1e-5, atol=1e-5)
    card = tv.read_card(out)
    assert card["layers"] == [21, 1]
    assert (card["patience"], card["careless_play"], card["careless_candidates"]) == (8, "sample", 4)
    assert [m["seed"] for m in card["trained"]["ensemble_of"]] == [0, 1, 2]
    assert all("curve" not in m for m in card["trained"]["ensemble_of"])


def test_the_folded_model_plays_as_an_agent(tmp_path):
    from kc_env import agents, engine
    from kc_env.play import play_deal
    from kc_env.rules import Rules

    out = ensemble.write(tmp_path / "mean", [gated_model(tmp_path / f"m{i}", 4, seed=i) for i in range(2)])
    state = engine.new_deal(Rules.preset("standard"), 2, seed=3, dealer=0)
    play_deal(state, [agents.load(str(out), seed=1), agents.load("heuristic", seed=2)])
    assert state.is_over


def test_models_with_another_gate_are_refused_by_name(tmp_path):
    one = gated_model(tmp_path / "one", 4, seed=0)
    other = gated_model(tmp_path / "other", 4, seed=1, patience=5)
    with pytest.raises(ValueError, match=r"other: its patience differ"):
        ensemble.fold([one, other])


def test_the_command_names_a_folder_that_is_not_a_model(tmp_path, capsys):
    one = gated_model(tmp_path / "one", 4, seed=0)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exit_:
        ensemble.main([str(tmp_path / "out"), str(one), str(tmp_path / "empty")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "empty" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_gate_patience_may_be_set_for_the_folded_model(tmp_path):
    folders = [gated_model(tmp_path / f"m{i}", 4, seed=i) for i in range(2)]
    assert tv.read_card(ensemble.write(tmp_path / "p9", folders, patience=9))["patience"] == 9
    with pytest.raises(ValueError, match="patience 101"):
        ensemble.write(tmp_path / "bad", folders, patience=101)


def test_the_command_does_not_replace_a_folder_that_holds_something_unless_told(tmp_path, capsys):
    """As ``kc export``: a folder with a model (or anything) in it is refused in one line and left
    as it was; ``--overwrite`` replaces a model folder, never a folder that holds more."""
    one, two = (gated_model(tmp_path / f"m{i}", 4, seed=i) for i in range(2))
    before = {p.name: p.read_bytes() for p in two.iterdir()}
    with pytest.raises(SystemExit) as exit_:
        ensemble.main([str(two), str(one)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "already exists and is not empty" in err and "--overwrite" in err and len(err.splitlines()) == 1
    assert {p.name: p.read_bytes() for p in two.iterdir()} == before
    assert ensemble.main([str(two), str(one), "--overwrite"]) == 0
    assert {p.name: p.read_bytes() for p in two.iterdir()} != before
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(SystemExit):
        ensemble.main([str(tmp_path / "notes"), str(one), "--overwrite"])
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["todo.txt"]


def test_an_overwrite_cut_short_leaves_the_old_model_whole(tmp_path, monkeypatch):
    """Both files or neither: the card was written after the weights, each atomically but not
    together, so a fold stopped between them left new weights beside an old card (a probe's point)."""
    from kc_env.agents import model_folder

    one, two = (gated_model(tmp_path / f"m{i}", 4, seed=i) for i in range(2))
    before = {p.name: p.read_bytes() for p in two.iterdir()}

    def cut(*_args, **_kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(model_folder, "write_card", cut)  # the weights are written, then the card is not
    with pytest.raises(KeyboardInterrupt):
        ensemble.write(two, [one, one], overwrite=True)
    assert {p.name: p.read_bytes() for p in two.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m0", "m1"], "no staging folder left behind"
