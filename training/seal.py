"""Sealing the checkpoints that unpickle: RLlib's, which ``kc train`` writes and only it may read.

Ray saves an algorithm as pickles (``module_state.pkl`` and others), and loading one runs
whatever code it names; restoring also reads any optional component whose folder exists. So
``kc train`` seals every RLlib checkpoint it writes: ``seal(folder)`` puts in
``folder/kc-seal.json`` an HMAC-SHA256, under a key kept on this machine, of the whole tree under
the folder: every folder's name (empty ones too) and every file's name and bytes. ``--resume``
and ``kc export`` call ``check(folder)`` before Ray reads anything, and refuse a folder

- whose files or folders were changed, added or taken away since, or that another machine (or
  no one) sealed;
- that holds anything but plain folders and plain files: a symbolic link (to a file or a folder,
  whose target the seal could not vouch for), a FIFO, a socket or a device;
- that holds a file with more than one hard link (its bytes could be changed through the other
  name between the check and Ray's read).

A run folder made elsewhere is refused: retrain it here, or trust it and reseal it with
``kc_env.training.seal.seal``.

The key is 32 random bytes in ``$KC_ENV_SEAL_KEY`` (a file path) or
``~/.config/kc_env/checkpoint.key``, made on first use with mode 0600. A key that is not a plain
file, not owned by this user, or readable or writable by anyone else (group or other bits set)
is refused, naming the file and the fix: whoever else can write it can seal a checkpoint.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path

from kc_env.files import write_atomic

SEAL_FILE = "kc-seal.json"
FORMAT = "kc_env.seal"
VERSION = 2
"""2: the folders of the tree are sealed too, and only plain folders and files are allowed."""
KEY_SIZE = 32


class SealError(ValueError):
    """A checkpoint this machine's ``kc train`` did not seal, or changed since it did."""


def key_path() -> Path:
    """Where this machine's seal key lives."""
    configured = os.environ.get("KC_ENV_SEAL_KEY")
    return Path(configured) if configured else Path.home() / ".config" / "kc_env" / "checkpoint.key"


def _key() -> bytes:
    """The seal key, made on first use (``_make_key``), checked (``_check_key``) and read."""
    path = key_path()
    if not os.path.lexists(path):
        _make_key(path)
    _check_key(path)
    with open(path, "rb") as f:
        key = f.read(KEY_SIZE + 1)
    if len(key) < KEY_SIZE:
        raise SealError(f"{path}: the seal key is damaged (under {KEY_SIZE} bytes); delete it to make a new one "
                        "(checkpoints sealed with it will then be refused)")
    return key


def _make_key(path: Path) -> None:
    """Write a new key to ``path`` with mode 0600. It is written whole under a temporary name and
    linked into place, so two processes making it at once agree: the one that loses the race
    reads the winner's key, never a half-written one."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(KEY_SIZE))
            f.flush()
            os.fsync(f.fileno())
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)


def _check_key(path: Path) -> None:
    """Refuse a key that is a link or not a plain file, that another user owns, or that anyone
    but its owner may read or write: one line naming the file, what is wrong and the fix."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise SealError(f"{path}: the seal key is not a plain file (a link or something else); "
                        "delete it to make a new one")
    if info.st_uid != os.getuid():
        raise SealError(f"{path}: the seal key is owned by user {info.st_uid}, not by you ({os.getuid()}), so "
                        "someone else could seal checkpoints; delete it to make a new one")
    if info.st_mode & 0o077:
        raise SealError(f"{path}: the seal key has mode {stat.S_IMODE(info.st_mode):04o}, so others may read or "
                        f"write it; make it yours alone with chmod 600 {path}")


def _entries(folder: Path) -> list[tuple[str, Path, os.stat_result]]:
    """Every folder and file under ``folder`` but the seal, as (relative name, path, lstat), sorted
    by name; ``SealError`` at the first entry that is neither a plain folder nor a plain file with
    one link. Symbolic links are never followed."""
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise SealError(f"{folder}: a checkpoint is a plain folder, not a link or a file")
    found = []
    pending = [folder]
    while pending:
        here = pending.pop()
        with os.scandir(here) as listing:
            for entry in listing:
                path = Path(entry.path)
                name = path.relative_to(folder).as_posix()
                if name == SEAL_FILE:
                    continue
                info = entry.stat(follow_symlinks=False)
                _refuse_odd(folder, name, info)
                found.append((name, path, info))
                if stat.S_ISDIR(info.st_mode):
                    pending.append(path)
    return sorted(found, key=lambda item: item[0])


def _refuse_odd(folder: Path, name: str, info: os.stat_result) -> None:
    mode = info.st_mode
    if stat.S_ISLNK(mode):
        what = "a symbolic link"
    elif stat.S_ISDIR(mode):
        return
    elif not stat.S_ISREG(mode):
        what = "not a plain file or folder (a FIFO, socket or device)"
    elif info.st_nlink > 1:
        what = f"a file with {info.st_nlink} hard links (it could change through another name)"
    else:
        return
    raise SealError(f"{folder}: {name} is {what}; a sealed checkpoint holds plain folders and files only")


def _digest(folder: Path, key: bytes) -> tuple[str, int]:
    """The HMAC of the tree under ``folder`` but the seal: each entry's kind, relative name and,
    for a file, its bytes, in name order; and the number of entries."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    entries = _entries(folder)
    for name, path, info in entries:
        encoded = name.encode()
        is_dir = stat.S_ISDIR(info.st_mode)
        mac.update((b"d" if is_dir else b"f") + len(encoded).to_bytes(8, "big") + encoded)
        if not is_dir:
            data = _read_plain(folder, name, path)
            mac.update(len(data).to_bytes(8, "big") + data)
    return mac.hexdigest(), len(entries)


def _read_plain(folder: Path, name: str, path: Path) -> bytes:
    """The bytes of ``path``, opened without following a link or blocking on a FIFO (in case it
    was swapped since it was listed), and refused unless it is still a plain file of one link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise SealError(f"{folder}: {name} cannot be read as a plain file ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        _refuse_odd(folder, name, os.fstat(fd))
        return f.read()


def seal(folder: str | Path) -> Path:
    """Seal the checkpoint ``folder`` as it is now; returns the seal file."""
    folder = Path(folder)
    digest, count = _digest(folder, _key())
    return write_atomic(folder / SEAL_FILE, json.dumps({"format": FORMAT, "version": VERSION, "entries": count,
                                                        "hmac": digest}, indent=1) + "\n")


def check(folder: str | Path) -> None:
    """Raise ``SealError`` unless ``folder`` is as this machine's ``kc train`` sealed it."""
    folder = Path(folder)
    path = folder / SEAL_FILE
    why = (f"{folder}: RLlib checkpoints unpickle when loaded, so kc reads only those its own kc train "
           "sealed on this machine")
    if os.path.islink(path) or not path.is_file():
        raise SealError(f"{why}, and this one has no {SEAL_FILE}")
    try:
        sealed = json.loads(path.read_text())
        expected = str(sealed["hmac"])
        ok = sealed.get("format") == FORMAT and sealed.get("version") == VERSION
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise SealError(f"{why}, and its {SEAL_FILE} is not a seal") from None
    if not ok:
        raise SealError(f"{why}, and its {SEAL_FILE} is not a seal of version {VERSION} (retrain the run here, or "
                        "trust it and reseal it)")
    digest, _ = _digest(folder, _key())
    if not hmac.compare_digest(digest, expected):
        raise SealError(f"{why}, and this one was changed since, or sealed elsewhere")
