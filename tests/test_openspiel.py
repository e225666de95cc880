"""Kings in the Corner as an OpenSpiel game (``kc_env.openspiel``) is the engine's game: the same
deals from the same deck, and the same legal actions, observations, winner and returns at every
step of the same moves; OpenSpiel's own checks (``random_sim_test`` with serialisation, the
playthrough snapshot) pass."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kc_env import PRESETS, Rules, actions, engine, match, observation, rewards  # noqa: E402
from kc_env.cards import deck  # noqa: E402
from kc_env.game_info import GAME_INFO  # noqa: E402
from kc_env.openspiel import SHORT_NAME, rules_text  # noqa: E402
from kc_env.openspiel.deal import deal_size, from_deck  # noqa: E402

VARIANTS = [*PRESETS, "standard;jokers:2", "standard;jokers:2;joker_on_empty_side:true;cross_kings:to_corner",
            "pagat;first_player:random", "standard;draw:stuck;pile_moves:partial", "bicycle;blocked:fewest_cards",
            "standard;clear_complete_piles:true;must_play:all", "printable;hand_size:12"]
"""Every preset, and variants that change what is dealt, drawn or shuffled."""

PLAYTHROUGH = Path(__file__).parent / "data" / "openspiel" / "python_kings_corner.txt"
"""A short deal: ``python_kings_corner(max_moves=10,players=2,rules=pagat;hand_size:2;first_player:random)``."""


def load(rules: str = "standard", players: int = 2, **params) -> pyspiel.Game:
    return pyspiel.load_game(SHORT_NAME, {"players": players, "rules": rules, **params})


def deck_top_first(rules: Rules, seed: int) -> list[int]:
    """The deck ``engine.new_deal(rules, n, seed)`` shuffles, top card first."""
    cards = deck(rules.jokers)
    random.Random(seed).shuffle(cards)
    return cards[::-1]


def game_of(ref: engine.GameState, rules: str, seed: int, **params):
    """The OpenSpiel state dealt from the deck of ``ref`` (``new_deal(..., seed)``)."""
    state = load(rules, ref.num_players, **params).new_initial_state()
    top = deck_top_first(ref.rules, seed)
    while state.table.deal is None:
        dealt = len(state.table.top)
        state.apply_action(ref.current_player if dealt == deal_size(ref.rules, ref.num_players) else top[dealt])
    return state


def same_step(state, ref: engine.GameState, kind: str, seats) -> None:
    """``state`` and the engine's ``ref`` agree on everything a player or algorithm reads."""
    t = state.table.deal
    assert (t.hands, t.piles, sorted(t.stock)) == (ref.hands, ref.piles, sorted(ref.stock))
    assert state.is_terminal() == ref.is_over
    for seat in seats:
        np.testing.assert_array_equal(state.observation_tensor(seat), observation.encode(ref, seat))
    if ref.is_over:
        assert t.winner == ref.winner and t.blocked == ref.blocked
        assert state.returns() == rewards.deal_rewards(kind, ref)
    else:
        assert state.current_player() == ref.current_player
        assert state.legal_actions() == sorted(actions.legal_actions(ref))


def play_both(rules: str, players: int, seed: int, kind: str = "win_loss", all_seats: bool = False,
              max_moves: int = 1000) -> engine.GameState:
    """One deal of random moves, played by the engine and by the OpenSpiel game from the same
    deck and draws (each chance node given the card the engine draws next); checked at each step."""
    ref = engine.new_deal(rules_from(rules), players, seed)
    state = game_of(ref, rules, seed, reward=kind, max_moves=max_moves)
    rng = random.Random(seed)
    while True:
        while state.is_chance_node():
            state.apply_action(ref.stock[-1])
        seats = range(players) if all_seats else {ref.current_player, (ref.current_player + 1) % players}
        same_step(state, ref, kind, seats)
        if ref.is_over:
            return ref
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        engine.apply(ref, actions.decode(action))
        if ref.move_count >= max_moves:
            match.truncate(ref)


def rules_from(text: str) -> Rules:
    from kc_env.openspiel.game import read_rules

    return read_rules(text)


# -- the deal -------------------------------------------------------------------------------

