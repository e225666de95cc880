"""The trainer registry (``training/trainers.py``): ``kc train``, ``kc export`` and the config
loader choose a trainer through it alone, and only the SB3 trainer imports stable-baselines3."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import pytest
from without_sb3 import run_without_sb3

pytest.importorskip("torch")

from kc_env.training import config as config_mod  # noqa: E402
from kc_env.training import trainers  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRAINING = ROOT / "training"

def _run_blocked(code: str) -> subprocess.CompletedProcess:
    return run_without_sb3(code, timeout=300)


def test_the_rllib_trainer_and_the_shared_modules_load_without_sb3():
    pytest.importorskip("ray")
    done = _run_blocked("""
        import kc_env.training.rllib.train, kc_env.training.rllib.export, kc_env.training.commands.train
        import kc_env.training.commands.export, kc_env.training.trainers, kc_env.training.run
        import kc_env.training.turn_value.train, kc_env.training.turn_ppo.train, kc_env.training.bench
        assert not any(m.split(".")[0] in ("stable_baselines3", "sb3_contrib") for m in sys.modules)
        try:
            import kc_env.training.sb3.train
        except ImportError as exc:
            print("sb3 trainer:", exc)
    """)
    assert done.returncode == 0, done.stderr
    assert "sb3 trainer: No module named" in done.stdout and "(blocked in this test)" in done.stdout, \
        "the block did not reach the SB3 trainer: the test proves nothing"


def test_without_sb3_the_sb3_trainer_is_one_line_naming_its_extra():
    done = _run_blocked("""
        from kc_env.training import trainers
        try:
            trainers.get("sb3").train_function()
        except trainers.TrainerUnavailable as exc:
            print(exc)
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("trainer sb3 needs the train extra"), done.stdout


def test_only_the_sb3_trainers_modules_import_sb3():
    """Its folder, ``training/sb3/``, but not its ``__init__`` nor its settings, which the config
    loader reads for every trainer."""
    offenders = []
    for path in sorted(TRAINING.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(n.split(".")[0] in ("stable_baselines3", "sb3_contrib") for n in names):
                if path.parent != TRAINING / "sb3" or path.stem in ("__init__", "settings"):
                    if not _under_type_checking(tree, node):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"SB3 imported outside the SB3 trainer: {offenders}"


def _under_type_checking(tree: ast.Module, target: ast.AST) -> bool:
    return any(isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING" and target in ast.walk(n)
               for n in ast.walk(tree))


def test_no_module_compares_a_trainer_name_but_the_registry():
    names = set(trainers.names())
    offenders = []
    for path in sorted(TRAINING.rglob("*.py")):
        if path.name == "trainers.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value in names for c in [node.left, *node.comparators]):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, f"a trainer chosen by its name outside training/trainers.py: {offenders}"


def test_a_config_names_a_registered_trainer_and_sets_only_what_it_reads():
    default = config_mod.find("default")
    with pytest.raises(config_mod.ConfigError, match="trainer must be one of sb3, rllib, turn_value, turn_ppo, not 'jax'"):
        config_mod.load(default, None, {"trainer": "jax"})
    with pytest.raises(config_mod.ConfigError, match="network.heuristic_weights is read by the sb3 trainer only"):
        config_mod.load(default, None, {"trainer": "rllib", "network.prior": "heuristic",
                                        "network.heuristic_weights": {"card": 1.1}})
    with pytest.raises(config_mod.ConfigError, match="--set ppo.ent_coef is read by the sb3 and rllib trainers only, "
                                                     "and this config trains with turn_ppo"):
        config_mod.load(default, None, {"ppo.ent_coef": 0.02})  # the newcomer report: it changed nothing
    assert trainers.of_run(Path("/nonexistent")).name == trainers.DEFAULT


def test_kc_train_names_a_turn_trainer_runs_model_and_curve_once(tmp_path, capsys):
    from kc_env.cli import main

    assert main(["train", str(config_mod.find("default")), "--variant", "smoke", "--run", str(tmp_path / "run"),
                 "--no-progress", "--set", "turn_ppo.iterations=1", "--set", "turn_ppo.games=4",
                 "--set", "eval.deals=2"]) == 0
    out = capsys.readouterr().out
    assert out.count("learning curve:") == 1 and f"run folder: {tmp_path / 'run'}" in out


def test_trainer_flag_notes_the_settings_of_the_configs_own_trainer_it_leaves_unread(tmp_path, capsys):
    """The newcomer report: ``--trainer sb3`` on the turn-PPO demo config quietly dropped its
    turn_ppo settings (the smoke variant's) and began SB3's 5,000,000 steps."""
    from kc_env.cli import main

    assert main(["train", "default", "--variant", "smoke", "--trainer", "sb3", "--run", str(tmp_path / "none"),
                 "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (f"kc train: note: {config_mod.find('default')} trains with turn_ppo; --trainer sb3 does not "
                      "read its turn_ppo settings")
    assert main(["train", "default", "--trainer", "turn_ppo", "--run", str(tmp_path / "none"), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "kc train: note:" not in err and "resuming" not in err  # a folder with no run is not resumed


def test_an_sb3_runs_summary_names_the_model_kc_reads_not_sb3s_zip():
    """``final.zip`` is for the user's own SB3 code; kc reads ``final.pt`` (``kc export``)."""
    folder = Path("runs") / "demo"
    out = trainers.REGISTRY["sb3"].outputs(folder)
    assert "final.zip" not in out
    assert f"model: {folder / 'final.pt'}" in out and f"export: kc export {folder} models/NAME" in out
