"""The one play loop (``kc_env.play``) and the one replay iterator (``record.iter_deal``,
``record.iter_replay``): what they hand their callers, and that the callers that used to carry
their own copies give what those copies gave (issue 32 item 3)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kc_env import actions, engine, record
from kc_env.match import Match, deal_seed, play_match
from kc_env.play import IllegalAgentAction, check_action, observe, play_deal
from kc_env.play import play_match as play_agents_match


class Random:
    """A seeded uniformly random legal seat (no kc_env.agents import: the loop needs only act)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs) -> int:
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.rng.randrange(len(legal))])


class Fixed:
    def __init__(self, action) -> None:
        self.action = action

    def act(self, obs):
        return self.action


def test_a_deal_is_played_to_its_end_and_the_hook_sees_every_move_before_it_is_applied():
    state = engine.new_deal("standard", 3, seed=5)
    seen = []

    def on_move(position, seat, obs, action):
        assert position is state and seat == position.current_player
        assert obs["action_mask"][action] == 1
        assert np.array_equal(obs["observation"], observe(position, seat)["observation"])
        seen.append(actions.decode(action))

    assert play_deal(state, [Random(1), Random(2), Random(3)], on_move=on_move) is False
    assert state.is_over and len(seen) == state.move_count
    again = engine.new_deal("standard", 3, seed=5)
    for move in seen:
        engine.apply(again, move)
    assert again.snapshot() == state.snapshot()


def test_a_deal_past_the_move_cap_is_cut_off_as_blocked():
    state = engine.new_deal("standard", 2, seed=2)
    assert play_deal(state, [Random(0), Random(1)], max_moves=5) is True
    assert state.is_over and state.blocked and state.move_count == 5


@pytest.mark.parametrize("bad", [-1, actions.NUM_ACTIONS, 10**20, 2.0, "3", None, True])
def test_an_illegal_or_malformed_action_is_an_error_and_the_state_is_unchanged(bad):
    state = engine.new_deal("standard", 2, seed=3)
    before = state.snapshot()
    with pytest.raises(IllegalAgentAction, match=f"at seat {state.current_player} chose action"):
        play_deal(state, [Fixed(bad), Fixed(bad)])
    assert state.snapshot() == before


def test_an_action_the_mask_forbids_is_named():
    state = engine.new_deal("standard", 2, seed=3)
    mask = actions.legal_mask(state)
    forbidden = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalAgentAction, match=actions.name(forbidden).replace("->", "-.")):
        check_action(forbidden, mask, state, "me")
    legal = int(np.flatnonzero(mask)[0])
    assert check_action(np.int64(legal), mask, state) == legal and type(check_action(np.int64(legal), mask, state)) is int


def test_a_match_of_agents_keeps_its_moves_for_a_record_that_replays():
    match = Match("standard", 2, seed=4)
    moves = play_agents_match(match, [Random(5), Random(6)], max_deals=3, keep_moves=True)
    assert moves == sum(len(d.moves) for d in match.history) and match.deal_number <= 3
    rec = record.MatchRecord.from_match(match)
    assert record.replay(rec).totals == match.totals


def _match_record():
    rng = random.Random(3)
    match = play_match("german", 2, 5, lambda state, moves: rng.choice(moves), max_moves=60, max_deals=4)
    return match, record.MatchRecord.from_match(match)


def test_iter_deal_deals_a_match_deal_as_the_match_did_and_names_the_seat_of_each_move():
    match, rec = _match_record()
    assert record.deal_count(rec) == match.deal_number >= 2
    for k, played in enumerate(match.history, start=1):
        steps = list(record.iter_deal(rec, k))
        assert [s.number for s in steps] == list(range(len(played.moves) + 1))
        assert steps[0].state.seed == deal_seed(match.seed, k - 1) and steps[0].move is None
        assert [s.move for s in steps[1:]] == list(played.moves)
        assert [s.last for s in steps] == [False] * len(played.moves) + [True]
        final = steps[-1].state
        assert final.is_over and final.winner == played.winner and final.blocked == played.blocked


