"""Saved games and matches: JSON round trips, replays to the identical state, and clear errors
for malformed records (the move's number and name, the engine's reason)."""

from __future__ import annotations

import json
import random

import pytest

from kc_env import PRESETS, Rules, engine
from kc_env.match import DEFAULT_MAX_MOVES, Match, play_deal, play_match
from kc_env.record import (
    VERSION,
    DealMoves,
    GameRecord,
    MatchRecord,
    RecordError,
    dumps,
    from_dict,
    iter_replay,
    load,
    loads,
    replay,
    save,
)


def random_game(rules: Rules, n: int, seed: int, max_moves: int = DEFAULT_MAX_MOVES):
    """A deal played with seeded random moves: (state, moves, truncated)."""
    state = engine.new_deal(rules, n, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    moves, cut = play_deal(state, lambda s, m: rng.choice(m), max_moves)
    return state, moves, cut


def game_dict(**changes):
    state, moves, _ = random_game(Rules(), 2, seed=5)
    return {**GameRecord.from_state(state, moves).to_dict(), **changes}


# -- games -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("n", [2, 4])
def test_game_round_trip_replays_identical_state(preset, n, tmp_path):
    state, moves, cut = random_game(Rules.preset(preset), n, seed=n * 31)
    record = GameRecord.from_state(state, moves, truncated=cut)
    path = tmp_path / "game.json"
    save(record, path)
    loaded = load(path)
    assert loaded == record
    assert replay(loaded).snapshot() == state.snapshot()


def test_variant_rules_and_jokers_round_trip():
    rules = Rules(jokers=2, pile_moves="partial", draw="stuck", corner_build="same_suit",
                  scoring="custom", custom_table={r: 2 for r in "A 2 3 4 5 6 7 8 9 10 J Q K JK".split()})
    state, moves, cut = random_game(rules, 3, seed=8)
    record = loads(dumps(GameRecord.from_state(state, moves, truncated=cut)))
    assert record.rules == rules
    assert replay(record).snapshot() == state.snapshot()


def test_file_holds_the_documented_fields():
    data = game_dict()
    assert data["format"] == "kc_env.game" and data["version"] == VERSION
    assert data["rules"] == Rules().to_dict()
    assert (data["num_players"], data["seed"], data["dealer"]) == (2, 5, 1)
    assert all(isinstance(m, str) for m in data["moves"]) and data["moves"][-1] != ""
    assert set(data["result"]) == {"over", "winner", "blocked"}


def test_partial_game_replays_to_where_it_stopped():
    state = engine.new_deal(Rules(), 3, seed=2)
    rng = random.Random(2)
    moves = []
    for _ in range(10):
        moves.append(rng.choice(engine.legal_moves(state)))
        engine.apply(state, moves[-1])
    assert not state.is_over
    assert replay(loads(dumps(GameRecord.from_state(state, moves)))).snapshot() == state.snapshot()


def test_truncated_game_replays_as_blocked():
    state, moves, cut = random_game(Rules(), 2, seed=3, max_moves=7)
    assert cut and state.blocked
    record = loads(dumps(GameRecord.from_state(state, moves, truncated=True)))
    assert record.truncated
    assert replay(record).snapshot() == state.snapshot()


def test_iter_replay_steps_through_the_moves():
    state, moves, _ = random_game(Rules(), 2, seed=4)
    steps = [(s.number, s.move) for s in iter_replay(GameRecord.from_state(state, moves))]
    assert steps == [(0, None)] + list(enumerate(moves, start=1))


def test_record_without_result_or_dealer_still_loads():
    data = game_dict()
    del data["result"], data["truncated"]
    data["dealer"] = 1
    record = from_dict(data)
    assert record.result is None and not record.truncated
    assert replay(record).is_over


# -- malformed games -------------------------------------------------------------------------------

def test_illegal_move_names_its_number_and_reason():
    state = engine.new_deal(Rules(), 2, seed=5, dealer=1)
    first = engine.legal_moves(state)[0]
    bad = engine.move_name(engine.PlayCard(state.piles[0][0], 4))  # a card on the table never returns
    data = game_dict(moves=[engine.move_name(first), "end turn", bad], result=None)
    with pytest.raises(RecordError) as info:
        replay(from_dict(data))
    message = str(info.value)
    assert message.startswith(f"move 3 ({bad!r}): ")
    assert "is not in player" in message  # the engine's own reason


def test_unreadable_move_names_its_number():
    data = game_dict(moves=["end turn", "play 9X->N"])
    with pytest.raises(RecordError, match=r"move 2 \('play 9X->N'\): not a card"):
        from_dict(data)
    with pytest.raises(RecordError, match=r"move 1: a move is written as text"):
        from_dict(game_dict(moves=[17]))


def test_moves_after_the_deal_ended():
    data = game_dict()
    n = len(data["moves"])
    data["moves"] = data["moves"] + ["end turn"]
    with pytest.raises(RecordError, match=rf"move {n + 1} \('end turn'\): .*the deal is over"):
        replay(from_dict(data))


@pytest.mark.parametrize("change, message", [
    ({"format": "chess"}, "'format' must be"),
    ({"version": 2}, "version 2 is not supported"),
    ({"version": True}, "version True is not supported"),
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"rules": {"draw": "never"}}, "rules: rule 'draw' cannot be 'never'"),
    ({"rules": "standard"}, "rules: rules must be a mapping"),
    ({"num_players": 9}, "'num_players': num_players must be 2 to 6"),
    ({"num_players": "2"}, "'num_players' must be a whole number"),
    ({"seed": 1.5}, "'seed' must be a whole number"),
    ({"dealer": 2}, "'dealer' must be a seat 0..1"),
    ({"moves": "end turn"}, "'moves' must be a list"),
    ({"truncated": "no"}, "'truncated' must be true or false"),
    ({"result": {"over": True, "winner": 7, "blocked": False}}, "winner: replay gives"),
])
def test_malformed_game_fields(change, message):
    with pytest.raises(RecordError, match=message):
        replay(from_dict(game_dict(**change)))


