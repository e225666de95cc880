"""docs/agents.md's "Shipped models" table is the README's, made from the models' cards by
``model_folder.models_table()`` (issue 36 item 11: the hand-written table quoted other runs than
the cards, e.g. turn-ranking-2p's 0.586 from a kc eval where its card keeps 0.575). Regenerate it
with ``python -c "from kc_env.agents.model_folder import models_table; print(models_table())"``."""

from __future__ import annotations

import re
from pathlib import Path

from kc_env.agents import model_folder

DOC = Path(__file__).resolve().parents[1] / "docs" / "agents.md"


def _section() -> str:
    text = DOC.read_text()
    return re.search(r"\n## Shipped models\n(.*?)(?=\n### |\n## )", text, re.S).group(1)


def test_the_shipped_models_table_is_made_from_the_cards():
    table = re.search(r"<!-- models -->\n(.*?)\n<!-- /models -->", _section(), re.S)
    assert table is not None, "docs/agents.md's Shipped models section has no generated table"
    assert table.group(1) == model_folder.models_table()


def test_every_shipped_model_says_what_it_is_and_no_figure_outside_the_table():
    section = _section()
    outside = re.sub(r"<!-- models -->\n.*?\n<!-- /models -->", "", section, flags=re.S)
    for name in model_folder.shipped_models():
        assert f"`models/{name}`" in outside, name
    words = re.sub(r"`[^`]*`", "", outside)  # agent specs carry numbers: fit_close=0.375
    assert not re.search(r"\b0\.\d{3}\b", words), "a win share outside the generated table"
