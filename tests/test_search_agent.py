"""The search agent (``kc_env.agents.search_agent``) and the compiled pieces it stands on: the
heuristic's candidate turns (``heuristic.search.turn_candidates``) and the re-deals of the
play-outs (``agents.playouts.redeal``).

The agents here play out few re-deals (``redeals=2``): the tests check what the agent does, not
how well it plays (``research/experiments.md`` has its win shares).
"""

from __future__ import annotations

import random
import types

import numpy as np
import pytest

pytest.importorskip("numba")

from rule_fuzz import random_rules  # noqa: E402

from kc_env import Rules, actions, agents, engine, observation  # noqa: E402
from kc_env.agents import playouts, turns  # noqa: E402
from kc_env.agents.heuristic.search import turn_candidates  # noqa: E402
from kc_env.agents.heuristic.weights import HEURISTIC_WEIGHTS  # noqa: E402
from kc_env.agents.search_agent import SearchAgent  # noqa: E402
from kc_env.observation import SLICES  # noqa: E402
from kc_env.play import play_deal  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402

QUICK = "search:redeals=2,candidates=3"


def heuristic_positions(count: int, seed: int, rules: Rules | None = None) -> list[tuple[engine.GameState, dict]]:
    """``count`` positions of heuristic play (random rules and 2 to 4 players unless ``rules``),
    each with the observation of the seat to act."""
    rng = random.Random(seed)
    heuristic = agents.load("heuristic")
    out = []
    while len(out) < count:
        n = rng.randint(2, 4)
        state = engine.new_deal(rules or random_rules(rng, num_players=n), n, seed=rng.randrange(10**9))
        for _ in range(rng.randrange(60)):
            if state.is_over:
                break
            engine.apply(state, actions.decode(heuristic.act(_obs(state))))
        if not state.is_over:
            out.append((state, _obs(state)))
    return out


def _obs(state: engine.GameState) -> dict:
    return {"observation": observation.encode(state, state.current_player), "action_mask": actions.legal_mask(state)}


def _candidates(obs: dict, k: int = 4) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    top_v = np.zeros(k)
    top_line = np.zeros((k, turns.MAX_DEPTH), dtype=np.int64)
    top_len = np.zeros(k, dtype=np.int64)
    best = turn_candidates(obs["observation"], obs["action_mask"], HEURISTIC_WEIGHTS.copy(), top_v, top_line, top_len)
    return top_v, top_line, top_len, int(best)


# -- the spec --------------------------------------------------------------------------------

def test_the_spec_loads_with_its_options():
    agent = agents.load("search", seed=3)
    assert isinstance(agent, SearchAgent) and agent.spec == "search"
    assert (agent.redeals, agent.candidates, agent.margin) == (16, 4, 0.0)
    agent = agents.load("search:redeals=8, candidates=2,margin=0.02")
    assert (agent.redeals, agent.candidates, agent.margin) == (8, 2, 0.02)
    assert agent.spec == "search:redeals=8, candidates=2,margin=0.02"
    assert agents.load("search:margin=inf").margin == float("inf")
    assert agents.load("search").end_now and not agents.load("search:end_now=0").end_now
    assert agents.load("search").others == (0,) and not agents.load("search").endgame
    agent = agents.load("search:others=heuristic+random,endgame=1")
    assert agent.others == (0, 2) and agent.endgame


def test_heuristic_weights_among_the_options_make_the_blueprint_that_heuristic():
    agent = agents.load("search:margin=0.05,corner=0,card=1.1")
    assert agent.margin == 0.05 and agent.blueprint is None
    shipped = agents.load("heuristic").weights
    assert np.array_equal(agent.blueprint_weights, agents.load("heuristic:corner=0,card=1.1").weights)
    assert np.array_equal(agent.weights, shipped), "the play-outs keep the shipped weights"
    assert np.array_equal(agents.load("search").blueprint_weights, shipped)


