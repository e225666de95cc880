"""``kc train CONFIG``: train with the config's trainer (``trainer:``, or ``--trainer``), one of the
registry's (``training/trainers.py``): MaskablePPO by default (``training/sb3/train.py``).

CONFIG is a YAML file, or the name of a shipped config (``kc train default`` is
``configs/default.yaml``, found in the installed package from any folder): a file wins."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from kc_env.commands.common import UserError, missing_extra

HELP = "train an agent from a YAML config: MaskablePPO, Ray RLlib's PPO or a turn-value model (checkpoints, --resume)"


def check() -> str | None:
    """Why ``kc train`` cannot run here (the train extra is not installed), or ``None``."""
    return missing_extra("train", ("torch",))  # each trainer names what else it needs (trainers.py)


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
    parser.add_argument("--seeds", help="train one run per seed (0-4, or 0,3,7) into RUN/seed-N, one after the "
                                        "other; each seed overrides the config's seed; with --resume, the "
                                        "unfinished ones go on (kc benchmark --runs RUN/seed-* compares them)")
    from .. import trainers

    parser.add_argument("--trainer", choices=trainers.names(),
                        help="override the config's trainer: " + "; ".join(f"{t.name}: {t.summary}"
                                                                           for t in trainers.REGISTRY.values()))


def run(args: argparse.Namespace) -> int:
    try:
        from .. import config as config_mod
        from .. import trainers
        from ..run import RunError
        from ..seal import SealError
    except ImportError as exc:
        raise UserError(f"training needs the train extra (pip install -e '.[train]'): {exc}") from None
    overrides = _overrides(args.set)
    args.config = config_mod.find(args.config)
    root = Path(args.run or Path("runs") / Path(args.config).stem)
    if args.overwrite and args.resume:
        raise UserError("--overwrite and --resume contradict each other")
    if args.trainer:
        overrides["trainer"] = args.trainer
        _note_unread_blocks(args.config, args.variant, args.trainer)
    seeds = parse_seeds(args.seeds) if args.seeds is not None else None
    folder = root
    try:
        if seeds is None:
            result, trainer = _train_one(args, overrides, folder)
            print(trainer.outputs(Path(result.folder)))
            return 0
        runs = [(seed, root / f"seed-{seed}", {**overrides, "seed": seed}) for seed in seeds]
        for _, folder, given in runs:  # every seed's config read and checked before any is trained
            config_mod.load(args.config, args.variant, given)
            if not (args.resume or args.overwrite) and (folder / "config.yaml").exists():
                raise FileExistsError(f"{folder} holds a run already: --resume the unfinished seeds, or --overwrite")
        for seed, folder, given in runs:
            trainer = trainers.get(config_mod.load(args.config, args.variant, given).trainer)
            if args.resume and trainer.finished(folder):
                print(f"seed {seed}: {folder} is finished", file=sys.stderr)
                continue
            print(f"seed {seed}: {folder}", file=sys.stderr)
            result, trainer = _train_one(args, given, folder, resume=args.resume and (folder / "config.yaml").exists())
            print(trainer.outputs(Path(result.folder)))
        scored = bool(config_mod.load(args.config, args.variant, runs[0][2]).benchmark.tasks)
        compare = (f"compare them: kc benchmark --runs {' '.join(str(root / f'seed-{s}') for s in seeds)} "
                   f"--plot {root / 'benchmark.png'}" if scored else
                   "to compare them with kc benchmark --runs, set benchmark.tasks in the config (the runs score those tasks)")
        print(f"seeds {', '.join(map(str, seeds))} in {root}; {compare}")
        return 0
    except KeyboardInterrupt:
        print(_interrupted(folder, args, root if seeds is not None else None), file=sys.stderr)
        return 130
    except (config_mod.ConfigError, FileExistsError, FileNotFoundError, RunError, SealError,
            trainers.TrainerUnavailable) as exc:
        if isinstance(exc, OSError) and exc.strerror:  # the system's (mkdir under /proc), not a message of kc's
            raise _file_error(exc, folder) from None
        raise UserError(str(exc)) from None
    except OSError as exc:  # a read-only folder, a full disk
        raise _file_error(exc, folder) from None


def _file_error(exc: OSError, folder: Path) -> UserError:
    """The file system's error as one line naming the file, or the run folder when it is the one
    that could not be made."""
    if exc.filename is not None and Path(exc.filename) == folder:
        return UserError(f"--run {folder}: cannot make the run folder ({exc.strerror or exc})")
    return UserError(f"{exc.filename or folder}: {exc.strerror or exc}")


def _note_unread_blocks(config: Path, variant: str | None, trainer: str) -> None:
    """Say on stderr which of the config's own settings ``--trainer`` leaves unread: the blocks of
    the trainer the config names, set away from their defaults, that ``trainer`` does not read
    (``--trainer sb3`` on a turn-PPO config trains with SB3's defaults)."""
    import dataclasses

    from .. import config as config_mod
    from .. import trainers

    try:
        cfg = config_mod.load(config, variant)
    except config_mod.ConfigError:
        return  # the load with --trainer names what is wrong
    unread = sorted(block for block in trainers.get(cfg.trainer).reads - trainers.get(trainer).reads
                    if dataclasses.is_dataclass(value := getattr(cfg, block, None)) and value != type(value)())
    if cfg.trainer != trainer and unread:
        print(f"kc train: note: {config} trains with {cfg.trainer}; --trainer {trainer} does not read its "
              f"{', '.join(unread)} settings", file=sys.stderr)


def _overrides(items: list[str]) -> dict:
    """``--set KEY=VALUE`` values, each read as YAML (``rules.read_overrides``, as ``--rules``
    reads its overrides)."""
    from kc_env.rules import RulesError, read_overrides

    try:
        return read_overrides(items, "--set")
    except RulesError as exc:
        raise UserError(str(exc)) from None


def _train_one(args: argparse.Namespace, overrides: dict, folder: Path, resume: bool | None = None):
    """Train (or resume) one run of the config in ``folder``; returns the result and its trainer."""
    from .. import config as config_mod
    from .. import run_lock, trainers
    from ..run import check_new_run_folder

    resume = args.resume if resume is None else resume
    cfg = config_mod.load(args.config, args.variant, overrides)  # read and checked before anything is written
    if resume and not (folder / "config.yaml").is_file():
        raise UserError(f"{folder}: nothing to resume (no config.yaml: no run was started there)")
    if resume:
        _check_no_links(folder)
        _check_same_config(cfg, folder, args)
    elif not args.overwrite:
        check_new_run_folder(folder)  # before the lock is made in it; the trainers check it again
    trainer = trainers.get(cfg.trainer)
    train = trainer.train_function()
    if args.overwrite:
        _check_deletable(folder)
    with run_lock.hold(folder):
        if args.overwrite:
            _delete_run(folder)
        if resume and (folder / "config.yaml").is_file():  # (else the trainer says there is nothing to resume)
            print(f"resuming {folder} with its own config.yaml", file=sys.stderr)
        return train(cfg, folder, resume=resume, progress=not args.no_progress, argv=["kc", *sys.argv[1:]]), trainer


def _check_no_links(folder: Path) -> None:
    """Refuse to resume a run folder that holds a link: kc train writes none, and resuming writes
    and replaces files in it, which must never reach beyond it."""
    import os

    for where, names, files in os.walk(folder):
        for name in [*names, *files]:
            if (path := Path(where) / name).is_symlink():
                raise UserError(f"{folder}: {path.relative_to(folder)} is a link (to {os.readlink(path)[:120]}); "
                                "a run folder holds only what kc train wrote, so it is not resumed")


def parse_seeds(text: str) -> list[int]:
    """``--seeds``: a range ``0-4``, a list ``0,3,7``, or one seed; a bad one is one line."""
    from .. import config as config_mod

    seeds: list[int] = []
    try:
        for part in text.split(","):
            first, dash, last = part.strip().partition("-")
            if not all(re.fullmatch(r"[0-9]+", n) for n in ((first, last) if dash else (first,))):
                raise ValueError  # int() would also read "1_000" and other scripts' digits
            low, high = int(first), int(last) if dash else int(first)
            if not 0 <= low <= high <= config_mod.MAX_SEED or high - low >= 1000:
                raise ValueError
            seeds += range(low, high + 1)
    except ValueError:
        raise UserError(f"--seeds takes a range such as 0-4 (low to high, at most 1000 seeds, each at most "
                        f"{config_mod.MAX_SEED:,}), a list such as 0,3,7, or one seed; got {text!r}") from None
    if len(set(seeds)) != len(seeds):
        raise UserError(f"--seeds names a seed twice: {text!r}")
    return seeds


def _interrupted(folder: Path, args, root: Path | None = None) -> str:
    """What Ctrl-C left and the command that goes on from it: ``--resume`` when the run saved
    something to go on from (the SB3 trainer saves a checkpoint as it stops), else, stopped
    before its first checkpoint (in behaviour cloning, say), the command that starts it again
    (with ``--seeds``, the same command with ``--resume``: the SB3 trainer starts a seed that
    saved nothing again)."""
    if root is not None:
        return f"\nkc train: interrupted; go on with: kc train {args.config} --seeds {args.seeds} --run {root} --resume"
    newest = sorted((folder / "checkpoints").glob("step_*.pt")) if folder.is_dir() else []
    if newest:
        return (f"\nkc train: interrupted; the newest checkpoint is {newest[-1]}; go on with: "
                f"kc train {folder / 'config.yaml'} --run {folder} --resume")
    if _saved_progress(folder):
        return f"\nkc train: interrupted; go on with: kc train {folder / 'config.yaml'} --run {folder} --resume"
    if not (folder / "config.yaml").is_file():
        return "\nkc train: interrupted before the run began; nothing was saved"
    return (f"\nkc train: interrupted before the run's first checkpoint, so there is nothing to resume; start it "
            f"again with: kc train {folder / 'config.yaml'} --run {folder} --overwrite")


def _saved_progress(folder: Path) -> bool:
    """Whether the run in ``folder`` saved anything ``--resume`` goes on from: a checkpoint, the
    SB3 trainer's labelling or tuning stage, the turn-value trainer's iterations (an RLlib run's
    progress.json alone is not enough: its --resume needs a checkpoint, and says so)."""
    saved = ("improve", "tune.json", "progress.json")
    return folder.is_dir() and (any((folder / "checkpoints").glob("*")) or any((folder / n).exists() for n in saved))


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
    from ..run import RUN_MARKER, is_run

    if folder.exists() and (not folder.is_dir() or folder.is_symlink() or not is_run(folder)):
        raise UserError(f"{folder} was not made by kc train (no {RUN_MARKER} in it); not deleting it")


def _delete_run(folder: Path) -> None:
    """Empty the run folder ``folder`` for ``--overwrite`` (all but the lock this process holds):
    only one ``kc train`` made (it holds the marker ``run.RUN_MARKER``); anything else is
    refused, untouched."""
    import shutil

    from ..run_lock import LOCK_FILE

    entries = [entry for entry in folder.iterdir() if entry.name != LOCK_FILE]
    if not entries:  # nothing there but the lock, which made the folder: a first run
        return
    _check_deletable(folder)
    for entry in entries:
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()

