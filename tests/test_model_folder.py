"""One reader of model folders (issue 32 item 3): one ``ModelError``, a registry of formats that
``agents.load`` and the web table dispatch on, and a broken folder of every format refused with
``kc_env.agents.ModelError`` (a broken turn-value folder raised a second class of it, which
``except kc_env.agents.ModelError`` did not catch)."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

import kc_env.agents
from kc_env.agents import model_folder as folders

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = folders.shipped_models()
EXAMPLE = {fmt.name: next(name for name, folder in SHIPPED.items() if folders.format_of(folder) is fmt)
           for fmt in folders.FORMATS.values()}
"""A shipped model of each format."""


def _copy(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(SHIPPED[name], tmp_path / name))


def _edit_card(folder: Path, **changes) -> None:
    card = json.loads((folder / folders.CARD_FILE).read_text())
    (folder / folders.CARD_FILE).write_text(json.dumps({**card, **changes}))


BREAKS = {
    "a format version from the future": lambda f: _edit_card(f, format_version=99),
    "a card that is not JSON": lambda f: (f / folders.CARD_FILE).write_text("{not json"),
    "no card": lambda f: (f / folders.CARD_FILE).unlink(),
    "a card for 9 players": lambda f: _edit_card(f, num_players=9),
    "weights cut short": lambda f: (f / folders.WEIGHTS_FILE).write_bytes((f / folders.WEIGHTS_FILE).read_bytes()[:500]),
}


@pytest.mark.parametrize("fmt", folders.FORMATS)
@pytest.mark.parametrize("damage", BREAKS)
def test_a_broken_folder_of_every_format_raises_the_agents_model_error(tmp_path, fmt, damage):
    folder = _copy(EXAMPLE[fmt], tmp_path)
    if damage == "weights cut short" and folders.WEIGHTS_FILE not in folders.FORMATS[fmt].files:
        pytest.skip(f"a {fmt} folder holds no weights")
    BREAKS[damage](folder)
    with pytest.raises(kc_env.agents.ModelError) as info:
        kc_env.agents.load(str(folder))
    assert str(folder) in str(info.value) and "\n" not in str(info.value)


def test_there_is_one_model_error_class_in_the_package_and_every_old_name_is_it():
    defined = [(path.relative_to(ROOT).as_posix(), node.lineno)
               for top in ("kc_env", "training") for path in sorted((ROOT / top).rglob("*.py"))
               for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
               and node.name == "ModelError"]
    assert [where for where, _ in defined] == ["kc_env/agents/model_folder.py"], defined
    from kc_env.agents import policy_model, search_folder, turn_value
    from kc_env.web import store

    for module in (kc_env.agents, policy_model, turn_value, search_folder, store):
        assert module.ModelError is folders.ModelError, module.__name__
    assert issubclass(folders.ModelError, ValueError)  # older code catching ValueError still catches it


def test_every_shipped_model_is_of_a_registered_format_and_holds_its_files():
    assert set(EXAMPLE) == set(folders.FORMATS)
    for name, folder in SHIPPED.items():
        fmt = folders.identify(folder)
        assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(("_", "."))) == sorted(fmt.files), name
        assert folders.read_card(folder) == json.loads((folder / folders.CARD_FILE).read_text())


def test_a_card_of_an_unknown_format_names_the_known_ones(tmp_path):
    folder = _copy(EXAMPLE["policy"], tmp_path)
    _edit_card(folder, format="kc_env.something-else")
    with pytest.raises(kc_env.agents.ModelError, match="its format is 'kc_env.something-else'; known formats: "
                                                       "kc_env.policy, kc_env-turn-value, kc_env-search"):
        kc_env.agents.load(str(folder))
    assert folders.format_of(folder) is None and folders.format_of(tmp_path / "nowhere") is None


def test_agents_load_dispatches_on_the_registry(monkeypatch, tmp_path):
    """A format is one ``Format`` in the registry: ``agents.load`` asks it, compares no names."""
    folder = _copy(EXAMPLE["search"], tmp_path)
    _edit_card(folder, format="kc_env-test")
    seen = []

    class Reader:  # what a format's module offers
        @staticmethod
        def load_agent(folder, seed=None, spec=None):
            seen.append((Path(folder), seed, spec))
            return kc_env.agents.RandomAgent(seed=seed)

    test_format = folders.Format("test", "kc_env-test", 1, "reader", (folders.CARD_FILE,), "a test model")
    monkeypatch.setitem(folders.FORMATS, "test", test_format)
    monkeypatch.setattr(folders.Format, "reader", lambda self: Reader if self is test_format else
                        folders.importlib.import_module(self.module))
    agent = kc_env.agents.load(str(folder), seed=3)
    assert isinstance(agent, kc_env.agents.RandomAgent) and seen == [(folder, 3, str(folder))]


def test_a_card_over_the_cap_is_refused_unread(tmp_path):
    folder = _copy(EXAMPLE["turn_value"], tmp_path)
    (folder / folders.CARD_FILE).write_text(" " * (folders.MAX_CARD_BYTES + 1))
    with pytest.raises(kc_env.agents.ModelError, match=f"more than a model card holds \\({folders.MAX_CARD_BYTES:,}\\)"):
        kc_env.agents.load(str(folder))
