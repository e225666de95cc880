"""``kc export`` writes a model whole or not at all, and ``--overwrite`` keeps the old model until the
new one is complete (``reliability-2026-12b.md`` M-10 and L-4: a full disk left a torn
``model.json``, with ``--overwrite`` in place of a good model, and the message named no file)."""

from __future__ import annotations

import errno
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("numba")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training.sb3.train import train  # noqa: E402

from kc_env.agents import policy_model  # noqa: E402
from kc_env.cli import main  # noqa: E402

CONFIG = Path(__file__).resolve().parent.parent / "research" / "configs" / "maskable-ppo-2p.yaml"
FULL = OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture(scope="module")
def run_and_model(tmp_path_factory) -> tuple[Path, Path]:
    """A tiny finished run, and a good model exported from it."""
    root = tmp_path_factory.mktemp("export")
    cfg = config_mod.load(CONFIG, "smoke", {"total_timesteps": 1024, "eval.every": 0, "eval.deals": 4})
    train(cfg, root / "run", progress=False, argv=["test"])
    assert export(root / "run", root / "model") == 0
    return root / "run", root / "model"


def export(run: Path, folder: Path, *extra: str) -> int:
    return main(["export", str(run), str(folder), "--deals", "4", "--against", "random", "--no-progress", *extra])


@pytest.fixture
def good_model(run_and_model, tmp_path) -> Path:
    folder = tmp_path / "mine"
    shutil.copytree(run_and_model[1], folder)
    return folder


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def full_disk_at(monkeypatch, name: str, nth: int = 1) -> None:
    """The disk fills (ENOSPC, as ``write`` or ``fsync`` raise it: no file named) while
    ``write_atomic`` writes the ``nth`` file called ``name``."""
    import os

    real, seen = os.fsync, []

    def fsync(fd):
        if os.readlink(f"/proc/self/fd/{fd}").rsplit("/", 1)[-1].startswith(f".{name}.partial-"):
            seen.append(fd)
            if len(seen) == nth:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def test_a_full_disk_while_writing_the_weights_keeps_the_old_model(run_and_model, good_model, monkeypatch, capsys):
    before = contents(good_model)
    full_disk_at(monkeypatch, "weights.npz")
    assert export(run_and_model[0], good_model, "--overwrite") == 2
    assert capsys.readouterr().err.strip() == f"kc export: {good_model / 'weights.npz'}: No space left on device"
    assert contents(good_model) == before
    policy_model.load_network(good_model)
    assert [p.name for p in good_model.parent.iterdir()] == [good_model.name]  # no staging folder left


def test_a_full_disk_at_the_card_keeps_the_old_model_and_names_the_file(run_and_model, good_model, monkeypatch,
                                                                        capsys):
    before = contents(good_model)
    full_disk_at(monkeypatch, "model.json")
    assert export(run_and_model[0], good_model, "--overwrite") == 2
    assert capsys.readouterr().err.strip() == f"kc export: {good_model / 'model.json'}: No space left on device"
    assert contents(good_model) == before


def test_a_full_disk_at_the_evaluation_leaves_the_new_model_whole(run_and_model, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "new"
    full_disk_at(monkeypatch, "model.json", nth=3)  # the first card and the export check's are whole; the evaluation's is not
    assert export(run_and_model[0], folder) == 2
    assert capsys.readouterr().err.strip() == f"kc export: {folder / 'model.json'}: No space left on device"
    network, card = policy_model.load_network(folder)
    assert "evaluation" not in card and card["export_check"]["max_probability_gap"] < 1e-3


def test_a_failed_first_export_leaves_no_folder(run_and_model, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "models" / "new"
    full_disk_at(monkeypatch, "weights.npz")
    assert export(run_and_model[0], folder) == 2
    assert not folder.exists() and list(folder.parent.iterdir()) == []


def test_overwrite_replaces_a_model_with_a_whole_evaluated_one(run_and_model, good_model, tmp_path):
    card = json.loads((good_model / "model.json").read_text())
    card["date"] = "old"
    (good_model / "model.json").write_text(json.dumps(card))
    stale = good_model.parent / f".{good_model.name}.partial-999999999"  # left by a kill -9
    stale.mkdir()
    assert export(run_and_model[0], good_model, "--overwrite") == 0
    network, card = policy_model.load_network(good_model)
    assert card["date"] != "old" and card["evaluation"]["results"]
    assert sorted(p.name for p in good_model.parent.iterdir()) == [good_model.name]


def test_overwrite_refuses_a_folder_that_holds_more_than_a_model(run_and_model, tmp_path, capsys):
    folder = tmp_path / "models"
    shutil.copytree(run_and_model[1], folder / "one")
    assert export(run_and_model[0], folder, "--overwrite") == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"kc export: {folder} holds more than a model (one); --overwrite replaces only a model folder "
                   "(model.json, weights.npz): choose another folder")
    assert (folder / "one" / "model.json").is_file()


def test_a_failure_in_the_staging_folder_leaves_the_target_as_it_was(tmp_path):
    """What every export (policy, RLlib, turn-value, search) writes through."""
    from kc_env.training import export_folder

    target = tmp_path / "tv"
    target.mkdir()
    (target / "model.json").write_text("{\"old\": true}")
    with pytest.raises(OSError):
        with export_folder.staged(target) as stage:
            (stage / "weights.npz").write_bytes(b"new")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert contents(target) == {"model.json": b"{\"old\": true}"}
    assert list(tmp_path.iterdir()) == [target]


def test_a_model_is_not_written_inside_another_model(tmp_path):
    """The hostile-input probe: ``ensemble m/base/inner m/base m/base`` put a folder inside a model,
    whose --overwrite was then refused for holding more than a model."""
    from kc_env.training import export_folder

    (tmp_path / "base").mkdir()
    (tmp_path / "base" / "model.json").write_text("{}")
    for target in (tmp_path / "base" / "inner", tmp_path / "base" / "a" / "b"):
        with pytest.raises(ValueError, match=f"^{target} is inside the model folder {tmp_path / 'base'}: choose a folder outside it"):
            export_folder.check_target(target, overwrite=True)


def test_a_model_is_not_written_over_the_current_folder(tmp_path, monkeypatch):
    """``ensemble . M M`` failed with "PosixPath('.') has an empty name"."""
    from kc_env.training import export_folder

    monkeypatch.chdir(tmp_path)
    for target in (Path("."), Path("..") / tmp_path.name):
        with pytest.raises(ValueError, match="is the current folder: name a folder for the model"):
            export_folder.check_target(target, overwrite=False)