@pytest.mark.parametrize("rules", VARIANTS)
def test_the_deal_from_the_deck_is_new_deals(rules):
    """From the top cards of new_deal's own shuffle, the same hands, piles, turn and first draw;
    the stock's decided cards where new_deal has them, the rest the same cards."""
    parsed = rules_from(rules)
    for seed in range(60):
        players = 2 + seed % (5 if parsed.hand_size < 8 else 3)
        ref = engine.new_deal(parsed, players, seed)
        top = deck_top_first(parsed, seed)[:deal_size(parsed, players)]
        first = ref.current_player if parsed.first_player == "random" else None
        ours, undecided = from_deck(parsed, players, top, first)
        assert (ours.hands, ours.piles, ours.current_player, ours.drawn, ours.joker_value) == \
            (ref.hands, ref.piles, ref.current_player, ref.drawn, ref.joker_value)
        assert len(ours.stock) == len(ref.stock) and set(ours.stock) == set(ref.stock)
        assert all(ref.stock[i] == c for i, c in enumerate(ours.stock) if c not in undecided)


def test_the_chance_nodes_are_uniform_over_what_the_place_can_hold():
    state = load("standard;first_player:random", 3).new_initial_state()
    assert state.chance_outcomes() == [(c, 1 / 52) for c in range(52)]
    for card in range(deal_size(Rules(), 3)):
        state.apply_action(card)
    assert state.chance_outcomes() == [(seat, 1 / 3) for seat in range(3)]
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "first seat 2"
    state.apply_action(2)
    assert state.current_player() == 2 and state.table.deal.drawn  # standard draws at the start


def test_a_cleared_pile_makes_the_stock_undecided_again():
    """clear_complete_piles shuffles a cleared pile into the stock: every card of the stock is
    a chance outcome of the next draw."""
    state = load("standard;clear_complete_piles:true").new_initial_state()
    state.table.deal = engine.from_text("N: KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H\nE: 5C\nS: 9C\nW: 10D\n"
                                        "NE: -\nSE: -\nSW: -\nNW: -\nhand 0: AS 3C\nhand 1: 4C 6C\n"
                                        "stock: 7C 8C\nturn: 0 drawn\n", state.table.rules)
    state.apply_action(actions.parse("play AS->N"))
    assert state.is_chance_node()
    assert [c for c, _ in state.chance_outcomes()] == sorted(state.table.deal.stock)
    assert len(state.table.deal.stock) == 15


# -- the same game as the engine --------------------------------------------------------------

@pytest.mark.parametrize("rules", VARIANTS)
def test_the_same_moves_give_the_same_game_as_the_engine(rules):
    seed = VARIANTS.index(rules)
    play_both(rules, 2 if "hand_size:12" in rules else 2 + seed % 5, seed, kind=rewards.REWARDS[seed % 2])


def test_a_deal_cut_off_counts_as_blocked():
    ref = play_both("bicycle;blocked:fewest_cards", 3, 0, max_moves=12)
    assert ref.blocked and ref.move_count == 12


@pytest.mark.slow
@pytest.mark.parametrize("rules", VARIANTS)
def test_the_same_game_as_the_engine_over_many_deals(rules):
    players = [2] if "hand_size:12" in rules else range(2, 7)
    for seed in range(300):
        play_both(rules, players[seed % len(players)], 1000 + seed, kind=rewards.REWARDS[seed % 2], all_seats=True)


@pytest.mark.slow
def test_the_same_game_as_the_engine_under_random_rules():
    from rule_fuzz import random_rules

    rng = random.Random(3)
    for seed in range(300):
        players = rng.randrange(2, 7)
        rules = random_rules(rng, num_players=players)
        if rules.custom_table is None:
            play_both(rules_text(rules), players, seed, kind=rewards.REWARDS[seed % 2], all_seats=True)


# -- the game's facts -------------------------------------------------------------------------

def test_the_game_states_kc_envs_facts():
    game = pyspiel.load_game("python_kings_corner(players=3,rules=pagat)")
    assert game.num_players() == 3 and game.get_parameters()["rules"] == "pagat"
    assert game.num_distinct_actions() == GAME_INFO.num_distinct_actions
    assert game.max_game_length() == GAME_INFO.default_max_moves
    assert game.observation_tensor_size() == GAME_INFO.observation_size
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    score = load("pagat", reward="score")
    assert score.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert score.min_utility() == rewards.bounds("score", Rules.preset("pagat")).min_utility


def test_action_names_are_kc_envs():
    state = load().new_initial_state()
    assert [state.action_to_string(0, a) for a in range(GAME_INFO.num_distinct_actions)] == list(actions.NAMES)


