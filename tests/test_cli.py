"""The ``kc`` command line: ``kc rules`` and ``kc demo``."""

from __future__ import annotations

import pytest

from kc_env import PRESETS
from kc_env.cli import main
from kc_env.rules import CHOICES


def test_rules_lists_every_preset_and_variant_with_allowed_values(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert name in out
    for variant, allowed in CHOICES.items():
        assert variant in out
        assert " | ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in allowed) in out


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [2, 4, 6])
def test_demo_plays_a_full_match_under_every_preset(capsys, preset, players):
    assert main(["demo", "--rules", preset, "-n", str(players), "--seed", "5", "-q"]) == 0
    out = capsys.readouterr().out
    assert "=== match over after" in out
    assert out.count("player ") >= players
    assert "<- wins" in out


def test_demo_prints_every_deal_as_a_position(capsys):
    assert main(["demo", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "--- deal 1:" in out and "hand 0:" in out and "penalties" in out


def test_demo_with_overrides_and_same_seed_is_reproducible(capsys):
    args = ["demo", "--rules", "pagat,must_play=all,jokers=2", "-n", "3", "--seed", "9"]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first


@pytest.mark.parametrize(
    "args, message",
    [
        (["--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["--rules", "standard,draw=sideways"], "rule 'draw' cannot be 'sideways'; allowed: start, end, stuck"),
        (["--rules", "standard,colour=blue"], "unknown rule 'colour'"),
        (["-n", "7"], "num_players must be 2 to 6"),
        (["--rules", "standard,hand_size=9", "-n", "6"], "cannot deal 9 cards to each of 6 players"),
    ],
)
def test_demo_refuses_bad_rules_with_a_clear_message(capsys, args, message):
    assert main(["demo", *args]) == 2
    assert message in capsys.readouterr().err


def test_help_lists_every_command_the_training_ones_included(capsys):
    from kc_env.cli import COMMANDS, commands

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert {"train", "export"} <= set(commands()) - set(COMMANDS)  # from the kc_env.commands entry points
    for name in commands():
        assert f"\n    {name} " in out


@pytest.mark.parametrize("command", ["train", "export"])
def test_a_missing_train_extra_is_one_line_naming_it(capsys, monkeypatch, command):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert main([command, "somewhere"]) == 2  # --help prints help (tests/test_interrupt_messages.py)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(f"kc {command}: needs the train extra: pip install 'kc_env[train]'")
    assert "torch" in captured.err


def test_a_missing_rules_file_is_one_line(capsys):
    """Issue 18 item 12: ``Rules.from_yaml`` on a missing file was a FileNotFoundError traceback."""
    assert main(["demo", "--rules", "nope.yaml"]) == 2
    assert capsys.readouterr().err == "kc demo: nope.yaml: cannot read (No such file or directory)\n"


def test_an_unhashable_preset_on_the_command_line_is_one_line(capsys):
    assert main(["demo", "--rules", "standard,preset=[x]"]) == 2
    assert "rule 'preset' must be a single value, not a list" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["demo", "-q", "--max-deals", "-3"], "argument --max-deals: must be positive, got -3"),
    (["demo", "-q", "--max-deals", "0"], "argument --max-deals: must be positive, got 0"),
    (["compare", "greedy", "random", "--deals", "3", "--examples", "-1"],
     "argument --examples: must be 0 or more, got -1"),
])
def test_a_count_below_its_least_is_refused_in_one_line_as_kc_play_refuses_it(argv, message, capsys):
    """kc demo --max-deals -3 played no deal ('stopped after 0 deals') and kc compare --examples -1
    ran as if 0, where kc play refuses --max-deals -2."""
    with pytest.raises(SystemExit) as caught:
        main(argv)
    err = capsys.readouterr().err
    assert caught.value.code == 2 and err.strip().splitlines()[-1].endswith(message)


def test_kc_demo_stopped_after_one_deal_says_one_deal(capsys):
    assert main(["demo", "-q", "--max-deals", "1", "--seed", "3"]) == 0
    assert "=== stopped after 1 deal ===" in capsys.readouterr().out
