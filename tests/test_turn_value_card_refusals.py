"""A turn-value model's card and weights are checked whole when it is read
(``turn_value.read_card``, ``load``, ``load_careless``): a setting the card holds is checked whether
or not the rest of the card uses it, and a network whose scores could overflow float32 is refused,
so that nothing that reads a model (``kc eval``, the compiled duels, the folds) meets it later."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from kc_env.training.turn_value import ensemble, seats

from kc_env.agents import turn_value as tv

MODELS = Path(__file__).resolve().parents[1] / "models"
BASE = MODELS / "turn-ppo-2p"
"""A shipped model with a second network that samples (``careless_play: sample``)."""


def base_copy(folder, **card_changes):
    """A copy of ``BASE`` in ``folder`` with ``card_changes`` (None: the key removed)."""
    shutil.copytree(BASE, folder)
    card = json.loads((folder / tv.CARD_FILE).read_text()) | card_changes
    (folder / tv.CARD_FILE).write_text(json.dumps({k: v for k, v in card.items() if v is not None}))
    return folder


def with_arrays(folder, **arrays):
    """``folder``'s weights with ``arrays`` in place of its own."""
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        np.savez(folder / tv.WEIGHTS_FILE, **({k: data[k] for k in data.files} | arrays))
    return folder


ONE_NETWORK = {"careless_layers": None, "careless_play": None}
"""A card without a second network."""


@pytest.mark.parametrize("patience", [{"2": "x"}, [1], -1, 101, True, "3", {"7": 1}])
def test_patience_is_checked_without_a_second_network(tmp_path, patience):
    folder = base_copy(tmp_path / "m", **ONE_NETWORK, patience=patience)
    with pytest.raises(tv.ModelError, match=r"model.json: 'patience' must be an integer from 0 to 100, or one for "
                                            r"each seat count"):
        tv.load(folder)


def test_a_good_patience_without_a_second_network_still_loads(tmp_path):
    card, _ = tv.load(base_copy(tmp_path / "m", **ONE_NETWORK, patience={"2": 3}))
    assert card["patience"] == {"2": 3}


def test_the_compiled_duel_and_the_seat_fold_name_the_card_with_a_bad_patience(tmp_path, capsys):
    bad = base_copy(tmp_path / "bad", **ONE_NETWORK, patience={"2": "x"})
    other = base_copy(tmp_path / "other", **ONE_NETWORK, patience=None)
    with pytest.raises(SystemExit) as stop:
        seats.main([str(tmp_path / "out"), f"2={bad}", f"4={other}"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{bad / tv.CARD_FILE}: 'patience' must be" in err


@pytest.mark.parametrize("trained", [["x"], "x", 3, None])
def test_a_trained_block_that_is_not_a_mapping_is_refused(tmp_path, trained):
    folder = base_copy(tmp_path / "m")
    card = json.loads((folder / tv.CARD_FILE).read_text()) | {"trained": trained}
    (folder / tv.CARD_FILE).write_text(json.dumps(card))
    with pytest.raises(tv.ModelError, match=r"model.json: 'trained', what the model was trained on, must be a "
                                            r"mapping"):
        tv.load(folder)


@pytest.mark.parametrize("fold", ["ensemble", "seats"])
def test_the_folds_name_a_card_whose_trained_block_is_not_a_mapping(tmp_path, capsys, fold):
    good = base_copy(tmp_path / "good")
    bad = base_copy(tmp_path / "bad", trained=["x"])
    with pytest.raises(SystemExit) as stop:
        if fold == "ensemble":
            ensemble.main([str(tmp_path / "out"), str(good), str(bad)])
        else:
            seats.main([str(tmp_path / "out"), f"2={good}", f"4={bad}"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{bad / tv.CARD_FILE}: 'trained'" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["w0", "b1", "careless_w0", "careless_b0"])
def test_a_weight_beyond_the_cap_is_refused_naming_its_array(tmp_path, name):
    folder = base_copy(tmp_path / "m")
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        big = np.full_like(data[name], 3e38)
    with_arrays(folder, **{name: big})
    with pytest.raises(tv.ModelError, match=rf"weights.npz: array {name} holds 3e\+38; a weight or bias is at most "):
        card, _ = tv.load(folder)
        tv.load_careless(folder, card)


def test_weights_under_the_cap_whose_scores_could_overflow_are_refused(tmp_path):
    """Each weight is allowed (a seat fold's ``SILENCE``); four layers of them are not."""
    big = 2.0**20
    sizes = [tv.FEATURES, 8, 8, 8, 1]
    layers = [(np.full((sizes[i + 1], sizes[i]), big, np.float32), np.zeros(sizes[i + 1], np.float32))
              for i in range(len(sizes) - 1)]
    folder = tv.save(tmp_path / "deep", layers, {"candidates": 4})
    with pytest.raises(tv.ModelError, match=r"weights.npz: arrays w3, b3 could take the network's values to [\d.e+]+ "
                                            r"\(from features up to 1e\+04\), more than the 1e\+30 a model may reach"):
        tv.load(folder)
    tv.save(folder, layers[:3] + [(np.ones((1, 8), np.float32), np.zeros(1, np.float32))], {"candidates": 4})
    tv.load(folder)  # one layer less of them is within the bound


def test_sampling_from_overflowing_weights_never_starts(tmp_path):
    """``kc eval`` of such a model failed mid-deal with ``Probabilities contain NaN``."""
    folder = base_copy(tmp_path / "m")
    with np.load(folder / tv.WEIGHTS_FILE) as data:
        with_arrays(folder, w0=np.full_like(data["w0"], 3e38), careless_w0=np.full_like(data["careless_w0"], 3e38))
    with pytest.raises(tv.ModelError, match="array w0 holds 3e\\+38"):
        tv.TurnValueAgent(folder)


@pytest.mark.parametrize("name", sorted(p.name for p in MODELS.iterdir() if tv.is_turn_value_folder(p)))
def test_every_shipped_turn_value_model_is_within_the_caps(name):
    card, layers = tv.load(MODELS / name)
    nets = [layers] + ([tv.load_careless(MODELS / name, card)] if card.get("careless_layers") else [])
    assert all(np.abs(a).max() <= tv.MAX_WEIGHT for net in nets for pair in net for a in pair)


@pytest.mark.parametrize("changes, where", [
    ({"num_players": 2.0}, "num_players"),
    ({"num_players": 6.0}, "num_players"),
    ({"tables": [{"name": "standard-2p", "num_players": 2.0, "rules": {}}]}, "tables[0]: num_players"),
])
def test_num_players_must_be_an_integer(tmp_path, changes, where):
    folder = base_copy(tmp_path / "m", **changes)
    with pytest.raises(tv.ModelError, match=rf"model.json: {where.replace('[', '.').replace(']', '.')}, the players "
                                            r"it was trained for, must be 2 to 6, not \d\.0"):
        tv.load(folder)
