"""``kc_env.files.write_atomic``: a file is written whole or not at all, and durably (issue 18,
``reliability-2026-12.md`` item 17); every checkpoint and run file goes through it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from kc_env.files import write_atomic

ROOT = Path(__file__).resolve().parent.parent


def test_a_file_is_replaced_whole_and_fsynced(tmp_path, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real(fd))
    path = tmp_path / "state.json"
    path.write_text("old")
    write_atomic(path, "new")
    assert path.read_text() == "new" and len(synced) == 2, "the file and its folder are fsynced"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"], "no temporary file is left"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_text("old")

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(path, b"new")
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_the_temporary_name_matches_no_checkpoint_glob(tmp_path, monkeypatch):
    seen = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: seen.append(Path(a).name) or real(a, b))
    write_atomic(tmp_path / "step_000000001024.pt", b"x")
    assert seen[0].startswith(".") and not Path(seen[0]).match("step_*")


def test_there_is_one_atomic_writer():
    """No other module renames its own temporary files into place."""
    pattern = re.compile(r"os\.replace\(|\.rename\(|def _atomic_write")
    offenders = [str(p.relative_to(ROOT)) for folder in ("kc_env", "training") for p in (ROOT / folder).rglob("*.py")
                 if p.name != "files.py" and pattern.search(p.read_text())]
    assert offenders == []


def test_a_link_is_written_through_and_stays_a_link(tmp_path):
    """A probe: ``kc play --save link`` replaced the link with a file and left its target as it was."""
    target, link = tmp_path / "game.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target.name)
    write_atomic(link, "new", through=True)
    assert link.is_symlink() and target.read_text() == "new"


def test_a_link_in_a_folder_the_tools_own_is_replaced_not_followed(tmp_path):
    """A probe of kc train: a link planted in a run folder made --resume write outside the run."""
    outside, link = tmp_path / "outside.txt", tmp_path / "run" / "curve.json"
    outside.write_text("mine")
    link.parent.mkdir()
    link.symlink_to(outside)
    write_atomic(link, "curve")
    assert not link.is_symlink() and link.read_text() == "curve" and outside.read_text() == "mine"


def test_a_fifo_or_a_device_is_written_to_not_replaced(tmp_path):
    """A probe: ``kc play --save`` to a device made it a regular file (as root, /dev/null would be)."""
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_atomic(fifo, "through", through=True)
    reader.join(timeout=10)
    assert got == [b"through"] and fifo.is_fifo()
    assert not [p for p in tmp_path.iterdir() if p.name != "pipe"]
