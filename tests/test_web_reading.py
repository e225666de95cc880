"""What a card player reads at the web table (issue 36 item 10): seeds with every digit, the
replay naming the seats as the game did, a sorted hand, cards written with suit symbols in the
log, the refusals and the advice, and the seats chosen from the agents the server offers."""

from __future__ import annotations

import json
import random
import re

import pytest

from kc_env import engine, record
from kc_env.match import deal_seed

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from starlette.testclient import TestClient  # noqa: E402
from web_api import play_out, post  # noqa: E402

from kc_env.web import views  # noqa: E402
from kc_env.web.app import create_app  # noqa: E402
from kc_env.web.store import Store  # noqa: E402

JSON = {"Content-Type": "application/json"}
BIG = 7753467294573964965
"""A seed past 2**53: a JavaScript number would read it as 7753467294573965000."""


@pytest.fixture
def client():
    with TestClient(create_app(Store(), pace=0), base_url="http://127.0.0.1:8000") as c:
        yield c


def new(client, seats=("you", "heuristic"), one_deal=True, seed=3, status=201):
    body = {"seats": list(seats), "one_deal": one_deal, "seed": seed, "rules": {"preset": "standard"}}
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    return response.json()


def card_text(card: int) -> str:
    return engine.card_name(card, symbols=True)




def replayed(client, view):
    text = client.get(f"/api/games/{view['id']}/record").text
    response = client.post("/api/replays", content=text, headers=JSON)
    assert response.status_code == 201, response.text
    return text, response.json()


# -- record: who sat where ------------------------------------------------------------------------------

def test_a_record_keeps_who_sat_at_each_seat_and_refuses_a_bad_list():
    state = engine.new_deal("standard", 2, seed=3)
    rec = record.GameRecord.from_state(state, [], players=["you", "heuristic"])
    assert record.loads(record.dumps(rec)).players == ("you", "heuristic")
    assert record.loads(record.dumps(record.GameRecord.from_state(state, []))).players is None
    data = rec.to_dict()
    for bad in (["you"], ["you", 3], "you,heuristic", ["you", "x" * 201]):
        with pytest.raises(record.RecordError, match="'players'"):
            record.from_dict({**data, "players": bad})


# -- seeds ----------------------------------------------------------------------------------------------

def test_seeds_travel_as_text_with_every_digit(client):
    view = new(client, seed=str(BIG), one_deal=False)
    assert view["setup"]["seed"] == str(BIG)
    assert view["deal"]["seed"] == str(deal_seed(BIG, 0))
    assert record.loads(client.get(f"/api/games/{view['id']}/record").text).seed == BIG
    assert new(client, seed=11)["setup"]["seed"] == "11"  # a number, as older pages send it, still reads


@pytest.mark.parametrize("seed", ["", " 7", "7a", "-3", "1e5", "٣", str(2**63), 2.5, True, [7]])
def test_a_seed_that_is_not_plain_digits_is_refused_in_one_line(client, seed):
    response = client.post("/api/games", json={"seats": ["you", "random"], "seed": seed})
    assert response.status_code == 400 and "seed" in response.json()["error"], response.text


def test_a_replayed_game_shows_the_seed_of_its_record_with_every_digit(client):
    view = play_out(client, new(client, seed=str(BIG)), random.Random(1))
    text, replay = replayed(client, view)
    rec = record.loads(text)
    assert replay["setup"]["seed"] == str(rec.seed) == view["deal"]["seed"]
    assert json.loads(client.get(f"/api/games/{replay['id']}").text)["deal"]["seed"] == str(rec.seed)


# -- names ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("one_deal", [True, False])
def test_a_replay_names_the_seats_as_the_game_did(client, one_deal):
    view = new(client, seats=("you", "greedy"), one_deal=one_deal, seed=5)
    while view["waiting"] not in ("over", "next_deal"):
        view = post(client, view, "move" if view["waiting"] == "person" else "advance",
                    **({"action": view["legal"][0]["action"]} if view["waiting"] == "person" else {}))
    if not one_deal:
        view = post(client, view, "advance")  # the next deal: the saved match holds the first
    _, replay = replayed(client, view)
    names = [s["name"] for s in view["setup"]["seats"]]
    assert names == ["p0 (you)", "p1 greedy"]
    assert [s["name"] for s in replay["setup"]["seats"]] == names
    assert [h["name"] for h in replay["table"]["hands"]] == names


