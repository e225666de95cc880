"""Exported policies load with numpy alone and refuse what they cannot trust, saying which."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from kc_env import actions, agents, engine, observation
from kc_env.agents.policy_model import ModelError, PolicyAgent, PolicyNetwork, load_network, save


def tiny_network(seed: int = 0) -> PolicyNetwork:
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0, 0.1, (8, observation.OBS_SIZE)).astype(np.float32)
    w2 = rng.normal(0, 0.1, (actions.NUM_ACTIONS, 8)).astype(np.float32)
    return PolicyNetwork(((w1, np.zeros(8, np.float32)),), (w2, np.zeros(actions.NUM_ACTIONS, np.float32)))


@pytest.fixture
def model_folder(tmp_path):
    return save(tmp_path / "m", tiny_network(), {"training_steps": 7, "num_players": 2})


def an_observation(seed: int = 3):
    state = engine.new_deal("standard", 2, seed=seed)
    return {"observation": observation.encode(state, state.current_player), "action_mask": actions.legal_mask(state)}


def test_an_exported_model_is_an_agent_spec_and_plays_legal_moves(model_folder):
    agent = agents.load(str(model_folder), seed=1)
    assert isinstance(agent, PolicyAgent)
    obs = an_observation()
    assert obs["action_mask"][agent.act(obs)] == 1
    sampler = PolicyAgent(model_folder, seed=2, deterministic=False)
    assert all(obs["action_mask"][sampler.act(obs)] == 1 for _ in range(20))


def test_probabilities_are_zero_off_the_mask_and_sum_to_one(model_folder):
    network, card = load_network(model_folder)
    obs = an_observation()
    p = network.probabilities(obs["observation"], obs["action_mask"])
    assert p.sum() == pytest.approx(1.0)
    assert p[obs["action_mask"] == 0].max() == 0.0
    assert card["training_steps"] == 7


def test_a_layout_version_mismatch_is_refused(model_folder):
    card = json.loads((model_folder / "model.json").read_text())
    card["obs_layout_version"] = 99
    (model_folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="observation layout version 99, this kc_env has version 2"):
        load_network(model_folder)


def test_a_corrupt_weights_file_is_refused(model_folder):
    (model_folder / "weights.npz").write_bytes(b"PK\x03\x04 this is not a zip file at all")
    with pytest.raises(ModelError, match="corrupt weights file"):
        load_network(model_folder)


def test_a_corrupt_card_is_refused(model_folder):
    (model_folder / "model.json").write_text("{not json")
    with pytest.raises(ModelError, match="corrupt model card"):
        load_network(model_folder)


@pytest.mark.parametrize("field, value, message", [
    ("rules", {"draw": "sometimes"}, "the rules it was trained for are not valid: "),
    ("rules", {"luck": 1}, "the rules it was trained for are not valid: unknown rule 'luck'"),
    ("rules", ["standard"], "the rules it was trained for are not valid: rules must be a mapping"),
    ("num_players", 9, "num_players, the players it was trained for, must be 2 to 6, not 9"),
    ("num_players", "four", "must be 2 to 6, not 'four'"),
])
def test_a_card_whose_table_is_not_a_table_is_refused(model_folder, field, value, message):
    card = json.loads((model_folder / "model.json").read_text())
    (model_folder / "model.json").write_text(json.dumps({**card, field: value}))
    with pytest.raises(ModelError, match=re.escape(message)):
        load_network(model_folder)


def test_weights_that_need_unpickling_are_refused(model_folder):
    arrays = dict(np.load(model_folder / "weights.npz"))
    arrays["action.bias"] = np.array([{"evil": 1}], dtype=object)
    np.savez(model_folder / "weights.npz", **arrays)
    with pytest.raises(ModelError, match="refusing to unpickle"):
        load_network(model_folder)


def test_a_missing_file_or_folder_is_named(tmp_path, model_folder):
    with pytest.raises(ModelError, match="not an exported model folder"):
        load_network(tmp_path / "nowhere")
    (model_folder / "weights.npz").unlink()
    with pytest.raises(ModelError, match="no weights.npz"):
        load_network(model_folder)


def test_shapes_that_do_not_chain_are_refused(tmp_path):
    net = tiny_network()
    (w1, b1), = net.hidden
    bad = PolicyNetwork(((w1[:, :100], b1),), net.action)
    folder = save(tmp_path / "bad", bad, {})
    with pytest.raises(ModelError, match=r"array pi.0.weight has shape \(8, 100\), expected \(8, 1599\)"):
        load_network(folder)


def test_a_network_with_the_heuristic_as_prior_plays_its_moves_when_the_prior_dominates(tmp_path):
    """Residual policy: the prior agent's choice gets ``prior_weight`` on its logit; a weight far
    above the layers' logits makes the model play exactly the heuristic's moves."""
    from kc_env.agents.heuristic.search import heuristic_action

    net = tiny_network()
    folder = save(tmp_path / "p", PolicyNetwork(net.hidden, net.action, "tanh", "heuristic", 50.0), {})
    agent = PolicyAgent(folder)
    assert agent.network.prior == "heuristic" and agent.network.prior_weight == 50.0
    for seed in range(5):
        obs = an_observation(seed)
        assert agent.act(obs) == heuristic_action(obs["observation"], obs["action_mask"])
    with pytest.raises(ValueError, match="needs the action masks"):
        agent.network.logits(an_observation()["observation"])


def test_an_unknown_prior_or_a_bad_prior_weight_is_refused(tmp_path):
    net = tiny_network()
    folder = save(tmp_path / "p", PolicyNetwork(net.hidden, net.action, "tanh", "heuristic", 3.0), {})
    card = json.loads((folder / "model.json").read_text())
    card["network"]["prior"] = "oracle"
    (folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="unknown network prior 'oracle'"):
        load_network(folder)
    card["network"].update(prior="heuristic", prior_weight="lots")
    (folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="prior_weight must be a finite number"):
        load_network(folder)


def test_a_heuristic_prior_plays_with_the_evaluation_weights_its_model_carries(tmp_path):
    """A model whose training tuned its heuristic prior (``training/tune.py``) carries those
    weights in ``model.json``; its moves are the heuristic's with them, not the shipped ones."""
    from kc_env.agents.heuristic.search import heuristic_action, heuristic_action_w
    from kc_env.agents.heuristic.weights import evaluation_weights

    tuned = {"card": 0.05, "opp": 9.0}
    net = tiny_network()
    folder = save(tmp_path / "p", PolicyNetwork(net.hidden, net.action, "tanh", "heuristic", 50.0, tuned), {})
    agent = PolicyAgent(folder)
    assert json.loads((folder / "model.json").read_text())["network"]["heuristic_weights"] == tuned
    w = evaluation_weights(tuned)
    differ = 0
    for seed in range(40):
        obs = an_observation(seed)
        move = agent.act(obs)
        assert move == heuristic_action_w(obs["observation"], obs["action_mask"], w.copy())
        differ += move != heuristic_action(obs["observation"], obs["action_mask"])
    assert differ > 0


