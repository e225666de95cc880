"""The agent interface (kc_env.agents): load by spec, legal actions only, seeded."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import GAME_INFO, agents
from kc_env import kings_corner_v0 as kc


def test_unknown_spec_names_the_known_ones():
    with pytest.raises(ValueError, match=r"known specs: greedy, heuristic, random, heuristic:name=value,\.\.\. "
                                         r"\(the heuristic with evaluation weights set\), search or search:redeals=16,"
                                         r"candidates=4,margin=0\.0 \(the heuristic's turns valued by play-outs\), or "
                                         r"the folder of an exported model, or a shipped one: ppo-standard-2p"):
        agents.load("grandmaster")


def test_load_returns_an_agent_object_unchanged():
    agent = agents.load("random", seed=1)
    assert agents.load(agent) is agent and agent.spec == "random"


def test_random_agent_plays_only_legal_actions_and_is_seeded():
    aec = kc.raw_env(num_players=3)
    picks = []
    for _ in range(2):
        players = {a: agents.load("random", seed=i) for i, a in enumerate(aec.possible_agents)}
        aec.reset(seed=9)
        chosen = []
        for agent in aec.agent_iter():
            ob, _, term, trunc, _ = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            action = players[agent].act(ob)
            assert isinstance(action, int) and ob["action_mask"][action] == 1
            chosen.append(action)
            aec.step(action)
        picks.append(chosen)
    assert picks[0] == picks[1]


def test_random_agent_refuses_an_empty_mask():
    with pytest.raises(ValueError, match="no legal action"):
        agents.load("random").act({"observation": np.zeros(GAME_INFO.observation_size, np.float32),
                                   "action_mask": np.zeros(GAME_INFO.num_distinct_actions, np.int8)})


# -- greedy and heuristic (kc_env.agents.greedy, kc_env.agents.heuristic) ----------------------------

import inspect  # noqa: E402
import random  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from positions import KING_TABLE, position  # noqa: E402
from rule_fuzz import any_rules as variant_rules  # noqa: E402

from kc_env import PRESETS, Rules, actions, engine, observation  # noqa: E402
from kc_env.agents.heuristic import HeuristicAgent  # noqa: E402
from kc_env.agents.heuristic.weights import evaluation_weights  # noqa: E402
from kc_env.engine import GameState  # noqa: E402
from kc_env.play import play_deal  # noqa: E402

RULE_BASED = agents.RULE_BASED


def test_the_rule_based_agents_are_named_once():
    """``base.RULE_BASED`` is the one list: ``SPECS`` builds exactly those agents, each knowing its
    own spec; the compiled ones are the rest but ``random``."""
    assert tuple(agents.SPECS) == RULE_BASED and set(RULE_BASED) == {"random", "greedy", "heuristic"}
    assert all(agents.load(spec, seed=0).spec == spec for spec in RULE_BASED)
    assert agents.COMPILED == tuple(s for s in RULE_BASED if s != "random")


def obs_of(state: GameState, seat: int | None = None) -> dict:
    seat = state.current_player if seat is None else seat
    return {"observation": observation.encode(state, seat), "action_mask": actions.legal_mask(state)}


def finish_turn(state: GameState, spec: str) -> list[str]:
    """Let ``spec`` play the rest of the current player's turn; returns its moves."""
    agent, seat, made = agents.load(spec, seed=0), state.current_player, []
    while not state.is_over and state.current_player == seat:
        move = actions.decode(agent.act(obs_of(state)))
        made.append(engine.move_name(move))
        engine.apply(state, move)
    return made


def test_every_agent_acts_on_the_observation_alone():
    """The interface hands an agent the observation dict and nothing else."""
    for spec in RULE_BASED:
        params = list(inspect.signature(agents.load(spec, seed=0).act).parameters)
        assert params == ["obs"], (spec, params)


def test_agents_get_only_the_seats_observation_dict():
    """In play (the tournament loop), every argument an agent gets is the dict of two arrays."""
    seen = []

    class Spy(agents.Agent):
        def __init__(self, inner):
            self.inner = inner

        def act(self, obs):
            assert set(obs) == {"observation", "action_mask"}
            assert all(isinstance(v, np.ndarray) for v in obs.values())
            assert obs["observation"].shape == (observation.OBS_SIZE,)
            seen.append(obs["observation"][observation.SLICES["my_turn"]][0])
            return self.inner.act(obs)

    state = engine.new_deal(Rules(), 3, seed=5)
    play_deal(state, [Spy(agents.load(s, seed=1)) for s in RULE_BASED])
    assert state.is_over and all(v == 1 for v in seen)  # always the view of the seat to act


