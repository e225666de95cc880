"""The ``kc`` command line: one entry point with a subcommand per job.

Each subcommand is a module of ``kc_env.commands`` with ``HELP``, ``add_arguments(parser)`` and
``run(args) -> exit code``; ``COMMANDS`` lists them. Modules are imported only when needed, so
``kc rules`` works without torch. Errors a user can cause (bad rules, a bad position, an
illegal move, a bad file) print one line naming the problem and exit with 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

COMMANDS: dict[str, str] = {
    "rules": "kc_env.commands.rules",
    "demo": "kc_env.commands.demo",
    "eval": "kc_env.commands.eval",
    "compare": "kc_env.commands.compare",
    "play": "kc_env.commands.play",
    "replay": "kc_env.commands.replay",
    "bench": "kc_env.commands.bench",
    "train": "kc_env.commands.train",
    "export": "kc_env.commands.export",
}
"""Subcommand name -> the module that implements it."""


def parse_rules(text: str):
    """A rules argument: a preset name, a YAML file, or ``preset,key=value,...``."""
    from pathlib import Path

    import yaml

    from .rules import Rules

    if text.endswith((".yaml", ".yml")) or Path(text).is_file():
        return Rules.from_yaml(text)
    name, *pairs = text.split(",")
    overrides = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep:
            from .rules import RulesError

            raise RulesError(f"expected key=value after the preset, got {pair!r}")
        overrides[key.strip()] = yaml.safe_load(raw)
    return Rules.preset(name.strip(), **overrides)


def add_rules_argument(parser: argparse.ArgumentParser, default: str = "standard") -> None:
    """The ``--rules`` option shared by every subcommand; ``main`` parses it into ``Rules``
    (``args.rules``) and keeps the text as ``args.rules_name``."""
    parser.add_argument("--rules", default=default,
                        help=f"preset name, YAML file, or preset,key=value,... (default {default})")


def note_other_tables(command: str, agents, rules, num_players: int) -> None:
    """Say on stderr, for each exported model among ``agents``, how this table differs from the
    one it was trained for (the observation is the same for every table, so it plays anyway)."""
    from .agents.policy_model import other_table

    for agent in agents:
        note = other_table(agent, rules, num_players)
        if note:
            print(f"kc {command}: note: {note}", file=sys.stderr)


class UserError(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kc", description="Kings in the Corner for reinforcement learning")
    parser.add_argument("--version", action="version", version=f"kc_env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .engine import IllegalMove, PositionError
    from .rules import RulesError

    try:
        if isinstance(getattr(args, "rules", None), str):
            args.rules_name = args.rules
            args.rules = parse_rules(args.rules)
        return importlib.import_module(COMMANDS[args.command]).run(args)
    except (RulesError, IllegalMove, PositionError, UserError) as exc:
        print(f"kc {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
