"""The ``kc`` command line: one entry point with a subcommand per job.

Each subcommand is a module with ``HELP``, ``add_arguments(parser)`` and ``run(args) -> exit
code``, and optionally ``check()``: the one-line reason it cannot run here (a missing extra),
printed before its arguments are parsed. ``COMMANDS`` lists those of ``kc_env.commands``; the
entry-point group ``kc_env.commands`` adds the others (``kc train``, ``kc export`` from
``kc_env.training``, which ``kc_env`` never imports). What the commands share lives in
``kc_env.commands.common``, which they and this module import, never each other. Modules import
torch only when they run, so ``kc rules`` and ``kc --help`` work without it. Errors a user can
cause (bad rules, a bad position, an illegal move, a bad file) print one line naming the problem
and exit with 2; so does an option that takes one value given twice (``common.StoreOnce``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .commands.common import StoreOnce, UserError, add_rules_argument, note_other_tables

__all__ = ["COMMANDS", "UserError", "add_rules_argument", "build_parser", "commands", "main", "note_other_tables"]

COMMANDS: dict[str, str] = {
    "rules": "kc_env.commands.rules",
    "demo": "kc_env.commands.demo",
    "eval": "kc_env.commands.eval",
    "compare": "kc_env.commands.compare",
    "play": "kc_env.commands.play",
    "replay": "kc_env.commands.replay",
    "bench": "kc_env.commands.bench",
    "benchmark": "kc_env.commands.benchmark",
    "serve": "kc_env.commands.serve",
}
"""Subcommand name -> the module that implements it, for the commands of ``kc_env`` itself; the
others come from the ``kc_env.commands`` entry points (``commands()``)."""


def commands() -> dict[str, str]:
    """Every subcommand and its module: ``COMMANDS``, then those that installed packages declare
    in the entry-point group ``kc_env.commands`` (``kc train`` and ``kc export``, which live in
    ``kc_env.training``: ``kc_env`` itself never imports it)."""
    from importlib.metadata import entry_points

    found = dict(COMMANDS)
    for entry in entry_points(group="kc_env.commands"):
        found.setdefault(entry.name, entry.value)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kc", description="Kings in the Corner for reinforcement learning")
    parser.add_argument("--version", action="version", version=f"kc_env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, module_name in commands().items():
        module = importlib.import_module(module_name)
        # argparse %-formats a subcommand's help (not its description): "95% intervals" must not break kc --help
        description = getattr(module, "DESCRIPTION", module.HELP)
        problem = module.check() if hasattr(module, "check") else None
        if problem:  # its help still prints, and says what it needs
            description += f"\n\nNot runnable here: it {problem}"
        p = sub.add_parser(name, help=module.HELP.replace("%", "%%"), description=description,
                           formatter_class=argparse.RawDescriptionHelpFormatter if problem else argparse.HelpFormatter)
        p.register("action", None, StoreOnce)  # an option of one value given twice is refused, never dropped
        module.add_arguments(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    problem = _cannot_run(sys.argv[1:] if argv is None else argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    from .agents.policy_model import ModelError
    from .engine import IllegalMove, PositionError
    from .play import AgentError
    from .record import RecordError
    from .rules import Rules, RulesError

    try:
        if isinstance(getattr(args, "rules", None), str):
            args.rules_name = args.rules
            args.rules = Rules.parse(args.rules)
        return importlib.import_module(commands()[args.command]).run(args)
    except (RulesError, IllegalMove, PositionError, RecordError, ModelError, UserError) as exc:
        print(f"kc {args.command}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except AgentError as exc:  # an agent's own failure: its first line names the agent and what it did
        print(f"kc {args.command}: {_one_line(exc.headline)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # kc replay game.json | head: the reader left; nothing more to say
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        print(f"\nkc {args.command}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a file that cannot be read or written, a full disk
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"kc {args.command}: {where}{exc.strerror or _one_line(exc)}", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    """The error's message on one line, at most 500 characters (a 1 MB bad input is not echoed)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 500 else text[:497] + "..."


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _cannot_run(argv: list[str]) -> str | None:
    """``kc NAME: <reason>`` when the command that ``argv`` asks for has a ``check()`` that says it
    cannot run here (a missing extra), before its arguments are parsed; never for ``--help``,
    which prints (saying what is missing)."""
    if _asks_for_help(argv):
        return None
    name = next((arg for arg in argv if not arg.startswith("-")), None)
    module_name = commands().get(name) if name else None
    check = getattr(importlib.import_module(module_name), "check", None) if module_name else None
    problem = check() if check else None
    return f"kc {name}: {problem}" if problem else None


def _asks_for_help(argv: list[str]) -> bool:
    """Whether ``argv`` asks for help (``-h`` or ``--help`` before any ``--``)."""
    for arg in argv:
        if arg == "--":
            return False
        if arg in ("-h", "--help"):
            return True
    return False


if __name__ == "__main__":
    sys.exit(main())
