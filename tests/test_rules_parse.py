"""``Rules.parse`` (a rules argument as ``kc --rules`` takes it) and ``rules.read_overrides`` (the
one ``key=value`` reader: ``--rules preset,key=value`` and ``kc train --set key=value``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kc_env import Rules, RulesError
from kc_env.rules import read_overrides

ROOT = Path(__file__).resolve().parents[1]


def test_a_preset_with_overrides_a_preset_and_a_yaml_file(tmp_path):
    assert Rules.parse("pagat,target=50, must_play=all") == Rules.preset("pagat", target=50, must_play="all")
    assert Rules.parse("german") == Rules.preset("german")
    path = tmp_path / "house.yaml"
    path.write_text("preset: pagat\njokers: 2\n")
    assert Rules.parse(str(path)) == Rules.preset("pagat", jokers=2)


def test_overrides_are_read_as_yaml_values():
    assert read_overrides(["a=1", " b = [1, 2]", "c=null", "d=true", "e=x=y"]) == {
        "a": 1, "b": [1, 2], "c": None, "d": True, "e": "x=y"}


@pytest.mark.parametrize(("pairs", "message"), [
    (["target"], "expected rule key=value, got 'target'"),
    (["target=[1"], "rule 'target': not a value: "),
])
def test_a_bad_override_is_one_line_naming_it(pairs, message):
    with pytest.raises(RulesError, match=message.replace("[", r"\[")):
        read_overrides(pairs, "rule")


def test_kc_rules_and_kc_train_read_overrides_with_the_same_function(capsys):
    pytest.importorskip("stable_baselines3")
    from kc_env.cli import main

    assert main(["eval", "random", "--rules", "standard,target"]) == 2
    assert "expected rule key=value, got 'target'" in capsys.readouterr().err
    assert main(["train", "default", "--set", "ppo.gamma"]) == 2
    assert "kc train: expected --set key=value, got 'ppo.gamma'" in capsys.readouterr().err


def test_the_openspiel_game_reads_its_rules_without_the_command_line():
    tree = ast.parse((ROOT / "kc_env" / "openspiel" / "game.py").read_text())
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not any("commands" in name or name.endswith("cli") for name in imported), imported
