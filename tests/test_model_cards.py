"""The README's model table is made from the shipped models' cards (issue 36 item 11: it and the
``model.json`` cards disagreed: a model with no evaluation, two figures from other runs, a shipped
model missing). Regenerate it with
``python -c "from kc_env.agents.model_folder import models_table; print(models_table())"``."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kc_env.agents import model_folder

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_model_table_is_made_from_the_cards():
    text = (ROOT / "README.md").read_text()
    table = re.search(r"<!-- models -->\n(.*?)\n<!-- /models -->", text, re.S).group(1)
    assert table == model_folder.models_table()


def test_the_table_lists_every_shipped_model_with_its_cards_figures():
    table = model_folder.models_table().splitlines()
    shipped = model_folder.shipped_models()
    assert [line.split("`")[1] for line in table[2:]] == [f"models/{name}" for name in shipped]
    for line, (name, folder) in zip(table[2:], shipped.items(), strict=True):
        evaluation = json.loads((folder / "model.json").read_text()).get("evaluation")
        if evaluation is None:
            assert "no evaluation in its card" in line, name
            continue
        against_heuristic = next(r for r in evaluation["results"] if (r["player"], r["opponent"]) == ("model", "heuristic"))
        low, high = against_heuristic["share_interval"]
        assert f"{against_heuristic['win_share']:.3f} [{low:.3f}, {high:.3f}]" in line, name
        assert f"| {against_heuristic['deals']:,} |" in line, name


def test_a_card_without_an_evaluation_says_so_and_one_with_says_its_seed(tmp_path):
    card = {"format": "kc_env-search", "format_version": 1, "spec": "search", "num_players": 3}
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "model.json").write_text(json.dumps(card))
    rows = [{"player": "model", "opponent": "heuristic", "deals": 30, "win_share": 0.4, "share_interval": [0.3, 0.5]}]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "model.json").write_text(json.dumps(
        {**card, "evaluation": {"command": "kc export search b --deals 30 --seed 7", "results": rows}}))
    table = model_folder.models_table({"a": tmp_path / "a", "b": tmp_path / "b"}).splitlines()
    assert table[2] == "| `models/a` | search | 3 | no evaluation in its card | | | | |"
    assert table[3] == ("| `models/b` | search | 3 | 0.400 [0.300, 0.500] (fair 0.33) | not evaluated | not evaluated "
                        "| 30 | 7 |")


def test_every_shipped_card_is_strict_json():
    """A card is read by other tools too (strict parsers refuse NaN and Infinity, which Python's
    json writes by default): models/turn-ranking-all shipped with NaN in its training curve."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    for folder in model_folder.shipped_models().values():
        json.loads((folder / "model.json").read_text(), parse_constant=refuse)


def test_a_card_with_a_nan_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    import pytest

    with pytest.raises(model_folder.ModelError, match="not JSON .NaN or infinity"):
        model_folder.write_card(tmp_path, {"format": "kc_env-search", "curve": [float("nan")]})
    assert not (tmp_path / model_folder.CARD_FILE).exists()
