"""Sealing the checkpoints that unpickle: RLlib's, which ``kc train`` writes and only it may read.

Ray saves an algorithm as pickles (``module_state.pkl`` and others), and loading one runs
whatever code it names. So ``kc train`` seals every RLlib checkpoint it writes: ``seal(folder)``
puts in ``folder/kc-seal.json`` an HMAC-SHA256, under a key kept on this machine, of the name and
bytes of every file in the folder. ``--resume`` and ``kc export`` call ``check(folder)`` before Ray
reads anything, and refuse a folder whose files were changed, added or taken away since, or
that another machine (or no one) sealed. A run folder made elsewhere is refused: retrain it here,
or trust it and reseal it with ``kc_env.training.seal.seal``.

The key is 32 random bytes in ``$KC_ENV_SEAL_KEY`` (a file path) or
``~/.config/kc_env/checkpoint.key``, made on first use, readable by its owner only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

from kc_env.files import write_atomic

SEAL_FILE = "kc-seal.json"
FORMAT = "kc_env.seal"
VERSION = 1


class SealError(ValueError):
    """A checkpoint this machine's ``kc train`` did not seal, or changed since it did."""


def key_path() -> Path:
    """Where this machine's seal key lives."""
    configured = os.environ.get("KC_ENV_SEAL_KEY")
    return Path(configured) if configured else Path.home() / ".config" / "kc_env" / "checkpoint.key"


def _key() -> bytes:
    """The seal key, made on first use with owner-only permissions. It is written whole under a
    temporary name and linked into place, so two processes making it at once agree: the one that
    loses the race reads the winner's key, never a half-written one."""
    path = key_path()
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
                f.flush()
                os.fsync(f.fileno())
            os.link(tmp, path)
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    key = path.read_bytes()
    if len(key) < 32:
        raise SealError(f"{path}: the seal key is damaged (under 32 bytes); delete it to make a new one "
                        "(checkpoints sealed with it will then be refused)")
    return key


def _digest(folder: Path, key: bytes) -> tuple[str, int]:
    """The HMAC of every file under ``folder`` but the seal (relative name and bytes, sorted)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.relative_to(folder).as_posix() != SEAL_FILE)
    for path in files:
        name = path.relative_to(folder).as_posix().encode()
        data = path.read_bytes()
        mac.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big"))
        mac.update(data)
    return mac.hexdigest(), len(files)


def seal(folder: str | Path) -> Path:
    """Seal the checkpoint ``folder`` as it is now; returns the seal file."""
    folder = Path(folder)
    digest, count = _digest(folder, _key())
    return write_atomic(folder / SEAL_FILE, json.dumps({"format": FORMAT, "version": VERSION, "files": count,
                                                        "hmac": digest}, indent=1) + "\n")


def check(folder: str | Path) -> None:
    """Raise ``SealError`` unless ``folder`` is as this machine's ``kc train`` sealed it."""
    folder = Path(folder)
    path = folder / SEAL_FILE
    why = (f"{folder}: RLlib checkpoints unpickle when loaded, so kc reads only those its own kc train "
           "sealed on this machine")
    if not path.is_file():
        raise SealError(f"{why}, and this one has no {SEAL_FILE}")
    try:
        sealed = json.loads(path.read_text())
        expected = str(sealed["hmac"])
        ok = sealed.get("format") == FORMAT and sealed.get("version") == VERSION
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        raise SealError(f"{why}, and its {SEAL_FILE} is not a seal") from None
    if not ok:
        raise SealError(f"{why}, and its {SEAL_FILE} is not a seal of version {VERSION}")
    digest, _ = _digest(folder, _key())
    if not hmac.compare_digest(digest, expected):
        raise SealError(f"{why}, and this one was changed since, or sealed elsewhere")
