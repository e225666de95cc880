"""One ``kc train`` at a time in a run folder: an exclusive lock held for the run's life.

``hold(folder)`` takes ``fcntl.flock`` on ``folder/.kc-train-lock``, a file kept open until the
run ends; the kernel lets go of it when the process ends in any way, ``kill -9`` included, so a
killed run never leaves its folder locked. A second ``kc train`` into the same folder (to start,
resume or overwrite it) is refused with ``RunBusyError``, naming the folder, before it writes
anything. The lock is per process and re-entrant: ``kc train --overwrite`` holds it while it
clears the folder and while the trainer runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

LOCK_FILE = ".kc-train-lock"

_held: dict[Path, int] = {}
"""The folders this process holds, by resolved path, with how many ``hold`` blocks hold each."""


class RunBusyError(FileExistsError):
    """Another ``kc train`` holds the run folder."""


@contextlib.contextmanager
def hold(folder: str | Path) -> Iterator[Path]:
    """Hold ``folder``'s lock for the block (making the folder if needed); ``RunBusyError`` if
    another process holds it."""
    folder = Path(folder)
    made = not folder.exists()
    folder.mkdir(parents=True, exist_ok=True)
    key = folder.resolve()
    if key in _held:
        _held[key] += 1
        try:
            yield folder
        finally:
            _held[key] -= 1
        return
    fd = _lock(folder)
    _held[key] = 1
    try:
        yield folder
    except BaseException:
        if made:
            _remove_if_only_the_lock(folder)
        raise
    finally:
        del _held[key]
        os.close(fd)  # closing the file lets go of the lock


def _remove_if_only_the_lock(folder: Path) -> None:
    """A run that failed before writing anything leaves no folder behind."""
    if os.listdir(folder) == [LOCK_FILE]:
        (folder / LOCK_FILE).unlink()
        folder.rmdir()


def _lock(folder: Path) -> int:
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip()
        os.close(fd)
        who = f" (process {holder})" if holder.isdigit() else ""
        raise RunBusyError(f"{folder}: another kc train is running in this folder{who}; wait for it to end, "
                           "or train into another --run folder") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return fd
