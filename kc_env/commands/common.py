"""What the ``kc`` subcommands share with each other and with ``kc_env.cli``: the rules
argument (read by ``Rules.parse``), the note about models at another table, ``UserError`` and the missing-extra check.

Both ``kc_env.cli`` and every command import this module, never each other, so the CLI has no
import circle; commands outside ``kc_env`` (``kc_env.training.commands``) use it too.
"""

from __future__ import annotations

import argparse
import sys


class UserError(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""


def add_rules_argument(parser: argparse.ArgumentParser, default: str | None = "standard",
                       default_text: str | None = None) -> None:
    """The ``--rules`` option shared by every subcommand; ``kc_env.cli.main`` parses it into
    ``Rules`` (``args.rules``, by ``Rules.parse``) and keeps the text as ``args.rules_name``.
    ``default_text`` says in words what no ``--rules`` means (needed when ``default`` is None)."""
    if default is None and default_text is None:
        raise ValueError("add_rules_argument: a default of None needs default_text saying what it means")
    parser.add_argument("--rules", default=default,
                        help=f"preset name, YAML file, or preset,key=value,... (default {default_text or default})")


def note_other_tables(command: str, agents, rules, num_players: int) -> None:
    """Say on stderr, once for each exported model among ``agents`` (however many seats it
    takes), how this table differs from the one it was trained for (the observation is the same
    for every table, so it plays anyway)."""
    from ..agents.policy_model import other_table

    for note in dict.fromkeys(other_table(agent, rules, num_players) for agent in agents):
        if note:
            print(f"kc {command}: note: {note}", file=sys.stderr)


def missing_extra(extra: str, modules: tuple[str, ...]) -> str | None:
    """``None`` when every module of ``modules`` can be imported here, else one line naming the
    ``extra`` that installs them (found without importing them, so ``--help`` stays fast)."""
    from importlib.util import find_spec

    missing = [name for name in modules if find_spec(name) is None]
    if not missing:
        return None
    return (f"needs the {extra} extra: pip install 'kc_env[{extra}]' (from a clone: pip install -e '.[{extra}]'); "
            f"not installed: {', '.join(missing)}")


class StoreOnce(argparse.Action):
    """argparse's ``store`` for an option that takes one value, refused in one line when given
    again (``--against a --against b`` kept only b, silently). ``kc_env.cli`` makes it every
    command's default action; an option that adds up says so (``action="append"``)."""

    _namespace: argparse.Namespace | None = None
    """The arguments this option was last stored in (kept, so a later parse is told apart)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if option_string is not None and namespace is self._namespace:
            many = f"; list them all after one {option_string}" if self.nargs in ("+", "*") else ""
            raise argparse.ArgumentError(self, f"given twice; give it once{many}")
        self._namespace = namespace
        setattr(namespace, self.dest, values)


def positive_int(text: str) -> int:
    """An argparse ``type``: a whole number above 0 (``--max-moves 0`` is refused up front)."""
    value = _whole_number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse ``type``: a whole number, 0 or more (``--examples -1`` is refused up front)."""
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text[:40]!r}") from None


def check_writable(path: str | None, option: str) -> None:
    """Refuse, before any work, an output file that names a folder (``x.png/`` too) or whose folder
    does not exist or is not writable: a plain file is opened for appending (created, then deleted
    again, if it did not exist), as some folders (``/sys``) refuse a new file though ``os.access``
    allows it. A link, a FIFO or a device is left unopened (opening a FIFO would wait for its reader)."""
    import os
    from pathlib import Path

    if path is None:
        return
    if not path:
        raise UserError(f"{option} needs a file name")
    if os.path.basename(path) in ("", ".", "..") or Path(path).is_dir():  # x.png/, x.png/.: pathlib would read x.png
        raise UserError(f"{option} {path}: names a folder; name a file")
    folder = Path(path).parent
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{option} {path}: {folder} is a file, not a folder")
    if not folder.is_dir():
        raise UserError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UserError(f"{option} {path}: cannot write there")
    if Path(path).is_symlink() or (Path(path).exists() and not Path(path).is_file()):
        return  # a link, a FIFO, a device: written through at the end as given, never opened here
    existed = Path(path).exists()
    try:
        with open(path, "a"):
            pass
    except OSError as exc:
        raise UserError(f"{option} {path}: cannot write there ({exc.strerror or exc})") from None
    if not existed:
        Path(path).unlink(missing_ok=True)


CHART_SUFFIXES = (".png", ".svg", ".pdf")
"""The chart formats ``--plot`` writes, chosen by the file's suffix."""


def check_chart(path: str | None, option: str = "--plot") -> None:
    """``check_writable`` for a chart, which must also be named ``.png``, ``.svg`` or ``.pdf``
    (matplotlib cannot draw ``.txt``, and without a suffix it would write ``NAME.png``)."""
    from pathlib import Path

    if path is not None and Path(path).suffix.lower() not in CHART_SUFFIXES:
        raise UserError(f"{option} {path}: name a {', '.join(CHART_SUFFIXES[:-1])} or {CHART_SUFFIXES[-1]} file")
    check_writable(path, option)
