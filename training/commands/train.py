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
        from .. import run_lock
        from ..seal import SealError
        from ..train import train
    except ImportError as exc:
        raise UserError(f"training needs the train extra (pip install -e '.[train]'): {exc}") from None
    overrides = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise UserError(f"--set takes KEY=VALUE, got {item!r}")
        try:
            overrides[key.strip()] = yaml.safe_load(value)
        except (yaml.YAMLError, ValueError) as exc:  # ValueError: an integer of over 4,300 digits
            raise UserError(f"--set {key.strip()}: not a YAML value ({str(exc).splitlines()[0][:200]})") from None
    args.config = config_mod.find(args.config)
    folder = Path(args.run or Path("runs") / Path(args.config).stem)
    if args.overwrite and args.resume:
        raise UserError("--overwrite and --resume contradict each other")
    if args.trainer:
        overrides["trainer"] = args.trainer
    try:
        cfg = config_mod.load(args.config, args.variant, overrides)  # read and checked before anything is written
        if args.resume:
            _check_same_config(cfg, folder, args)
        if cfg.trainer == "rllib":
            train = _rllib_train(UserError)
        if cfg.trainer == "turn_value":
            from ..turn_value_train import train
        if args.overwrite:
            _check_deletable(folder)
        with run_lock.hold(folder):
            if args.overwrite:
                _delete_run(folder)
            if args.resume:
                print(f"resuming {folder} with its own config.yaml", file=sys.stderr)
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
    resume = f"kc train {folder / 'config.yaml'} --run {folder} --resume"
    if not newest:
        return f"\nkc train: interrupted; go on with: {resume} (from the newest checkpoint it saved, if any)"
    return f"\nkc train: interrupted; the newest checkpoint is {newest[-1]}; go on with: {resume}"


def _check_same_config(cfg, folder: Path, args: argparse.Namespace) -> None:
    """``--resume`` goes on with the run's own ``config.yaml``: CONFIG, ``--variant`` and ``--set``
    must resolve to that same config (``kc train RUN/config.yaml --run RUN --resume`` always does),
    or the resume is refused, naming the keys that differ."""
    from .. import config as config_mod

    own = folder / "config.yaml"
    if not own.is_file():
        return  # the trainer says what is missing
    saved = _flat(config_mod.load(own).to_dict())
    given = _flat(cfg.to_dict())
    differ = [k for k in {**saved, **given} if saved.get(k) != given.get(k)]  # in the config's order
    if differ:
        shown = ", ".join(f"{k} ({saved.get(k)!r} in the run, {given.get(k)!r} given)" for k in differ[:3])
        more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
        raise UserError(f"{folder}: --resume goes on with the run's own config.yaml, and CONFIG, --variant and --set "
                        f"give another: {shown}{more}; resume with kc train {own} --run {folder} --resume")


def _flat(tree: dict, prefix: str = "") -> dict:
    """``{"ppo": {"gamma": 1}}`` as ``{"ppo.gamma": 1}``."""
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict) and key not in ("rules", "agents", "heuristic_weights", "label_chunks"):
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _check_deletable(folder: Path) -> None:
    """Refuse ``--overwrite`` of a folder ``kc train`` did not make (one without ``RUN_MARKER``)."""
    from .. import config as config_mod

    if folder.exists() and (not folder.is_dir() or folder.is_symlink() or not config_mod.is_run(folder)):
        raise UserError(f"{folder} was not made by kc train (no {config_mod.RUN_MARKER} in it); not deleting it")


def _delete_run(folder: Path) -> None:
    """Empty the run folder ``folder`` for ``--overwrite`` (all but the lock this process holds):
    only one ``kc train`` made (it holds the marker ``config.RUN_MARKER``); anything else is
    refused, untouched."""
    import shutil

    from ..run_lock import LOCK_FILE

    _check_deletable(folder)
    for entry in folder.iterdir():
        if entry.name == LOCK_FILE:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _rllib_train(error: type[Exception]):
    try:
        from ..rllib.train import train
    except ImportError as exc:
        raise error(f"trainer rllib needs the rllib extra (pip install -e '.[train,rllib]' -c constraints.txt): {exc}") from None
    return train
