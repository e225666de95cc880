"""A pickled checkpoint is refused in words that do not advise loading it (``reliability-2026-12b.md`` L-4)."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from kc_env.training.sb3 import checkpoint as checkpoint_mod  # noqa: E402


class Payload:
    def __reduce__(self):
        return os.getcwd, ()


def test_a_pickled_checkpoint_is_refused_as_not_weights_only(tmp_path):
    path = tmp_path / "step_000000001024.pt"
    torch.save({"format": checkpoint_mod.FORMAT, "policy": Payload()}, path)
    with pytest.raises(checkpoint_mod.CheckpointError) as caught:
        checkpoint_mod.read(path)
    message = str(caught.value)
    assert message == (f"{path}: not a readable checkpoint: not a weights-only one (it holds pickled objects, "
                       "which would run code if loaded), so it is refused")
    assert "weights_only" not in message and "False" not in message


def test_a_torn_checkpoint_is_not_readable(tmp_path):
    path = tmp_path / "step_000000001024.pt"
    path.write_bytes(b"PK\x03\x04 torn")
    with pytest.raises(checkpoint_mod.CheckpointError, match="not a readable checkpoint"):
        checkpoint_mod.read(path)