def test_bad_heuristic_weights_in_a_model_are_refused(tmp_path):
    net = tiny_network()
    folder = save(tmp_path / "p", PolicyNetwork(net.hidden, net.action, "tanh", "heuristic", 3.0, {"card": 0.5}), {})
    card = json.loads((folder / "model.json").read_text())
    for weights, message in (({"luck": 1.0}, "unknown heuristic weight 'luck'"),
                             ({"card": "many"}, "heuristic weight card must be a finite number"),
                             ([1.0, 2.0], "must be a mapping of weight names")):
        card["network"]["heuristic_weights"] = weights
        (folder / "model.json").write_text(json.dumps(card))
        with pytest.raises(ModelError, match=message):
            load_network(folder)
    card["network"].update(prior="greedy", heuristic_weights={"card": 0.5})
    (folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match="heuristic_weights need the heuristic as the network's prior"):
        load_network(folder)


def test_kc_eval_and_kc_play_say_when_a_model_plays_at_a_table_it_was_not_trained_for(tmp_path, capsys,
                                                                                      monkeypatch):
    """The observation is the same for every table, so a model plays anywhere; the commands say
    on stderr how the table differs from its card's (players, then each rule variant)."""
    from kc_env.cli import main
    from kc_env.rules import Rules

    folder = save(tmp_path / "m", tiny_network(), {"num_players": 2, "rules": Rules().to_dict()})
    assert main(["eval", str(folder), "random", "-n", "2", "--deals", "2", "--no-progress"]) == 0
    assert "note" not in capsys.readouterr().err
    assert main(["eval", str(folder), "random", "-n", "3", "--deals", "3", "--no-progress",
                 "--rules", "standard,draw=end"]) == 0
    err = capsys.readouterr().err
    assert f"kc eval: note: {folder} was trained for another table (players: 2 → 3; draw: start → end)" in err

    def no_more_input(prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", no_more_input)
    assert main(["play", str(folder), "--seed", "1", "--no-color", "--rules", "standard,pile_moves=none"]) == 1
    err = capsys.readouterr().err
    assert f"kc play: note: {folder} was trained for another table (pile_moves: whole → none)" in err


def test_the_envs_warn_when_a_model_opponent_sits_at_a_table_it_was_not_trained_for(tmp_path):
    """The Gymnasium env and the vector env take any model as an opponent; one trained for
    another table plays, with a UserWarning that says how the table differs."""
    import warnings

    from kc_env.gym_env import KingsCornerEnv
    from kc_env.rules import Rules
    from kc_env.vector import KingsCornerVecEnv

    folder = str(save(tmp_path / "m", tiny_network(), {"num_players": 2, "rules": Rules().to_dict()}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KingsCornerEnv(num_players=2, opponents=[folder])
        KingsCornerVecEnv(2, num_players=2, opponents=folder)
    with pytest.warns(UserWarning, match=re.escape(f"{folder} was trained for another table (players: 2 → 3)")):
        KingsCornerEnv(num_players=3, opponents=[folder, "random"])
    with pytest.warns(UserWarning, match=re.escape("(players: 2 → 4; pile_moves: whole → none)")):
        env = KingsCornerVecEnv(2, num_players=4, rules=Rules().replace(pile_moves="none"), opponents=folder)
    env.reset()
    assert env.step(env.action_masks().argmax(axis=1))[0].shape == (2, observation.OBS_SIZE)


def test_a_model_at_every_other_seat_is_warned_about_once(tmp_path, monkeypatch, capsys):
    import warnings

    from kc_env.cli import main
    from kc_env.gym_env import KingsCornerEnv
    from kc_env.rules import Rules

    folder = str(save(tmp_path / "m", tiny_network(), {"num_players": 2, "rules": Rules().to_dict()}))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        KingsCornerEnv(num_players=6, opponents=folder)
    assert [str(w.message) for w in caught].count(f"{folder} was trained for another table (players: 2 → 6); "
                                                 "it plays here all the same") == 1
    monkeypatch.setattr("builtins.input", lambda prompt="": (_ for _ in ()).throw(EOFError))
    assert main(["play", folder, folder, "--seed", "1", "--no-color"]) == 1
    assert capsys.readouterr().err.count("was trained for another table") == 1


def _add_member(folder, name: str, header_shape: tuple, payload: bytes = b"", raw: bool = False) -> None:
    """Append a member to ``weights.npz``: an .npy header declaring ``header_shape`` float32 and
    ``payload`` (or, ``raw``, ``payload`` alone with no .npy format)."""
    import io
    import zipfile

    buffer = io.BytesIO()
    if not raw:
        np.lib.format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False, "shape": header_shape})
    buffer.write(payload)
    with zipfile.ZipFile(folder / "weights.npz", "a", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, buffer.getvalue())


def test_an_unused_huge_array_is_never_decompressed(model_folder):
    """Issue 18 item 8: a 2 GiB zero array beside the weights loaded in 22 s at 2.8 GB; the loader
    reads only the arrays the card's network needs."""
    import zipfile

    with zipfile.ZipFile(model_folder / "weights.npz", "a", compression=zipfile.ZIP_DEFLATED) as z:
        with z.open("extra.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (2**26,)})
            chunk = bytes(1 << 24)
            for _ in range(16):  # 256 MiB of zeros, a quarter of a megabyte compressed
                f.write(chunk)
    import resource
    import time

    before, start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.perf_counter()
    network, _ = load_network(model_folder)
    assert time.perf_counter() - start < 2
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000, "kilobytes"
    assert network.action[0].shape == (actions.NUM_ACTIONS, 8)


def test_a_header_declaring_a_huge_array_is_a_model_error_not_a_memory_error(model_folder):
    import zipfile

    with zipfile.ZipFile(model_folder / "weights.npz") as z:
        kept = {n: z.read(n) for n in z.namelist() if n != "action.bias.npy"}
    with zipfile.ZipFile(model_folder / "weights.npz", "w") as z:
        for name, data in kept.items():
            z.writestr(name, data)
    _add_member(model_folder, "action.bias.npy", (2**40,))
    with pytest.raises(ModelError, match=r"array action.bias has shape \(1099511627776,\), expected \(497,\)"):
        load_network(model_folder)


def _replace_member(folder, name: str, data: bytes) -> None:
    import zipfile

    with zipfile.ZipFile(folder / "weights.npz") as z:
        kept = {n: z.read(n) for n in z.namelist() if n != name}
    with zipfile.ZipFile(folder / "weights.npz", "w") as z:
        for member, content in kept.items():
            z.writestr(member, content)
        z.writestr(name, data)


def test_a_member_not_in_npy_format_is_a_model_error(model_folder):
    _replace_member(model_folder, "action.bias.npy", b"\x00" * 1988)
    with pytest.raises(ModelError, match="array action.bias is not stored in the .npy format"):
        load_network(model_folder)


def test_random_bytes_are_a_corrupt_file_not_pickles(model_folder):
    (model_folder / "weights.npz").write_bytes(np.random.default_rng(0).bytes(4096))
    with pytest.raises(ModelError, match="not an .npz archive of arrays"):
        load_network(model_folder)


def test_a_weights_file_over_the_cap_is_refused_unread(model_folder, monkeypatch):
    from kc_env.agents import policy_model

    monkeypatch.setattr(policy_model, "MAX_WEIGHTS_BYTES", 1000)
    with pytest.raises(ModelError, match="more than the 1,000 a model may hold"):
        load_network(model_folder)


@pytest.mark.parametrize("field, value, message", [
    ("network.activation", ["tanh"], "'network' must name an activation"),
    ("network.hidden", 5, "network hidden must be a list of layer widths"),
    ("network.hidden", ["a", "b"], "network hidden must be a list of layer widths"),
    ("network.prior", ["heuristic"], "unknown network prior"),
    ("rules", {"preset": ["pagat"]}, "the rules it was trained for are not valid: rule 'preset' must be a single value"),
    ("action_layout_version", True, "action layout version True"),
    ("obs_layout_version", 1.0, "observation layout version 1.0"),
])
def test_a_malformed_card_is_a_model_error(model_folder, field, value, message):
    """Issue 18 item 9: these escaped as TypeError or were accepted."""
    card = json.loads((model_folder / "model.json").read_text())
    node = card
    *parents, last = field.split(".")
    for part in parents:
        node = node[part]
    node[last] = value
    (model_folder / "model.json").write_text(json.dumps(card))
    with pytest.raises(ModelError, match=re.escape(message)):
        load_network(model_folder)


def _card_with_hidden(folder, hidden: list[int]) -> None:
    card = json.loads((folder / "model.json").read_text())
    card["network"]["hidden"] = hidden
    (folder / "model.json").write_text(json.dumps(card))


def test_the_arrays_a_card_declares_are_capped_in_total_before_any_is_read(model_folder):
    """Issue 31 M-2: ``hidden: [16383] * 3`` passed each array's cap and held 3.2 GB (4.5 GB at
    peak) from a 2.2 MB folder; the card's shapes are summed first, so no array is read (here
    each member is a header alone, which reading would find cut short)."""
    import zipfile

    from kc_env.agents import policy_model

    hidden = [16383] * 3
    _card_with_hidden(model_folder, hidden)
    widths = [observation.OBS_SIZE, *hidden, actions.NUM_ACTIONS]
    (model_folder / "weights.npz").unlink()
    for i, name in enumerate([f"pi.{k}" for k in range(len(hidden))] + ["action"]):
        _add_member(model_folder, f"{name}.weight.npy", (widths[i + 1], widths[i]))
        _add_member(model_folder, f"{name}.bias.npy", (widths[i + 1],))
    assert len(zipfile.ZipFile(model_folder / "weights.npz").namelist()) == 8
    with pytest.raises(ModelError, match=r"model.json: the network's arrays would hold [\d,]+ bytes as float32, "
                                         r"more than the 1,073,741,824 a model may hold"):
        load_network(model_folder)
    assert 16383**2 * 4 < policy_model.MAX_WEIGHTS_BYTES  # each array alone passes the cap


def test_a_card_with_too_many_layers_is_refused(model_folder):
    from kc_env.agents.policy_model import MAX_LAYERS

    _card_with_hidden(model_folder, [1] * (MAX_LAYERS + 1))
    with pytest.raises(ModelError, match=f"network hidden must list at most {MAX_LAYERS} layers"):
        load_network(model_folder)


@pytest.mark.parametrize("value", [1e300, np.inf, np.nan])
def test_weights_that_are_not_finite_as_float32_are_refused(tmp_path, value):
    """Issue 31 L-2: 1e300 is finite as float64 and infinite once cast, so the probabilities were NaN."""
    network = tiny_network()
    save(tmp_path / "m", network, {})
    action = network.action[0].astype(np.float64)
    action[3, 5] = value
    _replace_member(tmp_path / "m", "action.weight.npy", _npy_bytes(action))
    with pytest.raises(ModelError, match="array action.weight is not finite floating point data"):
        load_network(tmp_path / "m")


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def test_a_card_without_its_rules_is_noted_wherever_the_model_sits(tmp_path, model_folder):
    """A ``model.json`` without ``rules`` loads (every model format's table keys may be absent:
    ``model_folder.check_table``), but the note on the table it sits at says the card does not
    say its rules, where it said nothing at all."""
    from kc_env.agents.policy_model import load_agent, other_table
    from kc_env.gym_env import KingsCornerEnv
    from kc_env.rules import Rules

    agent = load_agent(model_folder)
    assert other_table(agent, Rules(), 2) == (f"{agent.spec}'s card does not say the rules it was trained for; "
                                              "it plays here all the same")
    assert other_table(agent, Rules(), 3) == (f"{agent.spec}'s card does not say the rules it was trained for "
                                              "(players: 2 → 3); it plays here all the same")
    with pytest.warns(UserWarning, match="card does not say the rules it was trained for"):
        KingsCornerEnv(num_players=2, opponents=[str(model_folder)])
    told = save(tmp_path / "told", tiny_network(), {"num_players": 2, "rules": Rules().to_dict()})
    assert other_table(load_agent(told), Rules(), 2) is None
