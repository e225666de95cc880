"""``kc train --run`` never starts a run beside files it did not make (which ``--overwrite`` would
then delete), says what is wrong with a file given as the folder or a resume of nothing, and a
config whose YAML aliases stand for billions of values, or whose network no model could hold, is
refused before anything is made."""

from __future__ import annotations

from pathlib import Path

import pytest
from kc_env.training import config as config_mod

from kc_env.cli import main

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def _refused(capsys, argv, said):
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kc train: ") and "\n" not in err and said in err, err


def test_a_run_is_not_started_beside_someone_elses_files(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "src").mkdir()
    _refused(capsys, ["default", "--variant", "smoke", "--run", str(tmp_path)],
             f"--run {tmp_path} holds files kc train did not make; name a new or empty folder")
    _refused(capsys, ["default", "--variant", "smoke", "--run", str(tmp_path), "--overwrite"], "not deleting it")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "src"]


def test_a_file_as_the_run_folder_and_a_resume_of_nothing_are_one_line(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    _refused(capsys, ["default", "--run", str(afile)], "is a file, not a folder")
    _refused(capsys, ["ppo-standard-2p", "--run", str(tmp_path / "new"), "--resume"],
             "nothing to resume (no config.yaml: no run was started there)")
    assert not (tmp_path / "new").exists()


def test_yaml_aliases_that_expand_to_billions_of_values_are_refused(tmp_path):
    lines = ["a0: &a0 [" + ", ".join(["lol"] * 10) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join([*lines, "default: {trainer: turn_ppo, turn_ppo: {tables: *a9}}"]) + "\n")
    with pytest.raises(config_mod.ConfigError, match="holds more than 100,000 values"):
        config_mod.load(path)


def test_the_shipped_configs_anchors_are_not_too_many():
    for path in CONFIGS.glob("*.yaml"):
        config_mod.load(path)


@pytest.mark.parametrize("hidden, said", [
    ([2100, 2100], "makes a model of more than the 16,777,216 bytes a model may hold"),
    ([8] * 16, "may list at most 15 widths each"),
])
def test_a_turn_ppo_network_no_model_could_hold_is_refused(hidden, said):
    with pytest.raises(config_mod.ConfigError, match=said):
        config_mod.load(CONFIGS / "default.yaml", "smoke", {"turn_ppo.hidden": hidden})


def test_the_trainers_own_folder_making_refuses_someone_elses_files(tmp_path):
    from kc_env.training.run import is_run, new_run_folder

    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="holds files kc train did not make"):
        new_run_folder(tmp_path)
    assert not is_run(tmp_path)
    new_run_folder(tmp_path / "fresh")
    assert is_run(tmp_path / "fresh")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_a_run_folder_that_cannot_be_made_is_one_line_naming_it(capsys):
    """/proc refuses a new folder: the system's error was printed raw ('[Errno 2] No such file or
    directory: '/proc/x13'')."""
    _refused(capsys, ["default", "--variant", "smoke", "--run", "/proc/x13"],
             "--run /proc/x13: cannot make the run folder (No such file or directory)")
