"""Where ``kc export`` writes a model: whole or not at all, and over an old model only once the new
one is complete.

``staged(target)`` gives a hidden sibling folder (``.NAME.partial-PID``) to write the model
into; when the block ends well, every file in it is fsynced and the folder takes ``target``'s
place (``kc_env.files.replace_folder``: one exchange of names on Linux), and the old model, if
any, is deleted only then. If the block fails (a full disk, a refused export check, Ctrl-C) the
staging folder is deleted and ``target`` is as it was: the old model, or none. A kill -9 leaves
the staging folder behind; the next export to the same place deletes it.

``check_target(target, overwrite)`` refuses, before any work, a target that holds files and no
``--overwrite``, and with ``--overwrite`` one that holds anything but a model's own files (so a
slip such as ``kc export RUN models --overwrite`` cannot delete a folder of models); and the
current folder, or a folder inside a model's (which would then hold more than a model).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from kc_env.agents.model_folder import CARD_FILE, MODEL_FILES
from kc_env.files import replace_folder

__all__ = ["MODEL_FILES", "check_target", "staged"]
"""``MODEL_FILES``: what a model folder of any registered format holds (``model_folder.FORMATS``)."""


def check_target(target: Path, overwrite: bool) -> None:
    """``ValueError`` (one line) unless ``target`` may receive a model (see the module docstring)."""
    where = target.resolve()
    if where == Path.cwd().resolve():
        raise ValueError(f"{target} is the current folder: name a folder for the model")
    holder = next((p for p in where.parents if (p / CARD_FILE).is_file()), None)
    if holder is not None:
        raise ValueError(f"{target} is inside the model folder {holder}: choose a folder outside it")
    if target.is_symlink() or target.exists() and not target.is_dir():
        raise ValueError(f"{target} is not a folder (a link or a file); choose another folder")
    names = {p.name for p in target.iterdir() if not _is_stage(p.name)} if target.is_dir() else set()
    if names and not overwrite:
        raise ValueError(f"{target} already exists and is not empty (a model there would be replaced): "
                         "choose another folder, or add --overwrite")
    others = sorted(names - MODEL_FILES)
    if others:
        raise ValueError(f"{target} holds more than a model ({', '.join(others[:3])}); --overwrite replaces only a "
                         f"model folder ({', '.join(sorted(MODEL_FILES))}): choose another folder")


@contextlib.contextmanager
def staged(target: Path) -> Iterator[Path]:
    """A fresh staging folder beside ``target``; put in ``target``'s place when the block ends well."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _delete_stale_stages(target)
    stage = target.with_name(f".{target.name}.partial-{os.getpid()}")
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir()
    try:
        yield stage
        replace_folder(stage, target)
    except BaseException as exc:
        shutil.rmtree(stage, ignore_errors=True)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror or str(exc), _shown(exc.filename, stage, target)) from exc
        raise


def _shown(filename, stage: Path, target: Path) -> str:
    """The file an error names, with the staging folder read as ``target`` (the folder the user
    named); ``target`` itself when the error named none (``np.savez`` on a full disk)."""
    if not filename:
        return str(target)
    name = str(filename)
    return str(target) + name[len(str(stage)):] if name.startswith(str(stage)) else name


def _is_stage(name: str) -> bool:
    return name.startswith(".") and (".partial-" in name or ".old-" in name)


def _delete_stale_stages(target: Path) -> None:
    """Delete staging folders of ``target`` left by an export that was killed (its process gone)."""
    for stage in target.parent.glob(f".{target.name}.partial-*"):
        pid = stage.name.rsplit("-", 1)[1]
        if stage.is_dir() and not stage.is_symlink() and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(stage, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