def test_seats_are_those_to_act_before_each_move():
    state = engine.new_deal("standard", 3, seed=9)
    seats = []
    play_deal(state, [Random(1), Random(2), Random(3)], on_move=lambda st, seat, obs, a: seats.append(seat))
    rec = record.GameRecord.from_state(state, [m for m in _moves(9)])
    assert [s.seat for s in record.iter_replay(rec)][1:] == seats


def _moves(seed: int):
    state = engine.new_deal("standard", 3, seed=seed)
    out = []
    play_deal(state, [Random(1), Random(2), Random(3)], on_move=lambda st, s, o, a: out.append(actions.decode(a)))
    return out


def test_iter_deal_stops_at_upto_and_cuts_off_only_at_the_records_end():
    state = engine.new_deal("standard", 2, seed=2)
    moves = []
    play_deal(state, [Random(0), Random(1)], max_moves=6, on_move=lambda st, s, o, a: moves.append(actions.decode(a)))
    rec = record.GameRecord.from_state(state, moves, truncated=True)
    partial = list(record.iter_deal(rec, upto=3))
    assert [s.number for s in partial] == [0, 1, 2, 3] and not partial[-1].state.is_over and not partial[-1].last
    whole = list(record.iter_deal(rec))
    assert whole[-1].last and whole[-1].state.blocked and whole[-1].state.is_over
    with pytest.raises(record.RecordError, match="holds 1 deal"):
        list(record.iter_deal(rec, 2))


def test_iter_replay_walks_every_deal_in_order_and_names_an_illegal_move():
    match, rec = _match_record()
    steps = list(record.iter_replay(rec))
    assert [s.deal for s in steps if s.number == 0] == list(range(1, match.deal_number + 1))
    bad = record.MatchRecord(rec.rules, rec.num_players, rec.seed, rec.dealer,
                             (rec.deals[0], record.DealMoves((engine.MovePile(0, 1),) + rec.deals[1].moves)))
    with pytest.raises(record.RecordError, match="deal 2, move 1"):
        list(record.iter_replay(bad))


def test_totals_before_a_deal_are_what_the_previous_deal_left():
    match, _ = _match_record()
    assert match.totals_before(0) == (0, 0)
    assert match.totals_before(match.deal_number) == match.totals
    assert match.totals_before(1) == match.history[0].scored.totals


@pytest.mark.parametrize("blocked", ["no_winner", "fewest_cards"])
def test_the_compiled_seat_share_is_the_win_share_on_the_kernels_state(blocked):
    """``playouts.seat_share`` stays compiled (numba play-outs call it); it must give what
    ``match.win_share`` gives for the same deal: won, blocked, and cut off then ended as blocked
    (``end_cut_off``, the kernel's ``match.truncate``: under fewest_cards that seat wins)."""
    pytest.importorskip("numba")
    from kc_env.agents.playouts import seat_share
    from kc_env.match import deal_winners, win_share
    from kc_env.rules import Rules
    from kc_env.vector import VecGame

    rules, n, size = Rules.preset("standard").replace(blocked=blocked), 3, 96
    game = VecGame(size)
    idx = list(range(size))
    game.deal(idx, rules, n, [1000 + b for b in idx], [b % n for b in idx], max_moves=90)
    game.play_random(idx, seed=7)
    game.end_cut_off(idx)
    kinds = set()
    for b in idx:
        state = game.to_state(b)
        kinds.add(("cut off, won" if state.winner is not None else "cut off") if game.truncated(b)
                  else "blocked" if state.blocked else "won")
        for seat in range(n):
            assert seat_share(game.state, b, seat) == win_share(seat, deal_winners(state), n), (b, seat)
    assert {"won", "cut off, won" if blocked == "fewest_cards" else "cut off"} <= kinds, kinds