@pytest.mark.parametrize(("spec", "message"), [
    ("search:depth=3", "unknown option 'depth'; known: redeals, candidates, margin, end_now, blueprint, "
                       "others, endgame, or a heuristic weight (card, penalty,"),
    ("search:others=smart", "others must be heuristic, greedy, random or several of them joined by +, each "
                            "once (e.g. heuristic+random), not 'smart'"),
    ("search:others=random+random", "others must be heuristic, greedy, random or several"),
    ("search:others=", "'others=' is not name=value"),
    ("search:endgame=2", "endgame must be 0 or 1, not 2"),
    ("search:corner=none", "corner must be a number, not 'none'"),
    ("search:card=inf", "heuristic weight card must be a finite number, not inf"),
    ("search:blueprint=turn-ranking-2p,corner=0", "heuristic weights set the heuristic blueprint, so not with "
                                                  "blueprint=MODEL"),
    ("search:blueprint=heuristic", "blueprint must be a turn-value model's folder or a shipped one (e.g. "
                                   "turn-ranking-2p), not 'heuristic'"),
    ("search:blueprint=no-such-model", "blueprint must be a turn-value model's folder or a shipped one"),
    ("search:blueprint=ppo-standard-2p", "blueprint must be a turn-value model's folder or a shipped one"),
    ("search:end_now=2", "end_now must be 0 or 1, not 2"),
    ("search:end_now=yes", "end_now must be a whole number, not 'yes'"),
    ("search:redeals=1.5", "redeals must be a whole number, not '1.5'"),
    ("search:redeals=many", "redeals must be a whole number, not 'many'"),
    ("search:redeals=0", "redeals must be a whole number of at least 1"),
    ("search:candidates=0", "candidates must be a whole number of at least 1"),
    ("search:margin=-0.1", "margin must be a number of at least 0"),
    ("search:margin=nan", "margin must be a number of at least 0"),
    ("search:margin=big", "margin must be a number, not 'big'"),
    ("search:redeals", "'redeals' is not name=value"),
    ("search:", "'' is not name=value"),
    ("search:redeals=4,redeals=8", "the option redeals is given twice"),
])
def test_a_bad_spec_is_refused_in_one_line(spec, message):
    with pytest.raises(ValueError, match="agent spec") as info:
        agents.load(spec)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_name_like_search_is_not_the_search_agent():
    with pytest.raises(ValueError, match="unknown agent spec 'searcher'.*search:redeals=16"):
        agents.load("searcher")


# -- the compiled pieces ---------------------------------------------------------------------

def test_turn_candidates_are_legal_in_the_engine_and_the_first_is_the_heuristics():
    heuristic = agents.load("heuristic")
    lines = 0
    for state, obs in heuristic_positions(25, seed=17):
        top_v, top_line, top_len, best = _candidates(obs)
        assert best == heuristic.act(obs)
        assert (int(top_line[0, 0]) if top_len[0] else K.END_TURN_ACTION) == best
        valid = top_v > -1e17
        assert valid[0] and np.all(np.diff(top_v[valid]) <= 0), "best first, empty slots last"
        for i in np.flatnonzero(valid):
            walk = state.copy()
            for a in top_line[i, :top_len[i]]:
                assert actions.legal_mask(walk)[a] == 1, f"line {i} move {actions.name(int(a))} is illegal"
                engine.apply(walk, actions.decode(int(a)))
            assert walk.current_player == state.current_player or walk.is_over, "a line stays in the turn"
            lines += 1
    assert lines > 50