def _rehide(state: GameState, rng: random.Random) -> GameState:
    """The same position for the player to act, with every card it cannot see dealt afresh:
    the other hands and the stock swap cards (their sizes kept)."""
    other = state.copy()
    me = other.current_player
    hidden = [c for s, h in enumerate(other.hands) if s != me for c in h] + other.stock
    rng.shuffle(hidden)
    for s, h in enumerate(other.hands):
        if s != me:
            other.hands[s], hidden = hidden[:len(h)], hidden[len(h):]
    other.stock = hidden
    return other


@pytest.mark.parametrize("preset", ["standard", "pagat", "online"])
@pytest.mark.parametrize("players", [2, 4])
def test_changing_hidden_cards_changes_no_agents_choice(preset, players):
    """Shuffling what the seat to act cannot see (other hands, the stock) changes neither its
    observation nor any agent's choice, for a fixed seed."""
    rng = random.Random(7)
    state = engine.new_deal(Rules.preset(preset), players, seed=11)
    changed_hidden = 0
    while not state.is_over and state.move_count < 300:
        twin = _rehide(state, rng)
        changed_hidden += twin.hands != state.hands
        a, b = obs_of(state), obs_of(twin)
        assert np.array_equal(a["observation"], b["observation"])
        for spec in RULE_BASED:
            assert agents.load(spec, seed=3).act(a) == agents.load(spec, seed=3).act(b), spec
        engine.apply(state, actions.decode(agents.load("heuristic").act(a)))
    assert changed_hidden > 10


def any_rules():
    """A preset as it is, or with random overrides of every field of ``Rules`` (``rule_fuzz``)."""
    return st.one_of(st.sampled_from(sorted(PRESETS)).map(Rules.preset), variant_rules())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_rules(), st.integers(GAME_INFO.min_num_players, GAME_INFO.max_num_players), st.integers(0, 2**32),
       st.permutations(list(RULE_BASED) * 2))
def test_agents_never_choose_an_illegal_action(rules, players, seed, seats):
    """Whole deals under every preset and variant mix: ``play_deal`` raises IllegalAgentAction
    the moment an agent picks an action whose mask entry is 0."""
    state = engine.new_deal(rules, players, seed=seed)
    play_deal(state, [agents.load(s, seed=seed) for s in seats[:players]], max_moves=400)
    assert state.is_over


def test_greedy_and_heuristic_are_deterministic():
    state = engine.new_deal(Rules(), 3, seed=2)
    for _ in range(40):
        ob = obs_of(state)
        for spec in ("greedy", "heuristic"):
            assert len({agents.load(spec, seed=s).act(ob) for s in range(3)}) == 1
        engine.apply(state, actions.decode(agents.load("greedy").act(ob)))


def test_greedy_sheds_the_costliest_card_first():
    state = position("""
        N: 10S
        E: 8C
        hand 0: 9H 7D KD
        hand 1: 2C 3C
    """)
    assert finish_turn(state, "greedy") == ["play KD->NE", "play 9H->N", "play 7D->E"]
    assert state.winner == 0


def test_heuristic_finds_a_way_out_through_a_pile_move():
    """Going out takes a pile move first: W onto N opens W for the queen."""
    state = position("""
        N: 9S
        W: 8D 7C
        E: 3H
        hand 0: QH 2S
        hand 1: 4C 5C 6C
        stock: 9D 10D
    """)
    finish_turn(state, "heuristic")
    assert state.is_over and state.winner == 0


def test_heuristic_fills_the_side_it_opens():
    """It looks for pile moves before playing from hand, and fills the space it opened."""
    state = position("""
        N: 9S
        W: 8D 7C
        E: KD
        hand 0: QH JD 2S 5H
        hand 1: 4C 5C 6C 8S 3D
        stock: 9D 10D AS AH 2H
    """)
    moves = finish_turn(state, "heuristic")
    assert "move W->N" in moves and state.piles[3], moves
    assert len(state.hands[0]) <= 2


def test_heuristic_withholds_the_card_a_one_card_opponent_needs():
    """Every card is in sight but the opponent's one card, 6D. Playing 7C onto 8D would give it
    a place and the deal; greedy plays it, the heuristic keeps it (RULES.md 4.4 'none' keeps
    pile moves from opening a space)."""
    state = position("""
        NE: KS QH JS 10H 9S 8H 7S 6H 5C 4H 3S 2H AS
        SE: KH QS JH 10S 9H 8S 7H 6S 5H 4S 3H 2S AH
        SW: KC QD JC 10D 9C 8D
        NW: KD QC JD 10C 9D 8C 7D 6C 5D
        N: 4C 3D
        E: 2C AD
        S: 4D 3C
        W: 2D AC
        hand 0: 7C 5S
        hand 1: 6D
    """, Rules.preset("standard", pile_moves="none"))
    assert actions.name(agents.load("greedy").act(obs_of(state))) == "play 7C->SW"
    assert actions.name(agents.load("heuristic").act(obs_of(state))) == "end turn"