def test_missing_key_is_named():
    data = game_dict()
    del data["seed"]
    with pytest.raises(RecordError, match="lacks 'seed'"):
        from_dict(data)


def test_not_json_and_not_an_object(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "kc_env.game",\n "seed": }')
    with pytest.raises(RecordError, match=r"bad.json: not valid JSON \(line 2, column 10\)"):
        load(path)
    with pytest.raises(RecordError, match="a record is a JSON object, not list"):
        loads("[1, 2]")


def test_load_prefixes_the_file_name(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game_dict(moves=["end turn", "jump"])))
    with pytest.raises(RecordError, match=r"g.json: move 2 \('jump'\)"):
        load(path)


# -- matches ---------------------------------------------------------------------------------------

def chooser(seed: int):
    rng = random.Random(seed)
    return lambda state, moves: rng.choice(moves)


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("bicycle"), Rules(scoring="chips", chips=8),
                                   Rules.preset("german", target=2)])
def test_match_round_trip(rules, tmp_path):
    match = play_match(rules, 3, seed=6, choose=chooser(6), max_moves=80)
    record = MatchRecord.from_match(match)
    path = tmp_path / "match.json"
    save(record, path)
    loaded = load(path)
    assert loaded == record and isinstance(loaded, MatchRecord)
    again = replay(loaded)
    assert again.totals == match.totals and again.winners == match.winners and again.pot == match.pot
    assert [d.scored for d in again.history] == [d.scored for d in match.history]
    assert [d.truncated for d in again.history] == [d.truncated for d in match.history]


def test_match_record_needs_moves():
    rules = Rules()
    match = Match(rules, 2, seed=1)
    state = match.new_deal()
    play_deal(state, chooser(1))
    match.record_deal(state)
    with pytest.raises(RecordError, match="deal 1 kept no moves"):
        MatchRecord.from_match(match)


def match_dict(**changes):
    match = play_match(Rules(target=15), 2, seed=4, choose=chooser(4))
    assert len(match.history) >= 2
    return {**MatchRecord.from_match(match).to_dict(), **changes}


