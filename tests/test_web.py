"""The web table's server (kc_env.web) through its JSON API, in process (Starlette's test client):
one engine plays every move, a bad request is refused with one line and changes nothing, games
never mix, and a game saves as the record kc replay reads."""

from __future__ import annotations

import json
import random
import re

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402
from web_api import play_out, post  # noqa: E402

from kc_env import actions, engine, observation, record  # noqa: E402
from kc_env.agents import HeuristicAgent  # noqa: E402
from kc_env.match import play_match  # noqa: E402
from kc_env.web import views  # noqa: E402
from kc_env.web.app import STATIC, create_app  # noqa: E402
from kc_env.web.store import Store  # noqa: E402

JSON = {"Content-Type": "application/json"}
"""The header of every body the page sends (the server refuses any other)."""


@pytest.fixture
def client():
    with TestClient(create_app(Store(), pace=0), base_url="http://127.0.0.1:8000") as c:
        yield c


def new(client, seats=("you", "random"), one_deal=True, seed=3, rules=None, status=201):
    body = {"seats": list(seats), "one_deal": one_deal, "seed": seed, "rules": rules or {"preset": "standard"}}
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    return response.json()




def saved(client, view):
    response = client.get(f"/api/games/{view['id']}/record")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    return record.loads(response.text)


# -- a game is the engine's -----------------------------------------------------------------------------

def test_a_deal_against_the_heuristic_is_the_record_the_engine_replays(client):
    view = play_out(client, new(client, seats=("you", "heuristic"), seed=8), random.Random(0))
    rec = saved(client, view)
    assert isinstance(rec, record.GameRecord) and str(rec.seed) == view["deal"]["seed"]
    assert [e["name"] for e in view["log"]] == [engine.move_name(m) for m in rec.moves]
    final = record.replay(rec)
    assert [h["count"] for h in view["table"]["hands"]] == [len(h) for h in final.hands]
    assert view["table"]["over"] and view["result"]["penalties"] == engine.deal_penalties(final)


def test_the_legal_moves_are_the_action_mask_and_the_hand_is_only_yours(client):
    view = new(client, seats=("random", "you"), seed=5)  # seat 1 acts first
    state = engine.new_deal("standard", 2, seed=int(view["deal"]["seed"]))
    assert view["waiting"] == "person"
    assert sorted(m["action"] for m in view["legal"]) == [int(a) for a in actions.legal_mask(state).nonzero()[0]]
    hands = view["table"]["hands"]
    assert hands[0]["cards"] is None and hands[0]["count"] == len(state.hands[0])
    assert [c["id"] for c in hands[1]["cards"]] == sorted(state.hands[1])


def test_a_match_is_scored_by_the_match_and_saved_as_a_match_record(client):
    view = new(client, seats=("random", "greedy"), one_deal=False, seed=2)
    assert view["mode"] == "watch" and view["waiting"] == "agent"
    deals = 0
    while view["waiting"] != "over":
        if view["waiting"] == "next_deal":
            deals += 1
        view = post(client, view, "advance")
    rec = saved(client, view)
    assert isinstance(rec, record.MatchRecord)
    match = record.replay(rec)
    assert view["match"]["totals"] == list(match.totals) and view["match"]["over"]
    assert view["match"]["winners"] == list(match.winners) and len(rec.deals) == deals + 1
    assert [d["points"] for d in view["match"]["deals"]] == [list(d.scored.points) for d in match.history]


def test_a_move_may_be_sent_by_name(client):
    view = new(client, seats=("random", "you"), seed=5)
    move = view["legal"][0]
    after = post(client, view, "move", move=move["name"])
    assert after["log"][-1]["name"] == move["name"] and after["version"] == view["version"] + 1


# -- bad requests change nothing ---------------------------------------------------------------------

