"""``kc rules``: the presets (docs/RULES.md, "Named rule sets") and every variant with its allowed values."""

from __future__ import annotations

import argparse

HELP = "list presets and every variant with its allowed values"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``kc rules`` takes no arguments."""


def run(args: argparse.Namespace) -> int:
    """Print the presets (named rule sets) and every variant with its allowed values."""
    from ..rules import CHOICES, DESCRIPTIONS, PRESETS, Rules

    default = Rules()
    print("Presets, the named rule sets; each changes only the variants listed:")
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