@pytest.mark.parametrize("params, message", [
    ({"players": 7}, "num_players must be 2 to 6"),
    ({"rules": "pagat,must_play=all"}, "write 'pagat;must_play:all'"),
    ({"rules": "pagatt"}, "pagatt"),
    ({"reward": "points"}, "reward must be one of"),
    ({"max_moves": 0}, "max_moves must be a whole number from 1 to 1,000,000"),
])
def test_bad_parameters_are_refused_in_one_line(params, message):
    with pytest.raises(ValueError) as caught:
        pyspiel.load_game(SHORT_NAME, params)
    assert message in str(caught.value) and "\n" not in str(caught.value).strip()


def test_every_preset_is_written_as_a_parameter_and_read_back():
    from kc_env.openspiel.game import read_rules

    for name in PRESETS:
        assert read_rules(rules_text(Rules.preset(name))) == Rules.preset(name)


# -- OpenSpiel's own checks ---------------------------------------------------------------------

@pytest.mark.parametrize("players, rules", [(2, "standard"), (3, "pagat;first_player:random"), (6, "online"),
                                            (4, "standard;jokers:2;clear_complete_piles:true")])
def test_random_sim_test(players, rules):
    pyspiel.random_sim_test(load(rules, players), num_sims=1, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("rules", VARIANTS)
def test_random_sim_test_at_every_table(rules):
    for players in [2] if "hand_size:12" in rules else range(2, 7):
        pyspiel.random_sim_test(load(rules, players), num_sims=20, serialize=True, verbose=False)


def test_the_playthrough_is_unchanged():
    """As OpenSpiel's integration_tests/playthrough_test.py: the checked-in playthrough replays
    line for line (made by generate_playthrough.playthrough(GAME, None, seed=1))."""
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()  # generate_playthrough reads an absl flag
    expected, actual = generate_playthrough.replay(str(PLAYTHROUGH))
    assert expected.splitlines() == actual.splitlines()


@pytest.mark.parametrize("rules", VARIANTS)
def test_every_history_is_within_the_games_bounds_even_when_cut_off_early(rules):
    """The integrations probe: at max_moves=15 a history of 39 actions held 24 chance nodes, where
    the game said at most 15 (and 30 in all): the deal's cards are chance nodes too."""
    for players in [2] if "hand_size:12" in rules else (2, 4):
        game = load(rules, players, max_moves=15)
        rng = np.random.default_rng(players)
        for _ in range(10):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))
            chance = sum(1 for a in state.full_history() if a.player == pyspiel.PlayerId.CHANCE)
            assert chance <= game.max_chance_nodes_in_history()
            assert len(state.history()) <= game.max_history_length()


def test_there_is_no_information_state_tensor_as_the_game_type_says():
    """The integrations probe: the type said no information-state tensor, yet one of 1,599 values
    (the observation's, not perfect recall) was served to algorithms that read it unchecked."""
    game = load()
    assert not game.get_type().provides_information_state_tensor
    assert game.information_state_tensor_size() == 0
    state = game.new_initial_state()
    assert list(state.information_state_tensor(0)) == []


