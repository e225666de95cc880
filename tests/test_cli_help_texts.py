"""Every ``kc`` subcommand's options say, in a user's words, what they do (issue 36 item 9 and the
newcomer report's item 18: ``kc demo --seed`` had no help, ``kc export --rules`` said "(default
None)", ``kc rules`` began "Presets (RULES.md 6)", ``kc train``'s line named only MaskablePPO)."""

from __future__ import annotations

import argparse
import re

import pytest

from kc_env.cli import build_parser, main

INTERNAL = re.compile(r"RULES\.md \d|DESIGN\.md|issue \d|section \d|§|\(default None\)|default: None")


def _subcommands() -> dict[str, tuple[str, argparse.ArgumentParser]]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in sub._choices_actions}
    return {name: (helps[name], p) for name, p in sub.choices.items()}


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_every_option_has_a_help_line_a_user_understands(name):
    line, parser = _subcommands()[name]
    assert line and not INTERNAL.search(line), (name, line)
    for action in parser._actions:
        text = action.help
        where = f"kc {name} {'/'.join(action.option_strings) or action.dest}"
        assert text and text != argparse.SUPPRESS, f"{where} has no help"
        assert not INTERNAL.search(text % vars(action) if "%(" in text else text), f"{where}: {text}"


@pytest.mark.parametrize("name", sorted(_subcommands()))
def test_no_help_page_cites_an_internal_section(name):
    page = _subcommands()[name][1].format_help()
    assert not INTERNAL.search(page), f"kc {name} -h: {INTERNAL.search(page).group(0)}"


def test_kc_train_says_every_trainer_it_runs():
    line, _ = _subcommands()["train"]
    assert "MaskablePPO agent" not in line and "RLlib" in line


def test_kc_eval_names_the_shipped_models():
    from kc_env.agents.model_folder import shipped_models

    _, parser = _subcommands()["eval"]
    agents = next(a for a in parser._actions if a.dest == "agents")
    assert all(name in agents.help for name in shipped_models())


def test_kc_rules_cites_no_section_number(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert not INTERNAL.search(out), out.splitlines()[0]
