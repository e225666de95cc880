"""Every training-config field is checked up front with a one-line ``ConfigError`` naming it
(issue 18; ``reliability-2026-12.md`` items 4 and 16): nothing trains for minutes and then fails
on a typo, and no outside library is the one to refuse a value."""

from __future__ import annotations

from pathlib import Path

import pytest
from kc_env.training import config as config_mod

CONFIG = Path(__file__).resolve().parent.parent / "research" / "configs" / "maskable-ppo-2p.yaml"


@pytest.mark.parametrize("key, value, message", [
    ("eval.opponents", ["nosuch"], "eval.opponents: unknown agent spec 'nosuch'"),
    ("eval.deals", 0, "eval.deals must be positive"),
    ("eval.deals", 10**12, "eval.deals must be at most 100,000 per opponent, not 1,000,000,000,000"),
    ("pretrain.batch_size", 0, "pretrain.batch_size"),
    ("league.agents", {"nosuch": 1}, "league.agents: unknown agent spec 'nosuch'"),
    ("league.agents", {"heuristic": 0, "random": 0}, "at least one of them above 0"),
    ("league.max_snapshots", -1, "league.max_snapshots must be at least 1"),
    ("checkpoint_every", -1, "checkpoint_every, eval.every and league.snapshot_every must be 0 (never) or more"),
    ("eval.every", -1, "must be 0 (never) or more"),
    ("league.snapshot_every", -1, "must be 0 (never) or more"),
    ("seed", -1, "seed must be 0 to 4,294,967,295"),
    ("seed", 2**64, "seed must be 0 to 4,294,967,295"),
    ("max_moves", 0, "max_moves must be positive"),
    ("max_moves", 2**63, "max_moves must be positive, at most 2,147,483,647"),
    ("update_threads", 0, "update_threads must be 1 to 1,024"),
    ("ppo.learning_rate", -1, "ppo.learning_rate must be positive"),
    ("ppo.gamma", 2, "ppo.gamma and ppo.gae_lambda must be in [0, 1]"),
    ("ppo.target_kl", "soon", "ppo.target_kl must be positive or null"),
    ("blocked_reward", "lots", "blocked_reward must be a number or null"),
    ("rules.jokers", 2, "cannot set rules.jokers: rules is 'standard', not a mapping"),
    ("rules", {"preset": ["x"]}, "preset"),
    # reliability-2026-12b.md M-9: values that passed and then crashed the run
    ("ppo.learning_rate", float("inf"), "ppo.learning_rate must be a finite number, not inf"),
    ("network.prior_weight", float("nan"), "network.prior_weight must be a finite number, not nan"),
    ("blocked_reward", float("-inf"), "blocked_reward must be a finite number"),
    ("n_envs", 1_000_000_000, "n_envs must be 1 to 4,096"),
    ("ppo.n_steps", 4096, "ppo.n_steps * n_envs (the rollout) must be at most 262,144 steps"),
    ("network.hidden", [10_000_000], "network.shared and network.hidden must be widths from 1 to 4096"),
    ("network.shared", [8] * 17, "at most 16 layers each"),
    ("eval.opponents", [["heuristic"]], "eval.opponents must list agent specs (strings)"),
])
def test_a_bad_value_is_refused_with_one_line_naming_it(key, value, message):
    with pytest.raises(config_mod.ConfigError, match=r"maskable-ppo-2p\.yaml: ") as caught:
        config_mod.load(CONFIG, None, {key: value})
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("key, value, message", [
    ("ppo.ent_coeff", 0.1, "maskable-ppo-2p.yaml: unknown key 'ppo.ent_coeff'; allowed: learning_rate"),
    ("ppo.gamma", "abc", "maskable-ppo-2p.yaml: ppo.gamma: expected float, got 'abc'"),
    ("n_envs", "abc", "maskable-ppo-2p.yaml: n_envs: expected int, got 'abc'"),
    ("ppo", {1: 2}, "maskable-ppo-2p.yaml: unknown key 'ppo.1'; allowed: learning_rate"),  # a probe: a TypeError
    ("update_threads", 99_999, "update_threads must be 1 to 1,024"),
])
def test_a_wrong_key_or_type_names_the_file_and_the_key_apart(key, value, message):
    """The newcomer report: '--set ppo.ent_coeff' named 'configs/default.yaml.ppo' as if a file."""
    with pytest.raises(config_mod.ConfigError) as caught:
        config_mod.load(CONFIG, None, {key: value})
    assert message in str(caught.value)


def test_zero_intervals_mean_never_and_are_allowed():
    cfg = config_mod.load(CONFIG, None, {"checkpoint_every": 0, "eval.every": 0, "league.snapshot_every": 0})
    assert cfg.checkpoint_every == 0


def test_kc_train_refuses_a_bad_value_before_making_the_run_folder(tmp_path, capsys):
    from kc_env.cli import main

    run = tmp_path / "run"
    code = main(["train", str(CONFIG), "--variant", "smoke", "--run", str(run), "--set", "ppo.learning_rate=.inf"])
    err = capsys.readouterr().err
    assert code == 2 and "ppo.learning_rate must be a finite number" in err and len(err.strip().splitlines()) == 1
    assert not run.exists()


def test_an_integer_of_thousands_of_digits_is_one_line(tmp_path, capsys):
    """Python refuses to read an integer of over 4,300 digits (ValueError, not a YAML error)."""
    from kc_env.cli import main

    config = tmp_path / "big.yaml"
    config.write_text("default:\n  n_envs: " + "9" * 5000 + "\n")
    with pytest.raises(config_mod.ConfigError, match="big.yaml: not valid YAML: Exceeds the limit"):
        config_mod.load(config)
    code = main(["train", str(CONFIG), "--run", str(tmp_path / "run"), "--set", "n_envs=" + "9" * 5000])
    err = capsys.readouterr().err
    assert code == 2 and "--set 'n_envs': not a value: Exceeds the limit" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("key", "value", "message"), [
    ("eval.deals", -1, "eval.deals must be positive"),
    ("eval.opponents", [], "eval.opponents needs at least one agent spec"),
])
def test_the_eval_block_names_only_what_is_wrong(key, value, message):
    """eval.deals=-1 was refused as 'eval.opponents needs at least one agent spec, and eval.deals
    must be positive', though the opponents were fine."""
    with pytest.raises(config_mod.ConfigError) as caught:
        config_mod.load(CONFIG, None, {key: value})
    assert str(caught.value) == f"{CONFIG}: {message}"


def test_rules_written_as_kc_rules_takes_them_say_to_write_a_mapping():
    """--set rules=pagat,jokers=2 (the form of every --rules option) said only 'unknown preset
    'pagat,jokers=2''; a config's rules is a preset name or a mapping, and the message says how."""
    with pytest.raises(config_mod.ConfigError) as caught:
        config_mod.load(CONFIG, None, {"rules": "pagat,jokers=2"})
    assert str(caught.value).startswith(f"{CONFIG}: unknown preset 'pagat,jokers=2'; allowed: standard, ")
    assert str(caught.value).endswith("; a config's rules are a preset name or a mapping, such as "
                                      "rules: {preset: pagat, jokers: 2} (--set 'rules={preset: pagat, jokers: 2}')")


def test_a_config_too_large_to_be_one_is_refused_unread():
    """A probe of kc train: a config linked to /dev/zero ran out of memory (a MemoryError's traceback)."""
    with pytest.raises(config_mod.ConfigError, match=r"^/dev/zero: more than 1,000,000 bytes; a config is a few dozen lines$"):
        config_mod.load("/dev/zero")
