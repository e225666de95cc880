"""The seal covers exactly the tree Ray reads (``reliability-2026-12b.md`` H-3): random checkpoint
trees, each tampered with in one random way, are all refused, and so is a key others can use."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest
from kc_env.training import seal


@pytest.fixture(autouse=True)
def own_key(tmp_path, monkeypatch):
    monkeypatch.setenv("KC_ENV_SEAL_KEY", str(tmp_path / "key" / "checkpoint.key"))


def random_tree(root: Path, rng: random.Random) -> Path:
    """A checkpoint-like folder: nested folders (some empty) holding pickles and JSON."""
    folder = root / "iter_000002"
    folders = [folder]
    folder.mkdir(parents=True)
    for _ in range(rng.randint(2, 6)):
        sub = rng.choice(folders) / rng.choice(["learner_group", "env_runner", "rl_module", "learner", "default"])
        if sub.exists():
            continue
        sub.mkdir()
        folders.append(sub)
    for _ in range(rng.randint(2, 8)):
        path = rng.choice(folders) / rng.choice(["module_state.pkl", "class_and_ctor_args.pkl", "state.pkl",
                                                 "metadata.json", "rllib_checkpoint.json"])
        path.write_bytes(rng.randbytes(rng.randint(0, 64)))
    return folder


def files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != seal.SEAL_FILE)


def dirs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_dir())


def outside_copy(path: Path, root: Path) -> Path:
    """A copy of ``path`` (file or folder) outside the checkpoint, with the same bytes."""
    copy = root / "outside" / f"{path.name}.{random.random()}"
    copy.parent.mkdir(exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, copy)
    else:
        shutil.copyfile(path, copy)
    return copy


def tamper(kind: str, folder: Path, root: Path, rng: random.Random) -> None:
    """Change ``folder`` in one way of ``kind``: some keep every file's bytes as they were."""
    places = [folder, *dirs(folder)]
    target = rng.choice(files(folder) or [None])
    if kind == "byte changed" and target and target.stat().st_size:
        data = bytearray(target.read_bytes())
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        target.write_bytes(bytes(data))
    elif kind == "bytes appended" and target:
        target.write_bytes(target.read_bytes() + b"\0")
    elif kind == "file added":
        (rng.choice(places) / "module_state.pkl.extra").write_bytes(b"payload")
    elif kind == "file removed" and target:
        target.unlink()
    elif kind == "file renamed" and target:
        target.rename(target.with_name(target.name + ".moved"))
    elif kind == "empty folder added":
        (rng.choice(places) / "rl_module_extra").mkdir()
    elif kind == "file replaced by a symlink to the same bytes" and target:
        copy = outside_copy(target, root)
        target.unlink()
        target.symlink_to(copy)
    elif kind == "symlink to a folder added":
        evil = root / "evil"
        evil.mkdir(exist_ok=True)
        (evil / "module_state.pkl").write_bytes(b"payload")
        (rng.choice(places) / "rl_module_link").symlink_to(evil, target_is_directory=True)
    elif kind == "folder replaced by a symlink to a copy" and len(places) > 1:
        sub = rng.choice(places[1:])
        copy = outside_copy(sub, root)
        shutil.rmtree(sub)
        sub.symlink_to(copy, target_is_directory=True)
    elif kind == "file replaced by a hard link to the same bytes" and target:
        copy = outside_copy(target, root)
        target.unlink()
        os.link(copy, target)
    elif kind == "FIFO added":
        os.mkfifo(rng.choice(places) / "module_state.pkl.fifo")
    elif kind == "file replaced by a FIFO" and target:
        target.unlink()
        os.mkfifo(target)
    else:
        return tamper("file added", folder, root, rng)  # the kind needs a file or a folder the tree lacks


KINDS = ["byte changed", "bytes appended", "file added", "file removed", "file renamed", "empty folder added",
         "file replaced by a symlink to the same bytes", "symlink to a folder added",
         "folder replaced by a symlink to a copy", "file replaced by a hard link to the same bytes", "FIFO added",
         "file replaced by a FIFO"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_tampering_is_refused_in_random_trees(tmp_path, kind):
    for case in range(25):
        rng = random.Random(f"{kind}-{case}")
        root = tmp_path / str(case)
        folder = random_tree(root, rng)
        seal.seal(folder)
        seal.check(folder)
        tamper(kind, folder, root, rng)
        with pytest.raises(seal.SealError) as caught:
            seal.check(folder)
        assert "\n" not in str(caught.value)


def test_a_symlinked_or_odd_entry_is_named_in_the_refusal(tmp_path):
    folder = random_tree(tmp_path, random.Random(1))
    seal.seal(folder)
    evil = tmp_path / "evil"
    evil.mkdir()
    (folder / "env_runner").mkdir(exist_ok=True)
    (folder / "env_runner" / "rl_module").symlink_to(evil, target_is_directory=True)
    with pytest.raises(seal.SealError, match=r"env_runner/rl_module is a symbolic link; a sealed checkpoint holds "
                                             r"plain folders and files only"):
        seal.check(folder)


def test_sealing_refuses_a_tree_with_a_link_in_it(tmp_path):
    folder = random_tree(tmp_path, random.Random(2))
    (folder / "link").symlink_to("/etc/passwd")
    with pytest.raises(seal.SealError, match="link is a symbolic link"):
        seal.seal(folder)


def test_a_checkpoint_folder_that_is_itself_a_link_is_refused(tmp_path):
    folder = random_tree(tmp_path, random.Random(3))
    seal.seal(folder)
    link = tmp_path / "iter_000003"
    link.symlink_to(folder, target_is_directory=True)
    with pytest.raises(seal.SealError, match="a checkpoint is a plain folder"):
        seal.check(link)


def test_the_key_is_made_0600_even_under_a_loose_umask(tmp_path):
    old = os.umask(0)
    try:
        folder = random_tree(tmp_path, random.Random(4))
        seal.seal(folder)
    finally:
        os.umask(old)
    assert seal.key_path().stat().st_mode & 0o777 == 0o600
    seal.check(folder)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o666, 0o604, 0o620])
def test_a_key_others_can_read_or_write_is_refused_with_the_fix(tmp_path, mode):
    folder = random_tree(tmp_path, random.Random(5))
    seal.seal(folder)
    seal.key_path().chmod(mode)
    with pytest.raises(seal.SealError) as caught:
        seal.check(folder)
    assert str(caught.value) == (f"{seal.key_path()}: the seal key has mode {mode:04o}, so others may read or write "
                                 f"it; make it yours alone with chmod 600 {seal.key_path()}")
    seal.key_path().chmod(0o600)
    seal.check(folder)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving the key to another user needs root")
def test_a_key_owned_by_another_user_is_refused(tmp_path):
    folder = random_tree(tmp_path, random.Random(6))
    seal.seal(folder)
    os.chown(seal.key_path(), 65534, -1)
    with pytest.raises(seal.SealError, match="the seal key is owned by user 65534, not by you"):
        seal.check(folder)


def test_a_key_that_is_a_link_is_refused(tmp_path):
    folder = random_tree(tmp_path, random.Random(7))
    seal.seal(folder)
    real = tmp_path / "elsewhere.key"
    seal.key_path().rename(real)
    seal.key_path().symlink_to(real)
    with pytest.raises(seal.SealError, match="the seal key is not a plain file"):
        seal.check(folder)
