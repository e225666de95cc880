"""The seal of the checkpoints that unpickle (``training/seal.py``): kc reads an RLlib checkpoint
only as this machine's ``kc train`` wrote it."""

from __future__ import annotations

import pickle

import pytest
from kc_env.training import seal


@pytest.fixture(autouse=True)
def own_key(tmp_path, monkeypatch):
    monkeypatch.setenv("KC_ENV_SEAL_KEY", str(tmp_path / "key" / "checkpoint.key"))


def checkpoint(tmp_path):
    folder = tmp_path / "iter_000001"
    (folder / "learner").mkdir(parents=True)
    (folder / "rllib_checkpoint.json").write_text("{}")
    (folder / "learner" / "module_state.pkl").write_bytes(pickle.dumps({"w": [1.0, 2.0]}))
    return folder


def test_a_sealed_checkpoint_passes_and_its_key_is_the_owners_alone(tmp_path):
    folder = checkpoint(tmp_path)
    seal.seal(folder)
    seal.check(folder)
    assert seal.key_path().stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("change", ["a byte", "a file added", "a file removed", "a file renamed"])
def test_a_checkpoint_changed_after_its_seal_is_refused(tmp_path, change):
    folder = checkpoint(tmp_path)
    seal.seal(folder)
    state = folder / "learner" / "module_state.pkl"
    if change == "a byte":
        data = bytearray(state.read_bytes())
        data[-2] ^= 1
        state.write_bytes(bytes(data))
    elif change == "a file added":
        (folder / "learner" / "extra.pkl").write_bytes(b"payload")
    elif change == "a file removed":
        state.unlink()
    else:
        state.rename(folder / "module_state.pkl")
    with pytest.raises(seal.SealError, match="changed since, or sealed elsewhere"):
        seal.check(folder)


def test_a_checkpoint_without_a_seal_or_sealed_with_another_key_is_refused(tmp_path, monkeypatch):
    folder = checkpoint(tmp_path)
    with pytest.raises(seal.SealError, match="has no kc-seal.json"):
        seal.check(folder)
    seal.seal(folder)
    monkeypatch.setenv("KC_ENV_SEAL_KEY", str(tmp_path / "other.key"))
    with pytest.raises(seal.SealError, match="sealed elsewhere"):
        seal.check(folder)
    (folder / seal.SEAL_FILE).write_text("not json")
    with pytest.raises(seal.SealError, match="is not a seal"):
        seal.check(folder)


def test_processes_making_the_key_at_once_agree_on_it(tmp_path):
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(4) as pool:
        keys = pool.map(_read_key, [str(tmp_path / "race" / "checkpoint.key")] * 8)
    assert len(set(keys)) == 1 and len(keys[0]) == 32


def _read_key(path: str) -> bytes:
    import os

    os.environ["KC_ENV_SEAL_KEY"] = path
    return seal._key()