def test_match_bad_move_names_deal_and_move():
    data = match_dict()
    data["deals"][1]["moves"][0] = "move NE->NW"
    with pytest.raises(RecordError, match=r"^deal 2, move 1 \('move NE->NW'\): move NE->NW by player"):
        replay(from_dict(data))


def test_match_deal_that_does_not_end():
    data = match_dict()
    data["deals"][0]["moves"] = data["deals"][0]["moves"][:3]
    with pytest.raises(RecordError, match="deal 1: the moves stop before the deal ends"):
        replay(from_dict(data))


def test_match_deals_after_the_end():
    data = match_dict()
    data["deals"].append({"moves": [], "truncated": True})
    with pytest.raises(RecordError, match=r"deal \d+: the match was already over"):
        replay(from_dict(data))


@pytest.mark.parametrize("deals, message", [
    ("x", "'deals' must be a list"),
    ([5], "deal 1: must be an object"),
    ([{"moves": [], "extra": 1}], "deal 1, unknown key 'extra'"),
    ([{"truncated": True}], "deal 1, the record lacks 'moves'"),
    ([{"moves": ["end turn", 3]}], "deal 1, move 2: a move is written as text"),
])
def test_match_malformed_deals(deals, message):
    with pytest.raises(RecordError, match=message):
        from_dict(match_dict(deals=deals))


def test_empty_match_record():
    record = MatchRecord(Rules(), 2, seed=3, deals=())
    match = replay(loads(dumps(record)))
    assert match.deal_number == 0 and not match.is_over


def test_deal_moves_value():
    assert DealMoves((engine.END_TURN,)).truncated is False


def test_a_game_with_both_jokers_replays_exactly():
    """Saved moves name the second joker JK2, so replaying plays the very card that was played."""
    import random

    from kc_env import Rules, engine
    from kc_env.record import GameRecord, dumps, loads, replay

    rules = Rules(jokers=2)
    for seed in range(40):
        state = engine.new_deal(rules, 2, seed=seed)
        rng = random.Random(seed)
        moves = []
        while not state.is_over and len(moves) < 400:
            legal = engine.legal_moves(state)
            jokers = [m for m in legal if getattr(m, "card", None) == 53]
            move = jokers[0] if jokers else rng.choice(legal)
            engine.apply(state, move)
            moves.append(move)
        if any(getattr(m, "card", None) == 53 for m in moves):
            record = loads(dumps(GameRecord.from_state(state, moves)))
            assert replay(record).snapshot() == state.snapshot()
            return
    raise AssertionError("no deal played the second joker")


@pytest.mark.parametrize("text, message", [
    ('{"format": "kc_env.game", "seed": ' + "9" * 5000 + "}", "not a record: Exceeds the limit"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_record_that_json_cannot_hold_is_a_record_error(text, message):
    """Issue 18 item 13: a seed of 5,000 digits, 100,000-deep JSON."""
    with pytest.raises(RecordError, match=message):
        loads(text)


@pytest.mark.parametrize("encoding", ["utf-16", "latin-1"])
def test_a_file_that_is_not_utf8_is_a_record_error(tmp_path, encoding):
    path = tmp_path / "g.json"
    path.write_bytes(json.dumps(game_dict(note="é"), ensure_ascii=False).encode(encoding))
    with pytest.raises(RecordError, match="g.json: not a record"):
        load(path)


def test_an_unhashable_preset_is_a_record_error():
    with pytest.raises(RecordError, match="rules: rule 'preset' must be a single value, not a list"):
        from_dict(game_dict(rules={"preset": ["x"]}))


def test_a_negative_seed_is_refused_not_read_as_its_absolute_value():
    """new_deal(seed=-42) used to deal seed 42's cards, so a record with seed -42 replayed another game."""
    with pytest.raises(RecordError, match="'seed' must be 0 or more"):
        from_dict(game_dict(seed=-42))
    for seed in (-1, 1.5, "7", True):
        with pytest.raises(ValueError, match="a seed is a whole number >= 0"):
            engine.new_deal("standard", 2, seed=seed)
    import numpy as np

    assert engine.to_text(engine.new_deal("standard", 2, seed=np.int64(7))) == engine.to_text(engine.new_deal(seed=7))