def test_a_record_without_names_replays_with_seat_numbers(client):
    rec = record.GameRecord.from_state(engine.new_deal("standard", 3, seed=2), [])
    replay = client.post("/api/replays", content=record.dumps(rec), headers=JSON).json()
    assert [s["name"] for s in replay["setup"]["seats"]] == ["p0", "p1", "p2"]


# -- cards as the table draws them ----------------------------------------------------------------------

def test_every_hand_is_sorted_by_suit_then_rank(client):
    view = new(client, seats=("heuristic", "random", "greedy"), seed=8)
    state = engine.new_deal("standard", 3, seed=int(view["deal"]["seed"]))
    hands = [[c["id"] for c in h["cards"]] for h in view["table"]["hands"]]
    assert hands == [sorted(h) for h in state.hands] and hands != state.hands
    mine = new(client, seats=("you", "random"), seed=8)["table"]["hands"][0]["cards"]
    assert [(c["suit"], c["rank"]) for c in mine] == sorted((c["suit"], c["rank"]) for c in mine)


def test_the_log_writes_cards_as_the_table_draws_them(client):
    view = new(client, seats=("random", "random"), seed=4)
    while not any(e["name"].startswith("play ") for e in view["log"]):
        view = post(client, view, "advance")
    played = next(e for e in view["log"] if e["name"].startswith("play "))
    card = engine.parse_move(played["name"]).card
    assert played["text"] == f"play {card_text(card)} on {played['name'].split('->')[1]}"
    assert all("->" not in e["text"] for e in view["log"])


def test_a_refusal_writes_its_cards_with_suit_symbols(client):
    view = new(client, seats=("you", "random"), seed=3)
    while view["waiting"] != "person":
        view = post(client, view, "advance")
    legal = {(m["card"], m["pile"]) for m in view["legal"] if m["kind"] == "play"}
    card, pile = next((c["id"], p) for c in view["table"]["hands"][0]["cards"] for p in range(4)
                      if c["id"] < 52 and (c["id"], p) not in legal)
    said = post(client, view, "move", status=422, move=engine.move_name(engine.PlayCard(card, pile)))["error"]
    shown = engine.card_name(card, symbols=True)
    assert said.startswith(f"play {shown} on {engine.PILE_NAMES[pile]}: {shown} may not go on"), said
    assert not re.search(r"\b(10|[2-9AJQK])[CDHS]\b", said), said


def test_advice_names_its_moves_with_suit_symbols(client):
    view = new(client, seats=("random", "you"), seed=5)
    advice = client.get(f"/api/games/{view['id']}/advice?spec=ppo-standard-2p").json()
    for m in advice["probabilities"]:
        assert m["text"] == views.move_text(engine.parse_move(m["name"])) and "->" not in m["text"]
    assert advice["choice_text"] == views.move_text(engine.parse_move(advice["choice"]))


@pytest.mark.parametrize(("text", "shown"), [
    ("9H may not go on N: it does not fit on 10S", "9♥ may not go on N: it does not fit on 10♠"),
    ("play 10D->SE", "play 10♦ on SE"),
    ("move NW->SE", "move NW onto SE"),
    ("only a king (or a joker) may go into an empty corner", "only a king (or a joker) may go into an empty corner"),
    ("must_play is 'all' and play JK2->N can still be played", "must_play is 'all' and play JK on N can still be played"),
    ("AS, KC and QD; NE and SW stay", "A♠, K♣ and Q♦; NE and SW stay"),
])
def test_card_codes_in_a_sentence_are_written_with_suit_symbols(text, shown):
    assert views.with_symbols(text) == shown


# -- seats ----------------------------------------------------------------------------------------------

def test_the_config_groups_the_agents_a_seat_may_hold(client):
    config = client.get("/api/config").json()
    groups = {a["spec"]: a["group"] for a in config["agents"]}
    assert [s for s, g in groups.items() if g == "rule-based"] == ["heuristic", "greedy", "random", "search"]
    assert groups["ppo-standard-2p"] == "model" and set(groups.values()) == {"rule-based", "model"}
    assert all(a["about"] for a in config["agents"])


def test_a_match_over_after_one_deal_says_deal_not_deals():
    from kc_env.match import Match, play_deal

    match = Match({"preset": "standard", "scoring": "single"}, 2, seed=3)
    state = match.new_deal()
    play_deal(state, lambda state, moves: moves[0])
    match.record_deal(state)
    assert "The match is over after 1 deal: " in views.match_books(match, ["p0 (you)", "p1 heuristic"])["text"]
