"""The turn-value agent's gate across piles cleared under ``clear_complete_piles`` (wikihow, RULES.md
4.7) and across deals (issue 35): a cleared pile shrinks the table and grows the stock within one
deal, so neither tells a new deal; the agent keeps what it saw for the deal, as the compiled duel
(``training/turn_value/shipped.py``), which plays one deal at a time, does."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import actions, agents, engine, observation
from kc_env.agents import model_folder as folders
from kc_env.agents import turn_value as tv
from kc_env.rules import Rules

WIKIHOW = Rules.preset("wikihow")

BEFORE_THE_CLEAR = """
    N: 5C
    E: 9H
    S: -
    W: JC
    NE: KD QS JD 10C 9D 8S 7H 6S 5D 4C 3H 2S
    SE: -
    SW: -
    NW: -
    hand 0: 8D 4S 3D
    hand 1: AH 7C 10S
    stock: 2C 6H QC QH
    turn: 0 drawn
"""
"""Seat 0 to play after seat 1 left side S empty (careless); seat 1 holds the ace that completes NE."""

SCRIPT = ["play 8D->S", "end turn", "play AH->NE", "end turn"]
"""Seat 0 fills S and ends; seat 1 completes NE, which is cleared into the stock, and ends with
nothing left open: seat 0's next turn starts on a careful table with fewer cards on it."""


def seen(state, totals=None):
    """The seat to act's observation and mask as the agent gets them."""
    return {"observation": observation.encode(state, state.current_player, totals),
            "action_mask": actions.legal_mask(state)}


def unplayed(state):
    return sum(len(h) for h in state.hands) + len(state.stock)


def gated_model(folder, patience=2):
    """A model with both networks (random linear rankings) and the gate's ``patience``."""
    rng = np.random.default_rng(4)
    net, loose = ([(rng.normal(0, 0.1, (1, tv.FEATURES)).astype(np.float32), np.zeros(1, np.float32))]
                  for _ in range(2))
    return tv.save(folder, net, {"candidates": 4}, careless_layers=loose, patience=patience)


def test_a_pile_cleared_in_the_deal_keeps_a_careless_seat_in_mind_and_the_agent_plays_as_the_duel():
    pytest.importorskip("torch")
    from kc_env.training.turn_value import shipped

    folder = folders.model_folder("turn-ranking-all")
    agent = agents.load(str(folder))
    card, layers = tv.load(folder)
    nets = tv.layer_arrays(layers) + tv.layer_arrays(tv.load_careless(folder, card))
    memory = np.zeros(tv.GATE_MEMORY, np.int64)  # the duel's, for this one deal
    state = engine.from_text(BEFORE_THE_CLEAR, WIKIHOW)
    at_start = (unplayed(state), sum(map(len, state.piles)))
    for move in [*SCRIPT, None]:
        if state.current_player == 0:
            obs = seen(state)
            want = agent.act(obs)
            ob, mask = obs["observation"], obs["action_mask"].astype(np.int8)
            net = shipped.gate(ob, mask, memory, card["patience"], 1)
            assert net == tv.CARELESS_NET and agent.seen_careless, move
            assert shipped.model_action(ob, mask, net, card["candidates"], *nets, card["candidates"]) == want, move
        if move:
            engine.apply(state, engine.parse_move(move))
    assert state.cleared == 1 and not tv.careless(*seen(state).values())
    assert unplayed(state) > at_start[0] and sum(map(len, state.piles)) < at_start[1], \
        "the cards not yet played grew and the table shrank, within one deal"


def test_a_new_deal_forgets_a_careless_seat_when_the_agent_is_not_first_to_play(tmp_path):
    agent = tv.TurnValueAgent(gated_model(tmp_path / "gated", patience=2))
    agent.act(seen(engine.from_text(BEFORE_THE_CLEAR, WIKIHOW)))
    assert agent.seen_careless
    state = engine.new_deal(WIKIHOW, 2, seed=5, dealer=0)  # seat 1 plays first
    heuristic = agents.load("heuristic")
    while state.current_player == 1:
        engine.apply(state, actions.decode(heuristic.act(seen(state))))
    assert not state.first_turn
    assert agent.gate(*seen(state).values()) == "heuristic" and not agent.seen_careless


def test_the_match_scores_moving_tell_a_new_deal_with_the_same_hand(tmp_path):
    """Between deals of a match only the totals in the observation may tell the deals apart (here the
    hand is the same): they never move within a deal."""
    agent = tv.TurnValueAgent(gated_model(tmp_path / "gated", patience=2))
    state = engine.from_text(BEFORE_THE_CLEAR, WIKIHOW)
    agent.gate(*seen(state, totals=[0, 0]).values())
    assert agent.seen_careless
    state = engine.from_text(BEFORE_THE_CLEAR.replace("S: -", "S: 2D"), WIKIHOW)
    agent.gate(*seen(state, totals=[0, 0]).values())
    assert agent.seen_careless, "the same deal, careful now: still seen"
    agent.gate(*seen(state, totals=[12, 3]).values())
    assert not agent.seen_careless, "the totals moved: another deal"


