"""Writing a file, or a folder of files, whole or not at all: the helpers every checkpoint, run
file and exported model goes through.

``write_atomic(path, data)`` writes to a hidden temporary file in the same folder, fsyncs it,
renames it over ``path`` and fsyncs the folder, so a kill or a power cut leaves either the old
file or the new one, never a torn one. The temporary name starts with a dot, so no
``step_*`` glob ever matches it. An error it meets (a full disk) names ``path``.

``replace_folder(new, old)`` puts the finished folder ``new`` in the place of ``old`` after
fsyncing every file in it: by one exchange of the two names where Linux allows it
(``renameat2(RENAME_EXCHANGE)``), so a reader sees the whole old folder or the whole new one and
never neither; else by two renames, between which ``old`` is briefly missing (never torn).
"""

from __future__ import annotations

import ctypes
import errno
import json
import math
import os
import shutil
from pathlib import Path

_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def strict_json(text: str):
    """The JSON ``text``, read strictly: ``NaN`` and ``Infinity``, which JSON has no numbers for
    (Python's ``json`` reads them), are refused with ``ValueError``, as bad JSON is."""
    return json.loads(text, parse_constant=_not_a_json_number)


def finite_number(value) -> bool:
    """Whether ``value``, read from JSON, is a number (not true or false) that is finite as a float
    (not a 400-digit integer, not ``1e400``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer too large for a float
        return False


def _not_a_json_number(name: str):
    raise ValueError(f"{name} is not a JSON number")


def write_atomic(path: str | Path, data: bytes | str, through: bool = False) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically and durably; returns ``path``. A link
    at ``path`` is replaced, never followed (a folder the tools own, such as a run folder, is never
    written beyond), unless ``through`` (a file a user named, ``kc play --save``): then a link is
    written through (its target replaced, the link kept), and a FIFO or a device, which no file can
    replace, is written to as it is."""
    given = Path(path)
    payload = data.encode() if isinstance(data, str) else bytes(data)
    path = Path(os.path.realpath(given)) if through and given.is_symlink() else given
    if through and path.exists() and not path.is_file() and not path.is_dir():
        with open(path, "wb") as f:
            f.write(payload)
        return given
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename in (None, str(tmp)):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc  # name the file, not the temporary
        raise
    _fsync_folder(path.parent)
    return given


def replace_folder(new: str | Path, old: str | Path) -> Path:
    """Put the folder ``new`` (its files fsynced here) in the place of ``old`` (absent, or a folder
    that is then deleted); returns ``old``'s path, now holding ``new``'s files."""
    new, old = Path(new), Path(old)
    fsync_tree(new)
    if not old.exists():
        os.rename(new, old)
    elif _exchange(new, old):
        shutil.rmtree(new)  # ``new`` now names the old folder
    else:
        aside = old.with_name(f".{old.name}.old-{os.getpid()}")
        os.rename(old, aside)
        os.rename(new, old)
        shutil.rmtree(aside)
    _fsync_folder(old.parent)
    return old


def fsync_tree(folder: str | Path) -> None:
    """Flush every file under ``folder``, and the folders themselves, to the disk."""
    for here, _, names in os.walk(folder):
        for name in names:
            fd = os.open(os.path.join(here, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_folder(Path(here))


def _exchange(a: Path, b: Path) -> bool:
    """Swap the names ``a`` and ``b`` in one step (Linux ``renameat2``); False where the C
    library or the file system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
