"""The models and configs that ship in the package (``models/`` -> ``kc_env.models``, ``configs/``
-> ``kc_env.configs``): every model folder loads by its bare name and by its path, from any
folder, and plays full deals legally; a bare name resolves inside the installed package."""

from __future__ import annotations

import json
import shutil
import zipfile
from importlib.resources import files
from pathlib import Path

import pytest
from wheel_build import build_wheel

from kc_env import agents
from kc_env.agents.policy_model import PolicyAgent, shipped_models
from kc_env.agents.search_agent import SearchAgent
from kc_env.agents.turn_value import TurnValueAgent
from kc_env.rules import Rules
from kc_env.tournament import run_tournament

ROOT = Path(__file__).resolve().parents[1]
MODELS = sorted(p.name for p in (ROOT / "models").iterdir() if (p / "model.json").is_file())
CONFIGS = sorted(p.stem for p in (ROOT / "configs").glob("*.yaml"))


def test_the_models_folder_has_models():
    assert MODELS, "models/ holds no exported model"
    assert sorted(shipped_models()) == MODELS


@pytest.mark.parametrize("name", MODELS)
def test_a_bare_name_resolves_inside_the_installed_package(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no models/ here: the name must come from the package
    agent = agents.load(name)
    assert isinstance(agent, (PolicyAgent, TurnValueAgent, SearchAgent)) and agent.spec == name
    assert agent.folder == Path(str(files("kc_env.models"))) / name
    shipped = sorted(p.name for p in (ROOT / "models" / name).iterdir())
    assert shipped in (["model.json", "weights.npz"], ["model.json"]), "a search model folder holds model.json alone"
    for file in shipped:
        assert (agent.folder / file).read_bytes() == (ROOT / "models" / name / file).read_bytes()


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("how", ["name", "path"])
def test_every_shipped_model_plays_full_deals_legally_against_the_heuristic(name, how):
    card = json.loads((ROOT / "models" / name / "model.json").read_text())  # a policy, turn-value or search card
    spec = name if how == "name" else str(ROOT / "models" / name)
    table = card["tables"][-1] if "tables" in card else card  # a model of several tables: its last
    players = table.get("num_players", 2)
    # run_tournament raises IllegalAgentAction on any action the seat's mask forbids
    result = run_tournament([spec, "heuristic"], Rules.from_dict(table["rules"]), num_players=players, deals=4,
                            seed=3, workers=1)
    assert result.episodes >= 4 and all(r.moves > 0 for r in result.results)
    assert result.stats[0].deals >= result.episodes  # a seat in every deal (two of four in 4-player ones)


def test_a_folder_wins_over_a_shipped_model_of_the_same_name(tmp_path, monkeypatch):
    name, other = MODELS[0], MODELS[-1]
    shutil.copytree(ROOT / "models" / other, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    agent = agents.load(name)
    assert agent.folder == Path(name)
    assert agent.card == json.loads((ROOT / "models" / other / "model.json").read_text())


def test_an_unknown_name_lists_the_shipped_models():
    with pytest.raises(ValueError, match="unknown agent spec 'no-such-model'") as info:
        agents.load("no-such-model")
    assert all(name in str(info.value) for name in MODELS)


@pytest.mark.parametrize("name", CONFIGS)
def test_every_shipped_config_loads_by_its_bare_name(name, tmp_path, monkeypatch):
    from kc_env.training import config as config_mod

    monkeypatch.chdir(tmp_path)  # no configs/ here: kc train NAME finds the shipped one
    path = config_mod.find(name)
    assert path == Path(str(files("kc_env.configs"))) / f"{name}.yaml"
    assert path.read_bytes() == (ROOT / "configs" / f"{name}.yaml").read_bytes()
    config_mod.load(path)


def test_a_missing_config_names_the_shipped_ones(tmp_path, monkeypatch):
    from kc_env.training import config as config_mod

    monkeypatch.chdir(tmp_path)
    with pytest.raises(config_mod.ConfigError, match="cannot read") as info:
        config_mod.load(config_mod.find("nosuch"))
    assert all(name in str(info.value) for name in CONFIGS)


def test_the_wheel_installs_training_models_and_configs_inside_kc_env(tmp_path):
    """Build the wheel from a copy of the tree (so nothing is written into the checkout) and
    read what it would install: kc_env only (no top-level training), with kc_env.training, the
    models, the configs, the LICENSE and the kc_env.commands entry points, and nothing beside it:
    no top-level module and no ``.pth`` file (nothing runs at interpreter start; ``import kc_env``
    registers the envs, tests/test_registration.py). About 5 s."""
    pytest.importorskip("setuptools", minversion="77")  # pyproject.toml's build requirement
    build_wheel(tmp_path, "-q").check_returncode()
    (wheel,) = (tmp_path / "out").glob("kc_env-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    dist_info = next(n.split("/")[0] for n in names if ".dist-info/" in n)
    assert {name.split("/")[0] for name in names} == {"kc_env", dist_info}
    assert not [name for name in names if name.endswith(".pth")]
    for module in (ROOT / "training").rglob("*.py"):
        assert f"kc_env/training/{module.relative_to(ROOT / 'training').as_posix()}" in names
    for name in MODELS:
        assert {f"kc_env/models/{name}/{p.name}" for p in (ROOT / "models" / name).iterdir()} <= names
    for name in CONFIGS:
        assert f"kc_env/configs/{name}.yaml" in names
    for data in (ROOT / "kc_env" / "benchmark" / "data").iterdir():  # kc-bench's shuffles and locks
        assert f"kc_env/benchmark/data/{data.name}" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[kc_env.commands]" in text and "kc_env.training.commands.train" in text