def test_an_illegal_move_is_refused_with_the_engines_reason(client):
    view = new(client, seats=("random", "you"), seed=5)
    state = engine.new_deal("standard", 2, seed=int(view["deal"]["seed"]))
    legal = {m["action"] for m in view["legal"]}
    card = state.hands[1][0]
    action = next(actions.encode(engine.PlayCard(card, p)) for p in range(8)
                  if actions.encode(engine.PlayCard(card, p)) not in legal)
    error = post(client, view, "move", status=422, action=action)["error"]
    move = actions.decode(action)
    assert error == f"{views.move_text(move)}: {views.with_symbols(engine.why_illegal(state, move))}"
    other = next(c for c in state.hands[0])  # a card the person does not hold
    error = post(client, view, "move", status=422, move=f"play {engine.card_name(other)}->N")["error"]
    assert "is not in player 1's hand" in error
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"action": 497}, 400, "action index 0..496"),
    ({"action": True}, 400, "action index"),
    ({"action": "12"}, 400, "cannot read the move"),
    ({"move": "fly 9H->N"}, 400, "cannot read the move"),
    ({"action": 496, "move": "end"}, 400, "a move is"),
    ({"action": 496, "extra": 1}, 400, "a move is"),
    ({"action": 496, "at": 99}, 409, "the game has moved on"),
    ({"action": 496, "at": "0"}, 400, "'at' must be the version"),
])
def test_a_malformed_or_stale_move_is_refused_and_changes_nothing(client, body, status, says):
    view = new(client, seats=("random", "you"), seed=5)
    response = client.post(f"/api/games/{view['id']}/move", json={"at": view["version"], **body})
    assert response.status_code == status and says in response.json()["error"], response.text
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b'"text"', b"{" * 100_000])
def test_a_body_that_is_not_a_json_object_is_refused(client, raw):
    view = new(client, seats=("random", "you"), seed=5)
    response = client.post(f"/api/games/{view['id']}/move", content=raw, headers=JSON)
    assert response.status_code == 400 and response.json()["error"].startswith("the request body")
    assert client.get(f"/api/games/{view['id']}").json() == view


def test_a_body_too_large_is_refused_unread(client):
    response = client.post("/api/replays", content=b" " * (5 << 20), headers=JSON)
    assert response.status_code == 413 and "more than" in response.json()["error"]


def test_a_turn_that_is_not_yours_is_refused(client):
    view = new(client, seats=("you", "random"), seed=5)  # seat 1 acts first
    assert view["waiting"] == "agent"
    assert "not your turn" in post(client, view, "move", status=409, action=496)["error"]
    view = post(client, view, "advance")
    while view["waiting"] == "agent":
        view = post(client, view, "advance")
    assert "your turn" in post(client, view, "advance", status=409)["error"]


def test_a_game_that_is_over_takes_no_more(client):
    view = play_out(client, new(client, seats=("you", "random"), seed=1), random.Random(1))
    assert "is over" in post(client, view, "advance", status=409)["error"]
    assert post(client, view, "move", status=409, action=496)["error"].startswith("the deal is over")


def test_an_unknown_game_or_page_is_a_clear_404(client):
    response = client.get("/api/games/nope")
    assert response.status_code == 404 and "no game 'nope'" in response.json()["error"]
    response = client.post("/api/games/nope/move", json={"action": 496, "at": 0})
    assert response.status_code == 404
    assert client.get("/api/elsewhere").status_code == 404
    assert client.get("/api/games").status_code == 405


@pytest.mark.parametrize(("body", "says"), [
    ({"seats": ["you", "heuristic"], "rules": {"preset": "nope"}}, "rules: unknown preset 'nope'"),
    ({"seats": ["you", "heuristic"], "rules": {"draw": "never"}}, "rule 'draw' cannot be 'never'"),
    ({"seats": ["you"] + ["random"] * 6}, "num_players must be 2 to 6"),
    ({"seats": ["you", "you"]}, "only one seat"),
    ({"seats": ["you", "grandmaster"]}, "unknown agent 'grandmaster'"),
    ({"seats": ["you", "/tmp"]}, "unknown agent '/tmp'"),
    ({"seats": ["you", "search:depth=3"]}, "unknown option 'depth'"),
    ({"seats": ["you", "heuristic"], "one_deal": "yes"}, "'one_deal' must be true or false"),
    ({"seats": ["you", "heuristic"], "seed": -1}, "a seed is a whole number >= 0"),
    ({"seats": "you"}, "'seats' must list"),
    ({"seats": ["you", "heuristic"], "colour": "red"}, "unknown setting 'colour'"),
])
def test_a_table_that_cannot_be_set_is_refused_with_one_line(client, body, says):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and says in response.json()["error"], response.text