FIT_CLOSE_POSITION = """
    N: 2H
    E: 2C AD
    S: 7C 6D 5C 4D 3S 2D AC
    W: 5S
    NE: KC QD JS 10D 9S
    SE: KD QC JD 10S
    SW: KS
    hand 0: JH QH
    hand 1: QS 2S 7S 4C 4S{extra}
    stock: 10C 9C 3C 8S 5H 6H JC 9H KH 5D 7H 10H AH 8C AS 8H 6C 3H 9D 7D 8D 3D 4H
"""


@pytest.mark.parametrize("opponent_cards, fit_close, expected", [
    (5, 0.0, "play QH->SW"),  # the shipped weights: shed the queen
    (5, 0.375, "end turn"),  # the opponent is close to going out: keep the queen's safe place
    (6, 0.375, "play QH->SW"),  # one card more than `close` (5): fit_close does not apply
])
def test_fit_close_keeps_a_card_whose_place_nobody_else_can_take(opponent_cards, fit_close, expected):
    """Only QH and QD fit on KS, and QD is in sight: the place is the seat's own. Playing the queen
    there would open it to the unseen JC. ``fit_close`` spares such a card more while another
    player holds at most ``close`` cards (WEIGHT_NAMES), so the seat keeps it for later."""
    state = position(FIT_CLOSE_POSITION.format(extra=" 6S" if opponent_cards == 6 else ""))
    assert len(state.hands[1]) == opponent_cards
    heuristic = HeuristicAgent(weights=evaluation_weights({"fit_close": fit_close}))
    assert actions.name(heuristic.act(obs_of(state))) == expected


@pytest.mark.parametrize("level, expected", [
    (1.0, "play QH->SW"),  # the shipped weights (the factors are 1): shed the queen
    (4.0, "end turn"),  # 5 cards < 2 + 4: the race is level, opp counts 3 times: keep the queen
    (3.0, "play QH->SW"),  # 5 cards < 2 + 3 is false: the opponent is behind, shed as shipped
])
def test_while_the_race_is_level_the_level_factors_apply(level, expected):
    """The seat holds 2 cards, the opponent 5. ``level_opp`` 3 makes what the position offers the
    opponent count three times, but only while the race is level: while the opponent holds fewer
    than ``level`` cards more than the seat (WEIGHT_NAMES). Playing QH on KS would show the unseen
    JC a place."""
    state = position(FIT_CLOSE_POSITION.format(extra=""))
    weights = {"level": level} if level == 1.0 else {"level": level, "level_opp": 3.0}
    heuristic = HeuristicAgent(weights=evaluation_weights(weights))
    assert actions.name(heuristic.act(obs_of(state))) == expected


KING_POSITION_4P = """
    N: 6S
    E: 9D
    S: 3C
    W: 6C
    hand 0: 9C 2S AC 2D KD 4S 9S
    hand 1: 3D JD QS 7S KC 10C 2H 6D
    hand 2: QH KH 5C 4D AS 8C 3S
    hand 3: 9H 5H 8S 10H JS 8D 5S
    stock: 2C 6H QD 10S 8H 5D QC 7C 7H JC JH 10D KS AH 4H 7D 4C 3H AD
    turn: 1 drawn
"""


@pytest.mark.parametrize("spec, expected", [
    ("heuristic", ["play KC->SW", "play 2H->S", "end turn"]),  # fills an empty corner first
    ("heuristic:corner=0", ["play 2H->S", "end turn"]),  # keeps the king
])
def test_with_corner_at_zero_the_seat_keeps_its_king_out_of_an_empty_corner(spec, expected):
    """Four players, the corners empty, player 1 to act with KC and 2H to play (deal 3 of
    ``new_deal(Rules(), 4)``). The heuristic counts each empty corner as a place offered to the
    others' kings (``corner``) and fills one with KC; with ``corner`` at 0, as in the prior of
    ``models/ppo-standard-4p``, it plays the same 2H and keeps the king, which in a corner would
    show three players a new top (the red queens)."""
    assert finish_turn(position(KING_POSITION_4P), spec) == expected