def test_a_new_hand_of_two_cards_not_held_before_is_a_new_deal_but_a_drawn_card_is_not(tmp_path):
    agent = tv.TurnValueAgent(gated_model(tmp_path / "gated", patience=2))
    agent.gate(*seen(engine.from_text(BEFORE_THE_CLEAR, WIKIHOW)).values())
    careful = BEFORE_THE_CLEAR.replace("S: -", "S: 2D").replace("stock: 2C 6H QC QH", "stock: 6H QC QH")
    agent.gate(*seen(engine.from_text(careful.replace("hand 0: 8D 4S 3D", "hand 0: 8D 4S 3D 2C"), WIKIHOW)).values())
    assert agent.seen_careless, "one card more: a draw"
    careful = careful.replace("stock: 6H QC QH", "stock: QH")
    agent.gate(*seen(engine.from_text(careful.replace("hand 0: 8D 4S 3D", "hand 0: 8D QC 6H"), WIKIHOW)).values())
    assert not agent.seen_careless, "two cards it did not hold: another deal"


def test_the_heuristic_fills_a_side_it_cleared_so_an_empty_side_after_a_clear_is_still_careless():
    """``careless`` counts an empty side at the start of the seat's turn whatever emptied it: a side
    cleared in another seat's turn is one that seat left empty, which the heuristic does not (it
    fills it in the same turn), so it is still what tells a careless seat."""
    cleared_side = """
        N: KD QS JD 10C 9D 8S 7H 6S 5D 4C 3H 2S
        E: 9H
        S: 5C
        W: JC
        NE: -
        SE: -
        SW: -
        NW: -
        hand 0: 8D 4S 3D
        hand 1: AH 7C 10S 7D 3C 3S
        stock: 2C 6H QC QH
        turn: 1 drawn
    """
    state = engine.from_text(cleared_side, WIKIHOW)
    heuristic = agents.load("heuristic")
    while state.current_player == 1:
        engine.apply(state, actions.decode(heuristic.act(seen(state))))
    assert state.cleared == 1 and state.piles[0], "the heuristic cleared N and filled it again"
    assert not tv.careless(*seen(state).values())
    left_empty = engine.from_text(cleared_side, WIKIHOW)
    for move in ("play AH->N", "end turn"):
        engine.apply(left_empty, engine.parse_move(move))
    assert left_empty.cleared == 1 and not left_empty.piles[0]
    assert tv.careless(*seen(left_empty).values())


def deal_actions(seats, seed, players=4):
    """The actions of one standard deal, each seat playing ``seats[seat]``."""
    state = engine.new_deal(Rules.preset("standard"), players, seed=seed)
    played = []
    while not state.is_over:
        action = seats[state.current_player].act(seen_dict(state))
        played.append(action)
        engine.apply(state, actions.decode(action))
    return played


def seen_dict(state):
    seat = state.current_player
    return {"observation": observation.encode(state, seat), "action_mask": actions.legal_mask(state)}


@pytest.mark.parametrize("seed", [0, 1, 4, 5])
def test_one_agent_at_three_seats_keeps_each_seat_apart(seed):
    """One object at seats 1 to 3 (as a user's loop or the Gymnasium env seats one ``Agent`` for
    every other seat) plays the deal move for move as three objects, one a seat. Before, the seats
    shared one memory: each seat's hand looked like a new deal to the next, and the gate forgot
    the careless random seat (these four deals went otherwise)."""
    shared = agents.load("turn-ranking-all")
    one = deal_actions([agents.load("random", seed=seed), shared, shared, shared], seed)
    apart = deal_actions([agents.load("random", seed=seed)] + [agents.load("turn-ranking-all") for _ in range(3)], seed)
    assert one == apart


def test_seat_rows_follow_a_hand_and_give_a_new_seat_a_cleared_row():
    memories = np.zeros((6, tv.GATE_MEMORY), dtype=np.int64)
    used = np.zeros(6, dtype=np.int64)
    first = np.zeros(observation.OBS_SIZE, dtype=np.float32)
    first[[0, 1, 2]] = 1.0  # a hand of three cards
    other = np.zeros_like(first)
    other[[10, 11]] = 1.0
    assert tv.seat_row(first, memories, used) == 0
    memories[0, tv._HAND] = 0b111
    memories[0, tv._SEEN] = 1
    assert tv.seat_row(other, memories, used) == 1  # another seat's hand shares no card
    drew = first.copy()
    drew[[0, 20]] = [0.0, 1.0]  # played one card, drew one: the same seat
    assert tv.seat_row(drew, memories, used) == 0 and memories[0, tv._SEEN] == 1
