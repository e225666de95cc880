"""The web table against hostile and heavy requests (the reliability report's H-1, H-2, M-3, M-4,
M-5, L-4): concurrent advances of every shipped model never kill the server, search options are
bounded, a request names only offered models, other sites and other host names are refused, the
adviser cache does not grow with every spec, and every error is one JSON line."""

from __future__ import annotations

import json
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402

from kc_env import actions, engine, observation  # noqa: E402
from kc_env.agents import load  # noqa: E402
from kc_env.agents.policy_model import shipped_models  # noqa: E402
from kc_env.web.app import create_app  # noqa: E402
from kc_env.web.store import Store  # noqa: E402

HERE = "http://127.0.0.1:8000"


@pytest.fixture
def store():
    return Store()


@pytest.fixture
def client(store):
    with TestClient(create_app(store, pace=0), base_url=HERE) as c:
        yield c


def new(client, seats, status=201, **more):
    response = client.post("/api/games", json={"seats": list(seats), "seed": 3, "one_deal": True, **more})
    assert response.status_code == status, response.text
    return response.json()


def refusal(response, status):
    """The one-line JSON error of a refused request."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert isinstance(error, str) and "\n" not in error
    return error


# -- H-1: concurrent advances of every shipped model --------------------------------------------------

def players(spec: str) -> int:
    return getattr(load(spec), "card", {}).get("num_players", 2)


def position(players: int) -> dict:
    state = engine.new_deal("standard", players, seed=1)
    return {"observation": observation.encode(state, state.current_player), "action_mask": actions.legal_mask(state)}


def test_concurrent_advances_of_every_shipped_model_at_several_tables(client):
    specs = [*shipped_models(), "search:redeals=4"]
    tables = [(spec, new(client, [spec] * players(spec))) for spec in specs for _ in range(2)]
    for spec in specs:  # compiled (a cold cache takes minutes) before the race
        load(spec).act(position(players(spec)))
    problems = []

    def drive(spec, view):
        for _ in range(2 if spec.startswith("search") else 12):
            answer = client.post(f"/api/games/{view['id']}/advance", json={"at": view["version"]})
            advice = client.get(f"/api/games/{view['id']}/advice", params={"spec": "ppo-standard-2p"})
            if answer.status_code != 200 or advice.status_code not in (200, 409):
                problems.append((spec, answer.status_code, answer.text[:200], advice.text[:200]))
                return
            view = answer.json()
            if view["waiting"] == "over":
                return

    threads = [threading.Thread(target=drive, args=table) for table in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert problems == []


# -- H-2: search options are bounded ----------------------------------------------------------------

@pytest.mark.parametrize(("spec", "says"), [
    ("search:redeals=257", "redeals"),
    ("search:candidates=17", "candidates"),
    ("search:redeals=200,candidates=8", "play-outs"),
    ("search:redeals=100,others=heuristic+greedy+random", "play-outs"),
    ("search:margin=inf", "margin"),
    ("search:redeals=3000000", "redeals"),
    ("search:candidates=1000000000000", "candidates"),
    ("heuristic:card=" + "1" * 300, "long"),
])
def test_a_search_beyond_the_servers_budget_is_refused_at_the_table_and_the_adviser(client, spec, says):
    assert says in refusal(client.post("/api/games", json={"seats": [spec, "random"]}), 400)
    view = new(client, ["you", "random"])
    assert says in refusal(client.get(f"/api/games/{view['id']}/advice", params={"spec": spec}), 400)


def test_a_search_within_the_budget_is_seated():
    assert new_table_ok("search:redeals=256,candidates=3") and new_table_ok("search:candidates=16,redeals=60")


def new_table_ok(spec):
    with TestClient(create_app(Store(), pace=0), base_url=HERE) as c:
        return c.post("/api/games", json={"seats": [spec, "random"]}).status_code == 201


def test_the_thinking_requests_at_once_are_capped(store):
    from kc_env.web import app as web

    assert web.THINKING >= 1
    app = create_app(store, pace=0)
    started, go = threading.Event(), threading.Event()
    inside = []

    class Slow:
        spec = "slow"

        def act(self, obs):
            inside.append(1)
            started.set()
            go.wait(10)
            return int(obs["action_mask"].nonzero()[0][0])

    with TestClient(app, base_url=HERE) as c:
        views = [new(c, ["random", "random"]) for _ in range(web.THINKING + 1)]
        for view in views:
            store.get(view["id"]).agents[0] = store.get(view["id"]).agents[1] = Slow()
        answers = []
        threads = [threading.Thread(target=lambda v=v: answers.append(
            c.post(f"/api/games/{v['id']}/advance", json={"at": v["version"]}).status_code)) for v in views]
        for t in threads:
            t.start()
        assert started.wait(10)
        time.sleep(0.5)
        assert len(inside) == web.THINKING  # one request waits for a free thinker
        go.set()
        for t in threads:
            t.join(10)
    assert answers == [200] * len(views)


# -- M-3: a request names only offered models --------------------------------------------------------

def test_a_search_blueprint_in_a_request_is_an_offered_model_not_a_path(client):
    folder = str(shipped_models()["turn-ranking-2p"])
    error = refusal(client.post("/api/games", json={"seats": [f"search:blueprint={folder}", "random"]}), 400)
    assert "blueprint" in error and "turn-ranking-2p" in error
    new(client, ["search:blueprint=turn-ranking-2p,redeals=4", "random"])


# -- M-4: other sites and other host names -----------------------------------------------------------

def test_a_request_naming_another_host_is_refused(client):
    assert "evil.example" in refusal(client.get("/api/config", headers={"Host": "evil.example:8000"}), 403)
    for host in ("localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1"):
        assert client.get("/api/config", headers={"Host": host}).status_code == 200, host


def test_a_request_from_another_site_is_refused(client):
    for origin in ("http://evil.example", "http://127.0.0.1:3000", "null"):
        response = client.post("/api/games", json={"seats": ["random", "random"]}, headers={"Origin": origin})
        assert "origin" in refusal(response, 403).lower()
    assert client.post("/api/games", json={"seats": ["random", "random"]}, headers={"Origin": HERE}).status_code == 201


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_sent_as_json_is_refused(client, kind):
    headers = {} if kind is None else {"Content-Type": kind}
    response = client.post("/api/games", content=b'{"seats": ["random", "random"]}', headers=headers)
    assert "application/json" in refusal(response, 415)


def test_the_servers_own_names_follow_its_address():
    with TestClient(create_app(Store(), pace=0, hosts=["table.lan"]), base_url="http://table.lan:8000") as c:
        assert c.get("/api/config").status_code == 200
        refusal(c.get("/api/config", headers={"Host": "127.0.0.1:8000"}), 403)


def test_a_replay_of_more_deals_than_a_table_plays_is_refused_before_it_is_replayed(client):
    from kc_env.web.games import MAX_DEALS

    text = json.dumps({"format": "kc_env.match", "version": 1, "rules": {"preset": "standard"}, "num_players": 2,
                       "seed": 1, "deals": [{"moves": []}] * (MAX_DEALS + 1)})
    response = client.post("/api/replays", content=text, headers={"Content-Type": "application/json"})
    assert f"{MAX_DEALS + 1} deals" in refusal(response, 413)


def test_a_replay_of_more_moves_than_the_server_keeps_is_refused_before_it_is_replayed(client):
    from kc_env.web.app import MAX_REPLAY_MOVES

    text = json.dumps({"format": "kc_env.game", "version": 1, "rules": {"preset": "standard"}, "num_players": 2,
                       "seed": 1, "moves": ["end turn"] * (MAX_REPLAY_MOVES + 1)})
    response = client.post("/api/replays", content=text, headers={"Content-Type": "application/json"})
    assert f"{MAX_REPLAY_MOVES + 1:,} moves" in refusal(response, 413)


def test_a_match_saved_before_its_first_deal_ended_is_refused_and_not_kept():
    """A probe of the web table: the server's own record of a match in its first deal (no deal
    finished) was refused with a 409 only after the store had kept it, evicting the oldest game."""
    store = Store(capacity=2)
    with TestClient(create_app(store, pace=0), base_url=HERE) as c:
        first = c.post("/api/games", json={"seats": ["you", "heuristic"], "seed": 4}).json()["id"]
        second = c.post("/api/games", json={"seats": ["you", "heuristic"], "seed": 5}).json()["id"]
        saved = c.get(f"/api/games/{second}/record")
        assert saved.json()["deals"] == []
        response = c.post("/api/replays", content=saved.text, headers={"Content-Type": "application/json"})
        assert "no finished deal" in refusal(response, 400)
        assert c.get(f"/api/games/{first}").status_code == 200


def test_kc_serve_answers_to_the_address_it_listens_on_and_the_names_allowed(capsys):
    import socket

    from kc_env.cli import main
    from kc_env.commands.serve import own_names

    assert {"127.0.0.1", "localhost", "::1"} <= set(own_names("127.0.0.1", []))
    assert "10.0.0.7" in own_names("10.0.0.7", []) and "10.0.0.7" not in own_names("127.0.0.1", [])
    assert {socket.gethostname(), "table.lan"} <= set(own_names("0.0.0.0", ["table.lan"]))
    assert main(["serve", "--allow-host", "http://x/"]) == 2
    assert capsys.readouterr().err == "kc serve: --allow-host takes a host name or address (no port), not 'http://x/'\n"
    assert main(["serve", "--allow-host", "table.lan:80"]) == 2  # a probe: accepted, and never matched
    assert "(no port), not 'table.lan:80'" in capsys.readouterr().err


def test_kc_serve_prints_an_address_it_answers_to():
    """A probe of the web table: --host 0.0.0.0 printed http://0.0.0.0:PORT/, which it refuses (403)."""
    from kc_env.commands.serve import own_names, shown_address

    for host in ("0.0.0.0", "::", "127.0.0.1", "10.0.0.7"):
        assert shown_address(host).strip("[]") in own_names(host, []), host
    assert shown_address("::1") == "[::1]"


