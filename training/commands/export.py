"""``kc export RUN FOLDER``: export a trained run as a numpy-loadable model, evaluated (an RLlib run
through ``training/rllib/export.py``, a turn-value run by copying its model folder). In place of
RUN, a search spec is written as a search model folder, and a model folder of any format
(``kc_env.agents.model_folder.FORMATS``) is checked, copied and evaluated. Progress bars go to
stderr only when it is a terminal (as in ``kc eval``): a log gets no bars."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kc_env.agents import model_folder
from kc_env.agents.search_agent import PREFIX as SEARCH_OPTIONS
from kc_env.agents.search_agent import SEARCH
from kc_env.commands.common import UserError, add_rules_argument, missing_extra, positive_int

HELP = "export a trained run as a numpy-loadable model folder, with its evaluation"
DESCRIPTION = (HELP + ". An SB3 run is read from its config.yaml and its tensors (final.pt, checkpoints/step_*.pt, "
               "torch.load(weights_only=True)): no pickle, so a run folder from anyone runs no code. An RLlib run "
               "is read with Ray's checkpoint loader, which unpickles, so an RLlib run folder is trusted code: "
               "kc export reads only a checkpoint that this machine's kc train sealed (kc-seal.json, a keyed "
               "hash of its files) and refuses one sealed elsewhere or changed since. A turn-value run "
               "(trainer: turn_value) is already a model folder, RUN/model (JSON and plain arrays): it is checked "
               "and copied. In place of RUN, a search spec (search:name=value,...) is written as a search model "
               "folder (model.json alone: the spec and the table it is set for, -n and --rules), which loads by "
               "name like any model; an exported model's folder is checked, copied and evaluated at the table "
               "its model.json names.")


def check() -> str | None:
    """Why ``kc export`` cannot run here (the train extra is not installed), or ``None``."""
    return missing_extra("train", ("torch",))  # each trainer names what else it needs (trainers.py)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", help="the run folder made by kc train, a search spec (search:name=value,...), or an "
                                    "exported model's folder (to copy and evaluate it)")
    parser.add_argument("folder", help="where to write the model, e.g. models/my-agent")
    parser.add_argument("--deals", type=positive_int, default=2000, help="deals per evaluation opponent (default 2000)")
    parser.add_argument("--against", default="random,heuristic", help="comma-separated agent specs to evaluate against (search:redeals=8,candidates=4 is one)")
    parser.add_argument("--seed", type=int, default=0, help="evaluation seed")
    parser.add_argument("-n", "--players", type=int, default=None,
                        help="for a search spec: the players it is set for (default 2; a run's config says its own)")
    add_rules_argument(parser, default=None, default_text="standard; only for a search spec: a run's config sets its own")
    parser.add_argument("--no-progress", action="store_true",
                        help="no progress bars (they show only when stderr is a terminal)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the model in FOLDER (a folder of model.json and weights.npz only), once the "
                             "new one is written whole")


def run(args: argparse.Namespace) -> int:
    from ..export_folder import check_target

    try:
        check_target(Path(args.folder), args.overwrite)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    args.against = _opponents(args.against)
    args.progress = show_progress(args)
    if args.run == SEARCH or args.run.startswith(SEARCH_OPTIONS):
        return _export_search(args)
    if args.players is not None or args.rules is not None:
        raise UserError("-n and --rules are for a search spec; a run's config.yaml sets its players and rules")
    if model_folder.format_of(args.run) is not None:
        return _export_model(args)
    if not Path(args.run).is_dir():
        problem = " is a file, not a folder" if Path(args.run).exists() else ": no such folder"
        raise UserError(f"{args.run}{problem}; give a kc train run folder, a model folder or a search spec")
    from .. import trainers

    try:
        publish = trainers.of_run(Path(args.run)).publish_function()
    except ImportError as exc:
        raise UserError(str(exc)) from None
    return _published(args, lambda: publish(Path(args.run), Path(args.folder), against=args.against,
                                            deals=args.deals, seed=args.seed, progress=args.progress))


def _export_search(args: argparse.Namespace) -> int:
    from ..publish import publish_search

    players = 2 if args.players is None else args.players
    return _published(args, lambda: publish_search(
        args.run, Path(args.folder), against=args.against, deals=args.deals, seed=args.seed,
        progress=args.progress, num_players=players, rules=args.rules,
        rules_name=getattr(args, "rules_name", None) or "standard"))


def _export_model(args: argparse.Namespace) -> int:
    from ..publish import publish_model

    return _published(args, lambda: publish_model(Path(args.run), Path(args.folder), against=args.against,
                                                  deals=args.deals, seed=args.seed, progress=args.progress))


def _opponents(against: str) -> list[str]:
    """The ``--against`` specs (comma-separated, spaces around them dropped; ``name=value`` after a
    comma continues the ``heuristic:``/``search:`` spec before it), each loaded as the
    evaluation will seat it (``agents.load``: a built-in, a shipped name, a model folder or a search
    spec), before anything is written: a bad one found by the evaluation would leave the model behind."""
    from kc_env.agents import load

    specs: list[str] = []
    for part in (part.strip() for part in against.split(",")):
        if specs and ":" in specs[-1] and "=" in part and ":" not in part:
            specs[-1] += "," + part  # search:redeals=2,candidates=2: one spec with two options
        else:
            specs.append(part)
    if "" in specs:
        raise UserError(f"--against: {against!r} has an empty entry; give agent specs separated by commas")
    for spec in specs:
        try:
            load(spec)
        except (ValueError, OSError) as exc:
            raise UserError(f"--against: {exc}") from None
    return specs


def _published(args: argparse.Namespace, publish) -> int:
    """Runs ``publish`` (an export that returns its folder and evaluation table), prints the table
    and what the folder holds; a bad run, folder or option is one line."""
    try:
        folder, table = publish()
    except (OSError, ValueError) as exc:
        raise UserError(_one_line(exc)) from None
    print(table)
    print(f"\nexported to {folder} ({', '.join(model_folder.identify(folder).files)}); use it as an agent spec: {folder}")
    return 0


def show_progress(args: argparse.Namespace) -> bool:
    """Whether to draw progress bars: not asked away (``--no-progress``) and stderr a terminal,
    the rule of ``kc eval``."""
    return not args.no_progress and sys.stderr.isatty()


def _one_line(exc: Exception) -> str:
    """An error as one line; a file system error names its file (``FILE: No space left on device``)."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    return str(exc)

