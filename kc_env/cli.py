"""The ``kc`` command line: one entry point with a subcommand per job.

    kc rules                      presets and every variant with its allowed values
    kc demo [--rules R] [-n N]    a full match of random legal moves, printed as text

Each subcommand is a function ``cmd_NAME(args)``; heavy imports happen inside it, so that
``kc rules`` works without torch.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable

from . import __version__


def _rules_arg(text: str):
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
            raise argparse.ArgumentTypeError(f"expected key=value after the preset, got {pair!r}")
        overrides[key.strip()] = yaml.safe_load(raw)
    return Rules.preset(name.strip(), **overrides)


def cmd_rules(args: argparse.Namespace) -> int:
    """Print the presets of RULES.md 6 and every variant with its allowed values."""
    from .rules import CHOICES, DESCRIPTIONS, PRESETS, Rules

    default = Rules()
    print("Presets (RULES.md 6); each changes only the variants listed:")
    for name, overrides in PRESETS.items():
        shown = ", ".join(f"{k}={_show(v)}" for k, v in overrides.items()) or "(the defaults)"
        print(f"  {name:<10} {shown}")
    print("\nVariants (default first):")
    for name in default.to_dict():
        allowed = CHOICES.get(name)
        values = " | ".join(map(_show, allowed)) if allowed else f"default {_show(getattr(default, name))}"
        print(f"  {name:<21} {values}")
        print(f"  {'':<21} {DESCRIPTIONS[name]}")
    print("\nUse a preset with overrides anywhere rules are asked for, e.g. --rules pagat,must_play=all")
    return 0


def _show(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def cmd_demo(args: argparse.Namespace) -> int:
    """A full match of random legal moves, printed deal by deal (``--quiet``: scores only)."""
    import random

    from . import engine
    from .match import Match, play_deal

    rng = random.Random(args.seed)
    match = Match(args.rules, args.players, seed=args.seed)

    def choose(state, moves):
        return moves[rng.randrange(len(moves))]

    print(f"A match of {args.players} random players under {args.rules_name} "
          f"(scoring {match.rules.scoring}, target {match.rules.target}), seed {args.seed}")
    while not match.is_over and match.deal_number < args.max_deals:
        state = match.new_deal()
        moves, cut = play_deal(state, choose)
        record = match.record_deal(state, truncated=cut, moves=moves)
        if not args.quiet:
            how = ("truncated" if cut else "blocked" if state.blocked else "out")
            winner = "no winner" if state.winner is None else f"player {state.winner} wins"
            print(f"\n--- deal {record.number + 1}: dealer {state.dealer}, {len(moves)} moves, {how}, {winner}")
            print(engine.to_text(state).rstrip())
            print(f"penalties {list(record.penalties)}  totals {list(match.totals)}")
    print(f"\n=== {'match over' if match.is_over else 'stopped'} after {match.deal_number} deals ===")
    names = {"chips": "chips", "wins": "deals won", "single": "won"}
    for seat, total in enumerate(match.totals):
        mark = "  <- wins" if seat in match.winners else ""
        print(f"  player {seat}: {total} {names.get(match.rules.scoring, 'penalty points')}{mark}")
    return 0


COMMANDS: dict[str, tuple[Callable[[argparse.Namespace], int], str]] = {
    "rules": (cmd_rules, "list presets and every variant with its allowed values"),
    "demo": (cmd_demo, "play a full match of random legal moves and print it"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kc", description="Kings in the Corner for reinforcement learning")
    parser.add_argument("--version", action="version", version=f"kc_env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (_, help_) in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        if name == "demo":
            p.add_argument("--rules", default="standard",
                           help="preset name, YAML file, or preset,key=value,... (default standard)")
            p.add_argument("-n", "--players", type=int, default=2, help="2 to 6 (default 2)")
            p.add_argument("--seed", type=int, default=0)
            p.add_argument("-q", "--quiet", action="store_true", help="print only the final scores")
            p.add_argument("--max-deals", type=int, default=500, help="stop a match that runs longer")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from .engine import IllegalMove, PositionError
    from .rules import RulesError

    try:
        if isinstance(getattr(args, "rules", None), str):
            args.rules_name = args.rules
            args.rules = _rules_arg(args.rules)
        return COMMANDS[args.command][0](args)
    except (RulesError, IllegalMove, PositionError) as exc:
        print(f"kc {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