def test_a_heuristic_spec_with_weights_plays_with_them_and_a_malformed_one_is_refused():
    """``heuristic:fit_close=0.375`` is an agent spec (kc eval, kc play, the envs' opponents): the
    position above, where that weight keeps the queen, tells it from the plain heuristic."""
    state = position(FIT_CLOSE_POSITION.format(extra=""))
    weighted = agents.load("heuristic:fit_close=0.375,card=1.0")
    assert weighted.spec == "heuristic:fit_close=0.375,card=1.0"
    assert actions.name(weighted.act(obs_of(state))) == "end turn"
    assert actions.name(agents.load("heuristic").act(obs_of(state))) == "play QH->SW"
    ob = obs_of(state)
    batch = weighted.act_batch(np.stack([ob["observation"]] * 3), np.stack([ob["action_mask"]] * 3))
    assert [actions.name(a) for a in batch] == ["end turn"] * 3
    with pytest.raises(ValueError, match=r"agent spec 'heuristic:luck=2': unknown heuristic weight 'luck'"):
        agents.load("heuristic:luck=2")
    with pytest.raises(ValueError, match="the weight card is given twice"):
        agents.load("heuristic:card=1.1,card=1.2")
    for bad in ("heuristic:fit_close", "heuristic:", "heuristic:=1"):
        with pytest.raises(ValueError, match=r"is not name=number \(e\.g\. heuristic:fit_close=0\.375,card=1\.1\)"):
            agents.load(bad)
    with pytest.raises(ValueError, match=r"agent spec 'heuristic:fit_close=much': fit_close must be a number, not 'much'"):
        agents.load("heuristic:fit_close=much")


def test_heuristic_puts_a_king_into_a_corner():
    state = position(KING_TABLE)
    assert "play KH->NE" in finish_turn(state, "heuristic")


def test_compiled_code_is_cached_under_one_stamp_for_every_compiled_source():
    """The heuristic's cached machine code is stale once the kernel it calls changes: every kc_env
    file is cached under one stamp, a hash of all the files with compiled code (and the tables
    they freeze), so an edit to any of them recompiles them all."""
    import hashlib

    from kc_env import compiled
    from kc_env.agents.heuristic import search

    locator = compiled.PackageCacheLocator.from_function(search.heuristic_action_w.py_func, inspect.getfile(search))
    assert locator.get_source_stamp() == compiled.sources_stamp()
    names = {p.name for p in compiled.compiled_sources()}
    assert {"kernel.py", "search.py", "evaluation.py", "turns.py", "view.py", "observation.py", "cards.py",
            "game_info.py"} <= names
    assert "tournament.py" not in names  # no compiled code reads it
    assert compiled.PackageCacheLocator.from_function(hashlib.sha256, hashlib.__file__) is None  # not ours


def _arrays(ob):
    return ob["observation"], ob["action_mask"]


@pytest.mark.parametrize("preset", ["standard", "pagat"])
def test_heuristic_turns_end_under_partial_pile_moves(preset):
    """Parts of piles can move back and forth for ever; the heuristic makes a partial move only as
    the first pile move of its turn and only to play a card after it, so no deal needs cutting off."""
    rules = Rules.preset(preset, pile_moves="partial", jokers=2)
    for seed in range(40):
        state = engine.new_deal(rules, 2 + seed % 2, seed=seed)
        assert not play_deal(state, [agents.load("heuristic")] * state.num_players, max_moves=1000), seed


def test_the_python_examples_in_docs_agents_run(capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    for code in blocks:
        exec(compile(code, "docs/agents.md", "exec"), {})
    assert capsys.readouterr().out.strip()


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic"])
@pytest.mark.parametrize("vector, said", [
    (np.zeros(5, np.float32), r"not shape \(5,\) of float32"),
    (np.zeros((1, GAME_INFO.observation_size), np.float32), r"not shape \(1, 1599\) of float32"),
    (np.array(["0"] * GAME_INFO.observation_size), "not shape .1599,. of <U1"),
])
def test_an_observation_vector_of_another_shape_is_refused_in_one_line_not_read_past_its_end(spec, vector, said):
    """The compiled agents read the vector without bounds checks: a short one crashed the process."""
    state = engine.new_deal("standard", 2, seed=0)
    with pytest.raises(ValueError, match=rf"^an observation vector is at least 1599 numbers, {said}$"):
        agents.load(spec).act({"observation": vector, "action_mask": actions.legal_mask(state)})


@pytest.mark.parametrize("spec", ["", "x" * 1000])
def test_an_empty_or_overlong_spec_is_an_unknown_agent_spec(spec):
    """A late probe: ``""`` loaded the current folder as a model (".: no model.json") and a
    1,000-character spec raised OSError (file name too long)."""
    with pytest.raises(ValueError, match="^unknown agent spec"):
        agents.load(spec)


def test_a_policy_model_acts_on_lists_as_the_other_agents_do():
    """A late probe: ``legal_actions`` takes an observation given as lists, and every agent but
    the policy model acted on it; the policy model failed deep inside (list indices)."""
    env = kc.env()
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    model = agents.load("ppo-standard-2p")
    as_lists = {"observation": obs["observation"].tolist(), "action_mask": obs["action_mask"].tolist()}
    assert model.act(as_lists) == model.act(obs)