def test_kc_serve_offers_model_folders_only_and_each_once(tmp_path, capsys):
    """A probe of the web table: --model took any agent spec (a search beyond the request bounds, a
    shipped name, the same folder named twice), each listed as "an exported model"."""
    import shutil

    from kc_env.cli import main

    for spec in ("heuristic", "search:redeals=4096", "ppo-standard-2p"):
        with pytest.raises(ValueError, match="is not an exported model folder"):
            Store(models=[spec])
    assert main(["serve", "--model", "heuristic"]) == 2
    assert "is not an exported model folder" in capsys.readouterr().err
    shipped = shipped_models()["ppo-standard-2p"]
    mine = shutil.copytree(shipped, tmp_path / "mine")
    store = Store(models=[str(shipped), str(mine), f"{tmp_path}/../{tmp_path.name}/mine"])
    assert list(store.models) == [str(mine)]


def test_kc_serve_beyond_this_machine_says_anyone_can_exhaust_it():
    from kc_env.commands.serve import exposure_note

    assert exposure_note("127.0.0.1") is None
    note = exposure_note("0.0.0.0")
    assert "anyone" in note and "exhaust" in note and "\n" not in note


def test_the_tables_of_an_exported_model_share_its_network_not_its_dice(store):
    first, second = store.agent("ppo-standard-2p", 1), store.agent("ppo-standard-2p", 2)
    assert first is not second and first.network is second.network
    assert first._rng is not second._rng
    assert first.act(position(2)) == load("ppo-standard-2p").act(position(2))


# -- M-5: the adviser cache ------------------------------------------------------------------------------

def test_only_offered_agents_are_kept_as_advisers(store):
    assert store.adviser("ppo-standard-2p") is store.adviser("ppo-standard-2p")
    assert store.adviser("heuristic:card=1.1") is not store.adviser("heuristic:card=1.1")


# -- L-4: every error is one JSON line ----------------------------------------------------------------------

def test_an_unexpected_failure_is_a_json_500(store, monkeypatch):
    from kc_env.web.games import Table

    def broken(self, **where):
        raise RuntimeError("the view broke\nacross lines")

    with TestClient(create_app(store, pace=0), base_url=HERE, raise_server_exceptions=False) as c:
        view = new(c, ["random", "random"])
        monkeypatch.setattr(Table, "view", broken)
        assert "the view broke" in refusal(c.get(f"/api/games/{view['id']}"), 500)
