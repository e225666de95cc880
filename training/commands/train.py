"""``kc train CONFIG``: train a MaskablePPO agent (see ``training/train.py``), or with
``trainer: rllib`` in the config (or ``--trainer rllib``) Ray RLlib's PPO (``training/rllib/``).

CONFIG is a YAML file, or the name of a shipped config (``kc train default`` is
``configs/default.yaml``, found in the installed package from any folder): a file wins."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kc_env.commands.common import UserError, missing_extra

HELP = "train a MaskablePPO agent from a YAML config (self-play league, checkpoints, --resume)"


def check() -> str | None:
    """Why ``kc train`` cannot run here (the train extra is not installed), or ``None``."""
    return missing_extra("train", ("torch", "stable_baselines3", "sb3_contrib"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", help="YAML config with a default: block, or a shipped config's name "
                                       "(default, ppo-standard-2p, ...; see configs/)")
    parser.add_argument("--run", help="run folder (default runs/<config name>)")
    parser.add_argument("--variant", help="a named block of the config that overrides default")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set total_timesteps=100000 --set ppo.ent_coef=0.02")
    parser.add_argument("--resume", action="store_true", help="continue the run in --run from its newest checkpoint")
    parser.add_argument("--overwrite", action="store_true", help="delete an earlier run in --run and start afresh (only a folder kc train made, "
                                                                  "once the config has been read and checked)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--trainer", choices=("sb3", "rllib", "turn_value"),
                        help="override the config's trainer: sb3 (one machine), rllib (Ray RLlib, many cores and "
                             "machines) or turn_value (a learned value of whole turns)")


def run(args: argparse.Namespace) -> int:
    import yaml

    try:
        from .. import config as config_mod
        from ..seal import SealError
        from ..train import train
    except ImportError as exc:
        raise UserError(f"training needs the train extra (pip install -e '.[train,fast]'): {exc}") from None
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--set takes KEY=VALUE, got {item!r}")
        try:
            overrides[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise UserError(f"--set {key.strip()}: not a YAML value ({str(exc).splitlines()[0]})") from None
    args.config = config_mod.find(args.config)
    folder = Path(args.run or Path("runs") / Path(args.config).stem)
    if args.overwrite and args.resume:
        raise UserError("--overwrite and --resume contradict each other")
    if args.trainer:
        overrides["trainer"] = args.trainer
    try:
        cfg = config_mod.load(args.config, args.variant, overrides)  # read and checked before anything is deleted
        if args.overwrite:
            _delete_run(folder)
        if cfg.trainer == "rllib":
            train = _rllib_train(UserError)
        if cfg.trainer == "turn_value":
            from ..turn_value_train import train
        result = train(cfg, folder, resume=args.resume, progress=not args.no_progress, argv=["kc", *sys.argv[1:]])
    except KeyboardInterrupt:
        print(_interrupted(folder, args), file=sys.stderr)
        return 130
    except (config_mod.ConfigError, FileExistsError, FileNotFoundError, SealError) as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:  # a read-only folder, a full disk
        raise UserError(f"{exc.filename or folder}: {exc.strerror or exc}") from None
    if cfg.trainer == "rllib":
        print(f"run folder: {result.folder}   export: kc export {result.folder} models/NAME")
        return 0
    if cfg.trainer == "turn_value":
        print(f"run folder: {result.folder}   model: {result.folder / 'model'}   "
              f"learning curve: {result.folder / 'learning_curve.png'}")
        return 0
    print(f"run folder: {result.folder}")
    print(f"model: {result.folder / 'final.zip'}   learning curve: {result.folder / 'learning_curve.png'}")
    return 0


def _interrupted(folder: Path, args) -> str:
    """What Ctrl-C left: the newest checkpoint (the SB3 trainer saves one as it stops) and the
    command that goes on from it."""
    newest = sorted((folder / "checkpoints").glob("step_*.pt")) if folder.is_dir() else []
    resume = f"kc train {args.config} --run {folder} --resume"
    if not newest:
        return f"\nkc train: interrupted; go on with: {resume} (from the newest checkpoint it saved, if any)"
    return f"\nkc train: interrupted; the newest checkpoint is {newest[-1]}; go on with: {resume}"


def _delete_run(folder: Path) -> None:
    """Delete the run folder ``folder`` for ``--overwrite``: only one ``kc train`` made (it holds
    the marker ``config.RUN_MARKER``); anything else is refused, untouched."""
    import shutil

    from .. import config as config_mod

    if not folder.exists():
        return
    if not folder.is_dir() or folder.is_symlink() or not config_mod.is_run(folder):
        raise UserError(f"{folder} was not made by kc train (no {config_mod.RUN_MARKER} in it); not deleting it")
    shutil.rmtree(folder)


def _rllib_train(error: type[Exception]):
    try:
        from ..rllib.train import train
    except ImportError as exc:
        raise error(f"trainer rllib needs the rllib extra (pip install -e '.[train,fast,rllib]' -c constraints.txt): {exc}") from None
    return train