def test_a_redeal_keeps_the_seats_view_and_every_card_once():
    rows = 3
    shuffled = 0
    for _, obs in heuristic_positions(20, seed=5):
        vec = obs["observation"]
        arrays = turns.alloc(rows, True)
        piles, pinfo, hands, stock, S, R, mt = arrays
        rng = np.arange(1, rows + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        out = np.zeros(K.OBS_SIZE, dtype=np.float32)
        for b in range(rows):
            playouts.redeal(vec, arrays, b, rng, 1000)
            K.encode(arrays, b, 0, vec[K.RULES_START:], out)
            differs = np.flatnonzero(out != vec)
            scores = range(K.O_SCORES, K.O_SCORES + 6)
            assert all(i in scores for i in differs), f"the seat's view changed at {differs.tolist()}"
            cards = [c for s in range(S[b, K.NP]) for c in range(54) if int(hands[b, s]) >> c & 1]
            cards += [int(c) for p in range(8) for c in piles[b, p, :pinfo[b, p, K.LEN]]]
            cards += [int(c) for c in stock[b, :S[b, K.SLEN]]]
            assert sorted(cards) == list(range(52 + R[b, K.R_JOKERS])), "every card of the deck exactly once"
        shuffled += int(hands[0, 1] != hands[1, 1] or not np.array_equal(stock[0], stock[1]))
    assert shuffled >= 15, "different generators deal the unseen cards differently"


# -- the agent -------------------------------------------------------------------------------

class Spy:
    """Wraps an agent and keeps every (observation, action) it gives."""

    def __init__(self, agent):
        self.agent, self.seen = agent, []

    def act(self, obs):
        action = self.agent.act(obs)
        self.seen.append((obs, action))
        return action


def test_with_a_very_large_margin_it_plays_its_blueprints_moves():
    """``blueprint=`` a gated turn-value model: where no line beats the blueprint's, the agent
    plays what the model itself plays, the model's gate fed every observation of the deal."""
    search = Spy(agents.load("search:redeals=2,margin=1000,blueprint=turn-ranking-2p", seed=2))
    model, other = agents.load("turn-ranking-2p"), agents.load("random", seed=3)
    play_deal(engine.new_deal("standard", 2, seed=41), [search, other])
    assert search.agent.stats["searches"] > 0
    assert all(action == model.act(obs) for obs, action in search.seen)


def test_in_the_endgame_mode_it_searches_only_once_the_stock_is_empty():
    """``endgame=1``: while the stock holds cards the agent plays its blueprint's move (the model's
    gate fed every observation), and it searches only after the last card is drawn."""
    search = Spy(agents.load("search:redeals=2,endgame=1,blueprint=turn-ranking-2p", seed=2))
    model = agents.load("turn-ranking-2p")
    searched = []
    real = search.agent._playouts

    class Watch:
        def line_values(self, ob, *args):
            searched.append(round(float(ob[SLICES["stock_size"].start]) * 54))
            return real.line_values(ob, *args)

    search.agent._playouts = Watch()
    play_deal(engine.new_deal("standard", 2, seed=40), [search, agents.load("random", seed=3)])  # the stock runs out
    assert searched and set(searched) == {0}
    early = [(obs, action) for obs, action in search.seen if obs["observation"][SLICES["stock_size"].start] > 0]
    assert early and all(action == model.act(obs) for obs, action in early)


def test_against_several_others_a_line_is_valued_against_each_on_the_same_redeals():
    """``others=heuristic+random``: every search plays the lines out once with the heuristic and
    once with random in the other seats, from the same seed (the same re-deals)."""
    agent = agents.load("search:redeals=2,others=heuristic+random", seed=5)
    calls = []
    real = agent._playouts

    class Watch:
        def line_values(self, ob, lines, lengths, redeals, w, seed, max_moves, others):
            values = real.line_values(ob, lines, lengths, redeals, w, seed, max_moves, others)
            calls.append((seed, others, values))
            return values

    agent._playouts = Watch()
    for _, obs in heuristic_positions(6, seed=8, rules=Rules.preset("standard")):
        before = len(calls)
        agent.act(obs)
        if len(calls) > before:
            (seed_h, code_h, _), (seed_r, code_r, _) = calls[before:]
            assert (code_h, code_r) == (0, 2) and seed_h == seed_r
    assert calls


def test_once_the_blueprints_gate_sees_a_careless_seat_the_playouts_leave_out_the_heuristic():
    """``others=heuristic+random`` over a gated model: lines are played out against both until the
    other seat leaves a move open (which the heuristic never does), then against random alone."""
    agent = agents.load("search:redeals=1,others=heuristic+random,blueprint=turn-ranking-2p", seed=4)
    calls = []
    real = agent._playouts

    class Watch:
        def line_values(self, ob, *args):
            calls.append((agent.blueprint.seen_careless, args[-1]))
            return real.line_values(ob, *args)

    agent._playouts = Watch()
    play_deal(engine.new_deal("standard", 2, seed=47), [agent, agents.load("random", seed=3)])
    before, after = [code for seen, code in calls if not seen], [code for seen, code in calls if seen]
    assert before and after, "a deal in which random shows itself after some searches"
    assert before == [0, 2] * (len(before) // 2) and set(after) == {2}


def test_with_a_very_large_margin_it_plays_its_heuristic_blueprints_moves():
    """Heuristic weights among the options: where no line beats the blueprint's, the agent plays
    what that heuristic plays, at a table of four."""
    prior = "corner=0,fit_close=0.25,penalty=0.175,card=1.1"
    search = Spy(agents.load(f"search:redeals=2,margin=1000,{prior}", seed=2))
    blueprint, shipped = agents.load(f"heuristic:{prior}"), agents.load("heuristic")
    play_deal(engine.new_deal("standard", 4, seed=43), [search] + [agents.load("heuristic")] * 3)
    assert search.agent.stats["searches"] > 0
    assert all(action == blueprint.act(obs) for obs, action in search.seen)
    assert any(action != shipped.act(obs) for obs, action in search.seen), "a deal where the weights matter"


@pytest.mark.slow  # about 90 s of play-outs on 2 cores
def test_it_plays_only_legal_moves_against_the_heuristic():
    search = agents.load(QUICK, seed=1)
    heuristic = agents.load("heuristic")
    tables = [(Rules.preset("standard"), 2, [search, heuristic]), (Rules.preset("standard"), 2, [heuristic, search]),
              (random_rules(random.Random(4), num_players=3), 3, [heuristic, search, heuristic])]
    for deal, (rules, n, seats) in enumerate(tables):
        search.reset(seed=deal)
        play_deal(engine.new_deal(rules, n, seed=900 + deal), seats)  # raises on an illegal action
    assert search.stats["searches"] > 0 and search.stats["followed"] > 0


def test_with_a_very_large_margin_it_plays_the_heuristics_moves():
    search = Spy(agents.load("search:redeals=2,margin=1000", seed=2))
    heuristic = agents.load("heuristic")
    for deal in range(2):
        play_deal(engine.new_deal("standard", 2, seed=40 + deal), [search, heuristic])
    assert search.agent.stats["searches"] > 0
    assert all(action == heuristic.act(obs) for obs, action in search.seen)


def test_it_follows_its_plan_through_the_turn():
    """Play-outs that always favour the longest candidate but the heuristic's: the agent plays
    that line to its end, then ends its turn, with one search for the whole turn."""
    agent = agents.load("search", seed=0)
    searched = []

    def line_values(obs, lines, lengths, redeals, w, seed, max_moves, others):
        values = np.zeros(len(lines))
        values[1:] = 1 + lengths[1:] + np.arange(1, len(lines)) * 1e-3
        best = int(np.argmax(values))
        searched.append(lines[best, :lengths[best]].tolist())
        return values

    agent._playouts = types.SimpleNamespace(line_values=line_values)
    heuristic = agents.load("heuristic")
    turns_planned = 0
    for seed in (12, 13):
        state = engine.new_deal("standard", 2, seed=seed)
        plan: list[int] = []
        while not state.is_over and state.move_count < 400:
            obs = _obs(state)
            if state.current_player == 1:
                action = heuristic.act(obs)
            else:
                before = len(searched)
                action = agent.act(obs)
                if plan:
                    assert len(searched) == before, "no search while a plan is under way"
                    assert action == plan.pop(0)
                elif len(searched) > before:
                    line = searched[-1] or [K.END_TURN_ACTION]  # none: end the turn now
                    assert action == line[0]
                    plan = line[1:] + [K.END_TURN_ACTION] if line[0] != K.END_TURN_ACTION else []
                    turns_planned += len(line) > 1
            engine.apply(state, actions.decode(action))
            if state.current_player != 0 and not state.is_over:
                assert not plan, "the turn ended before the plan did"
    assert turns_planned >= 3 and agent.stats["followed"] > 0


@pytest.mark.parametrize("end_now", [1, 0])
def test_ending_the_turn_at_once_is_a_candidate_unless_end_now_is_0(end_now):
    """At the start of every turn of deal 12 (the heuristic playing it), the agent's searches
    value a line of no moves, "end now", only with ``end_now`` (or where the heuristic ranks it
    among its best); valued best, it is what the agent plays."""
    agent = agents.load(f"search:end_now={end_now}", seed=0)
    heuristic = agents.load("heuristic")
    valued = []

    def line_values(obs, lines, lengths, redeals, w, seed, max_moves, others):
        valued.append(lengths.tolist())
        return np.where(lengths == 0, 1.0, 0.0)  # ending at once wins every play-out

    agent._playouts = types.SimpleNamespace(line_values=line_values)
    state = engine.new_deal("standard", 2, seed=12)
    while not state.is_over and state.move_count < 200:
        obs = _obs(state)
        if not state.played and not state.moved:
            agent.reset()
            before = len(valued)
            action = agent.act(obs)
            if len(valued) > before:
                assert (action == K.END_TURN_ACTION) == (0 in valued[-1])
        engine.apply(state, actions.decode(heuristic.act(obs)))
    assert len(valued) >= 3  # one search a turn: the deal lasts three turns
    if end_now:
        assert all(0 in lengths for lengths in valued)
    else:
        assert any(0 not in lengths for lengths in valued)


@pytest.mark.slow  # about 35 s of play-outs
def test_the_same_seed_and_observations_give_the_same_moves_and_act_batch_plays_as_act():
    positions = [obs for _, obs in heuristic_positions(4, seed=8, rules=Rules.preset("standard"))]
    one, other = agents.load(QUICK, seed=5), agents.load(QUICK, seed=5)
    moves = [one.act(obs) for obs in positions]
    assert moves == [other.act(obs) for obs in positions]
    batch = agents.load(QUICK, seed=5).act_batch(np.stack([o["observation"] for o in positions]),
                                                 np.stack([o["action_mask"] for o in positions]))
    assert batch.tolist() == moves


def test_it_is_a_vector_env_opponent():
    pytest.importorskip("stable_baselines3")
    from kc_env.vector import KingsCornerVecEnv

    env = KingsCornerVecEnv(2, opponents=QUICK, seed=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def test_kc_bench_gives_its_cost_a_decision(capsys):
    import json

    from kc_env.cli import main

    assert main(["bench", "--runs", "2", "--seconds", "0.05", "--only", "search", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["results"]["search"]
    assert len(row["runs"]) == 2 and 0 < row["min"] <= row["median"] <= row["max"]


@pytest.mark.parametrize(("spec", "message"), [
    ("heuristic", "--search must be a search agent's spec"),
    ("search:depth=3", "--search: agent spec 'search:depth=3': unknown option 'depth'"),
])
def test_kc_bench_refuses_a_search_spec_that_is_not_one(spec, message, capsys):
    from kc_env.cli import main

    assert main(["bench", "--runs", "1", "--seconds", "0.01", "--only", "search", "--search", spec]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# -- a search model folder ------------------------------------------------------------------------


def test_a_search_folder_loads_by_its_path_and_plays_as_its_spec(tmp_path):
    """``search_folder.save`` writes ``model.json`` alone; ``agents.load`` of the folder is the
    search agent of its spec, named by the folder, with the card, and makes the same moves."""
    from kc_env.agents import search_folder

    folder = search_folder.save(tmp_path / "tuned", QUICK, 3, Rules.preset("standard").to_dict(), {"about": "a test"})
    assert [p.name for p in folder.iterdir()] == ["model.json"]
    agent = agents.load(str(folder), seed=5)
    assert isinstance(agent, SearchAgent) and agent.spec == str(folder) and agent.folder == folder
    assert agent.card["spec"] == QUICK and agent.card["num_players"] == 3 and agent.card["about"] == "a test"
    assert (agent.redeals, agent.candidates) == (2, 3)
    positions = [obs for _, obs in heuristic_positions(3, seed=9, rules=Rules.preset("standard"))]
    same = agents.load(QUICK, seed=5)
    assert [agent.act(obs) for obs in positions] == [same.act(obs) for obs in positions]


def test_a_search_folder_at_another_table_says_so():
    from kc_env.agents import search_folder
    from kc_env.agents.policy_model import other_table

    agent = types.SimpleNamespace(spec="tuned", card={"format": search_folder.FORMAT, "num_players": 4,
                                                      "rules": Rules.preset("standard").to_dict()})
    assert other_table(agent, Rules.preset("standard"), 2) == \
        "tuned was trained for another table (players: 4 → 2); it plays here all the same"
    assert other_table(agent, Rules.preset("standard"), 4) is None


@pytest.mark.parametrize(("card", "message"), [
    ("{not json", "corrupt model card, not valid JSON"),
    ("{" + " " * (1 << 20) + "}", "more than a model card holds"),
    ({"format_version": 2}, "search model format version 2; this kc_env reads version 1"),
    ({"spec": "heuristic"}, "'spec' must be a search spec (search or search:name=value,...), not 'heuristic'"),
    ({"spec": 7}, "'spec' must be a search spec"),
    ({"spec": "search:depth=3"}, "agent spec 'search:depth=3': unknown option 'depth'"),
    ({"spec": "search:redeals=0"}, "agent spec 'search:redeals=0': redeals must be a whole number of at least 1"),
    ({"spec": "search:blueprint=no-such-model"}, "blueprint must be a turn-value model's folder"),
    ({"num_players": 9}, "num_players, the players it was trained for, must be 2 to 6, not 9"),
    ({"rules": {"draw": "sideways"}}, "the rules it was trained for are not valid"),
])
def test_a_bad_search_folder_is_refused_in_one_line_naming_its_card(tmp_path, card, message):
    import json

    from kc_env.agents import search_folder
    from kc_env.agents.policy_model import ModelError

    good = {"format": search_folder.FORMAT, "format_version": 1, "spec": QUICK, "num_players": 2,
            "rules": Rules.preset("standard").to_dict()}
    (tmp_path / "model.json").write_text(card if isinstance(card, str) else json.dumps({**good, **card}))
    with pytest.raises(ModelError) as info:
        search_folder.load(tmp_path)
    assert message in str(info.value) and str(tmp_path / "model.json") in str(info.value)
    assert "\n" not in str(info.value)


def test_saving_a_search_folder_refuses_a_bad_spec_and_writes_nothing(tmp_path):
    from kc_env.agents import search_folder

    with pytest.raises(ValueError, match="unknown option 'depth'"):
        search_folder.save(tmp_path / "bad", "search:depth=3", 2, Rules.preset("standard").to_dict())
    assert not (tmp_path / "bad").exists()


def test_kc_export_writes_a_search_folder_with_its_evaluation(tmp_path, capsys):
    """``kc export SPEC FOLDER -n N``: the folder, evaluated like any export, loads by its path;
    -n and --rules with a run folder are refused."""
    import json

    from kc_env.cli import main

    pytest.importorskip("sb3_contrib")
    folder = tmp_path / "tuned"
    assert main(["export", QUICK, str(folder), "-n", "3", "--deals", "3", "--against", "random", "--seed", "1",
                 "--no-progress"]) == 0
    card = json.loads((folder / "model.json").read_text())
    assert card["spec"] == QUICK and card["num_players"] == 3
    assert card["evaluation"]["command"] == f"kc export {QUICK} {folder} -n 3 --rules standard --deals 3 --against random --seed 1"
    assert [r["player"] for r in card["evaluation"]["results"]] == ["model", "heuristic"]
    assert isinstance(agents.load(str(folder)), SearchAgent)
    capsys.readouterr()
    assert main(["export", str(tmp_path), str(tmp_path / "other"), "-n", "3"]) == 2
    assert "-n and --rules are for a search spec" in capsys.readouterr().err
    assert main(["export", "search:redeals=x", str(tmp_path / "other")]) == 2
    assert "redeals must be a whole number, not 'x'" in capsys.readouterr().err and not (tmp_path / "other").exists()
    assert main(["export", QUICK, str(tmp_path / "other"), "-n", "0"]) == 2
    assert "num_players must be 2 to 6, not 0" in capsys.readouterr().err and not (tmp_path / "other").exists()


def test_a_search_agent_pickles_and_copies_and_the_copy_plays_alike():
    """A late probe: the agent held its compiled modules as attributes, so ``pickle`` and
    ``copy.deepcopy`` failed ("cannot pickle 'module' object"), where every other agent copies
    (``kc benchmark`` and the tournament's workers copy agents)."""
    import copy
    import pickle

    from kc_env import engine, play

    agent = agents.load("search:redeals=2,candidates=2", seed=3)
    state = engine.new_deal("standard", 2, seed=5)
    obs = play.observe(state)
    twins = [pickle.loads(pickle.dumps(agent)), copy.deepcopy(agent)]
    assert [twin.act(obs) for twin in twins] == [agent.act(obs)] * 2