def _played(game, steps: int, seed: int = 0):
    """A state ``steps`` actions into a deal of ``game``, chance and seats drawn by ``seed``."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history()) < steps:
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("steps", [3, 60, 120])
def test_a_serialized_pickled_or_copied_state_plays_on(steps):
    import copy
    import pickle

    game = load(max_moves=40)
    state = _played(game, steps)
    _, by_game_and_state = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    for again in (game.deserialize_state(state.serialize()), by_game_and_state,
                  pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        assert str(again) == str(state) and again.history() == state.history()
        assert again.information_state_string(0) == state.information_state_string(0)
        if not again.is_terminal():
            assert again.legal_actions() == state.legal_actions()
            again.apply_action(again.legal_actions()[0])


def test_deserialize_state_replays_the_history_and_unpickles_nothing(tmp_path):
    import base64
    import pickle

    class Payload:
        def __reduce__(self):
            return (Path(tmp_path / "ran").touch, ())

    game = load()
    state = _played(game, 30)
    history = state.serialize().split("\n")[0]
    hostile = f"{history}\nmove_number=0\n__dict__={base64.b64encode(pickle.dumps({'x': Payload()})).decode()}"
    assert str(game.deserialize_state(hostile)) == str(state)
    assert not (tmp_path / "ran").exists()
    for bad, said in (("nothing", "starts with 'history='"), ("history=-1:0,-1:0", "chance outcome 0 is not one"),
                      ("history=0:5", "is not 'player:action' of the player to act"),
                      ("history=-1:x", "is not 'player:action'")):
        with pytest.raises(ValueError, match=said):
            game.deserialize_state(bad)


def test_a_refused_chance_outcome_or_move_changes_nothing():
    game = load()
    state = game.new_initial_state()
    state.apply_action(5)
    for outcome in (5, 99, 52):  # a card dealt already; no such card; a joker without jokers
        with pytest.raises(ValueError, match=f"chance outcome {outcome} is not one of this node's 51"):
            state.apply_action(outcome)
    assert state.history() == [5] and state.serialize() == game.deserialize_state(state.serialize()).serialize()
    state = _played(game, 80)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert not state.is_terminal()
    before = (str(state), state.information_state_string(state.current_player()), state.serialize())
    illegal = next(a for a in range(actions.NUM_ACTIONS) if a not in state.legal_actions())
    with pytest.raises((engine.IllegalMove, pyspiel.SpielError)):
        state.apply_action(illegal)
    assert (str(state), state.information_state_string(state.current_player()), state.serialize()) == before
    assert state.chance_outcomes() == []  # a decision node has none


def test_numpy_whole_numbers_are_taken_for_players_and_max_moves_when_made_directly():
    from kc_env.openspiel import KingsCornerGame

    game = KingsCornerGame({"players": np.int64(3), "max_moves": np.int64(50)})
    assert (game.num_players(), game.max_game_length()) == (3, 50)
    assert type(game.players) is type(game.max_moves) is int
    with pytest.raises(ValueError, match="^players must be a whole number, not 3.0$"):
        KingsCornerGame({"players": 3.0})


@pytest.mark.parametrize("params, said", [
    ({"max_moves": 10**9}, "max_moves must be a whole number from 1 to 1,000,000, not 1000000000"),
    ({"max_moves": True}, "max_moves must be a whole number"),
    ({"players": "3"}, "players must be a whole number"),
    ({"rules": None}, "rules must be a string"),
    ({"foo": 1}, "has no parameter 'foo'"),
])
def test_the_games_parameters_are_checked_when_made_directly(params, said):
    from kc_env.openspiel import KingsCornerGame

    with pytest.raises(ValueError, match=said):
        KingsCornerGame(params)


def test_the_longest_game_still_has_its_length_bounds():
    game = load(max_moves=1_000_000)
    assert game.max_history_length() > game.max_game_length() == 1_000_000


def _public_observer(game):
    from open_spiel.python.observation import make_observation

    return make_observation(game, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


@pytest.mark.parametrize("players", [2, 4])
def test_the_public_observation_is_the_same_for_every_player(players):
    """The integrations probe: the public-only observer counted seats from the observing player,
    so two players' public observations of one state differed (OpenSpiel's public information is
    the same for every player). It counts them from seat 0 and shows every hand's size, no card."""
    state = _played(load(players=players), 40)
    obs = _public_observer(state.get_game())
    seen = []
    for seat in range(players):
        obs.set_from(state, seat)
        seen.append((obs.tensor.copy(), obs.string_from(state, seat)))
    for tensor, text in seen[1:]:
        np.testing.assert_array_equal(tensor, seen[0][0])
        assert text == seen[0][1]
    tensor, text = seen[0]
    assert not tensor[observation.SLICES["hand"]].any()
    deal = state.table.deal
    assert f"hands: {' '.join(str(len(h)) for h in deal.hands)}" in text
    assert f"to act: seat {deal.current_player}" in text
    words = set(text.split())
    assert not any(engine.card_name(c) in words for hand in deal.hands for c in hand)


def test_a_game_whose_parameters_were_refused_has_a_repr():
    """The integrations fix: a game refused in ``__init__`` is a half-made pybind object that a
    traceback's locals still show; OpenSpiel's repr of it raised MemoryError (std::bad_alloc),
    which ended a pytest run."""
    from kc_env.openspiel.game import KingsCornerGame

    with pytest.raises(ValueError) as refused:
        KingsCornerGame({"players": "x"})
    tb = refused.value.__traceback__
    while tb.tb_next:
        tb = tb.tb_next
    assert repr(tb.tb_frame.f_locals["self"]) == "<python_kings_corner: not made, its parameters were refused>"
    assert repr(load(players=3)) == str(load(players=3)) == "python_kings_corner(max_moves=1000,players=3,reward=win_loss,rules=standard)"