# -- several games at once -----------------------------------------------------------------------------

def test_games_in_two_tabs_never_mix(client):
    one = new(client, seats=("you", "random"), seed=1)
    two = new(client, seats=("random", "you"), seed=2)
    before = client.get(f"/api/games/{two['id']}").json()
    while one["waiting"] == "agent":
        one = post(client, one, "advance")
    post(client, one, "move", action=one["legal"][0]["action"])
    assert client.get(f"/api/games/{two['id']}").json() == before
    assert one["id"] != two["id"]


def test_the_oldest_game_is_forgotten_when_the_store_is_full():
    with TestClient(create_app(Store(capacity=2), pace=0), base_url="http://127.0.0.1:8000") as c:
        first, second = new(c), new(c)
        c.get(f"/api/games/{first['id']}")  # used lately: kept
        new(c)
        assert c.get(f"/api/games/{first['id']}").status_code == 200
        assert c.get(f"/api/games/{second['id']}").status_code == 404


# -- replays -----------------------------------------------------------------------------------------------

def test_a_saved_game_replays_at_every_move(client, tmp_path, capsys):
    from kc_env.cli import main

    view = play_out(client, new(client, seats=("you", "greedy"), seed=4), random.Random(2))
    text = client.get(f"/api/games/{view['id']}/record").text
    (tmp_path / "game.json").write_text(text)
    assert main(["replay", str(tmp_path / "game.json")]) == 0  # the record kc replay reads
    assert capsys.readouterr().out.rstrip().endswith("---")
    replay = client.post("/api/replays", content=text, headers=JSON).json()
    rec = record.loads(text)
    assert replay["mode"] == "replay" and replay["replay"]["at"] == len(rec.moves)
    state = engine.new_deal(rec.rules, 2, seed=rec.seed)
    for k in (0, 1, len(rec.moves) // 2):
        at = client.get(f"/api/games/{replay['id']}?deal=1&at={k}").json()
        there = state.copy()
        for move in rec.moves[:k]:
            engine.apply(there, move)
        assert [[c["id"] for c in p["cards"]] for p in at["table"]["piles"]] == there.piles
        assert [[c["id"] for c in h["cards"]] for h in at["table"]["hands"]] == [sorted(h) for h in there.hands]
        assert len(at["log"]) == k
    assert client.get(f"/api/games/{replay['id']}/record").text == text
    assert "replay takes no moves" in client.post(f"/api/games/{replay['id']}/move", json={"action": 1}).json()["error"]
    assert client.get(f"/api/games/{replay['id']}?at={len(rec.moves) + 1}").status_code == 404


def test_a_match_record_replays_deal_by_deal(client):
    rng = random.Random(3)
    match = play_match("standard", 3, 6, lambda state, moves: rng.choice(moves), max_deals=3)
    rec = record.MatchRecord.from_match(match)
    replay = client.post("/api/replays", content=record.dumps(rec), headers=JSON).json()
    assert replay["replay"]["deals"] == len(rec.deals)
    last = client.get(f"/api/games/{replay['id']}?deal={len(rec.deals)}").json()
    assert last["match"]["totals"] == list(match.totals)
    start = client.get(f"/api/games/{replay['id']}?deal=1&at=0").json()
    assert start["match"]["totals"] == [0, 0, 0] and start["match"]["deals"] == []


@pytest.mark.parametrize(("text", "says"), [
    ("{}", "'format' must be"),
    ("not json", "not valid JSON"),
    (json.dumps({"format": "kc_env.game", "version": 1, "rules": {}, "num_players": 2, "seed": 1,
                 "moves": ["move N->NE"]}), "move 1 ('move N->NE')"),
])
def test_a_record_that_does_not_replay_is_refused(client, text, says):
    response = client.post("/api/replays", content=text, headers=JSON)
    assert response.status_code == 400 and says in response.json()["error"], response.text


# -- advice --------------------------------------------------------------------------------------------------

def test_a_models_advice_is_its_probabilities_over_the_legal_moves(client):
    view = new(client, seats=("random", "you"), seed=5)
    advice = client.get(f"/api/games/{view['id']}/advice?spec=ppo-standard-2p").json()
    legal = {m["name"] for m in view["legal"]}
    probs = advice["probabilities"]
    assert {m["name"] for m in probs} <= legal and len(probs) + advice["hidden"] == len(legal)
    assert [m["p"] for m in probs] == sorted((m["p"] for m in probs), reverse=True)
    assert advice["choice"] == probs[0]["name"] and sum(m["p"] for m in probs) <= 1.0001
    if not advice["hidden"]:
        assert sum(m["p"] for m in probs) == pytest.approx(1.0, abs=1e-3)


def test_the_heuristics_advice_is_the_move_it_would_make(client):
    view = new(client, seats=("random", "you"), seed=5)
    state = engine.new_deal("standard", 2, seed=int(view["deal"]["seed"]))
    obs = {"observation": observation.encode(state, 1, (0, 0)), "action_mask": actions.legal_mask(state)}
    advice = client.get(f"/api/games/{view['id']}/advice?spec=heuristic").json()
    action = HeuristicAgent().act(obs)
    assert advice == {"seat": 1, "spec": "heuristic", "choice": actions.name(action),
                      "choice_text": views.move_text(actions.decode(action))}


def test_advice_at_a_persons_table_is_only_for_the_persons_turn(client):
    view = new(client, seats=("you", "random"), seed=5)
    response = client.get(f"/api/games/{view['id']}/advice?spec=heuristic")
    assert response.status_code == 409 and "your own turn" in response.json()["error"]
    assert client.get(f"/api/games/{view['id']}/advice?spec=../models").status_code == 400


def test_watching_a_model_logs_its_probabilities_at_each_of_its_moves(client):
    view = new(client, seats=("ppo-standard-2p", "random"), seed=7)
    while not any(e["seat"] == 0 for e in view["log"]):
        view = post(client, view, "advance")
    entry = next(e for e in view["log"] if e["seat"] == 0)
    assert entry["advice"]["spec"] == "ppo-standard-2p" and entry["advice"]["choice"] == entry["name"]


# -- the page ------------------------------------------------------------------------------------------------

def test_the_page_and_its_files_are_served_and_fetch_nothing_from_elsewhere(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Kings in the Corner</title>" in page.text
    for name in ("table.js", "cards.js", "table.css"):
        assert client.get(f"/static/{name}").status_code == 200
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text, re.I), f"{path.name} fetches from elsewhere"


def test_the_config_offers_every_agent_kind(client):
    config = client.get("/api/config").json()
    specs = [a["spec"] for a in config["agents"]]
    assert specs[:4] == ["heuristic", "greedy", "random", "search"] and "ppo-standard-2p" in specs
    assert config["presets"]["pagat"]["draw"] == "end" and config["pace"] == 0


def test_the_static_files_ship_in_the_wheel():
    from pathlib import Path

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"kc_env.web" = ["static/*"]' in pyproject.split("[tool.setuptools.package-data]")[1]
    assert {p.name for p in STATIC.iterdir()} == {"index.html", "table.js", "cards.js", "table.css"}


# -- kc serve ------------------------------------------------------------------------------------------------

def test_kc_serve_refuses_a_bad_port_in_one_line(capsys):
    from kc_env.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert capsys.readouterr().err == "kc serve: --port must be 0 to 65535, not 70000\n"


def test_kc_serve_says_when_its_port_is_taken(capsys):
    import socket

    from kc_env.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kc serve: cannot listen on 127.0.0.1 port {port}: ") and err.count("\n") == 1


def test_kc_serve_refuses_a_model_folder_that_is_not_one(capsys, tmp_path):
    from kc_env.cli import main

    assert main(["serve", "--model", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith(f"kc serve: --model: {tmp_path}: no model.json")


def test_a_model_folder_given_to_the_server_is_offered_at_the_seats(tmp_path):
    import shutil

    from kc_env.agents.policy_model import shipped_models

    folder = str(shutil.copytree(shipped_models()["ppo-standard-2p"], tmp_path / "mine"))  # a shipped one is offered anyway
    with TestClient(create_app(Store(models=[folder]), pace=0), base_url="http://127.0.0.1:8000") as c:
        assert folder in [a["spec"] for a in c.get("/api/config").json()["agents"]]
        view = new(c, seats=(folder, "random"))
        assert view["setup"]["seats"][0]["spec"] == folder


def test_a_shipped_search_folder_is_offered_as_a_search():
    about = {a["spec"]: a["about"] for a in Store().offered()}
    assert about["search-4p"] == "a search saved as a model (slower), for 4 players"
    assert about["ppo-standard-4p"] == "an exported model, for 4 players"
    assert about["turn-ranking-2p"] == "an exported model, for 2 players", "a turn-value model's card is read too"


def test_a_missing_web_extra_is_one_line_naming_it(capsys, monkeypatch):
    import importlib.util

    from kc_env.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kc serve: needs the web extra: pip install 'kc_env[web]'") and "uvicorn" in err
    with pytest.raises(SystemExit) as done:  # the help still works, saying what is missing (issue 36 item 9)
        main(["serve", "--help"])
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("usage: kc serve") and "not installed: uvicorn" in out


def test_the_table_answers_views_while_an_agent_thinks_and_applies_its_move_once():
    import threading

    from kc_env.agents.base import Agent

    class Slow(Agent):
        spec = "slow"

        def __init__(self):
            self.started, self.go = threading.Event(), threading.Event()

        def act(self, obs):
            self.started.set()
            assert self.go.wait(10)
            return int(obs["action_mask"].nonzero()[0][0])

    store = Store()
    with TestClient(create_app(store, pace=0), base_url="http://127.0.0.1:8000") as c:
        view = new(c, seats=("you", "random"), seed=5)  # seat 1 acts first
        slow = store.get(view["id"]).agents[1] = Slow()
        answers = []
        thinker = threading.Thread(target=lambda: answers.append(post(c, view, "advance")))
        thinker.start()
        assert slow.started.wait(10)
        assert c.get(f"/api/games/{view['id']}").json() == view  # answered while the agent thinks
        assert "already choosing" in post(c, view, "advance", status=409)["error"]
        slow.go.set()
        thinker.join(10)
        assert answers[0]["version"] == view["version"] + 1 and len(answers[0]["log"]) == 1


def test_a_deal_cut_off_by_the_move_limit_is_saved_as_truncated():
    from kc_env.agents import RandomAgent
    from kc_env.rules import Rules
    from kc_env.web.games import Table

    table = Table(Rules(), "standard", ["random", "random"], [RandomAgent(seed=1), RandomAgent(seed=2)], seed=3,
                  one_deal=True, max_moves=12)
    while table.waiting() != "over":
        table.advance(table.version)
    view = table.view()
    assert len(view["log"]) == 12 and view["result"]["truncated"] and "cut off" in view["result"]["text"]
    rec = table.record()
    assert rec.truncated and record.replay(rec).blocked


@pytest.mark.parametrize("chosen", ["illegal", None, 10**6])
def test_an_agent_choosing_an_illegal_action_is_a_500_naming_it_and_the_table_is_unchanged(chosen):
    from kc_env.agents.base import Agent
    from kc_env.rules import Rules
    from kc_env.web.games import GameError, Table

    class Wrong(Agent):
        spec = "wrong"

        def act(self, obs):
            return int((obs["action_mask"] == 0).nonzero()[0][0]) if chosen == "illegal" else chosen

    table = Table(Rules(), "standard", ["wrong", "wrong"], [Wrong(), Wrong()], seed=3, one_deal=True)
    before = table.view()
    with pytest.raises(GameError) as refused:
        table.advance(table.version)
    said = str(refused.value)
    assert refused.value.status == 500 and "\n" not in said and said.startswith("'p") and "not legal" in said, said
    assert said.endswith("which is not legal; the table is unchanged") and table.view() == before
