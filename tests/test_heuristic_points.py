"""The heuristic plays for points where its table keeps them (issue 36, item 12; the newcomer
report's `kc play heuristic --seed 2 --one-deal`): with the stock empty it ended two turns
holding K♦ beside an empty corner, and the deal blocked with 18 points in its hand against 8.

A blocked deal under a penalty table charges every hand its penalty (RULES.md 5.1), so a seat
told to play for points (``Agent.play_for("points")``) counts each penalty point it holds once
the stock is empty. A seat that plays for the win share (every env and evaluation, the kc-bench
suites' frozen opponent) plays as before: the shipped weights keep ``block_points`` at 0."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

from kc_env import Rules, actions, engine, play  # noqa: E402
from kc_env.agents import OBJECTIVES, Agent, load, objective_of  # noqa: E402
from kc_env.agents.heuristic.weights import FOR_POINTS, HEURISTIC_WEIGHTS, WEIGHT_NAMES  # noqa: E402
from kc_env.agents.view import lowest_wins  # noqa: E402
from kc_env.rules import SCORING_VALUES  # noqa: E402
from kc_env.tournament import run_tournament  # noqa: E402

# seat 1 (the heuristic) to act, the stock empty, NW empty, K♦ in its hand; 9 cards against 8
HOLDING_THE_KING = """\
N: 10S 9H 8C 7D
E: 4S
S: 3C 2H AS
W: 5C 4D 3S 2D AC
NE: KH QC JD 10C 9D 8S 7H 6S 5H 4C 3D 2C AH
SE: KS QH JS 10D 9C 8D
SW: KC QD JC
NW: -
hand 0: QS 6H 6D 8H 2S 4H 9S 5D
hand 1: 7S 7C AD 10H 5S 3H 6C JH KD
stock: -
turn: 1
unplayed: 9 1
"""


def turn_of(agent: Agent, rules: Rules | None = None) -> list[str]:
    """The moves ``agent`` makes in its turn from ``HOLDING_THE_KING`` (standard rules by default)."""
    state = engine.from_text(HOLDING_THE_KING, rules or Rules.preset("standard"))
    moves = []
    while state.current_player == 1 and not state.is_over:
        action = agent.act(play.observe(state))
        moves.append(actions.name(action))
        engine.apply(state, actions.decode(action))
    return moves


def test_for_the_win_share_it_holds_the_king_for_a_block():
    """Behind by a card, a block is worth half a deal to it: it ends the turn idle."""
    assert turn_of(load("heuristic")) == ["end turn"]


def test_for_points_it_puts_the_king_into_the_empty_corner():
    agent = load("heuristic")
    agent.play_for("points")
    assert turn_of(agent)[0] == "play KD->NW"


def test_told_the_win_share_again_it_plays_as_shipped():
    agent = load("heuristic")
    agent.play_for("points")
    agent.play_for("win_share")
    assert np.array_equal(agent.weights, HEURISTIC_WEIGHTS)
    assert turn_of(agent) == ["end turn"]


def test_shipped_weights_play_for_the_win_share():
    """The kc-bench-v1 suites freeze ``heuristic`` as it played before (tests/test_benchmark_frozen.py)."""
    assert HEURISTIC_WEIGHTS[WEIGHT_NAMES.index("block_points")] == 0.0
    assert FOR_POINTS["block_points"] > 0.0


def test_a_weight_its_spec_sets_is_kept_when_told_points():
    agent = load("heuristic:block_points=0")
    agent.play_for("points")
    assert agent.weights[WEIGHT_NAMES.index("block_points")] == 0.0
    assert turn_of(agent) == ["end turn"]


def test_by_wins_alone_points_change_nothing():
    """Under ``wins`` a hand left costs nothing: told points, it still ends idle."""
    agent = load("heuristic")
    agent.play_for("points")
    assert turn_of(agent, Rules.from_dict({"scoring": "wins"})) == ["end turn"]


@pytest.mark.parametrize("scoring", SCORING_VALUES)
def test_the_observation_says_whether_a_penalty_table_scores(scoring):
    extra = {"custom_table": {r: 1 for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()}} if scoring == "custom" else {}
    rules = Rules.from_dict({"scoring": scoring, **extra})
    state = engine.new_deal(rules, 2, seed=1)
    assert lowest_wins(play.observe(state)["observation"]) == rules.lowest_wins


def test_what_a_table_plays_for():
    standard, wins = Rules.preset("standard"), Rules.from_dict({"scoring": "wins"})
    assert objective_of(standard, keeps_points=True) == "points"
    assert objective_of(standard, keeps_points=False) == "win_share"
    assert objective_of(wins, keeps_points=True) == "win_share"
    assert OBJECTIVES == ("win_share", "points")


def test_an_unknown_objective_is_refused_in_one_line():
    with pytest.raises(ValueError, match="plays for one of win_share, points, not 'chips'"):
        load("random").play_for("chips")


class Told(Agent):
    """Plays the first legal action and keeps what it was told to play for."""

    spec = "told"

    def __init__(self):
        self.told = []

    def play_for(self, objective):
        super().play_for(objective)
        self.told.append(objective)

    def act(self, obs):
        return int(np.flatnonzero(obs["action_mask"])[0])


@pytest.mark.parametrize("episode, told", [("deal", "win_share"), ("match", "points")])
def test_gym_opponents_play_for_what_the_episode_counts(episode, told):
    agent = Told()
    gymnasium.make("KingsCorner-v0", opponents=agent, episode=episode)
    assert agent.told == [told]


@pytest.mark.parametrize("match, told", [(False, "win_share"), (True, "points")])
def test_tournament_seats_play_for_what_an_episode_counts(match, told):
    agent = Told()
    run_tournament([agent, "random"], deals=2, match=match, workers=1, ratings=False)
    # the tournament seats copies of an Agent entry: the copies were told, seen in their plays
    from kc_env import tournament

    seated = [a for a in tournament._AGENTS.values() if isinstance(a, Told)]
    assert seated and all(a.told == [told] for a in seated)


def test_kc_play_seats_the_heuristic_to_play_for_points():
    """The report's game: always the first listed move against the heuristic, seed 2, one deal.
    Before, the deal blocked with K♦ in the heuristic's hand (18 points against 8)."""
    run = subprocess.run([sys.executable, "-m", "kc_env.cli", "play", "heuristic", "--seed", "2", "--one-deal",
                          "--no-color"], input="1\n" * 400, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    final = run.stdout[run.stdout.rindex("deal blocked"):]
    heuristic_hand = next(line for line in final.splitlines() if line.startswith("p1 heuristic"))
    assert "K♦" not in heuristic_hand and "points this deal: p0 +7, p1 heuristic +8" in final


class FirstMove:
    """The person of the web table's test: always the first legal move."""

    @staticmethod
    def choice(moves):
        return moves[0]


def test_the_web_table_seats_the_heuristic_to_play_for_points():
    """The same game at the web table: it keeps the points, so its agents play for them."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from web_api import play_out

    from kc_env.web.app import create_app
    from kc_env.web.store import Store

    with TestClient(create_app(Store(), pace=0), base_url="http://127.0.0.1:8000") as client:
        body = {"seats": ["you", "heuristic"], "one_deal": True, "seed": 2, "rules": {"preset": "standard"}}
        view = play_out(client, client.post("/api/games", json=body).json(), FirstMove())
    heuristic_hand = [card["name"] for card in view["table"]["hands"][1]["cards"]]
    assert "KD" not in heuristic_hand and view["result"]["penalties"] == [7, 8]



def test_the_web_adviser_is_kept_apart_for_each_objective():
    pytest.importorskip("starlette")
    from kc_env.web.store import Store

    store = Store()
    for_points, for_wins = store.adviser("heuristic", "points"), store.adviser("heuristic")
    block_points = WEIGHT_NAMES.index("block_points")
    assert for_points is not for_wins and store.adviser("heuristic", "points") is for_points
    assert for_points.weights[block_points] == FOR_POINTS["block_points"] and for_wins.weights[block_points] == 0.0


@pytest.mark.parametrize("rules, told", [({"preset": "standard"}, "points"),
                                         ({"preset": "standard", "scoring": "wins"}, "win_share")])
def test_the_web_table_asks_advice_for_what_it_keeps(rules, told):
    """The person's adviser plays for the points the table shows, as its seats do."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient
    from web_api import post

    from kc_env.web.app import create_app
    from kc_env.web.store import Store

    class Asked(Store):
        def adviser(self, spec, objective="win_share"):
            self.asked.append(objective)
            return super().adviser(spec, objective)

    store = Asked()
    store.asked = []
    with TestClient(create_app(store, pace=0), base_url="http://127.0.0.1:8000") as client:
        body = {"seats": ["you", "heuristic"], "one_deal": True, "seed": 2, "rules": rules}
        view = client.post("/api/games", json=body).json()
        while view["waiting"] != "person":
            view = post(client, view, "advance")
        assert client.get(f"/api/games/{view['id']}/advice", params={"spec": "heuristic"}).status_code == 200
    assert store.asked == [told]
