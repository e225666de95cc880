"""Random bytes and random JSON/YAML thrown at every loader of user input (issue 18): each ends in
success or its own named error (``PositionError``, ``RulesError``, ``RecordError``,
``ModelError``, ``ConfigError``), never another exception."""

from __future__ import annotations

import json
import os

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kc_env.training import config as config_mod

from kc_env import PositionError, Rules, engine, record
from kc_env.agents.policy_model import ModelError, read_card
from kc_env.rules import RulesError

FUZZ = settings(max_examples=int(os.environ.get("KC_FUZZ_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["standard", "pagat", "end", "all", "fewest_cards", "-"]))
keys = st.one_of(st.text(max_size=10), st.sampled_from(
    ["preset", "draw", "jokers", "hand_size", "format", "version", "rules", "num_players", "seed", "dealer",
     "moves", "truncated", "result", "deals", "default", "network", "hidden", "activation", "ppo", "league",
     "eval", "opponents", "agents", "obs_layout_version", "action_layout_version", "format_version"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                            st.dictionaries(keys, inner, max_size=5)), max_leaves=20)

POSITION_WORDS = st.sampled_from(["N:", "E:", "S:", "W:", "NE:", "SE:", "SW:", "NW:", "hand 0:", "hand 1:", "hand ²:",
                                  "stock:", "turn:", "dealer:", "idle:", "over:", "unplayed:", "9H", "10S", "KD",
                                  "JK", "-", "0", "1", "drawn", "played", "winner", "out", "blocked", "²", "\n",
                                  "9" * 30, "#"])
position_texts = st.one_of(st.text(max_size=200), st.lists(POSITION_WORDS, max_size=60).map(" ".join))


def _game_record_text() -> str:
    state = engine.new_deal("standard", 2, seed=1)
    moves = [engine.legal_moves(state)[0]]
    engine.apply(state, moves[0])
    return record.dumps(record.GameRecord.from_state(state, moves))


RECORD = json.loads(_game_record_text())


@FUZZ
@given(position_texts)
def test_from_text(text):
    try:
        engine.from_text(text)
    except PositionError:
        pass


@FUZZ
@given(json_values)
def test_rules_from_dict(data):
    try:
        Rules.from_dict(data)
    except RulesError:
        pass


@FUZZ
@given(st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode()),
                 st.dictionaries(st.sampled_from(sorted(RECORD)), json_values, max_size=4).map(
                     lambda changes: json.dumps({**RECORD, **changes}).encode())))
def test_record_load(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("rec") / "r.json"
    path.write_bytes(data)
    try:
        record.replay(record.load(path))
    except record.RecordError:
        pass


@FUZZ
@given(st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode()),
                 st.dictionaries(keys, json_values, max_size=6).map(
                     lambda card: json.dumps({"format": "kc_env.policy", "format_version": 1, "obs_layout_version": 1,
                                              "action_layout_version": 1, **card}).encode())))
def test_model_card_loader(tmp_path_factory, data):
    folder = tmp_path_factory.mktemp("model")
    (folder / "model.json").write_bytes(data)
    try:
        read_card(folder)
    except ModelError:
        pass


@FUZZ
@given(st.one_of(st.binary(max_size=300), json_values.map(lambda v: yaml.safe_dump(v)),
                 json_values.map(lambda v: yaml.safe_dump({"default": v, "smoke": v})),
                 st.dictionaries(keys, json_values, max_size=5).map(lambda block: yaml.safe_dump({"default": block}))))
def test_config_loader(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("cfg") / "c.yaml"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    try:
        config_mod.load(path)
    except config_mod.ConfigError:
        pass
