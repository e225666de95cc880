"""Writing a file whole or not at all: the one helper every checkpoint and run file goes through.

``write_atomic(path, data)`` writes to a hidden temporary file in the same folder, fsyncs it,
renames it over ``path`` and fsyncs the folder, so a kill or a power cut leaves either the old
file or the new one, never a torn one. The temporary name starts with a dot, so no
``step_*`` glob ever matches it.
"""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write ``data`` (text is UTF-8) to ``path`` atomically and durably; returns ``path``."""
    path = Path(path)
    payload = data.encode() if isinstance(data, str) else bytes(data)
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)
    return path


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
